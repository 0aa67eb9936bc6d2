/* A user-requested blocksize that is not a multiple of the typesize must
 * still give chunks that decompress to the original data (the library may
 * round the blocksize, as its docs say blocksizes have restrictions).
 * Known reference bug: c-blosc2 3.3.5 keeps e.g. blocksize 16384 for
 * typesize 12 and then fails (-3) or returns wrong data on decompression
 * (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  int32_t n = 250000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  static const int filters[] = {BLOSC_NOFILTER, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_DELTA};
  static const int kinds[] = {TC_FILL_RAMP32, TC_FILL_SMOOTH_F64, TC_FILL_TEXT};
  for (int f = 0; f < 4; f++) {
    for (int k = 0; k < 3; k++) {
      tc_fill(src, n, kinds[k], (uint64_t)k);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 12;
      cp.blocksize = 16384;
      cp.compcode = BLOSC_LZ4;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filters[f];
      blosc2_context *cctx = blosc2_create_cctx(cp);
      REQUIRE(cctx != NULL);
      int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
      blosc2_free_ctx(cctx);
      CHECK_MSG(csize > 0, "filter %d kind %d: csize %d", filters[f], kinds[k], csize);
      if (csize <= 0) continue;
      memset(back, 0, n);
      int dsize = blosc2_decompress(dest, csize, back, n);
      CHECK_MSG(dsize == n, "filter %d kind %d: dsize %d", filters[f], kinds[k], dsize);
      CHECK_MSG(memcmp(src, back, n) == 0, "filter %d kind %d: data differs at byte %ld",
                filters[f], kinds[k], tc_first_diff(src, back, n));
    }
  }
  free(src); free(dest); free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_blocksize_typesize_mismatch");
}
