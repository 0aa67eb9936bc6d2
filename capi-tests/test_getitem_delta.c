/* getitem on a chunk compressed with the DELTA filter must return the
 * original items also for blocks after the first one (the delta reference
 * is the first block).
 * Known reference bug: c-blosc2 3.3.5 returns success with wrong bytes for
 * items outside block 0 (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  int32_t n = 256 * 1024;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 2);
  static const uint8_t pipes[][BLOSC2_MAX_FILTERS] = {
    {0, 0, 0, 0, 0, BLOSC_DELTA},
    {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE},
  };
  for (int p = 0; p < 2; p++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.blocksize = 32 * 1024;
    memcpy(cp.filters, pipes[p], BLOSC2_MAX_FILTERS);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    REQUIRE(cctx != NULL);
    int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    blosc2_free_ctx(cctx);
    CHECK(csize > 0);
    if (csize <= 0) continue;
    blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
    static const int starts[] = {0, 100, 4096, 5000, 20000, 32000};
    for (int s = 0; s < 6; s++) {
      double items[100];
      int rc = blosc2_getitem_ctx(dctx, dest, csize, starts[s], 100, items, sizeof(items));
      CHECK_EQ_INT(rc, sizeof(items));
      CHECK_MSG(memcmp(items, src + (size_t)starts[s] * 8, sizeof(items)) == 0,
                "pipe %d start %d: wrong items", p, starts[s]);
      rc = blosc1_getitem(dest, starts[s], 100, items);
      CHECK_EQ_INT(rc, sizeof(items));
      CHECK_MSG(memcmp(items, src + (size_t)starts[s] * 8, sizeof(items)) == 0,
                "pipe %d start %d: wrong items (blosc1_getitem)", p, starts[s]);
    }
    blosc2_free_ctx(dctx);
  }
  free(src); free(dest);
  blosc2_destroy();
  TEST_MAIN_END("test_getitem_delta");
}
