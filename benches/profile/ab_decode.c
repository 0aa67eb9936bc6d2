/* One chunk decoded by two libraries in alternation: library A compresses
   KIB KiB of vs_reference's f64-linspace-noise values (typesize 8, one
   thread) with CODEC, CLEVEL and FILTER (0 none, 1 shuffle, 2 bitshuffle),
   then A and B decode that same chunk, from the same address into the same
   buffer, 20 times per pass, passes alternating, 60 each; the best pass of
   each is printed, and B's speed over A's.  For differences in the decoders'
   own code, and in where it lands in memory (DATA=zero: see below):

     gcc -O2 -I.ref/blosc2/include -Ibenches/profile benches/profile/ab_decode.c -o ab_decode -ldl
     ./ab_decode $PWD/.ref/blosc2/lib/libblosc2.so.9 $PWD/target/release/libblosc2.so 2 5 0 4096
*/
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2_lib.h"
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s LIB_A LIB_B CODEC CLEVEL FILTER KIB\n", argv[0]);
    return 2;
  }
  struct blosc2_lib lib[2];
  if (open_blosc2(argv[1], &lib[0]) || open_blosc2(argv[2], &lib[1])) return 1;
  const size_t total = (size_t)atoi(argv[6]) << 10, n = total / 8;
  uint8_t *src = malloc(total), *packed = malloc(total + 4096), *out = malloc(total);
  /* 0..100 over the buffer plus uniform noise of 1e-6, as vs_reference's
     f64-linspace-noise; with DATA=zero in the environment, int64 values
     of which one in a hundred is not zero, as its i64-mostly-zero. */
  const char *data = getenv("DATA");
  const int zero = data != NULL && strcmp(data, "zero") == 0;
  uint64_t w = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i++) {
    w ^= w << 13;
    w ^= w >> 7;
    w ^= w << 17;
    if (zero) {
      int64_t v = (w % 100 == 0) ? (int64_t)((w >> 20) % 1000000) : 0;
      memcpy(src + 8 * i, &v, 8);
      continue;
    }
    double v = (double)i * (100.0 / (double)(n - 1)) +
               ((double)(w >> 11) / 9007199254740992.0 - 0.5) * 1e-6;
    memcpy(src + 8 * i, &v, 8);
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)atoi(argv[3]);
  cp.clevel = (uint8_t)atoi(argv[4]);
  cp.typesize = 8;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)atoi(argv[5]);
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_context *cctx = lib[0].new_cctx(cp);
  blosc2_context *dctx[2] = {lib[0].new_dctx(dp), lib[1].new_dctx(dp)};
  int csize = lib[0].compress(cctx, src, (int32_t)total, packed, (int32_t)total + 4096);
  if (csize <= 0) {
    fprintf(stderr, "compression failed: %d\n", csize);
    return 1;
  }
  double best[2] = {1e30, 1e30};
  for (int pass = 0; pass < 60; pass++) {
    for (int k = 0; k < 2; k++) {
      double t0 = seconds();
      for (int i = 0; i < 20; i++) {
        if (lib[k].decompress(dctx[k], packed, csize, out, (int32_t)total) != (int)total) {
          fprintf(stderr, "decompression failed\n");
          return 1;
        }
      }
      double t = (seconds() - t0) / 20;
      if (t < best[k]) best[k] = t;
    }
  }
  if (memcmp(src, out, total) != 0) {
    fprintf(stderr, "round trip mismatch\n");
    return 1;
  }
  printf("A %.3f GB/s  B %.3f GB/s  B/A %.3f\n", (double)total / best[0] / 1e9,
         (double)total / best[1] / 1e9, best[0] / best[1]);
  return 0;
}
