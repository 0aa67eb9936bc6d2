/* Operations that change the shape of b2nd arrays: b2nd_resize (grow and
 * shrink, at the end and at a given start), b2nd_insert, b2nd_append,
 * b2nd_delete, b2nd_concatenate (copy true and false), b2nd_expand_dims,
 * b2nd_squeeze, b2nd_squeeze_index.
 *
 * A plain C model of every array (C-order items plus a "known" flag per
 * item) is updated alongside each operation and the whole array is compared
 * with it afterwards.  Items added by a resize are only required to be zero
 * where the array was freshly built; elsewhere their value is unspecified. */
#define B2ND_TEST_SEED 0xD1B54A32D192ED03ull
#include "b2nd_common.h"

typedef struct {
  int ndim;
  int32_t ts;
  int64_t shape[B2ND_MAX_DIM];
  uint8_t *data;  /* nitems * ts bytes */
  uint8_t *known; /* nitems flags */
} model_t;

static int64_t flat(int ndim, const int64_t *shape, const int64_t *idx) {
  int64_t f = 0;
  for (int i = 0; i < ndim; i++) f = f * shape[i] + idx[i];
  return f;
}

static void model_init(model_t *m, int ndim, int32_t ts, const int64_t *shape) {
  m->ndim = ndim;
  m->ts = ts;
  memcpy(m->shape, shape, sizeof(int64_t) * (size_t)ndim);
  int64_t n = prod(ndim, shape);
  m->data = tc_malloc((size_t)(n * ts));
  m->known = tc_malloc((size_t)n);
  for (int64_t i = 0; i < n * ts; i++) m->data[i] = (uint8_t)tc_rand(&rng);
  memset(m->known, 1, (size_t)n);
}

static void model_free(model_t *m) {
  free(m->data);
  free(m->known);
}

/* Reshape the model the way b2nd_resize does: along each dimension items
   are added (or removed) at start[i] (the end when start is NULL).  Added
   items are zero when `zero_new`, otherwise unknown. */
static void model_resize(model_t *m, const int64_t *new_shape, const int64_t *start,
                         bool zero_new) {
  int nd = m->ndim;
  int64_t n = prod(nd, new_shape);
  uint8_t *data = calloc((size_t)(n ? n : 1), (size_t)m->ts);
  uint8_t *known = calloc((size_t)(n ? n : 1), 1);
  REQUIRE(data != NULL && known != NULL);
  if (n > 0) {
    int64_t idx[B2ND_MAX_DIM] = {0}, old[B2ND_MAX_DIM];
    do {
      bool fresh = false;
      for (int i = 0; i < nd; i++) {
        int64_t diff = new_shape[i] - m->shape[i];
        int64_t s = start ? start[i] : (diff > 0 ? m->shape[i] : new_shape[i]);
        if (diff >= 0) {
          if (idx[i] < s) old[i] = idx[i];
          else if (idx[i] < s + diff) fresh = true, old[i] = 0;
          else old[i] = idx[i] - diff;
        } else {
          old[i] = idx[i] < s ? idx[i] : idx[i] - diff;
        }
      }
      int64_t f = flat(nd, new_shape, idx);
      if (fresh) {
        known[f] = zero_new;
      } else {
        int64_t o = flat(nd, m->shape, old);
        memcpy(data + f * m->ts, m->data + o * m->ts, (size_t)m->ts);
        known[f] = m->known[o];
      }
    } while (next_index(nd, idx, new_shape));
  }
  free(m->data);
  free(m->known);
  m->data = data;
  m->known = known;
  memcpy(m->shape, new_shape, sizeof(int64_t) * (size_t)nd);
}

/* Write a C-order box [start, start+ext) from buf (shape ext). */
static void model_write(model_t *m, const int64_t *start, const int64_t *ext, const uint8_t *buf) {
  if (prod(m->ndim, ext) == 0) return;
  int64_t idx[B2ND_MAX_DIM] = {0}, pos[B2ND_MAX_DIM];
  int64_t k = 0;
  do {
    for (int i = 0; i < m->ndim; i++) pos[i] = start[i] + idx[i];
    int64_t f = flat(m->ndim, m->shape, pos);
    memcpy(m->data + f * m->ts, buf + k * m->ts, (size_t)m->ts);
    m->known[f] = 1;
    k++;
  } while (next_index(m->ndim, idx, ext));
}

