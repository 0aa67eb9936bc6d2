/* Sparse frames (storage.contiguous == false with a urlpath): one file per
 * chunk named by its number in the index (%08X.chunk) plus chunks.b2frame;
 * append/insert/update/delete, special chunks, metalayers, reopening, copies
 * to and from contiguous frames, blosc2_remove_urlpath / blosc2_remove_dir /
 * blosc2_rename_urlpath, and missing or damaged chunk files. */
#include "test_common.h"
#include <stdbool.h>

#define N 1000
#define DIR_A "test_sframe_a.b2frame"
#define DIR_B "test_sframe_b.b2frame"

static bool exists(const char *dir, const char *name) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "rb");
  if (f) fclose(f);
  return f != NULL;
}

static void fill(int64_t *buf, int seed) {
  for (int i = 0; i < N; i++) buf[i] = (int64_t)i * seed + seed;
}

/* expected content after the edits below: seeds per chunk, 0 = zeros */
static const int SEEDS[] = {0, 9, 2, 7, 5};

static void check(blosc2_schunk *sc) {
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, 5);
  CHECK_EQ_INT(sc->nbytes, 5 * N * 8);
  CHECK_EQ_INT(sc->typesize, 8);
  CHECK_EQ_INT(sc->chunksize, N * 8);
  int64_t got[N], exp[N];
  for (int c = 0; c < 5; c++) {
    if (SEEDS[c]) fill(exp, SEEDS[c]); else memset(exp, 0, sizeof exp);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, got, sizeof got), (int)sizeof got);
    CHECK_MEM(got, exp, sizeof got);
  }
  uint8_t *m; int32_t mlen;
  CHECK_EQ_INT(blosc2_meta_get(sc, "m", &m, &mlen), 0);
  CHECK_EQ_INT(mlen, 3);
  free(m);
  CHECK_EQ_INT(blosc2_vlmeta_get(sc, "v", &m, &mlen), 0);
  CHECK_EQ_INT(mlen, 5);
  CHECK(memcmp(m, "hello", 5) == 0);
  free(m);
}

int main(void) {
  blosc2_init();
  blosc2_remove_urlpath(DIR_A);
  blosc2_remove_urlpath(DIR_B);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = false, .urlpath = DIR_A, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK(!sc->storage->contiguous);
  CHECK_STR(sc->storage->urlpath, DIR_A);
  CHECK_EQ_INT(blosc2_meta_add(sc, "m", (uint8_t *)"abc", 3), 0);
  CHECK(exists(DIR_A, "chunks.b2frame"));
  int64_t buf[N];
  for (int c = 1; c <= 4; c++) {
    fill(buf, c);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), c);
  }
  CHECK(exists(DIR_A, "00000000.chunk"));
  CHECK(exists(DIR_A, "00000003.chunk"));
  /* insert: a new file numbered after the largest one */
  uint8_t *chunk = malloc(sizeof buf + BLOSC2_MAX_OVERHEAD);
  fill(buf, 9);
  int cb = blosc2_compress_ctx(sc->cctx, buf, sizeof buf, chunk, sizeof buf + BLOSC2_MAX_OVERHEAD);
  REQUIRE(cb > 0);
  CHECK_EQ_INT(blosc2_schunk_insert_chunk(sc, 1, chunk, true), 5);
  CHECK(exists(DIR_A, "00000004.chunk"));
  /* special chunks take no file; replacing a regular chunk removes its file */
  uint8_t z[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK(blosc2_chunk_zeros(cp, sizeof buf, z, sizeof z) > 0);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 0, z, true), 5);
  CHECK(!exists(DIR_A, "00000000.chunk"));
  /* update in place: same file number */
  fill(buf, 7);
  cb = blosc2_compress_ctx(sc->cctx, buf, sizeof buf, chunk, sizeof buf + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 3, chunk, true), 5);
  /* append then delete: the file goes away */
  fill(buf, 5);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), 6);
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 4), 5);
  CHECK(!exists(DIR_A, "00000003.chunk"));
  CHECK_EQ_INT(blosc2_vlmeta_add(sc, "v", (uint8_t *)"hello", 5, NULL), 0);
  int64_t *offs = blosc2_frame_get_offsets(sc);
  REQUIRE(offs != NULL);
  CHECK(offs[0] < 0);             /* zeros */
  CHECK_EQ_INT(offs[1], 4);       /* the inserted chunk's file */
  CHECK_EQ_INT(offs[2], 1);
  CHECK_EQ_INT(offs[3], 2);       /* updated in place */
  CHECK_EQ_INT(offs[4], 5);       /* appended after the insert */
  free(offs);
  check(sc);
  blosc2_schunk_free(sc);
  free(chunk);

  /* reopen */
  sc = blosc2_schunk_open(DIR_A);
  check(sc);
  CHECK(!sc->storage->contiguous);
  /* a contiguous copy and back to a sparse one */
  uint8_t *cframe; bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  CHECK(len > 0);
  blosc2_schunk *cf = blosc2_schunk_from_buffer(cframe, len, true);
  check(cf);
  blosc2_storage st2 = {.contiguous = false, .urlpath = DIR_B, .cparams = &cp};
  blosc2_schunk *sp = blosc2_schunk_copy(cf, &st2);
  check(sp);
  blosc2_schunk_free(sp);
  blosc2_schunk_free(cf);
  if (needs_free) free(cframe);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(DIR_B);
  check(sc);
  blosc2_schunk_free(sc);

  /* rename, then damaged and missing chunk files */
  CHECK_EQ_INT(blosc2_remove_urlpath(DIR_B), 0);
  CHECK_EQ_INT(blosc2_rename_urlpath(DIR_A, DIR_B), 0);
  CHECK(blosc2_schunk_open(DIR_A) == NULL);
  sc = blosc2_schunk_open(DIR_B);
  check(sc);
  char p[512];
  snprintf(p, sizeof p, "%s/00000001.chunk", DIR_B);
  FILE *f = fopen(p, "wb");
  REQUIRE(f != NULL);
  fwrite("garbage", 1, 7, f);
  fclose(f);
  CHECK_NEG(blosc2_schunk_decompress_chunk(sc, 2, buf, sizeof buf));
  remove(p);
  CHECK_NEG(blosc2_schunk_decompress_chunk(sc, 2, buf, sizeof buf));
  uint8_t *c2; bool nf;
  CHECK_NEG(blosc2_schunk_get_chunk(sc, 2, &c2, &nf));
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, buf, sizeof buf), (int)sizeof buf);
  blosc2_schunk_free(sc);
  /* a missing index */
  snprintf(p, sizeof p, "%s/chunks.b2frame", DIR_B);
  remove(p);
  CHECK(blosc2_schunk_open(DIR_B) == NULL);
  CHECK_EQ_INT(blosc2_remove_dir(DIR_B), 0);
  CHECK(!exists(DIR_B, "00000004.chunk"));
  CHECK_NEG(blosc2_remove_dir(DIR_B));
  CHECK_EQ_INT(blosc2_remove_urlpath(DIR_B), 0);
  blosc2_destroy();
  TEST_MAIN_END("test_sframe");
}
