/* Two super-chunk calls where the reference misbehaves (listed in
 * KNOWN_REFERENCE_FAILURES.txt): blosc2_schunk_free(NULL) is a no-op returning
 * 0 (the reference dereferences it), and a metalayer refused because the
 * frame already holds data is not added to the struct (the reference returns
 * an error but counts it in nmetalayers). */
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
  blosc2_destroy();
  TEST_MAIN_END("test_schunk_strict");
}
