/* Environment variables honoured by blosc2_compress / blosc1_compress and by
 * context creation: BLOSC_CLEVEL, BLOSC_SHUFFLE, BLOSC_TYPESIZE,
 * BLOSC_COMPRESSOR, BLOSC_BLOCKSIZE, BLOSC_NTHREADS, BLOSC_SPLITMODE,
 * BLOSC_DELTA.  Effects are checked in the chunk header bytes. */
#include "test_common.h"

static int32_t N = 400000;
static uint8_t *src, *dest, *back;

static int do_compress(int clevel, int doshuffle, int typesize) {
  int csize = blosc2_compress(clevel, doshuffle, typesize, src, N, dest, N + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  if (csize > 0) {
    memset(back, 0, N);
    CHECK_EQ_INT(blosc2_decompress(dest, csize, back, N), N);
    CHECK_MEM(src, back, N);
  }
  return csize;
}

static void env_clevel(void) {
  setenv("BLOSC_CLEVEL", "0", 1);
  int csize = do_compress(9, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(csize, N + BLOSC2_MAX_OVERHEAD);
  CHECK(dest[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED);
  setenv("BLOSC_CLEVEL", "9", 1);
  csize = do_compress(0, BLOSC_SHUFFLE, 4);
  CHECK(csize < N);
  CHECK((dest[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED) == 0);
  unsetenv("BLOSC_CLEVEL");
  csize = do_compress(0, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(csize, N + BLOSC2_MAX_OVERHEAD);
}

static void env_shuffle(void) {
  setenv("BLOSC_SHUFFLE", "BITSHUFFLE", 1);
  do_compress(5, BLOSC_NOSHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_BITSHUFFLE);
  setenv("BLOSC_SHUFFLE", "NOSHUFFLE", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_NOSHUFFLE);
  setenv("BLOSC_SHUFFLE", "SHUFFLE", 1);
  do_compress(5, BLOSC_BITSHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_SHUFFLE);
  setenv("BLOSC_SHUFFLE", "bogus", 1);  /* unrecognised: ignored */
  do_compress(5, BLOSC_BITSHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_BITSHUFFLE);
  unsetenv("BLOSC_SHUFFLE");
}

static void env_typesize(void) {
  setenv("BLOSC_TYPESIZE", "8", 1);
  do_compress(5, BLOSC_SHUFFLE, 2);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], 8);
  setenv("BLOSC_TYPESIZE", "0", 1);  /* invalid: ignored */
  do_compress(5, BLOSC_SHUFFLE, 2);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], 2);
  unsetenv("BLOSC_TYPESIZE");
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], 4);
}

static void env_compressor(void) {
  static const char *names[] = {"lz4", "lz4hc", "zlib", "zstd", "blosclz"};
  static const int formats[] = {1, 1, 3, 4, 0};
  for (int i = 0; i < 5; i++) {
    setenv("BLOSC_COMPRESSOR", names[i], 1);
    do_compress(5, BLOSC_SHUFFLE, 4);
    CHECK_MSG((dest[BLOSC2_CHUNK_FLAGS] >> 5) == formats[i], "%s: format %d", names[i],
              dest[BLOSC2_CHUNK_FLAGS] >> 5);
    CHECK_STR(blosc1_get_compressor(), names[i]);
  }
  unsetenv("BLOSC_COMPRESSOR");
  blosc1_set_compressor("blosclz");
}

static void env_blocksize(void) {
  setenv("BLOSC_BLOCKSIZE", "8192", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_BLOCKSIZE), 8192);
  setenv("BLOSC_BLOCKSIZE", "32768", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_BLOCKSIZE), 32768);
  unsetenv("BLOSC_BLOCKSIZE");
  blosc1_set_blocksize(0);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK(tc_le32(dest + BLOSC2_CHUNK_BLOCKSIZE) != 32768);
}

