/* Blosc1-style global API: compress/decompress/getitem, buffer inspection,
 * global settings (compressor, blocksize, splitmode, nthreads), name/code
 * conversions, library information. */
#include "test_common.h"

#define N_ITEMS 20000

static void test_info(void) {
  CHECK_STR(blosc2_get_version_string(), BLOSC2_VERSION_STRING);
  CHECK(strncmp(blosc2_get_version_string(), "3.", 2) == 0);
  CHECK_EQ_INT(BLOSC2_VERSION_MAJOR, 3);

  const char *list = blosc2_list_compressors();
  CHECK_STR(list, "blosclz,lz4,lz4hc,zlib,zstd");
  /* Stable pointer, same content on a second call. */
  CHECK(blosc2_list_compressors() == list || strcmp(blosc2_list_compressors(), list) == 0);

  static const struct { const char *name; int code; int lib; const char *libname; } codecs[] = {
    {BLOSC_BLOSCLZ_COMPNAME, BLOSC_BLOSCLZ, BLOSC_BLOSCLZ_LIB, BLOSC_BLOSCLZ_LIBNAME},
    {BLOSC_LZ4_COMPNAME, BLOSC_LZ4, BLOSC_LZ4_LIB, BLOSC_LZ4_LIBNAME},
    {BLOSC_LZ4HC_COMPNAME, BLOSC_LZ4HC, BLOSC_LZ4_LIB, BLOSC_LZ4_LIBNAME},
    {BLOSC_ZLIB_COMPNAME, BLOSC_ZLIB, BLOSC_ZLIB_LIB, BLOSC_ZLIB_LIBNAME},
    {BLOSC_ZSTD_COMPNAME, BLOSC_ZSTD, BLOSC_ZSTD_LIB, BLOSC_ZSTD_LIBNAME},
  };
  for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
    const char *name = NULL;
    CHECK_EQ_INT(blosc2_compname_to_compcode(codecs[i].name), codecs[i].code);
    CHECK_EQ_INT(blosc2_compcode_to_compname(codecs[i].code, &name), codecs[i].code);
    CHECK_STR(name, codecs[i].name);

    char *complib = NULL, *version = NULL;
    CHECK_EQ_INT(blosc2_get_complib_info(codecs[i].name, &complib, &version), codecs[i].lib);
    CHECK_STR(complib, codecs[i].libname);
    CHECK(version != NULL && strlen(version) > 0 && strchr(version, '.') != NULL);
    free(complib);
    free(version);
  }
  const char *name = "sentinel";
  CHECK_EQ_INT(blosc2_compname_to_compcode("snappy"), -1);
  CHECK_EQ_INT(blosc2_compname_to_compcode("nope"), -1);
  CHECK_EQ_INT(blosc2_compname_to_compcode("BLOSCLZ"), -1); /* names are case sensitive */
  CHECK_EQ_INT(blosc2_compcode_to_compname(3, &name), -1);   /* old snappy slot */
  CHECK(name == NULL);
  name = "sentinel";
  CHECK_EQ_INT(blosc2_compcode_to_compname(7, &name), -1);
  CHECK(name == NULL);
  CHECK_EQ_INT(blosc2_compcode_to_compname(200, &name), -1);
}

static void test_compressor_setting(void) {
  CHECK_STR(blosc1_get_compressor(), "blosclz");  /* default */
  CHECK_EQ_INT(blosc1_set_compressor("lz4"), BLOSC_LZ4);
  CHECK_STR(blosc1_get_compressor(), "lz4");
  CHECK_EQ_INT(blosc1_set_compressor("zstd"), BLOSC_ZSTD);
  CHECK_STR(blosc1_get_compressor(), "zstd");
  CHECK_EQ_INT(blosc1_set_compressor("zlib"), BLOSC_ZLIB);
  CHECK_EQ_INT(blosc1_set_compressor("lz4hc"), BLOSC_LZ4HC);
  CHECK_STR(blosc1_get_compressor(), "lz4hc");
  CHECK(blosc1_set_compressor("nonexistent") < 0);
  /* The compressor recorded in the header follows the global setting. */
  static const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  static const char *libs[] = {"BloscLZ", "LZ4", "LZ4", "Zlib", "Zstd"};
  static const int formats[] = {0, 1, 1, 3, 4};
  int32_t src[4096];
  for (int i = 0; i < 4096; i++) src[i] = i % 100;
  uint8_t dest[sizeof(src) + BLOSC2_MAX_OVERHEAD];
  int32_t back[4096];
  for (int i = 0; i < 5; i++) {
    CHECK(blosc1_set_compressor(names[i]) >= 0);
    int csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, sizeof(src), src, dest, sizeof(dest));
    CHECK_MSG(csize > BLOSC2_MAX_OVERHEAD && csize < (int)sizeof(src), "%s csize=%d", names[i], csize);
    if (csize <= 0) continue;
    CHECK_STR(blosc2_cbuffer_complib(dest), libs[i]);
    CHECK_EQ_INT(dest[BLOSC2_CHUNK_FLAGS] >> 5, formats[i]);
    memset(back, 0, sizeof(back));
    CHECK_EQ_INT(blosc1_decompress(dest, back, sizeof(back)), sizeof(src));
    CHECK_MEM(src, back, sizeof(src));
  }
  CHECK_EQ_INT(blosc1_set_compressor("blosclz"), BLOSC_BLOSCLZ);
}

