/* Reading and writing parts of b2nd arrays, checked against a plain C copy
 * of the array kept alongside:
 *   b2nd_get_slice_cbuffer / b2nd_set_slice_cbuffer on random boxes (with
 *   buffers the size of the box and larger ones), b2nd_get_slice,
 *   b2nd_get_sparse_cbuffer, b2nd_get_orthogonal_selection /
 *   b2nd_set_orthogonal_selection,
 * and the buffer helpers b2nd_copy_buffer / b2nd_copy_buffer2,
 * blosc2_unidim_to_multidim / blosc2_multidim_to_unidim. */
#define B2ND_TEST_SEED 0x9E3779B97F4A7C15ull
#include "b2nd_common.h"

static void fill_random(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)tc_rand(&rng);
}

/* Copy box [start, start+extent) of a C-order array of `shape` into (to_box
   true) or from a C-order buffer of `bshape`, placed at the buffer origin. */
static void model_box(uint8_t *arr, const int64_t *shape, int ndim, int32_t ts,
                      const int64_t *start, const int64_t *extent, uint8_t *buf,
                      const int64_t *bshape, bool to_box) {
  if (prod(ndim, extent) == 0) return;
  int64_t as[B2ND_MAX_DIM], bst[B2ND_MAX_DIM], idx[B2ND_MAX_DIM] = {0};
  strides_of(ndim, shape, as);
  strides_of(ndim, bshape, bst);
  do {
    int64_t ao = 0, bo = 0;
    for (int i = 0; i < ndim; i++) {
      ao += (start[i] + idx[i]) * as[i];
      bo += idx[i] * bst[i];
    }
    if (to_box) {
      memcpy(buf + bo * ts, arr + ao * ts, (size_t)ts);
    } else {
      memcpy(arr + ao * ts, buf + bo * ts, (size_t)ts);
    }
  } while (next_index(ndim, idx, extent));
}

static b2nd_context_t *make_ctx(const geom_t *g, bool contiguous) {
  return geom_ctx(g, (ctx_opts_t){.contiguous = contiguous, .nthreads = 2});
}

static void random_box(const geom_t *g, int64_t *start, int64_t *stop, bool allow_empty) {
  for (int i = 0; i < g->ndim; i++) {
    int64_t a = rnd(g->shape[i] + 1), b = rnd(g->shape[i] + 1);
    if (a > b) { int64_t t = a; a = b; b = t; }
    if (!allow_empty && a == b) {
      if (b < g->shape[i]) b++; else a--;
    }
    start[i] = a;
    stop[i] = b;
  }
}

