/* User-defined codecs and filters: blosc2_register_codec /
 * blosc2_register_filter with ids 160..255, callbacks and metadata. */
#include "test_common.h"

static int enc_calls, dec_calls, fwd_calls, bwd_calls;
static int bad_meta;

/* Tiny run-length codec: pairs (count 1..255, byte). */
static int rle_encoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len, uint8_t meta,
                       blosc2_cparams *cparams, const void *chunk) {
  (void)cparams; (void)chunk;
  __atomic_add_fetch(&enc_calls, 1, __ATOMIC_SEQ_CST);
  if (meta != 42) __atomic_add_fetch(&bad_meta, 1, __ATOMIC_SEQ_CST);
  int32_t o = 0;
  for (int32_t i = 0; i < in_len;) {
    int32_t r = 1;
    while (i + r < in_len && r < 255 && in[i + r] == in[i]) r++;
    if (o + 2 > out_len) return 0;  /* does not fit: incompressible */
    out[o++] = (uint8_t)r;
    out[o++] = in[i];
    i += r;
  }
  return o;
}

static int rle_decoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len, uint8_t meta,
                       blosc2_dparams *dparams, const void *chunk) {
  (void)dparams; (void)chunk;
  __atomic_add_fetch(&dec_calls, 1, __ATOMIC_SEQ_CST);
  if (meta != 42) __atomic_add_fetch(&bad_meta, 1, __ATOMIC_SEQ_CST);
  int32_t o = 0;
  for (int32_t i = 0; i + 1 < in_len; i += 2) {
    if (o + in[i] > out_len) return BLOSC2_ERROR_WRITE_BUFFER;
    memset(out + o, in[i + 1], in[i]);
    o += in[i];
  }
  return o;
}

/* Filter: add `meta` to every byte (forward), subtract (backward). */
static int add_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                       blosc2_cparams *cparams, uint8_t id) {
  (void)cparams;
  __atomic_add_fetch(&fwd_calls, 1, __ATOMIC_SEQ_CST);
  if (id != 200) return BLOSC2_ERROR_FAILURE;
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] + meta);
  return BLOSC2_ERROR_SUCCESS;
}

static int add_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                        blosc2_dparams *dparams, uint8_t id) {
  (void)dparams;
  __atomic_add_fetch(&bwd_calls, 1, __ATOMIC_SEQ_CST);
  if (id != 200) return BLOSC2_ERROR_FAILURE;
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] - meta);
  return BLOSC2_ERROR_SUCCESS;
}

static void registration(void) {
  blosc2_codec codec = {0};
  codec.compcode = 160;
  codec.compname = "tc_rle";
  codec.complib = 160;
  codec.version = 1;
  codec.encoder = rle_encoder;
  codec.decoder = rle_decoder;
  CHECK_EQ_INT(blosc2_register_codec(&codec), 0);
  /* same id and name again: accepted */
  CHECK_EQ_INT(blosc2_register_codec(&codec), 0);
  /* same id, other name: rejected */
  blosc2_codec other = codec;
  other.compname = "tc_other";
  CHECK(blosc2_register_codec(&other) < 0);
  /* ids outside the user range */
  other.compcode = 159;
  CHECK(blosc2_register_codec(&other) < 0);
  other.compcode = 5;
  CHECK(blosc2_register_codec(&other) < 0);
  /* the name is now known */
  CHECK_EQ_INT(blosc2_compname_to_compcode("tc_rle"), 160);
  const char *name = NULL;
  CHECK_EQ_INT(blosc2_compcode_to_compname(160, &name), 160);
  CHECK_STR(name, "tc_rle");

  blosc2_filter filter = {0};
  filter.id = 200;
  filter.name = "tc_add";
  filter.version = 1;
  filter.forward = add_forward;
  filter.backward = add_backward;
  CHECK_EQ_INT(blosc2_register_filter(&filter), 0);
  CHECK_EQ_INT(blosc2_register_filter(&filter), 0);
  blosc2_filter f2 = filter;
  f2.name = "tc_add2";
  CHECK(blosc2_register_filter(&f2) < 0);
  f2.id = 100;
  CHECK(blosc2_register_filter(&f2) < 0);
  f2.id = 3;
  CHECK(blosc2_register_filter(&f2) < 0);
  /* max id is fine */
  f2.id = 255;
  f2.name = "tc_add255";
  CHECK_EQ_INT(blosc2_register_filter(&f2), 0);
}

