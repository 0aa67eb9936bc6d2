/* Dictionary compression (use_dict) with zstd, lz4 and lz4hc; codecs
 * without dictionary support reject it. */
#include "test_common.h"

static int compress_dict(int codec, int use_dict, int32_t blocksize, const void *src, int32_t n,
                         uint8_t *dest, int32_t destsize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.use_dict = use_dict;
  cp.typesize = 1;
  cp.clevel = 5;
  cp.blocksize = blocksize;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (cctx == NULL) return -1000;
  int rc = blosc2_compress_ctx(cctx, src, n, dest, destsize);
  blosc2_free_ctx(cctx);
  return rc;
}

int main(void) {
  blosc2_init();
  int32_t n = 512 * 1024;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_TEXT, 21);
  static const int codecs[] = {BLOSC_ZSTD, BLOSC_LZ4, BLOSC_LZ4HC};
  static const int32_t bss[] = {4096, 16384, 0};
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  for (int c = 0; c < 3; c++) {
    for (int b = 0; b < 3; b++) {
      for (int nt = 1; nt <= 2; nt++) {
        int csize = compress_dict(codecs[c], 1, bss[b], src, n, dest, n + BLOSC2_MAX_OVERHEAD);
        CHECK_MSG(csize > 0, "codec %d bs %d: csize %d", codecs[c], bss[b], csize);
        if (csize <= 0) continue;
        if (bss[b] == 4096) {
          CHECK_MSG(dest[BLOSC2_CHUNK_BLOSC2_FLAGS] & BLOSC2_USEDICT, "codec %d: dict flag not set",
                    codecs[c]);
        }
        dp.nthreads = (int16_t)nt;
        blosc2_context *dctx = blosc2_create_dctx(dp);
        memset(back, 0, n);
        CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, n), n);
        CHECK_MSG(memcmp(src, back, n) == 0, "codec %d bs %d nt %d: data", codecs[c], bss[b], nt);
        uint8_t items[10000];
        CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dest, csize, 300001, 10000, items, sizeof(items)), 10000);
        CHECK_MEM(items, src + 300001, 10000);
        blosc2_free_ctx(dctx);
      }
    }
  }
  /* Codecs without dictionary support return an error. */
  CHECK(compress_dict(BLOSC_BLOSCLZ, 1, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  CHECK(compress_dict(BLOSC_ZLIB, 1, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  free(src); free(dest); free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_dict");
}