/* One array, many random operations, compared with the model throughout. */
static void random_ops(const geom_t *g, bool contiguous, int nops, const char *label) {
  int nd = g->ndim;
  int32_t ts = g->typesize;
  int64_t nitems = prod(nd, g->shape);
  int64_t nbytes = nitems * ts;
  uint8_t *model = tc_malloc((size_t)nbytes);
  fill_random(model, (size_t)nbytes);
  b2nd_context_t *ctx = make_ctx(g, contiguous);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, model, nbytes), 0);
  REQUIRE(a != NULL);

  for (int op = 0; op < nops; op++) {
    int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM], ext[B2ND_MAX_DIM], bshape[B2ND_MAX_DIM];
    int kind = (int)rnd(7);
    random_box(g, start, stop, kind <= 1 && rnd(5) == 0);
    bool bigger = rnd(3) == 0;
    for (int i = 0; i < nd; i++) {
      ext[i] = stop[i] - start[i];
      bshape[i] = ext[i] + (bigger ? rnd(3) : 0);
    }
    int64_t bitems = prod(nd, bshape);
    int64_t bbytes = bitems * ts;
    char where[160];
    int wl = snprintf(where, sizeof where, "%s op %d kind %d box", label, op, kind);
    for (int i = 0; i < nd && wl < 120; i++)
      wl += snprintf(where + wl, sizeof where - (size_t)wl, " [%lld,%lld)", (long long)start[i],
                     (long long)stop[i]);

    switch (kind) {
      case 0: { /* get_slice_cbuffer */
        uint8_t *buf = tc_malloc((size_t)bbytes + 8);
        uint8_t *want = tc_malloc((size_t)bbytes + 8);
        memset(buf, 0xA5, (size_t)bbytes + 8);
        memset(want, 0xA5, (size_t)bbytes + 8);
        model_box(model, g->shape, nd, ts, start, ext, want, bshape, true);
        int rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, bbytes);
        CHECK_MSG(rc == 0, "%s: rc %d", where, rc);
        /* compare only the box (what lies outside it in the buffer is not
           specified) */
        uint8_t *gotbox = tc_malloc((size_t)(prod(nd, ext) * ts));
        uint8_t *wantbox = tc_malloc((size_t)(prod(nd, ext) * ts));
        int64_t zero[B2ND_MAX_DIM] = {0};
        model_box(buf, bshape, nd, ts, zero, ext, gotbox, ext, true);
        model_box(want, bshape, nd, ts, zero, ext, wantbox, ext, true);
        long d = tc_first_diff(gotbox, wantbox, (size_t)(prod(nd, ext) * ts));
        CHECK_MSG(d < 0, "%s: get differs at byte %ld", where, d);
        CHECK_MSG(buf[bbytes] == 0xA5, "%s: wrote past the buffer", where);
        free(gotbox);
        free(wantbox);
        free(buf);
        free(want);
        break;
      }
      case 1: { /* set_slice_cbuffer */
        uint8_t *buf = tc_malloc((size_t)bbytes);
        fill_random(buf, (size_t)bbytes);
        int rc = b2nd_set_slice_cbuffer(buf, bshape, bbytes, start, stop, a);
        CHECK_MSG(rc == 0, "%s: rc %d", where, rc);
        if (rc == 0) model_box(model, g->shape, nd, ts, start, ext, buf, bshape, false);
        free(buf);
        break;
      }
      case 2: { /* get_slice into a new array with its own chunking */
        geom_t h = *g;
        for (int i = 0; i < nd; i++) {
          int64_t e = ext[i] > 0 ? ext[i] : 1;
          h.cs[i] = (int32_t)(1 + rnd(e));
          h.bs[i] = (int32_t)(1 + rnd(h.cs[i]));
          h.shape[i] = g->shape[i]; /* replaced by the slice shape */
        }
        b2nd_context_t *sctx = make_ctx(&h, rnd(2) == 0);
        REQUIRE(sctx != NULL);
        b2nd_array_t *s = NULL;
        int rc = b2nd_get_slice(sctx, &s, a, start, stop);
        CHECK_MSG(rc == 0 && s != NULL, "%s: rc %d", where, rc);
        if (s != NULL) {
          CHECK_EQ_INT(s->ndim, nd);
          for (int i = 0; i < nd; i++) {
            CHECK_MSG(s->shape[i] == ext[i], "%s: dim %d shape %lld", where, i,
                      (long long)s->shape[i]);
            CHECK(s->chunkshape[i] == h.cs[i] && s->blockshape[i] == h.bs[i]);
          }
          int64_t sb = prod(nd, ext) * ts;
          uint8_t *want = tc_malloc((size_t)sb);
          model_box(model, g->shape, nd, ts, start, ext, want, ext, true);
          if (sb > 0) check_content(s, want, sb, where, false);
          CHECK_EQ_INT(s->nitems, prod(nd, ext));
          free(want);
          b2nd_free(s);
        }
        b2nd_free_ctx(sctx);
        break;
      }
      case 3: { /* sparse gather of flat indexes */
        int64_t n = 1 + rnd(200);
        int64_t *coords = tc_malloc((size_t)n * sizeof(int64_t));
        for (int64_t k = 0; k < n; k++) {
          coords[k] = rnd(nitems);
          if (k > 0 && rnd(10) == 0) coords[k] = coords[k - 1]; /* repeats */
        }
        uint8_t *buf = tc_malloc((size_t)(n * ts) + 4);
        memset(buf, 0x3C, (size_t)(n * ts) + 4);
        int rc = b2nd_get_sparse_cbuffer(a, n, coords, buf, n * ts);
        CHECK_MSG(rc >= 0, "%s: sparse rc %d", where, rc);
        int bad = 0;
        for (int64_t k = 0; k < n; k++)
          bad += memcmp(buf + k * ts, model + coords[k] * ts, (size_t)ts) != 0;
        CHECK_MSG(bad == 0, "%s: %d of %lld sparse items wrong", where, bad, (long long)n);
        CHECK(buf[n * ts] == 0x3C);
        free(buf);
        free(coords);
        break;
      }
      case 4: { /* orthogonal get, unsorted indexes with repeats */
        int64_t *sel[B2ND_MAX_DIM], ssize[B2ND_MAX_DIM];
        for (int i = 0; i < nd; i++) {
          ssize[i] = 1 + rnd(g->shape[i] < 6 ? g->shape[i] : 6);
          sel[i] = tc_malloc((size_t)ssize[i] * sizeof(int64_t));
          for (int64_t k = 0; k < ssize[i]; k++) sel[i][k] = rnd(g->shape[i]);
        }
        int64_t sb = prod(nd, ssize) * ts;
        uint8_t *buf = tc_malloc((size_t)sb);
        int rc = b2nd_get_orthogonal_selection(a, sel, ssize, buf, ssize, sb);
        CHECK_MSG(rc == 0, "%s: orthogonal get rc %d", where, rc);
        int64_t idx[B2ND_MAX_DIM] = {0}, as[B2ND_MAX_DIM];
        strides_of(nd, g->shape, as);
        int64_t pos = 0;
        int bad = 0;
        do {
          int64_t ao = 0;
          for (int i = 0; i < nd; i++) ao += sel[i][idx[i]] * as[i];
          bad += memcmp(buf + pos * ts, model + ao * ts, (size_t)ts) != 0;
          pos++;
        } while (next_index(nd, idx, ssize));
        CHECK_MSG(bad == 0, "%s: %d orthogonal items wrong", where, bad);
        for (int i = 0; i < nd; i++) free(sel[i]);
        free(buf);
        break;
      }
      case 5: { /* orthogonal set, distinct unsorted indexes */
        int64_t *sel[B2ND_MAX_DIM], ssize[B2ND_MAX_DIM];
        for (int i = 0; i < nd; i++) {
          int64_t n = g->shape[i];
          int64_t *perm = tc_malloc((size_t)n * sizeof(int64_t));
          for (int64_t k = 0; k < n; k++) perm[k] = k;
          for (int64_t k = n - 1; k > 0; k--) {
            int64_t j = rnd(k + 1), t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
          }
          ssize[i] = 1 + rnd(n < 5 ? n : 5);
          sel[i] = perm;
        }
        int64_t sb = prod(nd, ssize) * ts;
        uint8_t *buf = tc_malloc((size_t)sb);
        fill_random(buf, (size_t)sb);
        int rc = b2nd_set_orthogonal_selection(a, sel, ssize, buf, ssize, sb);
        CHECK_MSG(rc == 0, "%s: orthogonal set rc %d", where, rc);
        if (rc == 0) {
          int64_t idx[B2ND_MAX_DIM] = {0}, as[B2ND_MAX_DIM];
          strides_of(nd, g->shape, as);
          int64_t pos = 0;
          do {
            int64_t ao = 0;
            for (int i = 0; i < nd; i++) ao += sel[i][idx[i]] * as[i];
            memcpy(model + ao * ts, buf + pos * ts, (size_t)ts);
            pos++;
          } while (next_index(nd, idx, ssize));
        }
        for (int i = 0; i < nd; i++) free(sel[i]);
        free(buf);
        break;
      }
      default:
        check_content(a, model, nbytes, where, false);
        break;
    }
  }
  check_content(a, model, nbytes, label, false);
  CHECK_EQ_INT(b2nd_free(a), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  free(model);
}

