/* Super-chunk API: append/insert/update/delete/get/decompress on every
 * storage kind (memory, frame in memory, frame on disk), public fields kept
 * true, slices, special fills, copies, error returns. */
#include "test_common.h"
#include <stdbool.h>

#define N 2000 /* int32 items per chunk */

static void fill(int32_t *buf, int seed) {
  for (int i = 0; i < N; i++) buf[i] = i * seed + (i % 13);
}

static void check_chunk(blosc2_schunk *sc, int64_t n, int seed) {
  int32_t expect[N], got[N];
  if (seed == 0) memset(expect, 0, sizeof expect); else fill(expect, seed);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, n, got, sizeof got), (int)sizeof got);
  CHECK(memcmp(expect, got, sizeof got) == 0);
}

static void exercise(blosc2_storage *st, const char *label) {
  blosc2_schunk *sc = blosc2_schunk_new(st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, 0);
  CHECK_EQ_INT(sc->typesize, 4);
  CHECK_EQ_INT(sc->chunksize, -1);
  int32_t buf[N];
  for (int i = 1; i <= 4; i++) {
    fill(buf, i);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), i);
    CHECK_EQ_INT(sc->nchunks, i);
    CHECK_EQ_INT(sc->nbytes, (int64_t)i * sizeof buf);
  }
  CHECK_EQ_INT(sc->chunksize, (int)sizeof buf);
  CHECK(sc->cbytes > 0 && sc->cbytes < sc->nbytes);
  /* insert (copy = false hands ownership over) */
  uint8_t *chunk = malloc(sizeof buf + BLOSC2_MAX_OVERHEAD);
  fill(buf, 9);
  int cb = blosc2_compress_ctx(sc->cctx, buf, sizeof buf, chunk, sizeof buf + BLOSC2_MAX_OVERHEAD);
  REQUIRE(cb > 0);
  CHECK_EQ_INT(blosc2_schunk_insert_chunk(sc, 1, chunk, false), 5);
  /* update with a zeros chunk */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t zeros[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK(blosc2_chunk_zeros(cp, sizeof buf, zeros, sizeof zeros) > 0);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 3, zeros, true), 5);
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 0), 4);
  CHECK_EQ_INT(sc->nchunks, 4);
  CHECK_EQ_INT(sc->nbytes, 4 * (int64_t)sizeof buf);
  /* now: 9, 2, 0(zeros), 4 */
  check_chunk(sc, 0, 9);
  check_chunk(sc, 1, 2);
  check_chunk(sc, 2, 0);
  check_chunk(sc, 3, 4);
  /* get_chunk */
  uint8_t *c; bool needs_free;
  int n = blosc2_schunk_get_chunk(sc, 1, &c, &needs_free);
  CHECK(n > 0);
  int32_t nbytes, cbytes;
  CHECK_EQ_INT(blosc2_cbuffer_sizes(c, &nbytes, &cbytes, NULL), 0);
  CHECK_EQ_INT(cbytes, n);
  CHECK_EQ_INT(nbytes, (int)sizeof buf);
  if (needs_free) free(c);
  /* slices across chunk boundaries */
  int32_t slice[3000];
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, 1500, 4500, slice), 0);
  int32_t a[N], b[N];
  fill(a, 9); fill(b, 2);
  CHECK(memcmp(slice, a + 1500, 500 * 4) == 0);
  CHECK(memcmp(slice + 500, b, N * 4) == 0);
  CHECK(slice[2500] == 0 && slice[2999] == 0);
  for (int i = 0; i < 3000; i++) slice[i] = -i;
  CHECK_EQ_INT(blosc2_schunk_set_slice_buffer(sc, 1000, 4000, slice), 0);
  int32_t back[3000];
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, 1000, 4000, back), 0);
  CHECK(memcmp(back, slice, sizeof back) == 0);
  /* cparams / dparams */
  blosc2_cparams *pc; blosc2_dparams *pd;
  CHECK_EQ_INT(blosc2_schunk_get_cparams(sc, &pc), 0);
  CHECK_EQ_INT(pc->typesize, 4);
  CHECK_EQ_INT(pc->clevel, 7);
  CHECK(pc->schunk == sc);
  free(pc);
  CHECK_EQ_INT(blosc2_schunk_get_dparams(sc, &pd), 0);
  CHECK(pd->schunk == sc);
  free(pd);
  /* errors */
  CHECK(blosc2_schunk_decompress_chunk(sc, 4, buf, sizeof buf) < 0);
  CHECK(blosc2_schunk_decompress_chunk(sc, -1, buf, sizeof buf) < 0);
  CHECK(blosc2_schunk_decompress_chunk(sc, 0, buf, 10) < 0);
  CHECK(blosc2_schunk_delete_chunk(sc, 10) < 0);
  CHECK(blosc2_schunk_get_chunk(sc, 99, &c, &needs_free) < 0);
  /* a copy into each storage kind */
  blosc2_storage mem = {.contiguous = false};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &mem);
  REQUIRE(copy != NULL);
  CHECK_EQ_INT(copy->nchunks, 4);
  check_chunk(copy, 3, 4);
  check_chunk(copy, 2, 0);
  blosc2_schunk_free(copy);
  CHECK(blosc2_schunk_frame_len(sc) > 0);
  fprintf(stderr, "%s ok\n", label);
  blosc2_schunk_free(sc);
}

static void special_fill(bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_fill_special(sc, 10050, BLOSC2_SPECIAL_NAN, 8 * 1000), 11);
  CHECK_EQ_INT(sc->nchunks, 11);
  CHECK_EQ_INT(sc->nbytes, 8 * 10050);
  double d[1000];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 10, d, sizeof d), 400);
  CHECK(d[0] != d[0] && d[49] != d[49]);
  CHECK(blosc2_schunk_fill_special(sc, 10, BLOSC2_SPECIAL_ZERO, 80) < 0); /* not empty */
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 7;
  cp.compcode = BLOSC_ZSTD;
  blosc2_storage mem = {.contiguous = false, .cparams = &cp};
  exercise(&mem, "memory");
  blosc2_storage frame = {.contiguous = true, .cparams = &cp};
  exercise(&frame, "frame in memory");
  const char *path = "test_schunk_disk.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_storage disk = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  exercise(&disk, "frame on disk");
  CHECK(blosc2_schunk_new(&disk) == NULL); /* refuses to overwrite */
  CHECK_EQ_INT(blosc2_remove_urlpath(path), 0);
  CHECK_EQ_INT(blosc2_remove_urlpath(path), 0); /* missing: still success */
  special_fill(false);
  special_fill(true);
  blosc2_destroy();
  TEST_MAIN_END("test_schunk");
}
