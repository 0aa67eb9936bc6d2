/* The header documents BLOSC_COMPRESSOR=[BLOSCLZ | LZ4 | LZ4HC | ZLIB | ZSTD]
 * (upper case).  Those documented spellings must select the codec.
 * Known reference bug: c-blosc2 3.3.5 only accepts lower-case names; with the
 * documented spelling compression fails with BLOSC2_ERROR_CODEC_SUPPORT and
 * the global compressor becomes invalid (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  int32_t n = 100000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 1);
  blosc2_init();
  static const char *names[] = {"LZ4", "LZ4HC", "ZLIB", "ZSTD", "BLOSCLZ"};
  static const int formats[] = {1, 1, 3, 4, 0};
  for (int i = 0; i < 5; i++) {
    setenv("BLOSC_COMPRESSOR", names[i], 1);
    int csize = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(csize > 0, "BLOSC_COMPRESSOR=%s: csize %d", names[i], csize);
    if (csize <= 0) continue;
    CHECK_MSG((dest[BLOSC2_CHUNK_FLAGS] >> 5) == formats[i], "%s: format %d", names[i],
              dest[BLOSC2_CHUNK_FLAGS] >> 5);
    CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
    CHECK_MEM(src, back, n);
  }
  unsetenv("BLOSC_COMPRESSOR");
  blosc2_destroy();
  free(src); free(dest); free(back);
  TEST_MAIN_END("test_env_compressor_uppercase");
}