static void random_arrays(void) {
  static const geom_t fixed[] = {
    {1, {1000}, {128}, {32}, 4},
    {1, {333}, {100}, {7}, 1},
    {2, {40, 50}, {15, 20}, {4, 6}, 2},
    {2, {32, 32}, {8, 16}, {8, 16}, 8},
    {2, {17, 9}, {17, 9}, {5, 4}, 3},
    {3, {10, 11, 12}, {4, 5, 6}, {3, 2, 4}, 4},
    {3, {12, 8, 20}, {6, 8, 10}, {1, 8, 10}, 2},
    {4, {6, 5, 4, 7}, {3, 5, 2, 4}, {1, 2, 2, 3}, 4},
    {6, {3, 4, 2, 3, 5, 2}, {2, 3, 2, 2, 4, 2}, {1, 2, 1, 2, 3, 1}, 1},
  };
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
    char label[48];
    snprintf(label, sizeof label, "fixed %zu", k);
    random_ops(&fixed[k], k % 2 == 1, 60, label);
  }
  for (int rep = 0; rep < 12; rep++) {
    geom_t g;
    g.ndim = (int8_t)(1 + rnd(4));
    static const int32_t sizes[] = {1, 2, 4, 8, 3, 16};
    g.typesize = sizes[rnd(6)];
    for (int i = 0; i < g.ndim; i++) {
      g.shape[i] = 1 + rnd(g.ndim == 1 ? 500 : g.ndim == 2 ? 40 : 12);
      g.cs[i] = (int32_t)(1 + rnd(g.shape[i] + 2));
      g.bs[i] = (int32_t)(1 + rnd(g.cs[i]));
    }
    char label[48];
    snprintf(label, sizeof label, "random %d", rep);
    random_ops(&g, rep % 3 == 0, 40, label);
  }
  /* Blocks larger than their chunk along some dimensions (valid in
     c-blosc2: each padded chunk then holds one block there). */
  static const geom_t big_blocks[] = {
    {1, {50}, {1}, {2}, 4},
    {2, {23, 17}, {3, 4}, {5, 2}, 2},
    {4, {5, 5, 5, 5}, {2, 5, 10, 5}, {5, 2, 5, 2}, 13},
  };
  for (size_t k = 0; k < sizeof big_blocks / sizeof big_blocks[0]; k++) {
    char label[48];
    snprintf(label, sizeof label, "blocks larger than chunks %zu", k);
    random_ops(&big_blocks[k], k % 2 == 0, 40, label);
  }
}

