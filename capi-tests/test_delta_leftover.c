/* DELTA filter on a buffer whose size is not a multiple of the typesize must
 * round trip exactly, including the trailing partial item.
 * Known reference bug: c-blosc2 3.3.5 corrupts the last (nbytes % typesize)
 * bytes (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  static const int32_t sizes[] = {103003, 65541, 1001};
  static const int tss[] = {2, 4, 8};
  for (int si = 0; si < 3; si++) {
    for (int ti = 0; ti < 3; ti++) {
      int32_t n = sizes[si];
      uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
      tc_fill(src, n, TC_FILL_TEXT, (uint64_t)si);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = tss[ti];
      cp.filters[4] = BLOSC_DELTA;
      blosc2_context *cctx = blosc2_create_cctx(cp);
      int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
      CHECK(csize > 0);
      if (csize > 0) {
        CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
        CHECK_MSG(memcmp(src, back, n) == 0, "n %d ts %d: differs at byte %ld", n, tss[ti],
                  tc_first_diff(src, back, n));
      }
      blosc2_free_ctx(cctx);
      free(src); free(dest); free(back);
    }
  }
  blosc2_destroy();
  TEST_MAIN_END("test_delta_leftover");
}
