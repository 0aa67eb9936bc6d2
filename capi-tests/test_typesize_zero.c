/* typesize 0 is out of range; compression must fail with a negative code or
 * treat the data as a byte stream, never crash.
 * Known reference bug: c-blosc2 3.3.5 dies with SIGFPE (division by zero)
 * in blosc2_compress/blosc1_compress (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  int32_t n = 10000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_TEXT, 1);
  int rc = blosc2_compress(5, BLOSC_SHUFFLE, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  if (rc > 0) {
    CHECK_EQ_INT(blosc2_decompress(dest, rc, back, n), n);
    CHECK_MEM(src, back, n);
  } else {
    CHECK(rc < 0);
  }
  rc = blosc1_compress(5, BLOSC_NOSHUFFLE, 0, n, src, dest, n + BLOSC2_MAX_OVERHEAD);
  if (rc > 0) {
    CHECK_EQ_INT(blosc1_decompress(dest, back, n), n);
    CHECK_MEM(src, back, n);
  } else {
    CHECK(rc < 0);
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 0;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (cctx != NULL) {
    rc = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    if (rc > 0) {
      CHECK_EQ_INT(blosc2_decompress(dest, rc, back, n), n);
      CHECK_MEM(src, back, n);
    }
    blosc2_free_ctx(cctx);
  }
  free(src); free(dest); free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_typesize_zero");
}