static void use_codec(int nthreads) {
  int32_t n = 200000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  for (int32_t i = 0; i < n; i++) src[i] = (uint8_t)((i / 100) % 7);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = 160;
  cp.compcode_meta = 42;
  cp.typesize = 1;
  cp.nthreads = (int16_t)nthreads;
  cp.blocksize = 16384;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = 0;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  enc_calls = dec_calls = 0;
  int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK_MSG(csize > 0 && csize < n / 10, "csize %d", csize);
  CHECK(enc_calls >= n / 16384);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FLAGS] >> 5, BLOSC_UDCODEC_FORMAT);
  CHECK_EQ_INT(dest[22], 160);  /* user-defined codec slot of the extended header */
  CHECK_EQ_INT(dest[23], 42);   /* compcode_meta */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, n), n);
  CHECK_MEM(src, back, n);
  CHECK(dec_calls >= n / 16384);
  uint8_t items[1000];
  CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, 77777, 1000, items, sizeof(items)), 1000);
  CHECK_MEM(items, src + 77777, 1000);
  CHECK_EQ_INT(bad_meta, 0);
  blosc2_cparams got;
  CHECK_EQ_INT(blosc2_ctx_get_cparams(cctx, &got), 0);
  CHECK_EQ_INT(got.compcode, 160);
  CHECK_EQ_INT(got.compcode_meta, 42);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src); free(dest); free(back);
}

static void use_filter(void) {
  int32_t n = 100000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_TEXT, 5);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.filters[4] = 200;
  cp.filters_meta[4] = 17;
  cp.filters[5] = BLOSC_SHUFFLE;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  fwd_calls = bwd_calls = 0;
  int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK(fwd_calls > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 4], 200);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_META + 4], 17);
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
  CHECK_MEM(src, back, n);
  CHECK(bwd_calls > 0);
  blosc2_free_ctx(cctx);

  /* user filter + user codec together */
  cp.compcode = 160;
  cp.compcode_meta = 42;
  for (int32_t i = 0; i < n; i++) src[i] = (uint8_t)(i / 1000);
  cctx = blosc2_create_cctx(cp);
  csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  memset(back, 0, n);
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
  CHECK_MEM(src, back, n);
  blosc2_free_ctx(cctx);

  /* an unregistered user filter id is refused */
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[0] = 201;
  cctx = blosc2_create_cctx(cp);
  if (cctx != NULL) {
    CHECK(blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
    blosc2_free_ctx(cctx);
  }
  free(src); free(dest); free(back);
}

/* Tuners are registered under the same rules as codecs and filters: ids
   below 160 are Blosc's; the same id again is fine with the same name. */
static void tuner_registration(void) {
  blosc2_tuner t = {0};
  t.id = 20;
  t.name = "low-id-tuner";
  CHECK(blosc2_register_tuner(&t) < 0);
  t.id = 210;
  t.name = "tuner-210";
  CHECK_EQ_INT(blosc2_register_tuner(&t), 0);
  CHECK_EQ_INT(blosc2_register_tuner(&t), 0);
  t.name = "another-name";
  CHECK(blosc2_register_tuner(&t) < 0);
}

int main(void) {
  blosc2_init();
  registration();
  tuner_registration();
  use_codec(1);
  use_codec(2);
  use_filter();
  blosc2_destroy();
  TEST_MAIN_END("test_user_codec_filter");
}
