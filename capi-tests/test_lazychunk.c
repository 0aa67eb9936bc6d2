/* Lazy chunks and the rest of the super-chunk access API: get_lazychunk on
 * frames on disk (contiguous and sparse: header + bstarts + trailer, lazy
 * bit 0x08) decompressed and sliced through the super-chunk's context,
 * get_vlblock, get_sparse_buffer, reorder_offsets, blosc2_get_slice_nchunks,
 * and lock/unlock/refresh (another process appends; refresh shows it).
 * Lazy chunks of VL-block chunks give their blocks through the super-chunk's
 * context too, and one whose trailer's block sizes were changed is refused. */
#include "test_common.h"
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 10000
#define NCH 4

static void fill(int32_t *buf, int c) {
  for (int i = 0; i < N; i++) buf[i] = i * (c + 1) + c;
}

static blosc2_schunk *make(bool contiguous, const char *path) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  cp.blocksize = 4096; /* several blocks per chunk */
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t buf[N];
  for (int c = 0; c < NCH; c++) {
    fill(buf, c);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), c + 1);
  }
  return sc;
}

static void lazy_checks(blosc2_schunk *sc, bool expect_lazy) {
  int32_t buf[N], exp[N];
  for (int c = 0; c < NCH; c++) {
    uint8_t *lazy; bool needs_free;
    int lcb = blosc2_schunk_get_lazychunk(sc, c, &lazy, &needs_free);
    REQUIRE(lcb > 0);
    int32_t nbytes, cbytes, blocksize;
    CHECK_EQ_INT(blosc2_cbuffer_sizes(lazy, &nbytes, &cbytes, &blocksize), 0);
    CHECK_EQ_INT(nbytes, (int)sizeof buf);
    bool is_lazy = (lazy[31] & 0x08) != 0;
    CHECK_EQ_INT(is_lazy, expect_lazy);
    if (expect_lazy) {
      int nblocks = (nbytes + blocksize - 1) / blocksize;
      CHECK(nblocks > 1);
      CHECK_EQ_INT(lcb, 32 + nblocks * 4 + 4 + 8 + nblocks * 4);
      CHECK(lcb < cbytes);
      int32_t csum = 0;
      for (int b = 0; b < nblocks; b++) {
        int32_t cs;
        memcpy(&cs, lazy + 32 + nblocks * 4 + 12 + 4 * b, 4);
        CHECK(cs > 0);
        csum += cs;
      }
      CHECK_EQ_INT(csum + 32 + nblocks * 4, cbytes);
    }
    fill(exp, c);
    memset(buf, 0, sizeof buf);
    CHECK_EQ_INT(blosc2_decompress_ctx(sc->dctx, lazy, lcb, buf, sizeof buf), (int)sizeof buf);
    CHECK_MEM(buf, exp, sizeof buf);
    int32_t items[10];
    CHECK_EQ_INT(blosc2_getitem_ctx(sc->dctx, lazy, lcb, 5000, 10, items, sizeof items),
                 (int)sizeof items);
    CHECK_MEM(items, exp + 5000, sizeof items);
    if (needs_free) free(lazy);
  }
  /* slices read through lazy chunks */
  int32_t sl[300];
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, N - 100, N + 200, sl), 0);
  fill(exp, 0);
  CHECK_MEM(sl, exp + N - 100, 100 * 4);
  fill(exp, 1);
  CHECK_MEM(sl + 100, exp, 200 * 4);
  /* scattered items */
  int64_t coords[5] = {3, N + 7, 3 * N + 1, 2, 2 * N};
  int32_t got[5];
  CHECK_EQ_INT(blosc2_schunk_get_sparse_buffer(sc, 5, coords, got), 0);
  CHECK_EQ_INT(got[0], 3);
  CHECK_EQ_INT(got[1], 7 * 2 + 1);
  CHECK_EQ_INT(got[2], 1 * 4 + 3);
  CHECK_EQ_INT(got[3], 2);
  CHECK_EQ_INT(got[4], 2);
  int64_t bad[1] = {NCH * N};
  CHECK_NEG(blosc2_schunk_get_sparse_buffer(sc, 1, bad, got));
  CHECK_EQ_INT(blosc2_schunk_get_sparse_buffer(sc, 0, NULL, NULL), 0);
  /* the chunks a slice touches */
  int64_t start = N - 1, stop = 2 * N + 1, *idx = NULL;
  CHECK_EQ_INT(blosc2_get_slice_nchunks(sc, &start, &stop, &idx), 3);
  if (idx) {
    CHECK_EQ_INT(idx[0], 0);
    CHECK_EQ_INT(idx[2], 2);
    free(idx);
  }
}

