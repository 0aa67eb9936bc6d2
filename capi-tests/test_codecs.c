/* Every built-in codec x clevel 0..9 round trip, header codec bits,
 * determinism, and unknown codec ids. */
#include "test_common.h"

static const struct { int code; const char *name; int format; } CODECS[] = {
  {BLOSC_BLOSCLZ, "blosclz", BLOSC_BLOSCLZ_FORMAT},
  {BLOSC_LZ4, "lz4", BLOSC_LZ4_FORMAT},
  {BLOSC_LZ4HC, "lz4hc", BLOSC_LZ4HC_FORMAT},
  {BLOSC_ZLIB, "zlib", BLOSC_ZLIB_FORMAT},
  {BLOSC_ZSTD, "zstd", BLOSC_ZSTD_FORMAT},
};
#define NCODECS 5

static int compress_with(int codec, int clevel, int typesize, int doshuffle, const void *src,
                         int32_t n, void *dest, int32_t destsize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)doshuffle;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (cctx == NULL) return -1000;
  int rc = blosc2_compress_ctx(cctx, src, n, dest, destsize);
  blosc2_free_ctx(cctx);
  return rc;
}

static void roundtrip_all(void) {
  static const int kinds[] = {TC_FILL_TEXT, TC_FILL_SMOOTH_F64, TC_FILL_RAMP32, TC_FILL_LOWENTROPY,
                              TC_FILL_RANDOM};
  static const int32_t sizes[] = {1000, 300000};
  static const int typesizes[] = {1, 4, 8};
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(dctx != NULL);
  for (int si = 0; si < 2; si++) {
    int32_t n = sizes[si];
    uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD),
            *dest2 = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
    for (int ki = 0; ki < 5; ki++) {
      tc_fill(src, n, kinds[ki], (uint64_t)(ki + 10 * si));
      for (int c = 0; c < NCODECS; c++) {
        for (int clevel = 0; clevel <= 9; clevel++) {
          int ts = typesizes[(clevel + c) % 3];
          int shuf = (clevel % 3 == 2) ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE;
          int csize = compress_with(CODECS[c].code, clevel, ts, shuf, src, n, dest,
                                    n + BLOSC2_MAX_OVERHEAD);
          CHECK_MSG(csize > 0 && csize <= n + BLOSC2_MAX_OVERHEAD,
                    "%s clevel %d kind %d n %d: csize %d", CODECS[c].name, clevel, kinds[ki], n, csize);
          if (csize <= 0) continue;
          CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_CBYTES), csize);
          CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_NBYTES), n);
          size_t tsz;
          int flags;
          blosc1_cbuffer_metainfo(dest, &tsz, &flags);
          if (clevel == 0) {
            CHECK_MSG(flags & BLOSC_MEMCPYED, "%s clevel 0 not memcpyed", CODECS[c].name);
            CHECK_EQ_INT(csize, n + BLOSC2_MAX_OVERHEAD);
          }
          if (!(flags & BLOSC_MEMCPYED)) {
            CHECK_MSG((dest[BLOSC2_CHUNK_FLAGS] >> 5) == CODECS[c].format,
                      "%s: format bits %d", CODECS[c].name, dest[BLOSC2_CHUNK_FLAGS] >> 5);
          }
          memset(back, 0xCD, n);
          int dsize = blosc2_decompress_ctx(dctx, dest, csize, back, n);
          CHECK_MSG(dsize == n, "%s clevel %d: dsize %d", CODECS[c].name, clevel, dsize);
          CHECK_MEM(src, back, n);
          /* Compression is deterministic for identical parameters. */
          int csize2 = compress_with(CODECS[c].code, clevel, ts, shuf, src, n, dest2,
                                     n + BLOSC2_MAX_OVERHEAD);
          CHECK_EQ_INT(csize2, csize);
          if (csize2 == csize) CHECK_MEM(dest, dest2, csize);
        }
      }
    }
    free(src); free(dest); free(dest2); free(back);
  }
  blosc2_free_ctx(dctx);
}

