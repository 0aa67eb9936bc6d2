/* Super-chunks whose chunk size becomes variable, found by fuzz/schunk_ops.c
 * (listed in KNOWN_REFERENCE_FAILURES.txt: the reference loses data in
 * each case).
 *
 * - A frame keeps a chunk of zeros as a special offset, whose size is the
 *   frame's fixed chunk size.  Once a chunk of another size makes that size
 *   variable, nothing gives those chunks' sizes: the reference then fails
 *   to return them.  Here they stay readable, before and after the frame is
 *   serialized and read back, and so does a zero chunk added afterwards.
 * - Reordering chunks so that a short chunk is no longer the last keeps the
 *   reference's chunk size fixed; it then maps items to the wrong chunk
 *   (blosc2_schunk_set_slice_buffer writes the wrong bytes) and writes a
 *   frame it cannot open.  Here the size becomes variable: slices are
 *   refused, every chunk reads back in its new place, and the frame opens.
 * - A slice range whose length overflows int64 is refused (the subtraction
 *   itself overflowed). */
#include "test_common.h"

#define TS 2

/* Chunk n of `sc` decompresses to `want` (`len` bytes). */
static int chunk_is(blosc2_schunk *sc, int64_t n, const uint8_t *want, int32_t len) {
  uint8_t *got = malloc((size_t)len + 64);
  int rc = blosc2_schunk_decompress_chunk(sc, n, got, len + 64);
  int ok = rc == len && memcmp(got, want, (size_t)len) == 0;
  if (!ok) fprintf(stderr, "chunk %" PRId64 ": rc %d, want %d bytes\n", n, rc, len);
  free(got);
  return ok;
}

/* Serialize `sc`, read the frame back, and check its chunks. */
static void round_trip(blosc2_schunk *sc, int64_t nchunks, uint8_t *const *want, const int32_t *lens) {
  uint8_t *frame = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
  CHECK(len > 0);
  if (len <= 0) return;
  blosc2_schunk *back = blosc2_schunk_from_buffer(frame, len, true);
  CHECK(back != NULL);
  if (back != NULL) {
    CHECK_EQ_INT((int)back->nchunks, (int)nchunks);
    for (int64_t i = 0; i < nchunks && i < back->nchunks; i++) CHECK(chunk_is(back, i, want[i], lens[i]));
    blosc2_schunk_free(back);
  }
  if (needs_free) free(frame);
}

static void zero_chunks_survive_a_variable_size(bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = TS;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static uint8_t zeros[1024], data[256], ones[512];
  for (int i = 0; i < 256; i++) data[i] = (uint8_t)(i * 7 + 1);
  memset(ones, 1, sizeof ones);
  /* Fixed size 256: chunk 1 is a special offset in a frame. */
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, 256), 1);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, zeros, 256), 2);
  /* A larger chunk: the size becomes variable. */
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, ones, 512), 3);
  CHECK_EQ_INT(sc->chunksize, 0);
  /* A zero chunk of yet another size, added while the size is variable. */
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, zeros, 1024), 4);
  uint8_t *want[] = {data, zeros, ones, zeros};
  int32_t lens[] = {256, 256, 512, 1024};
  for (int i = 0; i < 4; i++) CHECK(chunk_is(sc, i, want[i], lens[i]));
  CHECK_EQ_INT((int)sc->nbytes, 256 + 256 + 512 + 1024);
  round_trip(sc, 4, want, lens);
  /* Updating a chunk to zeros keeps it readable too. */
  uint8_t zchunk[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK_EQ_INT(blosc2_chunk_zeros(cp, 256, zchunk, sizeof zchunk), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK(blosc2_schunk_update_chunk(sc, 0, zchunk, true) >= 0);
  want[0] = zeros;
  for (int i = 0; i < 4; i++) CHECK(chunk_is(sc, i, want[i], lens[i]));
  round_trip(sc, 4, want, lens);
  blosc2_schunk_free(sc);
}

static void reordering_a_short_chunk_makes_the_size_variable(bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static uint8_t a[2496], b[2368], z[2496];
  for (int i = 0; i < 2496; i++) a[i] = (uint8_t)(i * 13 + 5);
  for (int i = 0; i < 2368; i++) b[i] = (uint8_t)(i * 29 + 3);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, a, sizeof a), 1);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, z, sizeof z), 2);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, b, sizeof b), 3);
  CHECK_EQ_INT(sc->chunksize, (int)sizeof a);
  /* The short chunk first, the zero chunk (a special offset) last. */
  int64_t order[] = {2, 0, 1};
  CHECK_EQ_INT(blosc2_schunk_reorder_offsets(sc, order), 0);
  CHECK_EQ_INT(sc->chunksize, 0);
  uint8_t *want[] = {b, a, z};
  int32_t lens[] = {sizeof b, sizeof a, sizeof z};
  for (int i = 0; i < 3; i++) CHECK(chunk_is(sc, i, want[i], lens[i]));
  /* Items can no longer be mapped by a fixed size: refused, nothing written. */
  uint8_t buf[28 * 8];
  memset(buf, 0xEE, sizeof buf);
  CHECK(blosc2_schunk_set_slice_buffer(sc, 494, 522, buf) < 0);
  CHECK(blosc2_schunk_get_slice_buffer(sc, 494, 522, buf) < 0);
  for (int i = 0; i < 3; i++) CHECK(chunk_is(sc, i, want[i], lens[i]));
  round_trip(sc, 3, want, lens);
  /* A reorder that keeps every full chunk in front keeps the size fixed. */
  blosc2_schunk *sc2 = blosc2_schunk_new(&st);
  REQUIRE(sc2 != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc2, a, sizeof a), 1);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc2, z, sizeof z), 2);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc2, b, sizeof b), 3);
  int64_t swap[] = {1, 0, 2};
  CHECK_EQ_INT(blosc2_schunk_reorder_offsets(sc2, swap), 0);
  CHECK_EQ_INT(sc2->chunksize, (int)sizeof a);
  uint8_t *want2[] = {z, a, b};
  int32_t lens2[] = {sizeof z, sizeof a, sizeof b};
  for (int i = 0; i < 3; i++) CHECK(chunk_is(sc2, i, want2[i], lens2[i]));
  round_trip(sc2, 3, want2, lens2);
  blosc2_schunk_free(sc2);
  blosc2_schunk_free(sc);
}

static void overflowing_slice_ranges_are_refused(void) {
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t buf[16];
  CHECK(blosc2_schunk_get_slice_buffer(sc, INT64_MIN, 0, buf) < 0);
  CHECK(blosc2_schunk_get_slice_buffer(sc, INT64_MIN, INT64_MAX, buf) < 0);
  CHECK(blosc2_schunk_set_slice_buffer(sc, -1, INT64_MAX, buf) < 0);
  CHECK(blosc2_schunk_set_slice_buffer(sc, INT64_MIN, 1, buf) < 0);
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  zero_chunks_survive_a_variable_size(true);
  zero_chunks_survive_a_variable_size(false);
  reordering_a_short_chunk_makes_the_size_variable(true);
  reordering_a_short_chunk_makes_the_size_variable(false);
  overflowing_slice_ranges_are_refused();
  blosc2_destroy();
  TEST_MAIN_END("test_schunk_variable_chunksize");
}
