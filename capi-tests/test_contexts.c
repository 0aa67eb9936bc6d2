/* Context API: create/free cctx & dctx, compress_ctx/decompress_ctx,
 * getitem_ctx, getitem_bytes_ctx, ctx_get_cparams/dparams, defaults getters. */
#include "test_common.h"

static void test_defaults(void) {
  blosc2_cparams cp = blosc2_get_blosc2_cparams_defaults();
  CHECK_EQ_INT(cp.compcode, BLOSC_BLOSCLZ);
  CHECK_EQ_INT(cp.clevel, 5);
  CHECK_EQ_INT(cp.typesize, 8);
  CHECK_EQ_INT(cp.nthreads, 1);
  CHECK_EQ_INT(cp.blocksize, 0);
  CHECK_EQ_INT(cp.splitmode, BLOSC_FORWARD_COMPAT_SPLIT);
  CHECK_EQ_INT(cp.use_dict, 0);
  CHECK(cp.schunk == NULL && cp.prefilter == NULL && cp.preparams == NULL);
  for (int i = 0; i < BLOSC2_MAX_FILTERS - 1; i++) CHECK_EQ_INT(cp.filters[i], 0);
  CHECK_EQ_INT(cp.filters[BLOSC2_MAX_FILTERS - 1], BLOSC_SHUFFLE);
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) CHECK_EQ_INT(cp.filters_meta[i], 0);
  CHECK(memcmp(&cp.filters, &BLOSC2_CPARAMS_DEFAULTS.filters, sizeof(cp.filters)) == 0);

  blosc2_dparams dp = blosc2_get_blosc2_dparams_defaults();
  CHECK_EQ_INT(dp.nthreads, 1);
  CHECK(dp.schunk == NULL && dp.postfilter == NULL && dp.postparams == NULL);
  CHECK_EQ_INT(dp.typesize, BLOSC2_DPARAMS_DEFAULTS.typesize);
}

static void test_get_params(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.clevel = 7;
  cp.typesize = 2;
  cp.nthreads = 2;
  cp.blocksize = 8192;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[3] = BLOSC_TRUNC_PREC;
  cp.filters_meta[3] = 10;
  cp.filters[4] = BLOSC_DELTA;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  blosc2_cparams got;
  memset(&got, 0xFF, sizeof(got));
  CHECK_EQ_INT(blosc2_ctx_get_cparams(cctx, &got), 0);
  CHECK_EQ_INT(got.compcode, BLOSC_ZSTD);
  CHECK_EQ_INT(got.clevel, 7);
  CHECK_EQ_INT(got.typesize, 2);
  CHECK_EQ_INT(got.nthreads, 2);
  CHECK_EQ_INT(got.blocksize, 8192);
  CHECK_EQ_INT(got.splitmode, BLOSC_NEVER_SPLIT);
  CHECK_EQ_INT(got.use_dict, 0);
  CHECK(got.schunk == NULL);
  CHECK(got.prefilter == NULL);
  CHECK_EQ_INT(got.filters[3], BLOSC_TRUNC_PREC);
  CHECK_EQ_INT(got.filters_meta[3], 10);
  CHECK_EQ_INT(got.filters[4], BLOSC_DELTA);
  CHECK_EQ_INT(got.filters[5], BLOSC_SHUFFLE);
  blosc2_free_ctx(cctx);

  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 3;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(dctx != NULL);
  blosc2_dparams dgot;
  memset(&dgot, 0xFF, sizeof(dgot));
  CHECK_EQ_INT(blosc2_ctx_get_dparams(dctx, &dgot), 0);
  CHECK_EQ_INT(dgot.nthreads, 3);
  CHECK(dgot.schunk == NULL);
  CHECK(dgot.postfilter == NULL);
  blosc2_free_ctx(dctx);
}

static void test_invalid_ctx_params(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[0] = BLOSC_LAST_FILTER;  /* reserved, not defined */
  CHECK(blosc2_create_cctx(cp) == NULL);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[2] = 20;                 /* reserved Blosc-defined range */
  CHECK(blosc2_create_cctx(cp) == NULL);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[2] = BLOSC_LAST_REGISTERED_FILTER + 1;  /* unregistered global id */
  CHECK(blosc2_create_cctx(cp) == NULL);
  /* freeing NULL contexts is harmless in practice for callers; not tested */
}