static void ratio_improves_with_level(void) {
  /* zstd/zlib at clevel 9 should not be worse than clevel 1 on text. */
  int32_t n = 500000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, n, TC_FILL_TEXT, 99);
  static const int codecs[] = {BLOSC_ZLIB, BLOSC_ZSTD, BLOSC_LZ4HC};
  for (int i = 0; i < 3; i++) {
    int c1 = compress_with(codecs[i], 1, 1, BLOSC_NOSHUFFLE, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    int c9 = compress_with(codecs[i], 9, 1, BLOSC_NOSHUFFLE, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(c1 > 0 && c9 > 0 && c9 <= c1, "codec %d: c1=%d c9=%d", codecs[i], c1, c9);
  }
  free(src); free(dest);
}

static void compressible_data_shrinks(void) {
  /* Shuffled 32-bit ramp: every codec at every clevel >= 1 must compress it. */
  int32_t n = 400000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, n, TC_FILL_RAMP32, 0);
  for (int c = 0; c < NCODECS; c++) {
    for (int clevel = 1; clevel <= 9; clevel++) {
      int csize = compress_with(CODECS[c].code, clevel, 4, BLOSC_SHUFFLE, src, n, dest,
                                n + BLOSC2_MAX_OVERHEAD);
      CHECK_MSG(csize > 0 && csize < n / 4, "%s clevel %d: csize %d", CODECS[c].name, clevel, csize);
    }
  }
  free(src); free(dest);
}

static void blosc1_path(void) {
  int32_t n = 100000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 1);
  for (int c = 0; c < NCODECS; c++) {
    CHECK_EQ_INT(blosc1_set_compressor(CODECS[c].name), CODECS[c].code);
    for (int clevel = 0; clevel <= 9; clevel += 3) {
      int csize = blosc1_compress(clevel, BLOSC_SHUFFLE, 8, n, src, dest, n + BLOSC2_MAX_OVERHEAD);
      CHECK(csize > 0);
      memset(back, 0, n);
      CHECK_EQ_INT(blosc1_decompress(dest, back, n), n);
      CHECK_MEM(src, back, n);
    }
  }
  blosc1_set_compressor("blosclz");
  free(src); free(dest); free(back);
}

static void unknown_codecs(void) {
  int32_t n = 10000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, n, TC_FILL_TEXT, 3);
  /* 3: former snappy slot; 6,7,31: undefined Blosc ids; 160..255: user ids
     that have not been registered. */
  static const int bad[] = {3, 6, 7, 31, 160, 200, 255};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = compress_with(bad[i], 5, 1, BLOSC_NOSHUFFLE, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(rc == BLOSC2_ERROR_CODEC_SUPPORT || rc == -1000,
              "codec %d: rc=%d (expected BLOSC2_ERROR_CODEC_SUPPORT)", bad[i], rc);
  }
  CHECK(blosc1_set_compressor("snappy") < 0);
  CHECK(blosc1_set_compressor("") < 0);
  blosc1_set_compressor("blosclz");
  free(src); free(dest);
}

static void invalid_clevel(void) {
  int32_t n = 10000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, n, TC_FILL_TEXT, 3);
  CHECK(blosc2_compress(10, BLOSC_SHUFFLE, 4, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  CHECK(blosc2_compress(-1, BLOSC_SHUFFLE, 4, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  CHECK(blosc1_compress(10, BLOSC_SHUFFLE, 4, n, src, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  CHECK(compress_with(BLOSC_ZSTD, 10, 4, BLOSC_SHUFFLE, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  free(src); free(dest);
}

int main(void) {
  blosc2_init();
  roundtrip_all();
  ratio_improves_with_level();
  compressible_data_shrinks();
  blosc1_path();
  unknown_codecs();
  invalid_clevel();
  blosc2_destroy();
  TEST_MAIN_END("test_codecs");
}