static void test_roundtrip_and_inspection(void) {
  size_t nbytes = N_ITEMS * sizeof(int32_t);
  int32_t *src = tc_malloc(nbytes);
  for (int i = 0; i < N_ITEMS; i++) src[i] = (i % 500) * 3;
  size_t destsize = nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *dest = tc_malloc(destsize);
  int32_t *back = tc_malloc(nbytes);

  static const int shuffles[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  for (int s = 0; s < 3; s++) {
    int csize = blosc1_compress(5, shuffles[s], sizeof(int32_t), nbytes, src, dest, destsize);
    CHECK_MSG(csize > 0 && (size_t)csize < nbytes, "shuffle=%d csize=%d", shuffles[s], csize);
    if (csize <= 0) continue;

    /* Header fields */
    CHECK_EQ_INT(dest[BLOSC2_CHUNK_TYPESIZE], 4);
    CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_NBYTES), nbytes);
    CHECK_EQ_INT(tc_le32(dest + BLOSC2_CHUNK_CBYTES), csize);
    CHECK(dest[BLOSC2_CHUNK_VERSION] >= BLOSC2_VERSION_FORMAT_STABLE);
    CHECK(dest[BLOSC2_CHUNK_VERSION] <= BLOSC2_VERSION_FORMAT);
    CHECK_EQ_INT(dest[BLOSC2_CHUNK_VERSIONLZ], 1);

    size_t nb = 0, cb = 0, bs = 0;
    blosc1_cbuffer_sizes(dest, &nb, &cb, &bs);
    CHECK_EQ_INT(nb, nbytes);
    CHECK_EQ_INT(cb, csize);
    CHECK(bs > 0 && bs <= nbytes);

    int32_t nb32 = 0, cb32 = 0, bs32 = 0;
    CHECK(blosc2_cbuffer_sizes(dest, &nb32, &cb32, &bs32) >= 0);
    CHECK_EQ_INT(nb32, nbytes);
    CHECK_EQ_INT(cb32, csize);
    CHECK_EQ_INT(bs32, bs);
    /* NULL outputs are allowed. */
    nb32 = 0;
    CHECK(blosc2_cbuffer_sizes(dest, &nb32, NULL, NULL) >= 0);
    CHECK_EQ_INT(nb32, nbytes);

    size_t vn = 0;
    CHECK_EQ_INT(blosc1_cbuffer_validate(dest, csize, &vn), 0);
    CHECK_EQ_INT(vn, nbytes);
    CHECK(blosc1_cbuffer_validate(dest, 8, &vn) < 0);            /* shorter than header */
    CHECK(blosc1_cbuffer_validate(dest, csize - 1, &vn) < 0);    /* shorter than cbytes */

    size_t ts = 0;
    int flags = 0;
    blosc1_cbuffer_metainfo(dest, &ts, &flags);
    CHECK_EQ_INT(ts, 4);
    CHECK((flags & BLOSC_MEMCPYED) == 0);
    if (shuffles[s] == BLOSC_SHUFFLE) {
      CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_SHUFFLE);
    } else if (shuffles[s] == BLOSC_BITSHUFFLE) {
      CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_BITSHUFFLE);
    } else {
      CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_NOSHUFFLE);
    }

    int version = -1, versionlz = -1;
    blosc2_cbuffer_versions(dest, &version, &versionlz);
    CHECK_EQ_INT(version, dest[0]);
    CHECK_EQ_INT(versionlz, dest[1]);
    CHECK_STR(blosc2_cbuffer_complib(dest), "BloscLZ");

    memset(back, 0xAA, nbytes);
    CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
    CHECK_MEM(src, back, nbytes);
    memset(back, 0xAA, nbytes);
    CHECK_EQ_INT(blosc2_decompress(dest, csize, back, nbytes), nbytes);
    CHECK_MEM(src, back, nbytes);

    /* Too-small output buffer must be refused, not overflowed. */
    CHECK(blosc1_decompress(dest, back, nbytes - 1) < 0);
    CHECK(blosc2_decompress(dest, csize, back, nbytes - 4) < 0);

    /* getitem */
    int32_t items[100];
    CHECK_EQ_INT(blosc1_getitem(dest, 1234, 100, items), 100 * 4);
    CHECK_MEM(items, src + 1234, 400);
    CHECK_EQ_INT(blosc2_getitem(dest, csize, N_ITEMS - 10, 10, items, sizeof(items)), 40);
    CHECK_MEM(items, src + N_ITEMS - 10, 40);
    CHECK(blosc2_getitem(dest, csize, N_ITEMS - 5, 10, items, sizeof(items)) < 0); /* past end */
    CHECK(blosc2_getitem(dest, csize, -1, 1, items, sizeof(items)) < 0);
    CHECK(blosc2_getitem(dest, csize, 0, 100, items, 100) < 0);  /* dest too small */
  }

  /* blosc2_compress gives same decoding result */
  int csize = blosc2_compress(9, BLOSC_SHUFFLE, 4, src, (int32_t)nbytes, dest, (int32_t)destsize);
  CHECK(csize > 0);
  memset(back, 0, nbytes);
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);

  /* clevel 0 -> stored (memcpy) */
  csize = blosc1_compress(0, BLOSC_SHUFFLE, 4, nbytes, src, dest, destsize);
  CHECK_EQ_INT(csize, nbytes + BLOSC2_MAX_OVERHEAD);
  size_t ts;
  int flags;
  blosc1_cbuffer_metainfo(dest, &ts, &flags);
  CHECK(flags & BLOSC_MEMCPYED);
  memset(back, 0, nbytes);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);

  /* Incompressible data into a too small buffer returns 0 (not an error). */
  uint8_t *rnd = tc_malloc(nbytes);
  tc_fill(rnd, nbytes, TC_FILL_RANDOM, 7);
  csize = blosc1_compress(5, BLOSC_NOSHUFFLE, 1, nbytes, rnd, dest, nbytes);
  CHECK_EQ_INT(csize, 0);
  csize = blosc1_compress(5, BLOSC_NOSHUFFLE, 1, nbytes, rnd, dest, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ_INT(csize, nbytes + BLOSC2_MAX_OVERHEAD);
  memset(back, 0, nbytes);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(rnd, back, nbytes);
  /* Destination smaller than a header is never positive. */
  CHECK(blosc1_compress(5, BLOSC_NOSHUFFLE, 1, nbytes, rnd, dest, 16) <= 0);

  /* Empty input still produces a header-only chunk. */
  csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, 0, src, dest, destsize);
  CHECK_EQ_INT(csize, BLOSC2_MAX_OVERHEAD);
  size_t nb, cb, bs;
  blosc1_cbuffer_sizes(dest, &nb, &cb, &bs);
  CHECK_EQ_INT(nb, 0);
  CHECK_EQ_INT(cb, BLOSC2_MAX_OVERHEAD);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), 0);

  /* Odd sizes (not a multiple of typesize, smaller than one item). */
  static const size_t odd[] = {1, 3, 7, 31, 33, 1001, 65537};
  for (size_t k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
    size_t n = odd[k];
    uint8_t *s2 = tc_malloc(n), *d2 = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *b2 = tc_malloc(n);
    tc_fill(s2, n, TC_FILL_TEXT, k);
    int c2 = blosc1_compress(5, BLOSC_SHUFFLE, 8, n, s2, d2, n + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(c2 > 0, "n=%zu c2=%d", n, c2);
    if (c2 > 0) {
      CHECK_EQ_INT(blosc1_decompress(d2, b2, n), n);
      CHECK_MEM(s2, b2, n);
    }
    free(s2); free(d2); free(b2);
  }

  free(rnd);
  free(src);
  free(dest);
  free(back);
}

