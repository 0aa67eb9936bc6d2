/* Compression calls where the reference misbehaves (listed in
 * KNOWN_REFERENCE_FAILURES.txt; found by fuzz/diff_compress):
 *  - the source is const: a pipeline of three or more filters must leave
 *    the caller's buffer as it was (the reference writes the third filter's
 *    output back into it, and with use_dict it compresses a second time from
 *    those bytes), and the chunk must decode to the input;
 *  - TRUNC_PREC passes the bytes after the last whole item through (the
 *    reference never writes them: they decode as scratch memory);
 *  - zstd with use_dict on data it cannot shrink: the chunk must decode (the
 *    reference stores it memcpyed but keeps the dict flag, and then refuses
 *    its own chunk with BLOSC2_ERROR_CODEC_DICT); such a chunk, as the
 *    reference writes it, decodes too. */
#include "test_common.h"

/* Compress `src` with `cp`, check the source is unchanged, decode the chunk
   and return its size (negative on failure); the chunk goes to `chunk`. */
static int round_trip(blosc2_cparams cp, const uint8_t *src, int32_t n, uint8_t *chunk,
                      uint8_t *back) {
  uint8_t *copy = tc_malloc(n);
  memcpy(copy, src, (size_t)n);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  int csize = blosc2_compress_ctx(cctx, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(cctx);
  CHECK_MSG(memcmp(copy, src, (size_t)n) == 0, "compression changed the source");
  free(copy);
  CHECK(csize > 0);
  if (csize <= 0) return csize;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(dctx != NULL);
  memset(back, 0xA5, (size_t)n);
  int dsize = blosc2_decompress_ctx(dctx, chunk, csize, back, n);
  blosc2_free_ctx(dctx);
  return dsize < 0 ? dsize : csize;
}

static void source_stays_const(void) {
  static const uint8_t pipes[][BLOSC2_MAX_FILTERS] = {
    {BLOSC_DELTA, BLOSC_SHUFFLE, BLOSC_SHUFFLE, 0, 0, 0},
    {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_SHUFFLE, 0, 0, 0},
    {BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE,
     BLOSC_BITSHUFFLE},
  };
  const int32_t n = 600;
  uint8_t *src = tc_malloc(n), *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  for (int32_t i = 0; i < n; i++) src[i] = (uint8_t)(i / 3 + (i % 7) * 11);
  for (size_t p = 0; p < sizeof pipes / sizeof pipes[0]; p++) {
    for (int dict = 0; dict < 2; dict++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = dict ? BLOSC_LZ4HC : BLOSC_LZ4;
      cp.typesize = 1;
      cp.blocksize = dict ? 0 : 255;
      cp.use_dict = dict;
      memcpy(cp.filters, pipes[p], BLOSC2_MAX_FILTERS);
      memset(cp.filters_meta, 0, sizeof cp.filters_meta);
      int rc = round_trip(cp, src, n, chunk, back);
      CHECK_MSG(rc > 0, "pipeline %zu, use_dict %d: %d", p, dict, rc);
      CHECK_MSG(rc > 0 && memcmp(back, src, (size_t)n) == 0,
                "pipeline %zu, use_dict %d: the chunk does not decode to the input", p, dict);
    }
  }
  free(src);
  free(chunk);
  free(back);
}

static void trunc_prec_keeps_the_tail(void) {
  static const int32_t sizes[] = {6147, 6150, 100003};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const int32_t n = sizes[s];
    uint8_t *src = tc_malloc(n), *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
    for (int32_t i = 0; i < n; i++) src[i] = (uint8_t)(i * 7 + 1);
    for (int ts = 4; ts <= 8; ts += 4) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = BLOSC_LZ4;
      cp.typesize = ts;
      memset(cp.filters, 0, sizeof cp.filters);
      memset(cp.filters_meta, 0, sizeof cp.filters_meta);
      cp.filters[0] = BLOSC_TRUNC_PREC;
      cp.filters_meta[0] = (uint8_t)-10;
      int rc = round_trip(cp, src, n, chunk, back);
      CHECK_MSG(rc > 0, "%d bytes, typesize %d: %d", n, ts, rc);
      int32_t whole = n - n % ts;
      CHECK_MSG(rc > 0 && memcmp(back + whole, src + whole, (size_t)(n - whole)) == 0,
                "%d bytes, typesize %d: the bytes after the last whole item changed", n, ts);
    }
    free(src);
    free(chunk);
    free(back);
  }
}

static void zstd_dict_on_incompressible_data(void) {
  const int32_t n = 40000;
  uint8_t *src = tc_malloc(n), *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, (size_t)n, TC_FILL_RANDOM, 7);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.typesize = 4;
  cp.use_dict = 1;
  int csize = round_trip(cp, src, n, chunk, back);
  CHECK_MSG(csize > 0, "zstd use_dict, random bytes: %d", csize);
  CHECK(csize > 0 && memcmp(back, src, (size_t)n) == 0);
  CHECK_MSG(csize > 0 && (chunk[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED), "not stored memcpyed");
  if (csize > 0 && (chunk[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED)) {
    /* the reference's chunk for this input: memcpyed, dict flag set */
    chunk[BLOSC2_CHUNK_BLOSC2_FLAGS] |= BLOSC2_USEDICT;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    REQUIRE(dctx != NULL);
    memset(back, 0, (size_t)n);
    CHECK_EQ_INT(blosc2_decompress_ctx(dctx, chunk, csize, back, n), n);
    CHECK_MEM(back, src, (size_t)n);
    blosc2_free_ctx(dctx);
  }
  free(src);
  free(chunk);
  free(back);
}

int main(void) {
  blosc2_init();
  source_stays_const();
  trunc_prec_keeps_the_tail();
  zstd_dict_on_incompressible_data();
  blosc2_destroy();
  TEST_MAIN_END("test_compress_strict");
}
