/* Functions called before blosc2_init() (and after blosc2_destroy()) must
 * work: the library initialises itself lazily where needed. */
#include "test_common.h"

int main(void) {
  int32_t n = 100000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 2);

  /* pure queries */
  CHECK_STR(blosc2_get_version_string(), BLOSC2_VERSION_STRING);
  CHECK_STR(blosc2_list_compressors(), "blosclz,lz4,lz4hc,zlib,zstd");
  CHECK_EQ_INT(blosc2_compname_to_compcode("zstd"), BLOSC_ZSTD);
  CHECK_STR(blosc2_error_string(BLOSC2_ERROR_DATA), "Invalid data");

  /* global API without init */
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
  CHECK_MEM(src, back, n);
  int32_t nb = 0;
  CHECK(blosc2_cbuffer_sizes(dest, &nb, NULL, NULL) >= 0);
  CHECK_EQ_INT(nb, n);
  blosc2_destroy();

  /* setters before init */
  CHECK_EQ_INT(blosc1_set_compressor("lz4"), BLOSC_LZ4);
  CHECK_STR(blosc1_get_compressor(), "lz4");
  blosc2_destroy();

  CHECK(blosc2_set_nthreads(2) >= 1);
  CHECK_EQ_INT(blosc2_get_nthreads(), 2);
  csize = blosc1_compress(5, BLOSC_SHUFFLE, 8, n, src, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(blosc1_decompress(dest, back, n), n);
  CHECK_MEM(src, back, n);
  blosc2_destroy();

  /* context API never needs init */
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(cctx && dctx);
  csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  memset(back, 0, n);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, n), n);
  CHECK_MEM(src, back, n);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);

  /* special chunk helpers without init */
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK_EQ_INT(blosc2_chunk_zeros(BLOSC2_CPARAMS_DEFAULTS, 800, chunk, sizeof(chunk)),
               BLOSC_EXTENDED_HEADER_LENGTH);

  /* destroy without init is harmless; double init/destroy too */
  blosc2_destroy();
  blosc2_destroy();
  blosc2_init();
  blosc2_init();
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
  blosc2_destroy();
  free(src); free(dest); free(back);
  TEST_MAIN_END("test_before_init");
}