static int compare(const b2nd_array_t *a, const model_t *m, const char *label) {
  int failures_before = tc_failures;
  CHECK_MSG(a->ndim == m->ndim, "%s: ndim %d", label, a->ndim);
  for (int i = 0; i < m->ndim; i++) {
    CHECK_MSG(a->shape[i] == m->shape[i], "%s: shape[%d] %lld != %lld", label, i,
              (long long)a->shape[i], (long long)m->shape[i]);
    int64_t ext = a->chunkshape[i] == 0 ? 0
                  : (m->shape[i] + a->chunkshape[i] - 1) / a->chunkshape[i] * a->chunkshape[i];
    CHECK_MSG(a->extshape[i] == ext, "%s: extshape[%d]", label, i);
  }
  int64_t n = prod(m->ndim, m->shape);
  CHECK_MSG(a->nitems == n, "%s: nitems %lld != %lld", label, (long long)a->nitems,
            (long long)n);
  if (n > 0 && a->chunknitems > 0) {
    CHECK_MSG(a->sc->nchunks == a->extnitems / a->chunknitems, "%s: nchunks %lld", label,
              (long long)a->sc->nchunks);
  }
  if (n == 0 || tc_failures != failures_before) return tc_failures == failures_before;
  uint8_t *got = tc_malloc((size_t)(n * m->ts));
  int rc = b2nd_to_cbuffer(a, got, n * m->ts);
  CHECK_MSG(rc == 0, "%s: to_cbuffer rc %d", label, rc);
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; i++) {
    if (m->known[i] && memcmp(got + i * m->ts, m->data + i * m->ts, (size_t)m->ts) != 0) {
      if (first < 0) first = i;
      bad++;
    }
  }
  CHECK_MSG(bad == 0, "%s: %lld items differ, first at %lld", label, (long long)bad,
            (long long)first);
  /* learn the unspecified items so later checks stay exact */
  memcpy(m->data, got, (size_t)(n * m->ts));
  memset(m->known, 1, (size_t)n);
  free(got);
  return tc_failures == failures_before;
}

static b2nd_context_t *make_ctx(int ndim, const int64_t *shape, const int32_t *cs,
                                const int32_t *bs, int32_t ts, bool contiguous,
                                const char *urlpath) {
  return new_ctx((int8_t)ndim, shape, cs, bs, ts,
                 (ctx_opts_t){.contiguous = contiguous, .urlpath = urlpath, .nthreads = 2});
}

static b2nd_array_t *make_array(model_t *m, const int32_t *cs, const int32_t *bs,
                                bool contiguous, const char *urlpath, b2nd_context_t **pctx) {
  if (urlpath) blosc2_remove_urlpath(urlpath);
  b2nd_context_t *ctx = make_ctx(m->ndim, m->shape, cs, bs, m->ts, contiguous, urlpath);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  int64_t nbytes = prod(m->ndim, m->shape) * m->ts;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, m->data, nbytes), 0);
  REQUIRE(a != NULL);
  *pctx = ctx;
  return a;
}

/* b2nd_append goes through a special path when the buffer is exactly one
   chunk; the reference mishandles it unless the array is chunk aligned (see
   test_b2nd_append_fastpath.c), so the random sequences stay clear of it. */
static bool append_is_fastpath(const b2nd_array_t *a, int axis, int64_t nbytes) {
  if (axis != 0 || nbytes != a->sc->chunksize) return false;
  for (int i = 1; i < a->ndim; i++)
    if (a->chunkshape[i] != a->blockshape[i]) return false;
  return true;
}

