/* Two handles on one frame on disk (contiguous and sparse) follow each
 * other's changes: after one handle updates, inserts, deletes or appends
 * chunks, or adds, updates or deletes a vlmetalayer, the other one's next call
 * sees the new state (data, counters and public fields), in this process and
 * when another process made the change. With locking, a reorder (which
 * leaves the frame's length as it was) is seen too. */
#include "test_common.h"
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000
#define NCH 10

static void fill(int32_t *buf, int c) {
  for (int i = 0; i < N; i++) buf[i] = i * 3 + c * 100000;
}

static void make(bool contiguous, const char *path) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t buf[N];
  for (int c = 0; c < NCH; c++) {
    fill(buf, c);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), c + 1);
  }
  blosc2_schunk_free(sc);
}

/* chunk n of h decompresses to fill(.., c) */
static void expect_chunk(blosc2_schunk *h, int n, int c) {
  int32_t buf[N], exp[N];
  fill(exp, c);
  memset(buf, 0, sizeof buf);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(h, n, buf, sizeof buf), (int)sizeof buf);
  CHECK_MEM(buf, exp, sizeof buf);
}

static uint8_t *data_chunk(blosc2_schunk *h, int c, int *len) {
  int32_t buf[N];
  fill(buf, c);
  uint8_t *chunk = malloc(sizeof buf + BLOSC2_MAX_OVERHEAD);
  *len = blosc2_compress_ctx(h->cctx, buf, sizeof buf, chunk, sizeof buf + BLOSC2_MAX_OVERHEAD);
  CHECK(*len > 0);
  return chunk;
}

/* h1 changes the frame; h2 (which read it before) must see each change */
static void same_process(bool contiguous, const char *path) {
  make(contiguous, path);
  blosc2_schunk *h1 = blosc2_schunk_open(path);
  blosc2_schunk *h2 = blosc2_schunk_open(path);
  REQUIRE(h1 != NULL && h2 != NULL);
  expect_chunk(h2, 0, 0);
  expect_chunk(h2, 1, 1);

  /* update with a special chunk: the other handle gets the new 32 bytes */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t special[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK_EQ_INT(blosc2_chunk_uninit(cp, N * 4, special, sizeof special), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(h1, 0, special, true), NCH);
  uint8_t *got = NULL;
  bool needs_free = false;
  CHECK_EQ_INT(blosc2_schunk_get_chunk(h2, 0, &got, &needs_free), BLOSC_EXTENDED_HEADER_LENGTH);
  if (got != NULL) {
    CHECK_EQ_INT(got[31] >> 4 & 7, BLOSC2_SPECIAL_UNINIT);
    if (needs_free) free(got);
  }
  expect_chunk(h2, 1, 1);
  CHECK_EQ_INT(h2->nchunks, NCH);
  CHECK_EQ_INT(h2->cbytes, h1->cbytes);

  /* append */
  int32_t buf[N];
  fill(buf, 50);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(h1, buf, sizeof buf), NCH + 1);
  expect_chunk(h2, 1, 1); /* any call on h2 takes in the change */
  CHECK_EQ_INT(h2->nchunks, NCH + 1);
  expect_chunk(h2, NCH, 50);
  CHECK_EQ_INT(h2->nbytes, (int64_t)(NCH + 1) * N * 4);
  CHECK_EQ_INT(h2->cbytes, h1->cbytes);

  /* insert in the middle */
  int len;
  uint8_t *chunk = data_chunk(h1, 60, &len);
  CHECK_EQ_INT(blosc2_schunk_insert_chunk(h1, 2, chunk, true), NCH + 2);
  free(chunk);
  expect_chunk(h2, 2, 60);
  expect_chunk(h2, 3, 2);
  CHECK_EQ_INT(h2->nchunks, NCH + 2);

  /* update with a regular chunk of another size */
  chunk = data_chunk(h1, 70, &len);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(h1, 0, chunk, true), NCH + 2);
  free(chunk);
  expect_chunk(h2, 0, 70);
  expect_chunk(h2, 4, 3);

  /* delete */
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(h1, 0), NCH + 1);
  expect_chunk(h2, 0, 1);
  expect_chunk(h2, NCH, 50);
  CHECK_EQ_INT(h2->nchunks, NCH + 1);
  CHECK_EQ_INT(h2->nbytes, (int64_t)(NCH + 1) * N * 4);
  CHECK_NEG(blosc2_schunk_decompress_chunk(h2, NCH + 1, buf, sizeof buf));

  /* vlmetalayers (the trailer changes) */
  uint8_t *content = NULL;
  int32_t clen = 0;
  CHECK_EQ_INT(blosc2_vlmeta_add(h1, "vl", (uint8_t *)"hello", 5, NULL), 0);
  CHECK_EQ_INT(blosc2_vlmeta_exists(h2, "vl"), 0);
  CHECK_EQ_INT(h2->nvlmetalayers, 1);
  CHECK_EQ_INT(blosc2_vlmeta_update(h1, "vl", (uint8_t *)"bye!!!", 6, NULL), 0);
  content = NULL;
  CHECK_EQ_INT(blosc2_vlmeta_get(h2, "vl", &content, &clen), 0);
  CHECK_EQ_INT(clen, 6);
  if (content != NULL) {
    CHECK_MEM(content, "bye!!!", 6);
    free(content);
  }
  CHECK_EQ_INT(blosc2_vlmeta_delete(h1, "vl"), 0);
  CHECK_NEG(blosc2_vlmeta_exists(h2, "vl"));
  CHECK_EQ_INT(h2->nvlmetalayers, 0);

  /* and the other way round: h2 writes, h1 follows */
  fill(buf, 80);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(h2, buf, sizeof buf), NCH + 2);
  expect_chunk(h1, 0, 1);
  CHECK_EQ_INT(h1->nchunks, NCH + 2);
  expect_chunk(h1, NCH + 1, 80);

  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  blosc2_remove_urlpath(path);
}