static void reorder_checks(blosc2_schunk *sc) {
  int64_t order[NCH] = {3, 1, 0, 2};
  CHECK_EQ_INT(blosc2_schunk_reorder_offsets(sc, order), 0);
  int32_t buf[N], exp[N];
  for (int c = 0; c < NCH; c++) {
    fill(exp, (int)order[c]);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, buf, sizeof buf), (int)sizeof buf);
    CHECK_MEM(buf, exp, sizeof buf);
  }
  int64_t dup[NCH] = {0, 0, 1, 2};
  CHECK_NEG(blosc2_schunk_reorder_offsets(sc, dup));
  int64_t out[NCH] = {0, 1, 2, 9};
  CHECK_NEG(blosc2_schunk_reorder_offsets(sc, out));
}

/* A lazy chunk of a chunk smaller than its own trailer (a memcpyed chunk of
 * 16 bytes: cbytes 48, lazy chunk 52 bytes), read back with getitem through
 * a context on the super-chunk, with the size get_lazychunk returned (what
 * python-blosc2's index sidecars do). */
static void tiny_lazy_chunk(void) {
  const char *path = "test_lazychunk_tiny.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.blocksize = 16;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int64_t d[2] = {7, 9};
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, d, sizeof d), 1);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  uint8_t *c = NULL;
  bool nf = false;
  int cb = blosc2_schunk_get_lazychunk(sc, 0, &c, &nf);
  CHECK(cb > 0);
  blosc2_dparams dp = *sc->storage->dparams;
  dp.schunk = sc;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(dctx != NULL);
  int64_t out[2] = {0, 0};
  CHECK_EQ_INT(blosc2_getitem_bytes_ctx(dctx, c, cb, 8, 8, out, sizeof out), 8);
  CHECK_EQ_INT(out[0], 9);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, c, cb, out, sizeof out), 16);
  CHECK_EQ_INT(out[0], 7);
  blosc2_free_ctx(dctx);
  if (nf) free(c);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

/* VL-block chunks in a frame on disk: blosc2_vldecompress_block_ctx on the
 * lazy chunk, through schunk->dctx.  (blosc2_vldecompress_ctx on a lazy
 * chunk: the reference refuses it with -6; ours decodes it; not tested.) */
