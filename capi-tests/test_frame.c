/* Contiguous frames: to_buffer/from_buffer (copy and no copy), to_file/open,
 * append_file/open_offset, frames with special chunks, and bad input
 * (truncated and bit-flipped frames must give NULL, never a crash). */
#include "test_common.h"
#include <stdbool.h>

static blosc2_schunk *make(bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.compcode = BLOSC_LZ4;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_meta_add(sc, "shape", (uint8_t *)"\x92\x01\x02", 3), 0);
  int64_t buf[1000];
  for (int c = 0; c < 5; c++) {
    for (int i = 0; i < 1000; i++) buf[i] = (int64_t)i * (c + 1);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), c + 1);
  }
  uint8_t z[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK(blosc2_chunk_zeros(cp, sizeof buf, z, sizeof z) > 0);
  CHECK_EQ_INT(blosc2_schunk_append_chunk(sc, z, true), 6);
  CHECK_EQ_INT(blosc2_vlmeta_add(sc, "attrs", (uint8_t *)"{\"a\": 1}", 8, NULL), 0);
  return sc;
}

static void same(blosc2_schunk *a, blosc2_schunk *b) {
  CHECK_EQ_INT(a->nchunks, b->nchunks);
  CHECK_EQ_INT(a->nbytes, b->nbytes);
  CHECK_EQ_INT(a->typesize, b->typesize);
  CHECK_EQ_INT(a->chunksize, b->chunksize);
  CHECK_EQ_INT(a->compcode, b->compcode);
  CHECK_EQ_INT(a->nmetalayers, b->nmetalayers);
  CHECK_EQ_INT(a->nvlmetalayers, b->nvlmetalayers);
  int64_t x[1000], y[1000];
  for (int64_t i = 0; i < a->nchunks && i < b->nchunks; i++) {
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(a, i, x, sizeof x), (int)sizeof x);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(b, i, y, sizeof y), (int)sizeof y);
    CHECK(memcmp(x, y, sizeof x) == 0);
  }
  uint8_t *m; int32_t mlen;
  CHECK_EQ_INT(blosc2_meta_get(b, "shape", &m, &mlen), 0);
  CHECK_EQ_INT(mlen, 3);
  free(m);
  CHECK_EQ_INT(blosc2_vlmeta_get(b, "attrs", &m, &mlen), 0);
  CHECK_EQ_INT(mlen, 8);
  CHECK(memcmp(m, "{\"a\": 1}", 8) == 0);
  free(m);
}

int main(void) {
  blosc2_init();
  for (int k = 0; k < 2; k++) {
    blosc2_schunk *sc = make(k == 1);
    uint8_t *cframe; bool needs_free;
    int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    REQUIRE(len > 0);
    CHECK(memcmp(cframe + 2, "b2frame", 8) == 0);
    CHECK_EQ_INT(needs_free, k == 0);
    for (int copy = 0; copy < 2; copy++) {
      blosc2_schunk *b = blosc2_schunk_from_buffer(cframe, len, copy);
      REQUIRE(b != NULL);
      same(sc, b);
      CHECK_EQ_INT(blosc2_schunk_frame_len(b) == len, !copy);
      blosc2_schunk_free(b);
    }
    /* bad input */
    uint8_t *bad = malloc(len);
    int opened = 0;
    for (int64_t cut = 0; cut < len; cut += 7) {
      blosc2_schunk *b = blosc2_schunk_from_buffer(cframe, cut, false);
      CHECK(b == NULL);
    }
    uint64_t rng = 42;
    for (int t = 0; t < 3000; t++) {
      memcpy(bad, cframe, len);
      bad[tc_rand(&rng) % len] ^= (uint8_t)(1u << (tc_rand(&rng) % 8));
      blosc2_schunk *b = blosc2_schunk_from_buffer(bad, len, false);
      if (b != NULL) {
        opened++;
        int64_t x[1000];
        for (int64_t i = 0; i < b->nchunks && i < 8; i++)
          blosc2_schunk_decompress_chunk(b, i, x, sizeof x);
        blosc2_schunk_free(b);
      }
    }
    fprintf(stderr, "bit flips that still opened: %d of 3000\n", opened);
    free(bad);
    /* files */
    const char *path = "test_frame_file.b2frame";
    blosc2_remove_urlpath(path);
    CHECK_EQ_INT(blosc2_schunk_to_file(sc, path), len);
    blosc2_schunk *f = blosc2_schunk_open(path);
    REQUIRE(f != NULL);
    same(sc, f);
    CHECK(f->storage != NULL && f->storage->contiguous && f->storage->urlpath != NULL);
    /* edit the on-disk frame and reopen */
    int64_t buf[1000];
    for (int i = 0; i < 1000; i++) buf[i] = -i;
    CHECK_EQ_INT(blosc2_schunk_append_buffer(f, buf, sizeof buf), 7);
    CHECK_EQ_INT(blosc2_schunk_delete_chunk(f, 0), 6);
    blosc2_schunk_free(f);
    f = blosc2_schunk_open(path);
    REQUIRE(f != NULL);
    CHECK_EQ_INT(f->nchunks, 6);
    int64_t got[1000];
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(f, 5, got, sizeof got), (int)sizeof got);
    CHECK(memcmp(got, buf, sizeof buf) == 0);
    blosc2_schunk_free(f);
    /* at an offset */
    const char *apath = "test_frame_appended.bin";
    blosc2_remove_urlpath(apath);
    FILE *fp = fopen(apath, "wb"); REQUIRE(fp); fwrite("prefix", 1, 6, fp); fclose(fp);
    CHECK_EQ_INT(blosc2_schunk_append_file(sc, apath), 6);
    CHECK_EQ_INT(blosc2_schunk_append_file(sc, apath), 6 + len);
    f = blosc2_schunk_open_offset(apath, 6 + len);
    REQUIRE(f != NULL);
    same(sc, f);
    blosc2_schunk_free(f);
    CHECK(blosc2_schunk_open_offset(apath, 3) == NULL);
    CHECK(blosc2_schunk_open("does-not-exist.b2frame") == NULL);
    blosc2_remove_urlpath(apath);
    blosc2_remove_urlpath(path);
    if (needs_free) free(cframe);
    blosc2_schunk_free(sc);
  }
  CHECK(blosc2_schunk_from_buffer(NULL, 100, false) == NULL);
  blosc2_destroy();
  TEST_MAIN_END("test_frame");
}