/* A random sequence of valid shape changes on one array. */
static void random_sequence(int ndim, const int64_t *shape0, const int32_t *cs,
                            const int32_t *bs, int32_t ts, bool contiguous, const char *urlpath,
                            int nops, const char *label) {
  model_t m;
  model_init(&m, ndim, ts, shape0);
  b2nd_context_t *ctx;
  b2nd_array_t *a = make_array(&m, cs, bs, contiguous, urlpath, &ctx);
  compare(a, &m, label);
  for (int op = 0; op < nops; op++) {
    int axis = (int)rnd(ndim);
    int64_t len_axis = m.shape[axis];
    int64_t nch_axis = len_axis / cs[axis]; /* whole chunks along axis */
    int kind = (int)rnd(7);
    char where[128];
    snprintf(where, sizeof where, "%s op %d kind %d axis %d", label, op, kind, axis);
    int64_t bshape[B2ND_MAX_DIM];
    memcpy(bshape, m.shape, sizeof bshape);
    int64_t start[B2ND_MAX_DIM] = {0};
    switch (kind) {
      case 0: /* insert at the end, any length */
      case 1: { /* insert at a chunk boundary, whole chunks */
        int64_t at = len_axis, n = 1 + rnd(7);
        if (kind == 1) {
          at = rnd(nch_axis + 1) * cs[axis];
          n = (1 + rnd(2)) * cs[axis];
        }
        if (m.shape[axis] + n > 60) break; /* keep arrays small */
        bshape[axis] = n;
        int64_t nb = prod(ndim, bshape) * ts;
        uint8_t *buf = tc_malloc((size_t)nb);
        for (int64_t i = 0; i < nb; i++) buf[i] = (uint8_t)tc_rand(&rng);
        int rc = b2nd_insert(a, buf, nb, (int8_t)axis, at);
        CHECK_MSG(rc == 0, "%s: insert %lld at %lld rc %d", where, (long long)n, (long long)at,
                  rc);
        if (rc == 0) {
          int64_t ns[B2ND_MAX_DIM], st[B2ND_MAX_DIM];
          memcpy(ns, m.shape, sizeof ns);
          for (int i = 0; i < ndim; i++) st[i] = m.shape[i];
          ns[axis] += n;
          st[axis] = at;
          model_resize(&m, ns, st, false);
          start[axis] = at;
          model_write(&m, start, bshape, buf);
        }
        free(buf);
        break;
      }
      case 2: { /* append */
        int64_t n = 1 + rnd(6);
        if (m.shape[axis] + n > 60) break;
        bshape[axis] = n;
        int64_t nb = prod(ndim, bshape) * ts;
        if (append_is_fastpath(a, axis, nb)) break;
        uint8_t *buf = tc_malloc((size_t)nb);
        for (int64_t i = 0; i < nb; i++) buf[i] = (uint8_t)tc_rand(&rng);
        int rc = b2nd_append(a, buf, nb, (int8_t)axis);
        CHECK_MSG(rc == 0, "%s: append rc %d", where, rc);
        if (rc == 0) {
          int64_t ns[B2ND_MAX_DIM];
          memcpy(ns, m.shape, sizeof ns);
          start[axis] = m.shape[axis];
          ns[axis] += n;
          model_resize(&m, ns, NULL, false);
          model_write(&m, start, bshape, buf);
        }
        free(buf);
        break;
      }
      case 3: { /* delete at the end */
        if (len_axis <= 1) break;
        int64_t n = 1 + rnd(len_axis - 1 < 6 ? len_axis - 1 : 6);
        int rc = b2nd_delete(a, (int8_t)axis, len_axis - n, n);
        CHECK_MSG(rc == 0, "%s: delete tail rc %d", where, rc);
        if (rc == 0) {
          int64_t ns[B2ND_MAX_DIM];
          memcpy(ns, m.shape, sizeof ns);
          ns[axis] -= n;
          model_resize(&m, ns, NULL, false);
        }
        break;
      }
      case 4: { /* delete whole chunks from a chunk boundary */
        if (nch_axis < 2) break;
        int64_t c0 = rnd(nch_axis - 1), nc = 1 + rnd(nch_axis - 1 - c0);
        int64_t at = c0 * cs[axis], n = nc * cs[axis];
        int rc = b2nd_delete(a, (int8_t)axis, at, n);
        CHECK_MSG(rc == 0, "%s: delete %lld at %lld rc %d", where, (long long)n, (long long)at,
                  rc);
        if (rc == 0) {
          int64_t ns[B2ND_MAX_DIM], st[B2ND_MAX_DIM];
          memcpy(ns, m.shape, sizeof ns);
          for (int i = 0; i < ndim; i++) st[i] = m.shape[i];
          ns[axis] -= n;
          st[axis] = at;
          model_resize(&m, ns, st, false);
        }
        break;
      }
      case 5: { /* resize every dimension at the end */
        int64_t ns[B2ND_MAX_DIM];
        for (int i = 0; i < ndim; i++) {
          ns[i] = m.shape[i] + rnd(9) - 4;
          if (ns[i] < 1) ns[i] = 1;
          if (ns[i] > 60) ns[i] = 60;
        }
        int rc = b2nd_resize(a, ns, NULL);
        CHECK_MSG(rc == 0, "%s: resize rc %d", where, rc);
        if (rc == 0) model_resize(&m, ns, NULL, false);
        break;
      }
      default: { /* resize with a start: whole chunks at a boundary */
        int64_t ns[B2ND_MAX_DIM], st[B2ND_MAX_DIM];
        memcpy(ns, m.shape, sizeof ns);
        for (int i = 0; i < ndim; i++) st[i] = m.shape[i];
        bool grow = rnd(2) == 0 || nch_axis < 2;
        if (grow) {
          if (m.shape[axis] + cs[axis] > 60) break;
          st[axis] = rnd(nch_axis + 1) * cs[axis];
          ns[axis] += cs[axis];
        } else {
          st[axis] = rnd(nch_axis - 1) * cs[axis];
          ns[axis] -= cs[axis];
        }
        int rc = b2nd_resize(a, ns, st);
        CHECK_MSG(rc == 0, "%s: resize with start rc %d", where, rc);
        if (rc == 0) model_resize(&m, ns, st, false);
        break;
      }
    }
    if (!compare(a, &m, where)) break; /* one report per sequence is enough */
  }
  b2nd_free(a);
  if (urlpath) {
    /* what is on disk is the final state */
    b2nd_array_t *b = NULL;
    CHECK_EQ_INT(b2nd_open(urlpath, &b), 0);
    if (b != NULL) {
      compare(b, &m, "reopened");
      b2nd_free(b);
    }
    blosc2_remove_urlpath(urlpath);
  }
  b2nd_free_ctx(ctx);
  model_free(&m);
}