/* another process changes the frame while this one holds a handle */
static void other_process(bool contiguous, const char *path) {
  make(contiguous, path);
  blosc2_schunk *h = blosc2_schunk_open(path);
  REQUIRE(h != NULL);
  expect_chunk(h, 0, 0);
  expect_chunk(h, 1, 1);
  fflush(NULL);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    blosc2_schunk_free(h); /* the parent's handle (valgrind counts it) */
    blosc2_schunk *w = blosc2_schunk_open(path);
    if (w == NULL) _exit(3);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    uint8_t special[BLOSC_EXTENDED_HEADER_LENGTH];
    if (blosc2_chunk_uninit(cp, N * 4, special, sizeof special) < 0) _exit(4);
    if (blosc2_schunk_update_chunk(w, 0, special, true) != NCH) _exit(5);
    int32_t buf[N];
    fill(buf, 90);
    if (blosc2_schunk_append_buffer(w, buf, sizeof buf) != NCH + 1) _exit(6);
    if (blosc2_vlmeta_add(w, "child", (uint8_t *)"x", 1, NULL) < 0) _exit(7);
    blosc2_schunk_free(w);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  uint8_t *got = NULL;
  bool needs_free = false;
  CHECK_EQ_INT(blosc2_schunk_get_chunk(h, 0, &got, &needs_free), BLOSC_EXTENDED_HEADER_LENGTH);
  if (got != NULL && needs_free) free(got);
  CHECK_EQ_INT(h->nchunks, NCH + 1);
  expect_chunk(h, NCH, 90);
  expect_chunk(h, 1, 1);
  CHECK_EQ_INT(blosc2_vlmeta_exists(h, "child"), 0);
  CHECK_EQ_INT(h->nvlmetalayers, 1);
  blosc2_schunk_free(h);
  blosc2_remove_urlpath(path);
}

/* with locking, a reorder (same frame length) is seen through the lock */
static void locked_reorder(bool contiguous, const char *path) {
  make(contiguous, path);
  blosc2_stdio_params sp = {.locking = true};
  blosc2_io lio = {.id = BLOSC2_IO_FILESYSTEM, .name = "filesystem", .params = &sp};
  blosc2_schunk *h1 = blosc2_schunk_open_udio(path, &lio);
  blosc2_schunk *h2 = blosc2_schunk_open_udio(path, &lio);
  REQUIRE(h1 != NULL && h2 != NULL);
  expect_chunk(h2, 0, 0);
  int64_t order[NCH];
  for (int i = 0; i < NCH; i++) order[i] = NCH - 1 - i;
  CHECK_EQ_INT(blosc2_schunk_reorder_offsets(h1, order), 0);
  expect_chunk(h2, 0, NCH - 1);
  expect_chunk(h2, NCH - 1, 0);
  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  blosc2_remove_urlpath(path);
  char lock[256];
  snprintf(lock, sizeof lock, "%s.b2lock", path);
  remove(lock);
}

int main(void) {
  blosc2_init();
  same_process(true, "test_handles_c.b2frame");
  same_process(false, "test_handles_s.b2frame");
  other_process(true, "test_handles_pc.b2frame");
  other_process(false, "test_handles_ps.b2frame");
  locked_reorder(true, "test_handles_lc.b2frame");
  locked_reorder(false, "test_handles_ls.b2frame");
  blosc2_destroy();
  TEST_MAIN_END("test_handles");
}