static void test_blocksize(void) {
  CHECK_EQ_INT(blosc1_get_blocksize(), 0);
  size_t nbytes = 256 * 1024;
  uint8_t *src = tc_malloc(nbytes), *dest = tc_malloc(nbytes + BLOSC2_MAX_OVERHEAD),
          *back = tc_malloc(nbytes);
  tc_fill(src, nbytes, TC_FILL_RAMP32, 1);
  static const size_t sizes[] = {4096, 16384, 65536};
  for (int i = 0; i < 3; i++) {
    blosc1_set_blocksize(sizes[i]);
    CHECK_EQ_INT(blosc1_get_blocksize(), sizes[i]);
    int csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, nbytes, src, dest, nbytes + BLOSC2_MAX_OVERHEAD);
    CHECK(csize > 0);
    size_t nb, cb, bs;
    blosc1_cbuffer_sizes(dest, &nb, &cb, &bs);
    CHECK_EQ_INT(bs, sizes[i]);
    CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
    CHECK_MEM(src, back, nbytes);
    /* getitem crossing block boundaries */
    uint8_t items[40000];
    CHECK_EQ_INT(blosc1_getitem(dest, 1000, 10000, items), 40000);
    CHECK_MEM(items, src + 4000, 40000);
  }
  blosc1_set_blocksize(0);
  CHECK_EQ_INT(blosc1_get_blocksize(), 0);
  free(src); free(dest); free(back);
}

