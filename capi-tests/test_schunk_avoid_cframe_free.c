/* blosc2_schunk_avoid_cframe_free (item 10 of the behaviours issue): after
 * avoid_cframe_free(true), the frame buffer blosc2_schunk_to_buffer lent is
 * the caller's, and blosc2_schunk_free leaves it alone (the Rust crate
 * blosc2-rs takes it this way and frees it itself); after
 * avoid_cframe_free(false) a buffer handed to from_buffer without copy is
 * freed with the super-chunk.  The suite's valgrind run catches a double free
 * or a leak here. */
#include "test_common.h"

#define NITEMS 5000

int main(void) {
  blosc2_init();
  int32_t data[NITEMS], back[NITEMS];
  for (int i = 0; i < NITEMS; i++) data[i] = i * 7;

  /* 1. Take the buffer of an in-memory frame. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 2);
  blosc2_schunk_avoid_cframe_free(sc, true);
  uint8_t *cframe = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  CHECK(len > 0);
  CHECK(!needs_free);
  REQUIRE(cframe != NULL);
  CHECK_EQ_INT(blosc2_schunk_free(sc), 0);
  /* The buffer is intact after the free, and is a valid frame. */
  blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, len, true);
  REQUIRE(copy != NULL);
  CHECK_EQ_INT(copy->nchunks, 2);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, 1, back, sizeof(back)), sizeof(back));
  CHECK_MEM(back, data, sizeof(data));
  blosc2_schunk_free(copy);
  free(cframe);

  /* 2. A malloc'ed frame handed over without copy, then given to the
   *    super-chunk to free. */
  sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  REQUIRE(len > 0);
  uint8_t *mine = malloc((size_t)len);
  REQUIRE(mine != NULL);
  memcpy(mine, cframe, (size_t)len);
  if (needs_free) free(cframe);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_from_buffer(mine, len, false);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, sizeof(back)), sizeof(back));
  CHECK_MEM(back, data, sizeof(data));
  blosc2_schunk_avoid_cframe_free(sc, false);
  CHECK_EQ_INT(blosc2_schunk_free(sc), 0);

  /* 3. Without the call, a buffer lent by to_buffer stays the super-chunk's. */
  sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  CHECK(len > 0);
  CHECK(!needs_free);
  CHECK_EQ_INT(blosc2_schunk_free(sc), 0);

  blosc2_destroy();
  TEST_MAIN_END("test_schunk_avoid_cframe_free");
}