/* Slices that exactly cover one chunk (the fast path of the reference) and
   a few edge cases. */
static void special_slices(void) {
  geom_t g = {2, {16, 16}, {4, 8}, {2, 8}, 4};
  int32_t model[16 * 16];
  for (int i = 0; i < 256; i++) model[i] = i * 3 + 1;
  b2nd_context_t *ctx = make_ctx(&g, false);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, model, sizeof model), 0);
  REQUIRE(a != NULL);
  for (int ci = 0; ci < 4; ci++) {
    for (int cj = 0; cj < 2; cj++) {
      int64_t start[2] = {ci * 4, cj * 8}, stop[2] = {ci * 4 + 4, cj * 8 + 8};
      int64_t bshape[2] = {4, 8};
      int32_t buf[32];
      CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, sizeof buf), 0);
      int bad = 0;
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) bad += buf[i * 8 + j] != model[(ci * 4 + i) * 16 + cj * 8 + j];
      CHECK_EQ_INT(bad, 0);
      for (int k = 0; k < 32; k++) buf[k] = -(ci * 100 + cj * 10 + k);
      CHECK_EQ_INT(b2nd_set_slice_cbuffer(buf, bshape, sizeof buf, start, stop, a), 0);
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) model[(ci * 4 + i) * 16 + cj * 8 + j] = buf[i * 8 + j];
    }
  }
  check_content(a, (uint8_t *)model, sizeof model, "chunk-aligned slices", false);

  /* empty boxes read and write nothing */
  {
    int64_t start[2] = {5, 5}, stop[2] = {5, 9}, bshape[2] = {0, 4};
    int32_t buf[4] = {0};
    CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, 0), 0);
    CHECK_EQ_INT(b2nd_set_slice_cbuffer(buf, bshape, 0, start, stop, a), 0);
    check_content(a, (uint8_t *)model, sizeof model, "empty box", false);
    b2nd_context_t *sctx = make_ctx(&g, false);
    b2nd_array_t *s = NULL;
    CHECK_EQ_INT(b2nd_get_slice(sctx, &s, a, start, stop), 0);
    if (s != NULL) {
      CHECK_EQ_INT(s->nitems, 0);
      CHECK_EQ_INT(s->shape[0], 0);
      CHECK_EQ_INT(s->shape[1], 4);
      b2nd_free(s);
    }
    b2nd_free_ctx(sctx);
  }
  /* a single item */
  {
    int64_t start[2] = {15, 15}, stop[2] = {16, 16}, bshape[2] = {1, 1};
    int32_t v = 0;
    CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, &v, bshape, 4), 0);
    CHECK_EQ_INT(v, model[255]);
  }
  /* misuse is refused */
  {
    int64_t start[2] = {0, 0}, stop[2] = {4, 4}, small[2] = {4, 3};
    int32_t buf[16];
    CHECK_NEG(b2nd_get_slice_cbuffer(a, start, stop, buf, small, sizeof buf));
    CHECK_NEG(b2nd_set_slice_cbuffer(buf, small, sizeof buf, start, stop, a));
    int64_t ok[2] = {4, 4};
    CHECK_NEG(b2nd_get_slice_cbuffer(a, start, stop, buf, ok, sizeof buf - 1));
    CHECK_NEG(b2nd_set_slice_cbuffer(buf, ok, sizeof buf - 1, start, stop, a));
    CHECK_NEG(b2nd_get_slice_cbuffer(a, NULL, stop, buf, ok, sizeof buf));
    CHECK_NEG(b2nd_get_slice_cbuffer(a, start, stop, NULL, ok, sizeof buf));
    CHECK_NEG(b2nd_set_slice_cbuffer(NULL, ok, sizeof buf, start, stop, a));
    check_content(a, (uint8_t *)model, sizeof model, "after misuse", false);
  }
  /* sparse gather: none, out of range, short buffer */
  {
    int64_t coords[3] = {0, 255, 17};
    int32_t buf[3];
    CHECK(b2nd_get_sparse_cbuffer(a, 0, coords, buf, 0) >= 0);
    CHECK(b2nd_get_sparse_cbuffer(a, 3, coords, buf, sizeof buf) >= 0);
    CHECK(buf[0] == model[0] && buf[1] == model[255] && buf[2] == model[17]);
    int64_t bad1[2] = {3, 256};
    CHECK_NEG(b2nd_get_sparse_cbuffer(a, 2, bad1, buf, sizeof buf));
    int64_t bad2[2] = {-1, 3};
    CHECK_NEG(b2nd_get_sparse_cbuffer(a, 2, bad2, buf, sizeof buf));
    CHECK_NEG(b2nd_get_sparse_cbuffer(a, 3, coords, buf, sizeof buf - 1));
    CHECK_NEG(b2nd_get_sparse_cbuffer(a, -1, coords, buf, sizeof buf));
  }
  /* orthogonal selection with an index past the end */
  {
    int64_t s0[2] = {1, 40}, s1[1] = {2};
    int64_t *sel[2] = {s0, s1};
    int64_t ssize[2] = {2, 1};
    int32_t buf[2];
    CHECK_NEG(b2nd_get_orthogonal_selection(a, sel, ssize, buf, ssize, sizeof buf));
  }
  CHECK_EQ_INT(b2nd_free(a), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
}

