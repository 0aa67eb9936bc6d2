/* Split modes via cparams and blosc1_set_splitmode: header bit 0x10
 * ("not split"), round trips for all modes/codecs. */
#include "test_common.h"

#define NOT_SPLIT 0x10

static int compress_mode(int mode, int codec, int typesize, const void *src, int32_t n,
                         uint8_t *dest) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.splitmode = mode;
  cp.compcode = (uint8_t)codec;
  cp.typesize = typesize;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  int rc = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(cctx);
  return rc;
}

int main(void) {
  blosc2_init();
  int32_t n = 300000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 11);
  static const int modes[] = {BLOSC_ALWAYS_SPLIT, BLOSC_NEVER_SPLIT, BLOSC_AUTO_SPLIT,
                              BLOSC_FORWARD_COMPAT_SPLIT};
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  static const int tss[] = {2, 4, 8, 16};
  for (int m = 0; m < 4; m++) {
    for (int c = 0; c < 5; c++) {
      for (int t = 0; t < 4; t++) {
        int csize = compress_mode(modes[m], codecs[c], tss[t], src, n, dest);
        CHECK_MSG(csize > 0, "mode %d codec %d ts %d", modes[m], codecs[c], tss[t]);
        if (csize <= 0) continue;
        size_t ts;
        int flags;
        blosc1_cbuffer_metainfo(dest, &ts, &flags);
        if (!(flags & BLOSC_MEMCPYED)) {
          if (modes[m] == BLOSC_ALWAYS_SPLIT)
            CHECK_MSG((dest[BLOSC2_CHUNK_FLAGS] & NOT_SPLIT) == 0, "ALWAYS codec %d ts %d", codecs[c], tss[t]);
          if (modes[m] == BLOSC_NEVER_SPLIT)
            CHECK_MSG((dest[BLOSC2_CHUNK_FLAGS] & NOT_SPLIT) != 0, "NEVER codec %d ts %d", codecs[c], tss[t]);
        }
        memset(back, 0, n);
        CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
        CHECK_MSG(memcmp(src, back, n) == 0, "mode %d codec %d ts %d: data", modes[m], codecs[c], tss[t]);
        uint8_t items[4000];
        int its = dest[BLOSC2_CHUNK_TYPESIZE];
        CHECK_EQ_INT(blosc2_getitem(dest, csize, 5000 / its, 4000 / its, items, sizeof(items)),
                     (4000 / its) * its);
        CHECK(memcmp(items, src + (5000 / its) * its, (4000 / its) * its) == 0);
      }
    }
  }
  /* Split and non-split encodings of the same data differ. */
  int c1 = compress_mode(BLOSC_ALWAYS_SPLIT, BLOSC_LZ4, 8, src, n, dest);
  uint8_t *dest2 = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  int c2 = compress_mode(BLOSC_NEVER_SPLIT, BLOSC_LZ4, 8, src, n, dest2);
  CHECK(c1 > 0 && c2 > 0);
  CHECK(c1 != c2 || memcmp(dest, dest2, c1) != 0);

  /* Global setter affects blosc1/blosc2_compress */
  blosc1_set_splitmode(BLOSC_NEVER_SPLIT);
  int cs = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(cs > 0);
  CHECK((dest[BLOSC2_CHUNK_FLAGS] & NOT_SPLIT) != 0);
  blosc1_set_splitmode(BLOSC_ALWAYS_SPLIT);
  cs = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(cs > 0);
  CHECK((dest[BLOSC2_CHUNK_FLAGS] & NOT_SPLIT) == 0);
  CHECK_EQ_INT(blosc2_decompress(dest, cs, back, n), n);
  CHECK_MEM(src, back, n);
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  free(src); free(dest); free(dest2); free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_splitmode");
}
