/* Super-chunk calls where the reference misbehaves (listed in
 * KNOWN_REFERENCE_FAILURES.txt): blosc2_schunk_free(NULL) is a no-op returning
 * 0 (the reference dereferences it); a metalayer refused because the frame
 * already holds data is not added to the struct (the reference returns an
 * error but counts it in nmetalayers); and a frame with an empty chunk opens
 * again (appending an empty buffer makes the chunk size variable; the
 * reference keeps it fixed, so the number of chunks read back from nbytes /
 * chunksize misses the empty one and the frame cannot be opened: what
 * c-blosc2's examples/compress_file.c writes for a file whose size is a
 * multiple of its chunk size). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  CHECK_EQ_INT(blosc2_schunk_free(NULL), 0);

  blosc2_storage st = {.contiguous = true};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t data[100] = {0};
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 1);
  data[0] = 1;
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 2);
  CHECK(blosc2_meta_add(sc, "late", (uint8_t *)"x", 1) < 0);
  CHECK_EQ_INT(sc->nmetalayers, 0);
  CHECK_EQ_INT(blosc2_meta_exists(sc, "late"), BLOSC2_ERROR_NOT_FOUND);
  blosc2_schunk_free(sc);

  const char *path = "test_schunk_strict_empty.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage fst = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  sc = blosc2_schunk_new(&fst);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 1);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 2);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, 0), 3);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, 3);
  CHECK_EQ_INT(sc->nbytes, 2 * (int64_t)sizeof data);
  int32_t back[100];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, back, sizeof back), (int)sizeof back);
  CHECK_MEM(back, data, sizeof data);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 2, back, sizeof back), 0);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  TEST_MAIN_END("test_schunk_strict");
}