static void env_nthreads(void) {
  setenv("BLOSC_NTHREADS", "3", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(blosc2_get_nthreads(), 3);
  /* contexts pick it up as well */
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  blosc2_dparams dp;
  CHECK_EQ_INT(blosc2_ctx_get_dparams(dctx, &dp), 0);
  CHECK_EQ_INT(dp.nthreads, 3);
  blosc2_free_ctx(dctx);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  blosc2_cparams cp;
  CHECK_EQ_INT(blosc2_ctx_get_cparams(cctx, &cp), 0);
  CHECK_EQ_INT(cp.nthreads, 3);
  blosc2_free_ctx(cctx);
  unsetenv("BLOSC_NTHREADS");
  blosc2_set_nthreads(1);
  CHECK_EQ_INT(blosc2_get_nthreads(), 1);
}

static void env_splitmode(void) {
  setenv("BLOSC_SPLITMODE", "NEVER", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK(dest[BLOSC2_CHUNK_FLAGS] & 0x10);
  setenv("BLOSC_SPLITMODE", "ALWAYS", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK((dest[BLOSC2_CHUNK_FLAGS] & 0x10) == 0);
  setenv("BLOSC_SPLITMODE", "AUTO", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  setenv("BLOSC_SPLITMODE", "FORWARD_COMPAT", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  unsetenv("BLOSC_SPLITMODE");
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
}

static void env_delta(void) {
  setenv("BLOSC_DELTA", "1", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 4], BLOSC_DELTA);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_SHUFFLE);
  setenv("BLOSC_DELTA", "0", 1);
  do_compress(5, BLOSC_SHUFFLE, 4);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 4], 0);
  unsetenv("BLOSC_DELTA");
  blosc2_set_delta(0);
}

static void env_ctx(void) {
  /* Context creation honours the compression variables too. */
  setenv("BLOSC_CLEVEL", "2", 1);
  setenv("BLOSC_TYPESIZE", "2", 1);
  setenv("BLOSC_COMPRESSOR", "zstd", 1);
  setenv("BLOSC_BLOCKSIZE", "16384", 1);
  setenv("BLOSC_SHUFFLE", "BITSHUFFLE", 1);
  setenv("BLOSC_DELTA", "1", 1);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  REQUIRE(cctx != NULL);
  blosc2_cparams cp;
  CHECK_EQ_INT(blosc2_ctx_get_cparams(cctx, &cp), 0);
  CHECK_EQ_INT(cp.clevel, 2);
  CHECK_EQ_INT(cp.typesize, 2);
  CHECK_EQ_INT(cp.compcode, BLOSC_ZSTD);
  CHECK_EQ_INT(cp.blocksize, 16384);
  CHECK_EQ_INT(cp.filters[5], BLOSC_BITSHUFFLE);
  CHECK_EQ_INT(cp.filters[4], BLOSC_DELTA);
  int csize = blosc2_compress_ctx(cctx, src, N, dest, N + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], 2);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FLAGS] >> 5, BLOSC_ZSTD_FORMAT);
  CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_BLOCKSIZE), 16384);
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, N), N);
  CHECK_MEM(src, back, N);
  blosc2_free_ctx(cctx);
  unsetenv("BLOSC_CLEVEL");
  unsetenv("BLOSC_TYPESIZE");
  unsetenv("BLOSC_COMPRESSOR");
  unsetenv("BLOSC_BLOCKSIZE");
  unsetenv("BLOSC_SHUFFLE");
  unsetenv("BLOSC_DELTA");
}

int main(void) {
  /* Start from a clean environment whatever the caller exported. */
  static const char *vars[] = {"BLOSC_CLEVEL", "BLOSC_SHUFFLE", "BLOSC_TYPESIZE", "BLOSC_COMPRESSOR",
                               "BLOSC_BLOCKSIZE", "BLOSC_NTHREADS", "BLOSC_SPLITMODE", "BLOSC_DELTA",
                               "BLOSC_NOLOCK", "BLOSC_BLOSC1_COMPAT"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) unsetenv(vars[i]);
  src = tc_malloc(N);
  dest = tc_malloc(N + BLOSC2_MAX_OVERHEAD);
  back = tc_malloc(N);
  tc_fill(src, N, TC_FILL_RAMP32, 9);
  blosc2_init();
  env_clevel();
  env_shuffle();
  env_typesize();
  env_compressor();
  env_blocksize();
  env_nthreads();
  env_splitmode();
  env_delta();
  env_ctx();
  blosc2_destroy();
  free(src); free(dest); free(back);
  TEST_MAIN_END("test_env");
}
