/* Library names and versions reported by blosc2_get_complib_info (item 11 of
 * the behaviours issue): BloscLZ reports 2.5.3, the version of the format our
 * encoder writes byte for byte (the blosc2-rs crate's tests check it); LZ4 and
 * Zstd report the versions of the libraries bundled (the reference's too). */
#include "test_common.h"

static void check(const char *codec, const char *lib, const char *version, int code) {
  char *l = NULL, *v = NULL;
  CHECK_EQ_INT(blosc2_get_complib_info(codec, &l, &v), code);
  CHECK_STR(l, lib);
  CHECK_STR(v, version);
  free(l);
  free(v);
}

int main(void) {
  blosc2_init();
  check("blosclz", "BloscLZ", "2.5.3", BLOSC_BLOSCLZ_LIB);
  check("lz4", "LZ4", "1.10.0", BLOSC_LZ4_LIB);
  check("lz4hc", "LZ4", "1.10.0", BLOSC_LZ4_LIB);
  check("zstd", "Zstd", "1.5.7", BLOSC_ZSTD_LIB);
  /* zlib: the name is the reference's; the version names the library that
   * actually does the work here (see docs), so only its prefix is checked. */
  char *l = NULL, *v = NULL;
  CHECK_EQ_INT(blosc2_get_complib_info("zlib", &l, &v), BLOSC_ZLIB_LIB);
  CHECK_STR(l, "Zlib");
  CHECK(v != NULL && strlen(v) > 0);
  free(l);
  free(v);
  blosc2_destroy();
  TEST_MAIN_END("test_complib_versions");
}
