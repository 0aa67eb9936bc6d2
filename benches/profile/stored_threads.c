/* Plain-copy (stored) 4 MiB chunks decompressed with one and two threads,
   ROUNDS times in one process, each round with freshly allocated buffers:
   random bytes do not compress, so every call is one 4 MiB copy, split in
   two with two threads.  Prints, per round, the best of five passes of 150
   calls each (as benches/vs_reference/ times a row).  Shows how much the
   two-thread speed of such rows depends on where the buffers land:

     gcc -O2 -I.ref/blosc2/include benches/profile/stored_threads.c -o stored_threads -ldl
     ./stored_threads $PWD/target/release/libblosc2.so 3
     ./stored_threads $PWD/.ref/blosc2/lib/libblosc2.so.9 3                           */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blosc2_lib.h"
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIB ROUNDS\n", argv[0]);
    return 2;
  }
  struct blosc2_lib lib;
  if (open_blosc2(argv[1], &lib) != 0) return 1;
  const int32_t n = 4 << 20;
  int rounds = atoi(argv[2]);
  for (int round = 0; round < rounds; round++) {
    uint8_t *src = aligned_alloc(4096, (size_t)n);
    uint8_t *packed = aligned_alloc(4096, (size_t)n + 4096);
    uint8_t *out = aligned_alloc(4096, (size_t)n);
    if (!src || !packed || !out) return 1;
    uint64_t s = 1 + (uint64_t)round;
    for (int32_t i = 0; i < n; i++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      src[i] = (uint8_t)(s >> 56);
    }
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_LZ4;
    cp.typesize = 8;
    cp.nthreads = 1;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOSHUFFLE;
    blosc2_context *cctx = lib.new_cctx(cp);
    int csize = lib.compress(cctx, src, n, packed, n + 4096);
    lib.free_ctx(cctx);
    if (csize <= 0) return 1;
    printf("round %d:", round);
    for (int nthreads = 1; nthreads <= 2; nthreads++) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = (int16_t)nthreads;
      blosc2_context *dctx = lib.new_dctx(dp);
      double best = 1e30;
      for (int pass = 0; pass < 5; pass++) {
        double t0 = seconds();
        for (int call = 0; call < 150; call++) {
          if (lib.decompress(dctx, packed, csize, out, n) != n) return 1;
        }
        double t = (seconds() - t0) / 150;
        if (t < best) best = t;
      }
      lib.free_ctx(dctx);
      printf("  %d thread%s %.1f GB/s", nthreads, nthreads > 1 ? "s" : "", (double)n / best / 1e9);
    }
    printf("\n");
    if (memcmp(src, out, (size_t)n) != 0) return 1;
    free(src);
    free(packed);
    free(out);
  }
  return 0;
}
