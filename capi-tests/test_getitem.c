/* getitem family: blosc1_getitem, blosc2_getitem, blosc2_getitem_ctx,
 * blosc2_getitem_bytes_ctx over many (start, nitems) ranges, codecs,
 * typesizes, memcpyed chunks, bounds errors. */
#include "test_common.h"

static void sweep(int codec, int typesize, int clevel, int32_t blocksize, int32_t n) {
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *out = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, (uint64_t)(codec * 31 + typesize));
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.typesize = typesize;
  cp.clevel = (uint8_t)clevel;
  cp.blocksize = blocksize;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(cctx && dctx);
  int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  if (csize > 0) {
    int32_t bs = 0;
    blosc2_cbuffer_sizes(dest, NULL, NULL, &bs);
    int ts = dest[BLOSC2_CHUNK_TYPESIZE];
    int total = n / ts;
    uint64_t st = 12345 + (uint64_t)codec;
    for (int it = 0; it < 60; it++) {
      int start, nitems;
      if (it < 6) {  /* edge cases: first item, last item, everything, block edges */
        static const int fixed[6][2] = {{0, 1}, {-1, 1}, {0, -1}, {-2, -2}, {-3, -3}, {1, -4}};
        start = fixed[it][0] == -1 ? total - 1 : fixed[it][0] == -2 ? (bs / ts) - 1 :
                fixed[it][0] == -3 ? bs / ts : fixed[it][0];
        nitems = fixed[it][1] == -1 ? total : fixed[it][1] == -2 ? 2 : fixed[it][1] == -3 ? 1 :
                 fixed[it][1] == -4 ? total - 2 : fixed[it][1];
      } else {
        start = (int)(tc_rand(&st) % (uint32_t)total);
        nitems = 1 + (int)(tc_rand(&st) % (uint32_t)(total - start));
        if (nitems > 3000) nitems = 1 + nitems % 3000;
      }
      if (start + nitems > total || nitems <= 0) continue;
      /* Avoid nitems*ts == blocksize with an unaligned start (known reference
         bug, covered by test_getitem_blocksized.c). */
      if (nitems * ts == bs && (start * ts) % bs != 0) nitems--;
      if (nitems <= 0) continue;
      int nb = nitems * ts;
      memset(out, 0xEE, nb);
      CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, start, nitems, out, nb), nb);
      CHECK_MSG(memcmp(out, src + (size_t)start * ts, nb) == 0,
                "codec %d ts %d start %d nitems %d: getitem_ctx data", codec, typesize, start, nitems);
      memset(out, 0xEE, nb);
      CHECK_EQ_INT(blosc2_getitem(dest, csize, start, nitems, out, nb), nb);
      CHECK(memcmp(out, src + (size_t)start * ts, nb) == 0);
      memset(out, 0xEE, nb);
      CHECK_EQ_INT(blosc1_getitem(dest, start, nitems, out), nb);
      CHECK(memcmp(out, src + (size_t)start * ts, nb) == 0);
      memset(out, 0xEE, nb);
      CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, start * ts, nb, out, nb), nb);
      CHECK(memcmp(out, src + (size_t)start * ts, nb) == 0);
    }
    /* bounds */
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, total, 1, out, n) < 0);
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, total - 1, 2, out, n) < 0);
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, -1, 1, out, n) < 0);
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, 0, -1, out, n) < 0);
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, 0, 10, out, 10 * ts - 1) < 0);
    CHECK(blosc2_getitem_ctx(dctx, dest, BLOSC_MIN_HEADER_LENGTH - 1, 0, 1, out, n) < 0);
    CHECK(blosc2_getitem(dest, csize, total, 1, out, n) < 0);
    CHECK(blosc2_getitem_bytes_ctx(dctx, dest, csize, n, ts, out, n) < 0);
    /* zero items is fine and copies nothing */
    CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, 5, 0, out, n), 0);
  }
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src); free(dest); free(out);
}

static void wide_typesize(void) {
  /* typesize > 255 is stored as 1: getitem_ctx counts bytes, getitem_bytes_ctx too */
  int32_t n = 300 * 400;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *out = tc_malloc(n);
  tc_fill(src, n, TC_FILL_TEXT, 8);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 300;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], 1);
  CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, 300 * 7, 300 * 3, out, n), 900);
  CHECK_MEM(out, src + 2100, 900);
  CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, 300 * 11, 300 * 5, out, n), 1500);
  CHECK_MEM(out, src + 3300, 1500);
  CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, 7, 13, out, n), 13);
  CHECK_MEM(out, src + 7, 13);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src); free(dest); free(out);
}

static void memcpyed_chunk(void) {
  int32_t n = 100000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *out = tc_malloc(n);
  tc_fill(src, n, TC_FILL_RANDOM, 1);
  int csize = blosc2_compress(0, BLOSC_SHUFFLE, 4, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ_INT(csize, n + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ_INT(blosc2_getitem(dest, csize, 1000, 2000, out, n), 8000);
  CHECK_MEM(out, src + 4000, 8000);
  CHECK(blosc2_getitem(dest, csize - 100, 24000, 1000, out, n) < 0); /* truncated source */
  free(src); free(dest); free(out);
}

int main(void) {
  blosc2_init();
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  static const int typesizes[] = {1, 2, 4, 8, 16};
  for (int c = 0; c < 5; c++) {
    for (int t = 0; t < 5; t++) {
      sweep(codecs[c], typesizes[t], 5, 0, 200000);
      sweep(codecs[c], typesizes[t], 1 + c, 4096 * typesizes[t], 160000);
    }
  }
  sweep(BLOSC_LZ4, 4, 0, 0, 50000);  /* memcpyed path via getitem */
  wide_typesize();
  memcpyed_chunk();
  blosc2_destroy();
  TEST_MAIN_END("test_getitem");
}