static void test_splitmode(void) {
  size_t nbytes = 64 * 1024;
  int32_t *src = tc_malloc(nbytes);
  for (size_t i = 0; i < nbytes / 4; i++) src[i] = (int32_t)(i / 3);
  uint8_t *dest = tc_malloc(nbytes + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(nbytes);

  blosc1_set_splitmode(BLOSC_ALWAYS_SPLIT);
  int csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, nbytes, src, dest, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FLAGS] & 0x10, 0);  /* split */
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);

  blosc1_set_splitmode(BLOSC_NEVER_SPLIT);
  csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, nbytes, src, dest, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FLAGS] & 0x10, 0x10);  /* not split */
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);

  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  free(src); free(dest); free(back);
}

static void test_nthreads(void) {
  CHECK_EQ_INT(blosc2_get_nthreads(), 1);
  CHECK_EQ_INT(blosc2_set_nthreads(4), 1);
  CHECK_EQ_INT(blosc2_get_nthreads(), 4);
  size_t nbytes = 1024 * 1024;
  uint8_t *src = tc_malloc(nbytes), *dest = tc_malloc(nbytes + BLOSC2_MAX_OVERHEAD),
          *back = tc_malloc(nbytes);
  tc_fill(src, nbytes, TC_FILL_SMOOTH_F64, 3);
  blosc1_set_blocksize(32 * 1024);
  int csize = blosc1_compress(5, BLOSC_SHUFFLE, 8, nbytes, src, dest, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);
  CHECK_EQ_INT(blosc2_set_nthreads(2), 4);
  memset(back, 0, nbytes);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);
  CHECK_EQ_INT(blosc2_set_nthreads(1), 2);
  CHECK_EQ_INT(blosc2_get_nthreads(), 1);
  memset(back, 0, nbytes);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);
  blosc1_set_blocksize(0);
  CHECK_EQ_INT(blosc2_free_resources(), 0);
  free(src); free(dest); free(back);
}

static void test_delta_global(void) {
  size_t nbytes = 32 * 1024;
  int32_t *src = tc_malloc(nbytes);
  for (size_t i = 0; i < nbytes / 4; i++) src[i] = (int32_t)(1000000 + i);
  uint8_t *dest = tc_malloc(nbytes + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(nbytes);
  blosc2_set_delta(1);
  int csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, nbytes, src, dest, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 4], BLOSC_DELTA);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 5], BLOSC_SHUFFLE);
  CHECK_EQ_INT(blosc1_decompress(dest, back, nbytes), nbytes);
  CHECK_MEM(src, back, nbytes);
  blosc2_set_delta(0);
  csize = blosc1_compress(5, BLOSC_SHUFFLE, 4, nbytes, src, dest, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 4], 0);
  free(src); free(dest); free(back);
}

int main(void) {
  blosc2_init();
  test_info();
  test_compressor_setting();
  test_roundtrip_and_inspection();
  test_blocksize();
  test_splitmode();
  test_nthreads();
  test_delta_global();
  blosc2_destroy();
  /* init/destroy can be repeated */
  blosc2_init();
  CHECK_STR(blosc1_get_compressor(), "blosclz");
  CHECK_EQ_INT(blosc2_get_nthreads(), 1);
  blosc2_destroy();
  TEST_MAIN_END("test_blosc1_api");
}