static void sequences(void) {
  {
    int64_t s[1] = {23}; int32_t c[1] = {5}, b[1] = {2};
    random_sequence(1, s, c, b, 4, false, NULL, 60, "1d");
  }
  {
    int64_t s[2] = {12, 9}; int32_t c[2] = {4, 3}, b[2] = {2, 2};
    random_sequence(2, s, c, b, 2, false, NULL, 60, "2d");
    random_sequence(2, s, c, b, 8, true, NULL, 40, "2d contiguous");
    random_sequence(2, s, c, b, 4, true, "test_b2nd_shape_ops.b2nd", 30, "2d file");
    random_sequence(2, s, c, b, 1, false, "test_b2nd_shape_ops_dir.b2nd", 30, "2d dir");
  }
  {
    int64_t s[3] = {7, 10, 6}; int32_t c[3] = {3, 4, 6}, b[3] = {3, 2, 5};
    random_sequence(3, s, c, b, 3, false, NULL, 40, "3d");
  }
  {
    int64_t s[4] = {4, 5, 3, 6}; int32_t c[4] = {2, 2, 3, 4}, b[4] = {1, 2, 2, 3};
    random_sequence(4, s, c, b, 4, false, NULL, 30, "4d");
  }
  /* blocks larger than their chunk (c-blosc2 accepts them) */
  {
    int64_t s[1] = {9}; int32_t c[1] = {1}, b[1] = {2};
    random_sequence(1, s, c, b, 2, true, NULL, 40, "1d block > chunk");
  }
  {
    int64_t s[2] = {12, 9}; int32_t c[2] = {2, 3}, b[2] = {5, 2};
    random_sequence(2, s, c, b, 4, true, "test_b2nd_shape_ops.b2nd", 30,
                    "2d block > chunk file");
  }
  {
    int64_t s[4] = {5, 5, 5, 5}; int32_t c[4] = {2, 5, 10, 5}, b[4] = {5, 2, 5, 2};
    random_sequence(4, s, c, b, 1, false, NULL, 30, "4d block > chunk");
  }
}

