/* Profile driver: compress then decompress 4 MiB of sparse int64 (about 1%
   non-zero values) through one context, REPS times each, with the codec,
   clevel and filter given on the command line; 1 thread.  Built once against
   each library and run under callgrind (see benches/README.md, "Profiles"). */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s CODEC CLEVEL FILTER REPS\n", argv[0]);
    return 2;
  }
  int codec = atoi(argv[1]), clevel = atoi(argv[2]), filter = atoi(argv[3]);
  int reps = atoi(argv[4]);
  blosc2_init();
  const int n = 1 << 19;
  int64_t *src = calloc(n, sizeof(int64_t));
  uint64_t state = 1;
  for (int i = 0; i < n; i++) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    if ((state >> 33) % 100 == 0) src[i] = (int64_t)((state >> 20) % 1000000);
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = 8;
  cp.nthreads = 1;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  cp.splitmode = BLOSC_FORWARD_COMPAT_SPLIT;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int32_t cap = n * 8 + BLOSC2_MAX_OVERHEAD;
  char *chunk = malloc(cap);
  int csize = 0;
  for (int r = 0; r < reps; r++) csize = blosc2_compress_ctx(cctx, src, n * 8, chunk, cap);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  char *out = malloc(n * 8);
  int dsize = 0;
  for (int r = 0; r < reps; r++) dsize = blosc2_decompress_ctx(dctx, chunk, csize, out, n * 8);
  printf("compressed %d bytes, decompressed %d\n", csize, dsize);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src);
  free(chunk);
  free(out);
  blosc2_destroy();
  return dsize == n * 8 ? 0 : 1;
}
