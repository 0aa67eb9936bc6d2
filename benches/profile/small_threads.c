/* A small chunk decompressed with one and two threads: 64 chunks of 64 KiB
   (float64 ramp plus small noise, typesize 8, clevel 5, shuffle) made of
   blocks of BLOCK bytes, decompressed in a loop; prints the best of 200
   passes as microseconds per chunk.  With several blocks per chunk, two
   threads can share a chunk, if handing the blocks over costs less than
   decoding them:

     gcc -O2 -I.ref/blosc2/include benches/profile/small_threads.c -o small_threads -ldl
     ./small_threads $PWD/target/release/libblosc2.so 5 16384
     ./small_threads $PWD/.ref/blosc2/lib/libblosc2.so.9 5 16384

   Arguments: LIB CODEC BLOCK.                                               */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2_lib.h"
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s LIB CODEC BLOCK\n", argv[0]);
    return 2;
  }
  struct blosc2_lib lib;
  if (open_blosc2(argv[1], &lib) != 0) return 1;
  enum { CHUNK = 65536, NCHUNKS = 64, SLOT = CHUNK + BLOSC2_MAX_OVERHEAD };
  uint8_t *src = malloc((size_t)CHUNK * NCHUNKS), *out = malloc((size_t)CHUNK * NCHUNKS);
  uint8_t *packed = malloc((size_t)SLOT * NCHUNKS);
  int32_t csize[NCHUNKS];
  if (!src || !out || !packed) return 1;
  uint64_t state = 42;
  for (size_t i = 0; i < (size_t)CHUNK * NCHUNKS / 8; i++) {
    double v = (double)i * 0.001 + (double)(next_word(&state) >> 40) * 1e-12;
    memcpy(src + 8 * i, &v, 8);
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)atoi(argv[2]);
  cp.clevel = 5;
  cp.typesize = 8;
  cp.nthreads = 1;
  cp.blocksize = atoi(argv[3]);
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  blosc2_context *cctx = lib.new_cctx(cp);
  for (int k = 0; k < NCHUNKS; k++) {
    csize[k] = lib.compress(cctx, src + (size_t)k * CHUNK, CHUNK, packed + (size_t)k * SLOT, SLOT);
    if (csize[k] <= 0) return 1;
  }
  for (int nthreads = 1; nthreads <= 2; nthreads++) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)nthreads;
    blosc2_context *dctx = lib.new_dctx(dp);
    double best = 1e30;
    for (int pass = 0; pass < 200; pass++) {
      double t0 = seconds();
      for (int k = 0; k < NCHUNKS; k++) {
        if (lib.decompress(dctx, packed + (size_t)k * SLOT, csize[k], out + (size_t)k * CHUNK, CHUNK) !=
            CHUNK)
          return 1;
      }
      double t = seconds() - t0;
      if (t < best) best = t;
    }
    printf("%d thread%s: %.2f us per chunk\n", nthreads, nthreads > 1 ? "s" : " ",
           best / NCHUNKS * 1e6);
  }
  return memcmp(src, out, (size_t)CHUNK * NCHUNKS) != 0;
}