static void test_roundtrip(int compcode, int typesize, int nthreads, size_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)compcode;
  cp.typesize = typesize;
  cp.nthreads = (int16_t)nthreads;
  cp.clevel = 5;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(cctx != NULL && dctx != NULL);

  uint8_t *src = tc_malloc(nbytes), *dest = tc_malloc(nbytes + BLOSC2_MAX_OVERHEAD),
          *back = tc_malloc(nbytes + 16);
  tc_fill(src, nbytes, TC_FILL_SMOOTH_F64, (uint64_t)compcode);
  int csize = blosc2_compress_ctx(cctx, src, (int32_t)nbytes, dest, (int32_t)(nbytes + BLOSC2_MAX_OVERHEAD));
  CHECK_MSG(csize > BLOSC2_MAX_OVERHEAD, "codec %d ts %d nt %d n %zu csize %d", compcode, typesize,
            nthreads, nbytes, csize);
  if (csize > 0) {
    CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], typesize <= 255 ? typesize : 1);
    memset(back, 0x55, nbytes + 16);
    int dsize = blosc2_decompress_ctx(dctx, dest, csize, back, (int32_t)nbytes + 16);
    CHECK_EQ_INT(dsize, nbytes);
    CHECK_MEM(src, back, nbytes);
    /* bytes past nbytes untouched */
    for (int i = 0; i < 16; i++) CHECK(back[nbytes + i] == 0x55);
    /* same dctx reused */
    memset(back, 0, nbytes);
    CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, (int32_t)nbytes), nbytes);
    CHECK_MEM(src, back, nbytes);
    /* dest too small */
    CHECK(blosc2_decompress_ctx(dctx, dest, csize, back, (int32_t)nbytes - 1) < 0);
    /* srcsize smaller than the chunk */
    CHECK(blosc2_decompress_ctx(dctx, dest, csize - 1, back, (int32_t)nbytes) < 0);
    CHECK(blosc2_decompress_ctx(dctx, dest, 10, back, (int32_t)nbytes) < 0);

    /* getitem_ctx: items are counted in the stored typesize */
    int ts = dest[BLOSC2_CHUNK_TYPESIZE];
    int nitems_total = (int)(nbytes / (size_t)ts);
    /* nitems chosen so nitems*ts never equals a block size; that case is
       covered by test_getitem_blocksized.c (a known reference bug). */
    int start = nitems_total / 3, nitems = nitems_total / 4 - 1;
    uint8_t *items = tc_malloc((size_t)nitems * ts);
    CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, start, nitems, items, nitems * ts), nitems * ts);
    CHECK_MEM(items, src + (size_t)start * ts, (size_t)nitems * ts);
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, nitems_total, 1, items, nitems * ts) < 0);
    CHECK(blosc2_getitem_ctx(dctx, dest, csize, start, nitems, items, nitems * ts - 1) < 0);
    /* a compression context can also be used for getitem (as in c-blosc2) */
    memset(items, 0, (size_t)nitems * ts);
    CHECK_EQ_INT(blosc2_getitem_ctx(cctx, dest, csize, start, nitems, items, nitems * ts), nitems * ts);
    CHECK_MEM(items, src + (size_t)start * ts, (size_t)nitems * ts);
    free(items);

    /* getitem_bytes_ctx: unit is bytes, alignment to stored typesize */
    int32_t bstart = (int32_t)((nbytes / 5) / (size_t)ts * ts);
    int32_t blen = (int32_t)((nbytes / 7) / (size_t)ts * ts);
    uint8_t *bytes = tc_malloc((size_t)blen + 1);
    CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, bstart, blen, bytes, blen), blen);
    CHECK_MEM(bytes, src + bstart, blen);
    if (ts > 1) {
      CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, bstart + 1, blen, bytes, blen + 1),
                   BLOSC2_ERROR_INVALID_PARAM);
      CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, bstart, blen - 1, bytes, blen),
                   BLOSC2_ERROR_INVALID_PARAM);
    }
    CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, dest, csize, -ts, blen, bytes, blen),
                 BLOSC2_ERROR_INVALID_PARAM);
    free(bytes);

    /* Compressing with a decompression context fails (negative) */
    CHECK(blosc2_compress_ctx(dctx, src, (int32_t)nbytes, dest, (int32_t)(nbytes + BLOSC2_MAX_OVERHEAD)) < 0);
  }
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src); free(dest); free(back);
}

static void test_ctx_without_init(void) {
  /* Contexts must not require blosc2_init() (the process already called
     destroy before reaching here). */
  test_roundtrip(BLOSC_LZ4, 4, 1, 100000);
}

static void test_ctx_blocksize_and_splitmode(void) {
  size_t nbytes = 200000;
  uint8_t *src = tc_malloc(nbytes), *dest = tc_malloc(nbytes + BLOSC2_MAX_OVERHEAD),
          *back = tc_malloc(nbytes);
  tc_fill(src, nbytes, TC_FILL_RAMP32, 5);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16384;
  cp.splitmode = BLOSC_ALWAYS_SPLIT;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int csize = blosc2_compress_ctx(cctx, src, (int32_t)nbytes, dest, (int32_t)(nbytes + BLOSC2_MAX_OVERHEAD));
  CHECK(csize > 0);
  int32_t nb, cb, bs;
  CHECK(blosc2_cbuffer_sizes(dest, &nb, &cb, &bs) >= 0);
  CHECK_EQ_INT(nb, nbytes);
  CHECK_EQ_INT(cb, csize);
  CHECK_EQ_INT(bs, 16384);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FLAGS] & 0x10, 0);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, (int32_t)nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src); free(dest); free(back);
}

int main(void) {
  blosc2_init();
  test_defaults();
  test_get_params();
  test_invalid_ctx_params();
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  static const int typesizes[] = {1, 2, 4, 8, 16, 255, 256, 1000};
  for (int c = 0; c < 5; c++) {
    for (int t = 0; t < 8; t++) {
      test_roundtrip(codecs[c], typesizes[t], 1, 123456);
    }
    test_roundtrip(codecs[c], 8, 2, 1 << 20);
  }
  test_ctx_blocksize_and_splitmode();
  blosc2_destroy();
  test_ctx_without_init();
  TEST_MAIN_END("test_contexts");
}