/* Same operations on an array stored on disk (sparse and contiguous). */
static void on_disk(void) {
  const char *paths[2] = {"test_b2nd_slices_dir.b2nd", "test_b2nd_slices.b2nd"};
  for (int contiguous = 0; contiguous <= 1; contiguous++) {
    const char *path = paths[contiguous];
    blosc2_remove_urlpath(path);
    int64_t shape[2] = {37, 29};
    int32_t cs[2] = {10, 12}, bs[2] = {3, 5};
    b2nd_context_t *ctx = new_ctx(2, shape, cs, bs, 8,
                                  (ctx_opts_t){.contiguous = contiguous, .urlpath = path,
                                               .dtype = "<f8"});
    REQUIRE(ctx != NULL);
    double *model = tc_malloc(37 * 29 * sizeof(double));
    for (int i = 0; i < 37 * 29; i++) model[i] = i * 0.5;
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, model, 37 * 29 * 8), 0);
    REQUIRE(a != NULL);
    int64_t start[2] = {7, 3}, stop[2] = {30, 27}, bshape[2] = {23, 24};
    double *buf = tc_malloc(23 * 24 * sizeof(double));
    for (int i = 0; i < 23 * 24; i++) buf[i] = -1.0 - i;
    CHECK_EQ_INT(b2nd_set_slice_cbuffer(buf, bshape, 23 * 24 * 8, start, stop, a), 0);
    for (int i = 0; i < 23; i++)
      for (int j = 0; j < 24; j++) model[(7 + i) * 29 + 3 + j] = buf[i * 24 + j];
    CHECK_EQ_INT(b2nd_free(a), 0);
    a = NULL;
    CHECK_EQ_INT(b2nd_open(path, &a), 0);
    if (a != NULL) {
      check_content(a, (uint8_t *)model, 37 * 29 * 8, "reopened after set_slice", false);
      int64_t st2[2] = {20, 10}, sp2[2] = {37, 29}, bs2[2] = {17, 19};
      double *got = tc_malloc(17 * 19 * sizeof(double));
      CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, st2, sp2, got, bs2, 17 * 19 * 8), 0);
      int bad = 0;
      for (int i = 0; i < 17; i++)
        for (int j = 0; j < 19; j++) bad += got[i * 19 + j] != model[(20 + i) * 29 + 10 + j];
      CHECK_EQ_INT(bad, 0);
      free(got);
      b2nd_free(a);
    }
    free(buf);
    free(model);
    b2nd_free_ctx(ctx);
    blosc2_remove_urlpath(path);
  }
}