/* Specific, hand-checked shape changes. */
static void resize_cases(void) {
  int64_t s[2] = {10, 10};
  int32_t c[2] = {4, 5}, b[2] = {2, 5};
  /* growing a fresh array at the end: the new items are zero */
  for (int contiguous = 0; contiguous <= 1; contiguous++) {
    model_t m;
    model_init(&m, 2, 4, s);
    b2nd_context_t *ctx;
    b2nd_array_t *a = make_array(&m, c, b, contiguous, NULL, &ctx);
    int64_t ns[2] = {17, 13};
    CHECK_EQ_INT(b2nd_resize(a, ns, NULL), 0);
    model_resize(&m, ns, NULL, true);
    compare(a, &m, "grow at end");
    CHECK_EQ_INT(a->extshape[0], 20);
    CHECK_EQ_INT(a->extshape[1], 15);
    CHECK_EQ_INT(a->sc->nchunks, 15);
    /* shrinking at the end */
    int64_t ns2[2] = {3, 11};
    CHECK_EQ_INT(b2nd_resize(a, ns2, NULL), 0);
    model_resize(&m, ns2, NULL, false);
    compare(a, &m, "shrink at end");
    CHECK_EQ_INT(a->sc->nchunks, 3);
    /* same shape: nothing changes */
    CHECK_EQ_INT(b2nd_resize(a, ns2, NULL), 0);
    compare(a, &m, "same shape");
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
  /* growing and shrinking with a start, fresh zero chunks in the middle */
  {
    model_t m;
    model_init(&m, 2, 4, s);
    b2nd_context_t *ctx;
    b2nd_array_t *a = make_array(&m, c, b, false, NULL, &ctx);
    int64_t ns[2] = {18, 10}, st[2] = {4, 10};
    CHECK_EQ_INT(b2nd_resize(a, ns, st), 0);
    model_resize(&m, ns, st, true);
    compare(a, &m, "grow with start");
    int64_t ns2[2] = {18, 15}, st2[2] = {18, 5};
    CHECK_EQ_INT(b2nd_resize(a, ns2, st2), 0);
    model_resize(&m, ns2, st2, true);
    compare(a, &m, "grow with start, axis 1");
    int64_t ns3[2] = {10, 15}, st3[2] = {0, 15};
    CHECK_EQ_INT(b2nd_resize(a, ns3, st3), 0);
    model_resize(&m, ns3, st3, false);
    compare(a, &m, "shrink with start 0");
    /* both directions at once */
    int64_t ns4[2] = {14, 10}, st4[2] = {4, 5};
    CHECK_EQ_INT(b2nd_resize(a, ns4, st4), 0);
    model_resize(&m, ns4, st4, false);
    compare(a, &m, "grow axis 0, shrink axis 1");
    /* refused: start not on a chunk boundary, or a partial chunk count */
    int64_t bad[2] = {18, 10}, bst[2] = {3, 10};
    CHECK_NEG(b2nd_resize(a, bad, bst));
    int64_t bad2[2] = {17, 10}, bst2[2] = {4, 10};
    CHECK_NEG(b2nd_resize(a, bad2, bst2));
    int64_t bad3[2] = {14, 10}, bst3[2] = {15, 10};
    CHECK_NEG(b2nd_resize(a, bad3, bst3)); /* start past the end */
    CHECK_NEG(b2nd_resize(a, NULL, NULL));
    CHECK_NEG(b2nd_resize(NULL, bad, NULL));
    compare(a, &m, "after refused resizes");
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
  /* down to zero length and back */
  {
    model_t m;
    model_init(&m, 2, 2, s);
    b2nd_context_t *ctx;
    b2nd_array_t *a = make_array(&m, c, b, false, NULL, &ctx);
    int64_t z[2] = {0, 10};
    CHECK_EQ_INT(b2nd_resize(a, z, NULL), 0);
    model_resize(&m, z, NULL, false);
    compare(a, &m, "to zero rows");
    CHECK_EQ_INT(a->sc->nchunks, 0);
    int64_t back[2] = {6, 10};
    CHECK_EQ_INT(b2nd_resize(a, back, NULL), 0);
    model_resize(&m, back, NULL, true);
    compare(a, &m, "back from zero rows");
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
  /* a filled empty array whose blocks are larger than its chunks, grown:
     the new items are zero and the old padding does not leak in */
  for (int contiguous = 0; contiguous <= 1; contiguous++) {
    int64_t s0[1] = {0};
    int32_t c1[1] = {1}, b1[1] = {2};
    b2nd_context_t *ctx = make_ctx(1, s0, c1, b1, 2, contiguous, NULL);
    REQUIRE(ctx != NULL);
    b2nd_array_t *a = NULL;
    int16_t one = 1;
    CHECK_EQ_INT(b2nd_full(ctx, &a, &one), 0);
    REQUIRE(a != NULL);
    CHECK_EQ_INT(a->extchunkshape[0], 2);
    int64_t ns[1] = {5};
    CHECK_EQ_INT(b2nd_resize(a, ns, NULL), 0);
    int16_t got[5] = {7, 7, 7, 7, 7};
    CHECK_EQ_INT(b2nd_to_cbuffer(a, got, sizeof got), 0);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(got[i], 0);
    int16_t five[5] = {1, 2, 3, 4, 5};
    int64_t st[1] = {0};
    CHECK_EQ_INT(b2nd_set_slice_cbuffer(five, ns, sizeof five, st, ns, a), 0);
    int64_t ns2[1] = {7}, at[1] = {2};
    CHECK_EQ_INT(b2nd_resize(a, ns2, at), 0);
    int16_t got2[7];
    CHECK_EQ_INT(b2nd_to_cbuffer(a, got2, sizeof got2), 0);
    int16_t want2[7] = {1, 2, 0, 0, 3, 4, 5};
    for (int i = 0; i < 7; i++) CHECK_EQ_INT(got2[i], want2[i]);
    b2nd_free(a);
    b2nd_free_ctx(ctx);
  }
}

static void insert_append_delete_cases(void) {
  int64_t s[2] = {8, 6};
  int32_t c[2] = {4, 3}, b[2] = {2, 3};
  model_t m;
  model_init(&m, 2, 4, s);
  b2nd_context_t *ctx;
  b2nd_array_t *a = make_array(&m, c, b, false, NULL, &ctx);
  int32_t buf[64];
  for (int i = 0; i < 64; i++) buf[i] = 1000 + i;
  /* insert 4 rows at the front (a whole chunk) */
  CHECK_EQ_INT(b2nd_insert(a, buf, 4 * 6 * 4, 0, 0), 0);
  {
    int64_t ns[2] = {12, 6}, st[2] = {0, 6}, at[2] = {0, 0}, e[2] = {4, 6};
    model_resize(&m, ns, st, false);
    model_write(&m, at, e, (uint8_t *)buf);
  }
  compare(a, &m, "insert at front");
  /* 2 columns at the end of axis 1 */
  CHECK_EQ_INT(b2nd_insert(a, buf + 10, 12 * 2 * 4, 1, 6), 0);
  {
    int64_t ns[2] = {12, 8}, at[2] = {0, 6}, e[2] = {12, 2};
    model_resize(&m, ns, NULL, false);
    model_write(&m, at, e, (uint8_t *)(buf + 10));
  }
  compare(a, &m, "insert columns at end");
  /* refused: not a whole number of rows, middle insert off a boundary */
  CHECK_NEG(b2nd_insert(a, buf, 4 * 8 * 4 + 4, 0, 12));
  CHECK_NEG(b2nd_insert(a, buf, 4 * 8 * 4, 0, 2));
  CHECK_NEG(b2nd_insert(a, buf, 3 * 8 * 4, 0, 4));
  CHECK_NEG(b2nd_insert(a, buf, 8 * 4, 5, 0)); /* no such axis */
  CHECK_NEG(b2nd_insert(a, NULL, 8 * 4, 0, 0));
  compare(a, &m, "after refused inserts");
  /* append rows and columns */
  CHECK_EQ_INT(b2nd_append(a, buf + 3, 3 * 8 * 4, 0), 0);
  {
    int64_t ns[2] = {15, 8}, at[2] = {12, 0}, e[2] = {3, 8};
    model_resize(&m, ns, NULL, false);
    model_write(&m, at, e, (uint8_t *)(buf + 3));
  }
  compare(a, &m, "append rows");
  CHECK_EQ_INT(b2nd_append(a, buf + 1, 15 * 1 * 4, 1), 0);
  {
    int64_t ns[2] = {15, 9}, at[2] = {0, 8}, e[2] = {15, 1};
    model_resize(&m, ns, NULL, false);
    model_write(&m, at, e, (uint8_t *)(buf + 1));
  }
  compare(a, &m, "append a column");
  CHECK_NEG(b2nd_append(a, buf, 9 * 4 + 4, 0));
  compare(a, &m, "after a refused append");
  /* delete: tail, head chunk, middle chunk */
  CHECK_EQ_INT(b2nd_delete(a, 0, 13, 2), 0);
  {
    int64_t ns[2] = {13, 9};
    model_resize(&m, ns, NULL, false);
  }
  compare(a, &m, "delete tail rows");
  CHECK_EQ_INT(b2nd_delete(a, 1, 0, 3), 0);
  {
    int64_t ns[2] = {13, 6}, st[2] = {13, 0};
    model_resize(&m, ns, st, false);
  }
  compare(a, &m, "delete first column chunk");
  CHECK_EQ_INT(b2nd_delete(a, 0, 4, 4), 0);
  {
    int64_t ns[2] = {9, 6}, st[2] = {4, 6};
    model_resize(&m, ns, st, false);
  }
  compare(a, &m, "delete middle row chunk");
  CHECK_NEG(b2nd_delete(a, 0, 1, 4)); /* off a chunk boundary */
  CHECK_NEG(b2nd_delete(a, 0, 0, 3)); /* partial chunk in the middle */
  CHECK_NEG(b2nd_delete(a, 4, 0, 1)); /* no such axis */
  compare(a, &m, "after refused deletes");
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  model_free(&m);

  /* the one-chunk append path, on a chunk-aligned array */
  {
    int64_t s2[2] = {8, 6};
    int32_t c2[2] = {4, 6}, b2[2] = {2, 6};
    model_init(&m, 2, 4, s2);
    a = make_array(&m, c2, b2, false, NULL, &ctx);
    CHECK_EQ_INT(a->sc->chunksize, 4 * 6 * 4);
    for (int k = 0; k < 3; k++) {
      CHECK_EQ_INT(b2nd_append(a, buf + k, 4 * 6 * 4, 0), 0);
      int64_t ns[2] = {m.shape[0] + 4, 6}, at[2] = {m.shape[0], 0}, e[2] = {4, 6};
      model_resize(&m, ns, NULL, false);
      model_write(&m, at, e, (uint8_t *)(buf + k));
      compare(a, &m, "append whole chunk");
    }
    CHECK_EQ_INT(a->sc->nchunks, 5);
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
  {
    int64_t s1[1] = {30};
    int32_t c1[1] = {10}, b1[1] = {4};
    model_init(&m, 1, 8, s1);
    a = make_array(&m, c1, b1, true, NULL, &ctx);
    CHECK_EQ_INT(b2nd_append(a, buf, 10 * 8, 0), 0);
    int64_t ns[1] = {40}, at[1] = {30}, e[1] = {10};
    model_resize(&m, ns, NULL, false);
    model_write(&m, at, e, (uint8_t *)buf);
    compare(a, &m, "1-d append whole chunk");
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
}

/* Concatenation into a new array and in place. */
static void concatenate_cases(void) {
  struct {
    int64_t s1[3], s2[3];
    int32_t c1[3], b1[3], c2[3], b2[3], cd[3], bd[3];
    int axis;
  } cases[] = {
    /* aligned: same chunking, first array a whole number of chunks */
    {{8, 6, 5}, {4, 6, 5}, {4, 3, 5}, {2, 3, 5}, {4, 3, 5}, {2, 3, 5}, {4, 3, 5}, {2, 3, 5}, 0},
    /* aligned along axis 1 */
    {{5, 6, 4}, {5, 9, 4}, {3, 3, 4}, {3, 3, 2}, {3, 3, 4}, {3, 3, 2}, {3, 3, 4}, {3, 3, 2}, 1},
    /* first array ends inside a chunk */
    {{7, 6, 5}, {5, 6, 5}, {4, 3, 5}, {2, 3, 5}, {4, 3, 5}, {2, 3, 5}, {4, 3, 5}, {2, 3, 5}, 0},
    /* different chunking everywhere */
    {{6, 7, 5}, {6, 7, 8}, {4, 3, 2}, {2, 2, 2}, {5, 5, 5}, {1, 5, 3}, {3, 4, 6}, {3, 2, 4}, 2},
    /* blocks larger than chunks along axis 0, in sources and destination */
    {{5, 5, 5}, {5, 5, 5}, {2, 5, 10}, {5, 2, 5}, {5, 5, 10}, {5, 2, 5}, {2, 5, 10}, {5, 2, 5}, 0},
    {{5, 5, 5}, {5, 5, 3}, {2, 5, 10}, {5, 2, 5}, {5, 5, 10}, {5, 2, 5}, {2, 5, 10}, {5, 2, 5}, 2},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    for (int copy = 1; copy >= 0; copy--) {
      char label[64];
      snprintf(label, sizeof label, "concatenate case %zu copy %d", k, copy);
      model_t m1, m2;
      model_init(&m1, 3, 4, cases[k].s1);
      model_init(&m2, 3, 4, cases[k].s2);
      b2nd_context_t *ctx1, *ctx2;
      b2nd_array_t *a1 = make_array(&m1, cases[k].c1, cases[k].b1, k % 2 == 0, NULL, &ctx1);
      b2nd_array_t *a2 = make_array(&m2, cases[k].c2, cases[k].b2, false, NULL, &ctx2);
      b2nd_context_t *dctx = make_ctx(3, cases[k].s1, cases[k].cd, cases[k].bd, 4, false, NULL);
      REQUIRE(dctx != NULL);
      b2nd_array_t *out = NULL;
      int axis = cases[k].axis;
      int rc = b2nd_concatenate(dctx, a1, a2, (int8_t)axis, copy, &out);
      CHECK_MSG(rc == 0 && out != NULL, "%s: rc %d", label, rc);
      /* expected: m1 grown along axis, m2 written after it */
      model_t want;
      model_init(&want, 3, 4, m1.shape);
      memcpy(want.data, m1.data, (size_t)(prod(3, m1.shape) * 4));
      int64_t ns[3], at[3] = {0, 0, 0};
      memcpy(ns, m1.shape, sizeof ns);
      ns[axis] += m2.shape[axis];
      at[axis] = m1.shape[axis];
      model_resize(&want, ns, NULL, false);
      model_write(&want, at, m2.shape, m2.data);
      if (out != NULL) {
        compare(out, &want, label);
        if (copy) {
          CHECK(out != a1);
          for (int i = 0; i < 3; i++) {
            CHECK(out->chunkshape[i] == cases[k].cd[i] && out->blockshape[i] == cases[k].bd[i]);
          }
          compare(a1, &m1, "first source after a copying concatenate");
          b2nd_free(out);
        } else {
          CHECK(out == a1); /* src1 grown in place */
        }
      }
      compare(a2, &m2, "second source after concatenate");
      b2nd_free(a1);
      b2nd_free(a2);
      b2nd_free_ctx(ctx1);
      b2nd_free_ctx(ctx2);
      b2nd_free_ctx(dctx);
      model_free(&m1);
      model_free(&m2);
      model_free(&want);
    }
  }
  /* refused combinations */
  int64_t s1[2] = {4, 5}, s2[2] = {4, 6};
  int32_t c[2] = {2, 5}, b[2] = {2, 5};
  b2nd_context_t *ctx1 = make_ctx(2, s1, c, b, 4, false, NULL);
  b2nd_context_t *ctx2 = make_ctx(2, s2, c, b, 4, false, NULL);
  b2nd_context_t *ctx3 = make_ctx(2, s1, c, b, 2, false, NULL);
  b2nd_array_t *a1 = NULL, *a2 = NULL, *a3 = NULL, *out = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx1, &a1), 0);
  CHECK_EQ_INT(b2nd_zeros(ctx2, &a2), 0);
  CHECK_EQ_INT(b2nd_zeros(ctx3, &a3), 0);
  REQUIRE(a1 && a2 && a3);
  CHECK_NEG(b2nd_concatenate(ctx1, a1, a2, 0, true, &out)); /* shapes differ off-axis */
  CHECK_NEG(b2nd_concatenate(ctx1, a1, a3, 0, true, &out)); /* typesizes differ */
  CHECK_NEG(b2nd_concatenate(ctx1, a1, a1, 2, true, &out)); /* no such axis */
  CHECK_NEG(b2nd_concatenate(ctx1, a1, a1, -1, true, &out));
  CHECK_EQ_INT(a1->shape[0], 4);
  CHECK_EQ_INT(b2nd_concatenate(ctx1, a1, a2, 1, true, &out), 0);
  if (out) {
    CHECK_EQ_INT(out->shape[1], 11);
    b2nd_free(out);
  }
  b2nd_free(a1);
  b2nd_free(a2);
  b2nd_free(a3);
  b2nd_free_ctx(ctx1);
  b2nd_free_ctx(ctx2);
  b2nd_free_ctx(ctx3);
}

/* Views with length-1 dimensions added or removed. */
static void view_cases(void) {
  for (int contiguous = 0; contiguous <= 1; contiguous++) {
    int64_t s[3] = {6, 7, 5};
    int32_t c[3] = {3, 4, 5}, b[3] = {2, 2, 3};
    model_t m;
    model_init(&m, 3, 4, s);
    b2nd_context_t *ctx;
    b2nd_array_t *a = make_array(&m, c, b, contiguous, NULL, &ctx);
    bool axis[6] = {true, false, false, true, false, true};
    b2nd_array_t *v = NULL;
    CHECK_EQ_INT(b2nd_expand_dims(a, &v, axis, 6), 0);
    if (v != NULL) {
      int64_t want[6] = {1, 6, 7, 1, 5, 1};
      CHECK_EQ_INT(v->ndim, 6);
      for (int i = 0; i < 6; i++) CHECK_EQ_INT(v->shape[i], want[i]);
      CHECK_EQ_INT(v->chunkshape[1], 3);
      CHECK_EQ_INT(v->blockshape[4], 3);
      CHECK_EQ_INT(v->chunkshape[0], 1);
      CHECK_EQ_INT(v->nitems, 6 * 7 * 5);
      model_t mv = m;
      mv.ndim = 6;
      memcpy(mv.shape, want, sizeof want);
      compare(v, &mv, "expand_dims");
      /* a slice through the view */
      int64_t st[6] = {0, 2, 1, 0, 1, 0}, sp[6] = {1, 5, 6, 1, 4, 1}, bsh[6] = {1, 3, 5, 1, 3, 1};
      int32_t got[45];
      CHECK_EQ_INT(b2nd_get_slice_cbuffer(v, st, sp, got, bsh, sizeof got), 0);
      int bad = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++)
          for (int k = 0; k < 3; k++) {
            int32_t w;
            memcpy(&w, m.data + (((2 + i) * 7 + 1 + j) * 5 + 1 + k) * 4, 4);
            bad += got[(i * 5 + j) * 3 + k] != w;
          }
      CHECK_EQ_INT(bad, 0);

      /* squeeze the view back to 3 dimensions */
      b2nd_array_t *q = NULL;
      CHECK_EQ_INT(b2nd_squeeze(v, &q), 0);
      if (q != NULL) {
        compare(q, &m, "squeeze of expand_dims");
        CHECK_EQ_INT(q->chunkshape[2], 5);
        b2nd_free(q);
      }
      /* drop only some of the length-1 dimensions */
      bool idx[6] = {true, false, false, false, false, true};
      q = NULL;
      CHECK_EQ_INT(b2nd_squeeze_index(v, &q, idx), 0);
      if (q != NULL) {
        int64_t w4[4] = {6, 7, 1, 5};
        CHECK_EQ_INT(q->ndim, 4);
        for (int i = 0; i < 4 && i < q->ndim; i++) CHECK_EQ_INT(q->shape[i], w4[i]);
        model_t mq = m;
        mq.ndim = 4;
        memcpy(mq.shape, w4, sizeof w4);
        compare(q, &mq, "squeeze_index");
        b2nd_free(q);
      }
      /* a dimension longer than 1 cannot be squeezed */
      bool badidx[6] = {false, true, false, false, false, false};
      q = NULL;
      CHECK_NEG(b2nd_squeeze_index(v, &q, badidx));
      b2nd_free(v);
    }
    /* the original is untouched */
    compare(a, &m, "after views");
    /* more kept (false) entries than the array has dimensions */
    bool too_many[5] = {false, true, false, false, false};
    v = NULL;
    CHECK_NEG(b2nd_expand_dims(a, &v, too_many, 5));
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
  /* squeezing everything leaves a 0-dimensional array of one item */
  {
    int64_t s[2] = {1, 1};
    int32_t c[2] = {1, 1}, b[2] = {1, 1};
    model_t m;
    model_init(&m, 2, 8, s);
    b2nd_context_t *ctx;
    b2nd_array_t *a = make_array(&m, c, b, false, NULL, &ctx);
    b2nd_array_t *q = NULL;
    CHECK_EQ_INT(b2nd_squeeze(a, &q), 0);
    if (q != NULL) {
      CHECK_EQ_INT(q->ndim, 0);
      CHECK_EQ_INT(q->nitems, 1);
      uint8_t got[8];
      CHECK_EQ_INT(b2nd_to_cbuffer(q, got, 8), 0);
      CHECK_MEM(got, m.data, 8);
      b2nd_free(q);
    }
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    model_free(&m);
  }
}

int main(void) {
  blosc2_init();
  resize_cases();
  insert_append_delete_cases();
  concatenate_cases();
  view_cases();
  sequences();
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_shape_ops");
}
