/* A lossless filter pipeline in which DELTA is followed by two or more
 * reordering filters (shuffle/bitshuffle) must round trip exactly.
 * Known reference bug: c-blosc2 3.3.5 decodes such chunks to wrong data
 * (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  static const uint8_t pipes[][BLOSC2_MAX_FILTERS] = {
    {BLOSC_DELTA, BLOSC_SHUFFLE, 0, BLOSC_SHUFFLE, 0, 0},
    {BLOSC_DELTA, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, 0, 0, 0},
    {BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_BITSHUFFLE, 0, BLOSC_SHUFFLE, BLOSC_DELTA},
  };
  blosc2_init();
  int32_t n = 250000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 0);
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    static const int32_t blocksizes[] = {0, 16384};
    for (int b = 0; b < 2; b++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.blocksize = blocksizes[b];
      memcpy(cp.filters, pipes[p], BLOSC2_MAX_FILTERS);
      blosc2_context *cctx = blosc2_create_cctx(cp);
      REQUIRE(cctx != NULL);
      int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
      blosc2_free_ctx(cctx);
      CHECK_MSG(csize > 0, "pipe %zu: csize %d", p, csize);
      if (csize <= 0) continue;
      memset(back, 0, n);
      CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
      CHECK_MSG(memcmp(src, back, n) == 0, "pipe %zu blocksize %d: data differs at byte %ld", p,
                blocksizes[b], tc_first_diff(src, back, n));
    }
  }
  free(src); free(dest); free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_filters_delta_multishuffle");
}
