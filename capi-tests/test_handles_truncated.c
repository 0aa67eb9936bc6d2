/* A handle whose frame file another writer truncates, about to write a new
 * frame into it (python-blosc2's TreeStore opens its vlmeta frame's file with
 * "wb" and writes blosc2_schunk_to_buffer of a handle on that very file):
 * the handle answers from what it holds in memory, as the reference does,
 * instead of failing because the file no longer holds a frame. */
#include "test_common.h"
#include <stdio.h>

int main(void) {
  blosc2_init();
  const char *path = "test_handles_truncated.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK(blosc2_vlmeta_add(sc, "author", (uint8_t *)"blosc2", 6, NULL) >= 0);
  blosc2_schunk_free(sc);

  blosc2_schunk *h = blosc2_schunk_open(path);
  REQUIRE(h != NULL);
  FILE *f = fopen(path, "wb"); /* truncates the file under the handle */
  REQUIRE(f != NULL);
  uint8_t *cframe = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(h, &cframe, &needs_free);
  CHECK(len > 0);
  if (len > 0) {
    fwrite(cframe, 1, (size_t)len, f);
    if (needs_free) free(cframe);
  }
  fclose(f);
  blosc2_schunk_free(h);

  /* The file now holds the frame the handle described. */
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  uint8_t *content = NULL;
  int32_t clen = 0;
  CHECK_EQ_INT(blosc2_vlmeta_get(sc, "author", &content, &clen), 0);
  CHECK_EQ_INT(clen, 6);
  if (content != NULL) {
    CHECK_MEM(content, "blosc2", 6);
    free(content);
  }
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  TEST_MAIN_END("test_handles_truncated");
}