/* Reference implementation of the padded-buffer copy. */
static void naive_copy(int ndim, int32_t ts, const uint8_t *src, const int64_t *spad,
                       const int64_t *sstart, const int64_t *sstop, uint8_t *dst,
                       const int64_t *dpad, const int64_t *dstart) {
  int64_t ext[B2ND_MAX_DIM], ss[B2ND_MAX_DIM], ds[B2ND_MAX_DIM], idx[B2ND_MAX_DIM] = {0};
  for (int i = 0; i < ndim; i++) ext[i] = sstop[i] - sstart[i];
  if (prod(ndim, ext) == 0) return;
  strides_of(ndim, spad, ss);
  strides_of(ndim, dpad, ds);
  do {
    int64_t so = 0, dof = 0;
    for (int i = 0; i < ndim; i++) {
      so += (sstart[i] + idx[i]) * ss[i];
      dof += (dstart[i] + idx[i]) * ds[i];
    }
    memcpy(dst + dof * ts, src + so * ts, (size_t)ts);
  } while (next_index(ndim, idx, ext));
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static int call_old_copy_buffer(int8_t ndim, uint8_t ts, const void *src, const int64_t *spad,
                                const int64_t *sstart, const int64_t *sstop, void *dst,
                                const int64_t *dpad, const int64_t *dstart) {
  return b2nd_copy_buffer(ndim, ts, src, spad, sstart, sstop, dst, dpad, dstart);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void copy_buffers(void) {
  static const int32_t sizes[] = {1, 2, 4, 8, 3, 12, 300};
  int ndims[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16};
  for (size_t ni = 0; ni < sizeof ndims / sizeof ndims[0]; ni++) {
    int nd = ndims[ni];
    for (int rep = 0; rep < 25; rep++) {
      int32_t ts = sizes[rnd(7)];
      if (nd > 8 && ts > 16) ts = 4;
      int64_t spad[B2ND_MAX_DIM], dpad[B2ND_MAX_DIM], sstart[B2ND_MAX_DIM],
              sstop[B2ND_MAX_DIM], dstart[B2ND_MAX_DIM];
      int64_t lim = nd <= 2 ? 30 : nd <= 4 ? 8 : nd <= 8 ? 3 : 2;
      for (int i = 0; i < nd; i++) {
        spad[i] = 1 + rnd(lim);
        int64_t a = rnd(spad[i] + 1), b = rnd(spad[i] + 1);
        if (a > b) { int64_t t = a; a = b; b = t; }
        if (a == b && rep % 5 != 0) { /* mostly non-empty copies */
          if (b < spad[i]) b++; else a--;
        }
        sstart[i] = a;
        sstop[i] = b;
        dpad[i] = (b - a) + rnd(3);
        dstart[i] = rnd(dpad[i] - (b - a) + 1);
      }
      size_t sbytes = (size_t)(prod(nd, spad) * ts), dbytes = (size_t)(prod(nd, dpad) * ts);
      uint8_t *src = tc_malloc(sbytes), *d1 = tc_malloc(dbytes + 1), *d2 = tc_malloc(dbytes + 1);
      fill_random(src, sbytes);
      fill_random(d1, dbytes + 1);
      memcpy(d2, d1, dbytes + 1);
      naive_copy(nd, ts, src, spad, sstart, sstop, d1, dpad, dstart);
      int rc = b2nd_copy_buffer2((int8_t)nd, ts, src, spad, sstart, sstop, d2, dpad, dstart);
      CHECK_MSG(rc == 0, "copy_buffer2 ndim %d ts %d rc %d", nd, ts, rc);
      long diff = tc_first_diff(d1, d2, dbytes + 1);
      CHECK_MSG(diff < 0, "copy_buffer2 ndim %d ts %d rep %d differs at byte %ld", nd, ts, rep,
                diff);
      if (ts <= 255) {
        fill_random(d2, dbytes + 1);
        memcpy(d1, d2, dbytes + 1);
        naive_copy(nd, ts, src, spad, sstart, sstop, d1, dpad, dstart);
        rc = call_old_copy_buffer((int8_t)nd, (uint8_t)ts, src, spad, sstart, sstop, d2, dpad,
                                  dstart);
        CHECK_MSG(rc == 0, "copy_buffer ndim %d rc %d", nd, rc);
        diff = tc_first_diff(d1, d2, dbytes + 1);
        CHECK_MSG(diff < 0, "copy_buffer ndim %d ts %d differs at byte %ld", nd, ts, diff);
      }
      free(src);
      free(d1);
      free(d2);
    }
  }
}

static void index_conversions(void) {
  for (int nd = 1; nd <= B2ND_MAX_DIM; nd++) {
    for (int rep = 0; rep < 40; rep++) {
      int64_t shape[B2ND_MAX_DIM], strides[B2ND_MAX_DIM], idx[B2ND_MAX_DIM];
      int64_t lim = nd <= 3 ? 1000 : nd <= 6 ? 20 : 4;
      for (int i = 0; i < nd; i++) shape[i] = 1 + rnd(lim);
      strides_of(nd, shape, strides);
      int64_t total = prod(nd, shape);
      int64_t flat = rep == 0 ? 0 : rep == 1 ? total - 1 : rnd(total);
      for (int i = 0; i < nd; i++) idx[i] = -7;
      blosc2_unidim_to_multidim((uint8_t)nd, shape, flat, idx);
      int64_t rest = flat, bad = 0;
      for (int i = nd - 1; i >= 0; i--) {
        bad += idx[i] != rest % shape[i];
        rest /= shape[i];
      }
      CHECK_MSG(bad == 0, "unidim_to_multidim ndim %d flat %lld", nd, (long long)flat);
      int64_t back = -1;
      blosc2_multidim_to_unidim(idx, (int8_t)nd, strides, &back);
      CHECK_EQ_INT(back, flat);
      /* any strides: a dot product */
      int64_t ws[B2ND_MAX_DIM], want = 0;
      for (int i = 0; i < nd; i++) {
        ws[i] = rnd(1000) - 300;
        want += idx[i] * ws[i];
      }
      blosc2_multidim_to_unidim(idx, (int8_t)nd, ws, &back);
      CHECK_EQ_INT(back, want);
    }
  }
  /* 0 dimensions: nothing to convert, the flat index is 0 */
  int64_t idx[1] = {55}, shape[1] = {3}, flat = 9;
  blosc2_unidim_to_multidim(0, shape, 0, idx);
  CHECK_EQ_INT(idx[0], 55);
  blosc2_multidim_to_unidim(idx, 0, shape, &flat);
  CHECK_EQ_INT(flat, 0);
}

/* A context's shape is only a proposal where b2nd_get_slice and b2nd_copy
   replace it: c-blosc2's own tests make such contexts with shapes that do
   not fit their chunks (shape 10 with chunk 0 for an empty slice), and copy
   empty arrays into chunks smaller than their blocks. */
static void proposed_shapes(void) {
  int64_t shape[2] = {20, 10};
  int32_t cs[2] = {7, 5}, bs[2] = {3, 5};
  b2nd_context_t *ctx = new_ctx(2, shape, cs, bs, 2, (ctx_opts_t){.nthreads = 1});
  REQUIRE(ctx != NULL);
  uint16_t items[200];
  for (int i = 0; i < 200; i++) items[i] = (uint16_t)(i * 3 + 1);
  b2nd_array_t *src = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &src, items, sizeof items), 0);
  REQUIRE(src != NULL);
  int32_t cs0[2] = {1, 0}, bs0[2] = {1, 0};
  b2nd_context_t *ctx0 = new_ctx(2, shape, cs0, bs0, 2, (ctx_opts_t){.nthreads = 1});
  CHECK(ctx0 != NULL);
  if (ctx0 != NULL) {
    int64_t start[2] = {17, 0}, stop[2] = {18, 0};
    b2nd_array_t *slice = NULL, *squeezed = NULL;
    CHECK_EQ_INT(b2nd_get_slice(ctx0, &slice, src, start, stop), 0);
    if (slice != NULL) {
      CHECK_EQ_INT(slice->shape[0], 1);
      CHECK_EQ_INT(slice->shape[1], 0);
      CHECK_EQ_INT(slice->nitems, 0);
      CHECK_EQ_INT(b2nd_squeeze(slice, &squeezed), 0);
      if (squeezed != NULL) {
        CHECK_EQ_INT(squeezed->ndim, 1);
        CHECK_EQ_INT(squeezed->shape[0], 0);
        b2nd_free(squeezed);
      }
      b2nd_free(slice);
    }
    b2nd_free_ctx(ctx0);
  }
  b2nd_free(src);
  b2nd_free_ctx(ctx);

  const char *path = "test_b2nd_slices_empty_copy.b2nd";
  int64_t eshape[3] = {40, 0, 12};
  int32_t ecs[3] = {31, 0, 12}, ebs[3] = {10, 0, 12};
  int32_t ecs2[3] = {20, 0, 12}, ebs2[3] = {25, 0, 6};
  for (int persistent = 0; persistent < 2; persistent++) {
    blosc2_remove_urlpath(path);
    b2nd_context_t *ectx = new_ctx(3, eshape, ecs, ebs, 4, (ctx_opts_t){.nthreads = 1});
    b2nd_context_t *ectx2 = new_ctx(
        3, eshape, ecs2, ebs2, 4,
        (ctx_opts_t){.contiguous = true, .urlpath = persistent ? path : NULL, .nthreads = 1});
    REQUIRE(ectx != NULL);
    CHECK(ectx2 != NULL);
    b2nd_array_t *empty = NULL, *copy = NULL;
    CHECK_EQ_INT(b2nd_zeros(ectx, &empty), 0);
    if (ectx2 != NULL && empty != NULL) {
      CHECK_EQ_INT(b2nd_copy(ectx2, empty, &copy), 0);
    }
    if (copy != NULL) {
      for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(copy->shape[i], eshape[i]);
        CHECK_EQ_INT(copy->chunkshape[i], ecs2[i]);
        CHECK_EQ_INT(copy->blockshape[i], ebs2[i]);
      }
      CHECK_EQ_INT(copy->nitems, 0);
      uint8_t none[1];
      CHECK_EQ_INT(b2nd_to_cbuffer(copy, none, 0), 0);
      b2nd_free(copy);
      if (persistent) {
        b2nd_array_t *reopened = NULL;
        CHECK_EQ_INT(b2nd_open(path, &reopened), 0);
        if (reopened != NULL) {
          CHECK_EQ_INT(reopened->blockshape[0], 25);
          CHECK_EQ_INT(reopened->nitems, 0);
          b2nd_free(reopened);
        }
      }
    }
    b2nd_free(empty);
    b2nd_free_ctx(ectx);
    if (ectx2 != NULL) b2nd_free_ctx(ectx2);
  }
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  random_arrays();
  special_slices();
  proposed_shapes();
  on_disk();
  copy_buffers();
  index_conversions();
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_slices");
}