static void lazy_vlblocks(bool contiguous, const char *path) {
  blosc2_remove_urlpath(path);
  const char *blocks[3] = {"first", "the second one", "3"};
  int32_t sizes[3] = {6, 15, 2};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t chunk[256];
  int cb = blosc2_vlcompress_ctx(cctx, (const void *const *)blocks, sizes, 3, chunk, sizeof chunk);
  REQUIRE(cb > 0);
  CHECK_EQ_INT(blosc2_schunk_append_chunk(sc, chunk, true), 1);
  CHECK_EQ_INT(blosc2_schunk_append_chunk(sc, chunk, true), 2);
  blosc2_free_ctx(cctx);
  for (int c = 0; c < 2; c++) {
    uint8_t *lazy = NULL;
    bool nf = false;
    int lcb = blosc2_schunk_get_lazychunk(sc, c, &lazy, &nf);
    REQUIRE(lcb > 0);
    CHECK((lazy[31] & 0x08) != 0);
    int32_t nblocks = 0;
    CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(lazy, lcb, &nblocks), 0);
    CHECK_EQ_INT(nblocks, 3);
    for (int b = 0; b < 3; b++) {
      uint8_t *out = NULL;
      int32_t n = -1;
      CHECK_EQ_INT(blosc2_vldecompress_block_ctx(sc->dctx, lazy, lcb, b, &out, &n), sizes[b]);
      CHECK_EQ_INT(n, sizes[b]);
      if (out != NULL) CHECK_MEM(out, blocks[b], sizes[b]);
      free(out);
    }
    /* the first block's compressed size in the trailer, made too small */
    int32_t one = 1;
    memcpy(lazy + 32 + 3 * 4 + 4 + 8, &one, 4);
    uint8_t *out = NULL;
    int32_t n = -1;
    CHECK_EQ_INT(blosc2_vldecompress_block_ctx(sc->dctx, lazy, lcb, 0, &out, &n),
                 BLOSC2_ERROR_INVALID_HEADER);
    free(out);
    if (nf) free(lazy);
  }
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  tiny_lazy_chunk();
  lazy_vlblocks(true, "test_lazychunk_vl.b2frame");
  lazy_vlblocks(false, "test_lazychunk_vl_s.b2frame");
  const char *cpath = "test_lazychunk.b2frame";
  const char *spath = "test_lazychunk_sparse.b2frame";
  blosc2_remove_urlpath(cpath);
  blosc2_remove_urlpath(spath);

  /* a frame in memory hands out whole chunks */
  blosc2_schunk *sc = make(true, NULL);
  lazy_checks(sc, false);
  reorder_checks(sc);
  blosc2_schunk_free(sc);
  sc = make(false, NULL);
  lazy_checks(sc, false);
  reorder_checks(sc);
  blosc2_schunk_free(sc);

  /* frames on disk hand out lazy chunks */
  sc = make(true, cpath);
  lazy_checks(sc, true);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(cpath);
  REQUIRE(sc != NULL);
  lazy_checks(sc, true);
  reorder_checks(sc);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(cpath);
  REQUIRE(sc != NULL);
  int32_t buf[N], exp[N];
  fill(exp, 3);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, buf, sizeof buf), (int)sizeof buf);
  CHECK_MEM(buf, exp, sizeof buf); /* the new order is on disk */
  blosc2_schunk_free(sc);

  sc = make(false, spath);
  lazy_checks(sc, true);
  reorder_checks(sc);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(spath);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, buf, sizeof buf), (int)sizeof buf);
  CHECK_MEM(buf, exp, sizeof buf);
  blosc2_schunk_free(sc);

  /* VL-block chunks: one block at a time */
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 1;
    blosc2_storage st = {.contiguous = true, .cparams = &cp};
    blosc2_schunk *vs = blosc2_schunk_new(&st);
    REQUIRE(vs != NULL);
    const char *blocks[3] = {"first block", "second, longer block of bytes", "3"};
    int32_t sizes[3] = {11, 29, 1};
    uint8_t chunk[512];
    int csize = blosc2_vlcompress_ctx(vs->cctx, (const void *const *)blocks, sizes, 3,
                                      chunk, sizeof chunk);
    REQUIRE(csize > 0);
    CHECK_EQ_INT(blosc2_schunk_append_chunk(vs, chunk, true), 1);
    for (int b = 0; b < 3; b++) {
      uint8_t *dest = NULL;
      int32_t dsize = 0;
      CHECK_EQ_INT(blosc2_schunk_get_vlblock(vs, 0, b, &dest, &dsize), sizes[b]);
      CHECK_EQ_INT(dsize, sizes[b]);
      if (dest) {
        CHECK_MEM(dest, blocks[b], sizes[b]);
        free(dest);
      }
    }
    uint8_t *dest = NULL;
    int32_t dsize = 0;
    CHECK_NEG(blosc2_schunk_get_vlblock(vs, 0, 3, &dest, &dsize));
    CHECK_NEG(blosc2_schunk_get_vlblock(vs, 1, 0, &dest, &dsize));
    CHECK_NEG(blosc2_schunk_get_vlblock(NULL, 0, 0, &dest, &dsize));
    blosc2_schunk_free(vs);
  }

  /* a lazy VL-block chunk of a frame on disk, handed in cut short of its
     trailer (the block sizes at its end): refused as a short source */
  {
    const char *vpath = "test_lazychunk_vl.b2frame";
    blosc2_remove_urlpath(vpath);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 1;
    cp.nthreads = 1;
    blosc2_storage st = {.contiguous = true, .urlpath = (char *)vpath, .cparams = &cp};
    blosc2_schunk *vs = blosc2_schunk_new(&st);
    REQUIRE(vs != NULL);
    const char *blocks[3] = {"first block", "second, longer block of bytes", "3"};
    int32_t sizes[3] = {11, 29, 1};
    uint8_t chunk[512];
    int csize = blosc2_vlcompress_ctx(vs->cctx, (const void *const *)blocks, sizes, 3,
                                      chunk, sizeof chunk);
    REQUIRE(csize > 0);
    CHECK_EQ_INT(blosc2_schunk_append_chunk(vs, chunk, true), 1);
    uint8_t *lazy = NULL;
    bool needs_free = false;
    int lcb = blosc2_schunk_get_lazychunk(vs, 0, &lazy, &needs_free);
    /* header, 3 block starts, nchunk, offset, 3 block sizes */
    CHECK_EQ_INT(lcb, 32 + 3 * 4 + 4 + 8 + 3 * 4);
    if (lcb > 0 && lazy != NULL) {
      CHECK((lazy[31] & 0x08) != 0);
      uint8_t out[256];
      int cuts[5] = {1, 4, 12, 13, 24};
      for (int k = 0; k < 5; k++) {
        CHECK_EQ_INT(blosc2_decompress_ctx(vs->dctx, lazy, lcb - cuts[k], out, sizeof out),
                     BLOSC2_ERROR_READ_BUFFER);
      }
      if (needs_free) free(lazy);
    }
    /* the blocks themselves still read back whole */
    uint8_t *dest = NULL;
    int32_t dsize = 0;
    CHECK_EQ_INT(blosc2_schunk_get_vlblock(vs, 0, 1, &dest, &dsize), sizes[1]);
    if (dest) {
      CHECK_MEM(dest, blocks[1], sizes[1]);
      free(dest);
    }
    blosc2_schunk_free(vs);
    blosc2_remove_urlpath(vpath);
  }

  /* lock/unlock/refresh: another process appends to the frame */
  sc = blosc2_schunk_open(cpath);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_lock(sc), 0);   /* a no-op without locking */
  CHECK_EQ_INT(blosc2_schunk_unlock(sc), 0);
  CHECK_EQ_INT(blosc2_schunk_refresh(sc), 0);
  fflush(NULL);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    blosc2_schunk_free(sc); /* the parent's handle, inherited (valgrind counts it) */
    blosc2_schunk *w = blosc2_schunk_open(cpath);
    if (w == NULL) _exit(3);
    int32_t b2[N];
    fill(b2, 7);
    int64_t n = blosc2_schunk_append_buffer(w, b2, sizeof b2);
    blosc2_schunk_free(w);
    _exit(n == NCH + 1 ? 0 : 4);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ_INT(blosc2_schunk_refresh(sc), 1);
  CHECK_EQ_INT(sc->nchunks, NCH + 1);
  CHECK_EQ_INT(sc->nbytes, (int64_t)(NCH + 1) * N * 4);
  fill(exp, 7);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, NCH, buf, sizeof buf), (int)sizeof buf);
  CHECK_MEM(buf, exp, sizeof buf);
  CHECK_EQ_INT(blosc2_schunk_refresh(sc), 0);
  blosc2_schunk_free(sc);

  /* with locking enabled: re-entrant lock, exclusive against other handles */
  blosc2_stdio_params sp = {.locking = true};
  blosc2_io lio = {.id = BLOSC2_IO_FILESYSTEM, .name = "filesystem", .params = &sp};
  sc = blosc2_schunk_open_udio(cpath, &lio);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_lock(sc), 0);
  CHECK_EQ_INT(blosc2_schunk_lock(sc), 0);
  fill(buf, 8);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), NCH + 2);
  CHECK_EQ_INT(blosc2_schunk_unlock(sc), 0);
  CHECK_EQ_INT(blosc2_schunk_unlock(sc), 0);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(cpath);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, NCH + 2);
  blosc2_schunk_free(sc);

  /* two processes appending at once through locked handles lose nothing */
  fflush(NULL);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    REQUIRE(kids[k] >= 0);
    if (kids[k] == 0) {
      blosc2_schunk *w = blosc2_schunk_open_udio(cpath, &lio);
      if (w == NULL) _exit(3);
      int32_t b2[N];
      for (int i = 0; i < 10; i++) {
        fill(b2, 20 + k);
        if (blosc2_schunk_append_buffer(w, b2, sizeof b2) < 0) _exit(4);
      }
      blosc2_schunk_free(w);
      _exit(0);
    }
  }
  for (int k = 0; k < 2; k++) {
    waitpid(kids[k], &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  sc = blosc2_schunk_open(cpath);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, NCH + 2 + 20);
  int from[2] = {0, 0};
  for (int c = NCH + 2; c < sc->nchunks; c++) {
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, buf, sizeof buf), (int)sizeof buf);
    int k = buf[0] - 20;
    CHECK(k == 0 || k == 1);
    if (k == 0 || k == 1) {
      from[k]++;
      fill(exp, 20 + k);
      CHECK_MEM(buf, exp, sizeof buf);
    }
  }
  CHECK_EQ_INT(from[0], 10);
  CHECK_EQ_INT(from[1], 10);
  blosc2_schunk_free(sc);

  blosc2_remove_urlpath(cpath);
  blosc2_remove_urlpath(spath);
  blosc2_destroy();
  TEST_MAIN_END("test_lazychunk");
}
