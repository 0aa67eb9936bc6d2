/* Each library decodes the other's chunks: both libraries compress the same
   16 MiB (int64 zeros with one word in a hundred set, typesize 8, one
   thread) in chunks of CHUNK_KIB, then each library's chunks are decoded by
   both, from the same addresses into the same output buffer, and the best
   of 20 passes is printed for each pair.  With identical chunk bytes (the
   program says whether they are), what is left to differ is the decoder's
   own code:

     gcc -O2 -I.ref/blosc2/include benches/profile/cross_decode.c -o cross_decode -ldl
     BS=8192 ./cross_decode $PWD/.ref/blosc2/lib/libblosc2.so.9 \
         $PWD/target/release/libblosc2.so 5 1 0 4096

   Arguments: LIB_A LIB_B CODEC CLEVEL FILTER CHUNK_KIB; BS in the
   environment sets blosc2_cparams.blocksize (0, automatic, by default). */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blosc2_lib.h"
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s LIB_A LIB_B CODEC CLEVEL FILTER CHUNK_KIB\n", argv[0]);
    return 2;
  }
  struct blosc2_lib libs[2];
  if (open_blosc2(argv[1], &libs[0]) || open_blosc2(argv[2], &libs[1])) return 1;
  int codec = atoi(argv[3]), clevel = atoi(argv[4]), filter = atoi(argv[5]);
  size_t chunk = (size_t)atoi(argv[6]) * 1024, total = (size_t)16 << 20;
  if (chunk == 0 || total % chunk != 0) return 2;
  size_t nchunks = total / chunk, slot = chunk + BLOSC2_MAX_OVERHEAD;
  uint8_t *src = malloc(total), *out = malloc(total);
  uint8_t *packed[2] = {malloc(nchunks * slot), malloc(nchunks * slot)};
  int32_t *csize[2] = {malloc(nchunks * sizeof(int32_t)), malloc(nchunks * sizeof(int32_t))};
  if (!src || !out || !packed[0] || !packed[1] || !csize[0] || !csize[1]) return 1;
  uint64_t state = 42;
  for (size_t i = 0; i < total / 8; i++) {
    int64_t v = next_word(&state) % 100 == 0 ? (int64_t)(next_word(&state) % 1000000) : 0;
    memcpy(src + 8 * i, &v, 8);
  }
  const char *bs = getenv("BS");
  for (int a = 0; a < 2; a++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codec;
    cp.clevel = (uint8_t)clevel;
    cp.typesize = 8;
    cp.nthreads = 1;
    cp.blocksize = bs ? atoi(bs) : 0;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
    blosc2_context *cctx = libs[a].new_cctx(cp);
    size_t bytes = 0;
    for (size_t k = 0; k < nchunks; k++) {
      csize[a][k] = libs[a].compress(cctx, src + k * chunk, (int32_t)chunk, packed[a] + k * slot,
                                     (int32_t)slot);
      if (csize[a][k] <= 0) return 1;
      bytes += (size_t)csize[a][k];
    }
    int32_t blocksize;
    memcpy(&blocksize, packed[a] + 8, 4);
    printf("chunks of %s: %zu bytes, blocksize %d\n", a ? "B" : "A", bytes, blocksize);
  }
  int same = 1;
  for (size_t k = 0; k < nchunks && same; k++)
    same = csize[0][k] == csize[1][k] && !memcmp(packed[0] + k * slot, packed[1] + k * slot,
                                                 (size_t)csize[0][k]);
  printf("the two libraries' chunks are %s\n", same ? "identical" : "different");
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 2; b++) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = 1;
      blosc2_context *dctx = libs[b].new_dctx(dp);
      double best = 1e30;
      for (int pass = 0; pass < 20; pass++) {
        double t0 = seconds();
        for (size_t k = 0; k < nchunks; k++) {
          if (libs[b].decompress(dctx, packed[a] + k * slot, csize[a][k], out + k * chunk,
                                 (int32_t)chunk) != (int)chunk)
            return 1;
        }
        double t = seconds() - t0;
        if (t < best) best = t;
      }
      if (memcmp(src, out, total) != 0) return 1;
      printf("chunks of %s decoded by %s: %.3f GB/s\n", a ? "B" : "A", b ? "B" : "A",
             (double)total / best / 1e9);
    }
  }
  return 0;
}
