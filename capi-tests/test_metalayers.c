/* Metalayers (header, fixed size) and vlmetalayers (trailer, compressed):
 * add/update/get/exists/delete/get_names, the static inline helpers of
 * blosc2.h reading our struct, persistence through frames and files. */
#include "test_common.h"
#include <stdbool.h>

static void run(blosc2_storage *st, const char *path) {
  blosc2_schunk *sc = blosc2_schunk_new(st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_meta_exists(sc, "m"), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ_INT(blosc2_meta_add(sc, "m", (uint8_t *)"12345", 5), 0);
  CHECK_EQ_INT(blosc2_meta_add(sc, "n", (uint8_t *)"", 0), 1);
  CHECK(blosc2_meta_add(sc, "m", (uint8_t *)"x", 1) < 0);
  CHECK_EQ_INT(sc->nmetalayers, 2);
  CHECK_EQ_INT(blosc2_meta_exists(sc, "n"), 1);
  CHECK_EQ_INT(blosc2_meta_exists(sc, "0123456789012345678901234567890123"), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_STR(sc->metalayers[0]->name, "m");
  CHECK_EQ_INT(sc->metalayers[0]->content_len, 5);
  CHECK_EQ_INT(blosc2_meta_update(sc, "m", (uint8_t *)"ab", 2), 0);
  CHECK(blosc2_meta_update(sc, "zz", (uint8_t *)"ab", 2) < 0);
  uint8_t *content; int32_t len;
  CHECK_EQ_INT(blosc2_meta_get(sc, "m", &content, &len), 0);
  CHECK_EQ_INT(len, 5);
  CHECK(memcmp(content, "ab345", 5) == 0);
  free(content);
  CHECK_EQ_INT(blosc2_meta_get(sc, "n", &content, &len), 1);
  CHECK_EQ_INT(len, 0);
  CHECK(content == NULL);

  char big[5000];
  for (int i = 0; i < 5000; i++) big[i] = (char)('a' + i % 26);
  CHECK_EQ_INT(blosc2_vlmeta_add(sc, "big", (uint8_t *)big, sizeof big, NULL), 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.typesize = 1;
  CHECK_EQ_INT(blosc2_vlmeta_add(sc, "small", (uint8_t *)"tiny", 4, &cp), 1);
  CHECK(blosc2_vlmeta_add(sc, "small", (uint8_t *)"x", 1, NULL) < 0);
  CHECK_EQ_INT(sc->nvlmetalayers, 2);
  CHECK_EQ_INT(blosc2_vlmeta_exists(sc, "big"), 0);
  CHECK_EQ_INT(blosc2_vlmeta_exists(sc, "nope"), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ_INT(blosc2_vlmeta_update(sc, "small", (uint8_t *)"much longer than before", 23, NULL), 1);
  char *names[8];
  CHECK_EQ_INT(blosc2_vlmeta_get_names(sc, names), 2);
  CHECK_STR(names[0], "big");
  CHECK_STR(names[1], "small");
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i;
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 1);
  CHECK_EQ_INT(blosc2_vlmeta_add(sc, "late", (uint8_t *)"L", 1, NULL), 2);
  CHECK_EQ_INT(blosc2_vlmeta_delete(sc, "late"), 2);
  CHECK(blosc2_vlmeta_delete(sc, "late") < 0);

  /* persistence */
  blosc2_schunk *b;
  if (path != NULL) {
    blosc2_schunk_free(sc);
    b = blosc2_schunk_open(path);
    sc = NULL;
  } else {
    uint8_t *cframe; bool needs_free;
    int64_t flen = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    REQUIRE(flen > 0);
    b = blosc2_schunk_from_buffer(cframe, flen, true);
    if (needs_free) free(cframe);
  }
  REQUIRE(b != NULL);
  CHECK_EQ_INT(b->nmetalayers, 2);
  CHECK_EQ_INT(blosc2_meta_get(b, "m", &content, &len), 0);
  CHECK(len == 5 && memcmp(content, "ab345", 5) == 0);
  free(content);
  CHECK_EQ_INT(blosc2_vlmeta_get(b, "big", &content, &len), 0);
  CHECK(len == 5000 && memcmp(content, big, 5000) == 0);
  free(content);
  CHECK_EQ_INT(blosc2_vlmeta_get(b, "small", &content, &len), 1);
  CHECK(len == 23 && memcmp(content, "much longer than before", 23) == 0);
  free(content);
  CHECK_EQ_INT(b->nvlmetalayers, 2);
  blosc2_schunk_free(b);
  if (sc) blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  blosc2_storage mem = {.contiguous = false};
  run(&mem, NULL);
  blosc2_storage frame = {.contiguous = true};
  run(&frame, NULL);
  const char *path = "test_metalayers.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_storage disk = {.contiguous = true, .urlpath = (char *)path};
  run(&disk, path);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  TEST_MAIN_END("test_metalayers");
}
