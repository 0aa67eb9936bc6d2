/* A chunk's blocks must lie inside its own cbytes.  When the header's cbytes
 * is smaller than where the last block's streams end, decoding fails even if
 * the caller's buffer holds more bytes after the chunk (in a frame those are
 * the next chunk's bytes).
 * Known reference difference: c-blosc2 3.3.5 bounds block reads by the
 * source size the caller passes, not by cbytes, and decodes such chunks (see
 * KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

static void set_cbytes(uint8_t *chunk, int32_t cbytes) {
  for (int i = 0; i < 4; i++) chunk[12 + i] = (uint8_t)((uint32_t)cbytes >> (8 * i));
}

int main(void) {
  blosc2_init();
  int32_t n = 65536;
  uint8_t *src = tc_malloc(n), *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16384;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  int csize = blosc2_compress_ctx(cctx, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(cctx);
  REQUIRE(csize > BLOSC_EXTENDED_HEADER_LENGTH + 16);
  REQUIRE((chunk[2] & BLOSC_MEMCPYED) == 0);
  CHECK_EQ_INT(blosc2_decompress(chunk, csize, back, n), n);
  CHECK_MEM(src, back, n);

  /* cbytes cut by 1, 3 and 8 bytes: the last block ends past it. */
  static const int32_t cuts[] = {1, 3, 8};
  for (int c = 0; c < 3; c++) {
    set_cbytes(chunk, csize - cuts[c]);
    int32_t nbytes = 0, cbytes = 0, blocksize = 0;
    CHECK_EQ_INT(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize), 0);
    CHECK_EQ_INT(cbytes, csize - cuts[c]);
    /* The whole buffer offered, and exactly cbytes offered. */
    CHECK_MSG(blosc2_decompress(chunk, csize, back, n) < 0, "cut %d, whole buffer", cuts[c]);
    CHECK_MSG(blosc2_decompress(chunk, csize - cuts[c], back, n) < 0, "cut %d, cbytes", cuts[c]);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    REQUIRE(dctx != NULL);
    CHECK_MSG(blosc2_decompress_ctx(dctx, chunk, csize, back, n) < 0, "cut %d, ctx", cuts[c]);
    /* An item of the last block cannot be read either; one of the first
       block still can. */
    int32_t item = 0;
    CHECK(blosc2_getitem_ctx(dctx, chunk, csize, n / 4 - 1, 1, &item, 4) < 0);
    CHECK_EQ_INT(blosc2_getitem_ctx(dctx, chunk, csize, 0, 1, &item, 4), 4);
    CHECK_MEM(src, &item, 4);
    blosc2_free_ctx(dctx);
  }
  free(src); free(chunk); free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_chunk_past_cbytes");
}
