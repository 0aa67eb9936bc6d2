/* getitem for a range whose byte length equals the chunk blocksize but that
 * does not start on a block boundary (so it spans two blocks) must return the
 * requested items.
 * Known reference bug: c-blosc2 3.3.5 decodes the second block straight into
 * the start of dest, overwriting the first part (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  int32_t n = 1 << 20;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *out = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 1);
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZSTD};
  for (int c = 0; c < 3; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.compcode = (uint8_t)codecs[c];
    cp.blocksize = 65536;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
    int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK(csize > 0);
    int32_t bs = 0;
    blosc2_cbuffer_sizes(dest, NULL, NULL, &bs);
    CHECK_EQ_INT(bs, 65536);
    int start = 1000, nitems = bs / 8;
    memset(out, 0, bs);
    CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, start, nitems, out, bs), bs);
    CHECK_MSG(memcmp(out, src + start * 8, bs) == 0, "codec %d: data differs at %ld", codecs[c],
              tc_first_diff(out, src + start * 8, bs));
    blosc2_free_ctx(cctx);
    blosc2_free_ctx(dctx);
  }
  free(src); free(dest); free(out);
  blosc2_destroy();
  TEST_MAIN_END("test_getitem_blocksized");
}
