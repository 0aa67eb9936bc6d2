/* b2nd contexts and constructors: b2nd_create_ctx / b2nd_free_ctx,
 * b2nd_uninit / empty / zeros / nans / full, b2nd_free.
 *
 * For many geometries (non-dividing chunk and block shapes, chunks larger
 * than the array, zero-length dimensions, ndim 0..8 and B2ND_MAX_DIM) every
 * public member of b2nd_array_t is compared with values computed here from
 * first principles; the fill values are read back; user metalayers handed
 * to the context must show up on the super-chunk.  A context, opaque in
 * b2nd.h, has the members of c-blosc2's own definition (its private
 * context.h) where that puts them: c-blosc2's test programs read them. */
#include "b2nd_common.h"
#include <math.h>

static int64_t ceil_to(int64_t v, int64_t m) { return (v % m == 0) ? v : v + m - v % m; }

/* Context for `typesize`-byte items stored in memory (contiguous or not). */
static b2nd_context_t *make_ctx(int8_t ndim, const int64_t *shape, const int32_t *cs,
                                const int32_t *bs, int32_t typesize, bool contiguous,
                                const char *dtype, const blosc2_metalayer *metas, int nmetas) {
  return new_ctx(ndim, shape, cs, bs, typesize,
                 (ctx_opts_t){.contiguous = contiguous, .dtype = dtype, .metas = metas,
                              .nmetas = nmetas, .nthreads = 1});
}

/* Check every geometric member of `a` against the values implied by
   (shape, chunkshape, blockshape).  Strides are only compared when no
   dimension has length 0 (they are meaningless there). */
static void check_geometry(const b2nd_array_t *a, int8_t ndim, const int64_t *shape,
                           const int32_t *cs, const int32_t *bs, int32_t typesize,
                           const char *label) {
  CHECK_EQ_INT(a->ndim, ndim);
  int64_t nitems = 1, extnitems = 1, extchunknitems = 1;
  int64_t chunknitems = 1, blocknitems = 1;
  int64_t extshape[B2ND_MAX_DIM], extchunk[B2ND_MAX_DIM];
  bool any_zero = false;
  for (int i = 0; i < ndim; i++) {
    CHECK_MSG(a->shape[i] == shape[i], "%s dim %d shape %lld", label, i, (long long)a->shape[i]);
    CHECK_MSG(a->chunkshape[i] == cs[i], "%s dim %d", label, i);
    CHECK_MSG(a->blockshape[i] == bs[i], "%s dim %d", label, i);
    if (cs[i] == 0) {
      extshape[i] = 0;
      extchunk[i] = 0;
    } else {
      extshape[i] = ceil_to(shape[i], cs[i]);
      extchunk[i] = ceil_to(cs[i], bs[i]);
    }
    if (shape[i] == 0) any_zero = true;
    CHECK_MSG(a->extshape[i] == extshape[i], "%s dim %d extshape %lld != %lld", label, i,
              (long long)a->extshape[i], (long long)extshape[i]);
    CHECK_MSG(a->extchunkshape[i] == extchunk[i], "%s dim %d extchunkshape %lld != %lld",
              label, i, (long long)a->extchunkshape[i], (long long)extchunk[i]);
    nitems *= shape[i];
    extnitems *= extshape[i];
    extchunknitems *= extchunk[i];
    chunknitems *= cs[i];
    blocknitems *= bs[i];
  }
  /* dimensions past ndim behave as length-1 axes */
  for (int i = ndim; i < B2ND_MAX_DIM; i++) {
    CHECK_MSG(a->shape[i] == 1 && a->chunkshape[i] == 1 && a->blockshape[i] == 1 &&
              a->extshape[i] == 1 && a->extchunkshape[i] == 1,
              "%s unused dim %d is not 1", label, i);
  }
  CHECK_MSG(a->nitems == nitems, "%s nitems %lld != %lld", label, (long long)a->nitems,
            (long long)nitems);
  CHECK_MSG(a->extnitems == extnitems, "%s extnitems %lld != %lld", label,
            (long long)a->extnitems, (long long)extnitems);
  CHECK_MSG(a->extchunknitems == extchunknitems, "%s extchunknitems %lld != %lld", label,
            (long long)a->extchunknitems, (long long)extchunknitems);
  CHECK_MSG(a->chunknitems == chunknitems, "%s chunknitems %d != %lld", label, a->chunknitems,
            (long long)chunknitems);
  CHECK_MSG(a->blocknitems == blocknitems, "%s blocknitems %d != %lld", label, a->blocknitems,
            (long long)blocknitems);

  if (ndim > 0 && !any_zero) {
    int64_t s_arr = 1, s_chunk = 1, s_extchunk = 1, s_block = 1, s_bic = 1;
    for (int i = ndim - 1; i >= 0; i--) {
      CHECK_MSG(a->item_array_strides[i] == s_arr, "%s item_array_strides[%d] %lld != %lld",
                label, i, (long long)a->item_array_strides[i], (long long)s_arr);
      CHECK_MSG(a->item_chunk_strides[i] == s_chunk, "%s item_chunk_strides[%d]", label, i);
      CHECK_MSG(a->item_extchunk_strides[i] == s_extchunk, "%s item_extchunk_strides[%d]",
                label, i);
      CHECK_MSG(a->item_block_strides[i] == s_block, "%s item_block_strides[%d]", label, i);
      CHECK_MSG(a->block_chunk_strides[i] == s_bic, "%s block_chunk_strides[%d] %lld != %lld",
                label, i, (long long)a->block_chunk_strides[i], (long long)s_bic);
      s_arr *= shape[i];
      s_chunk *= cs[i];
      s_extchunk *= extchunk[i];
      s_block *= bs[i];
      s_bic *= extchunk[i] / bs[i];
    }
    /* Only the innermost chunk_array_strides entry is pinned down: the
       reference stores an unusual product in the outer ones (see report). */
    CHECK_MSG(a->chunk_array_strides[ndim - 1] == 1, "%s chunk_array_strides", label);
  }

  REQUIRE(a->sc != NULL);
  CHECK_EQ_INT(a->sc->typesize, typesize);
  if (nitems > 0) {
    CHECK_MSG(a->sc->nchunks == extnitems / chunknitems, "%s nchunks %lld", label,
              (long long)a->sc->nchunks);
    CHECK_MSG(a->sc->chunksize == extchunknitems * typesize, "%s chunksize %d", label,
              a->sc->chunksize);
    CHECK_EQ_INT(a->sc->nbytes, (int64_t)a->sc->nchunks * extchunknitems * typesize);
  } else {
    CHECK_MSG(a->sc->nchunks == 0, "%s nchunks %lld for an empty array", label,
              (long long)a->sc->nchunks);
  }
  if (ndim > 0 && blocknitems > 0) {
    CHECK_MSG(a->sc->blocksize == blocknitems * typesize, "%s blocksize %d", label,
              a->sc->blocksize);
  }

  /* the geometry is also published in the "b2nd" metalayer */
  CHECK(blosc2_meta_exists(a->sc, "b2nd") >= 0);
  uint8_t *smeta = NULL;
  int32_t smeta_len = 0;
  if (blosc2_meta_get(a->sc, "b2nd", &smeta, &smeta_len) >= 0) {
    int8_t nd = -1;
    int64_t sh[B2ND_MAX_DIM];
    int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
    char *dt = NULL;
    int8_t df = -1;
    int rc = b2nd_deserialize_meta(smeta, smeta_len, &nd, sh, c, b, &dt, &df);
    CHECK_MSG(rc > 0, "%s deserialize rc %d", label, rc);
    if (rc > 0) {
      CHECK_EQ_INT(nd, ndim);
      for (int i = 0; i < ndim; i++) {
        CHECK(sh[i] == shape[i] && c[i] == cs[i] && b[i] == bs[i]);
      }
      if (a->dtype != NULL) CHECK_STR(dt, a->dtype);
      CHECK_EQ_INT(df, a->dtype_format);
    }
    free(dt);
    free(smeta);
  } else {
    CHECK_MSG(0, "%s: no b2nd metalayer", label);
  }
}

/* Create with every constructor and check geometry (and values for zeros
   and full). */
static void geometry_case(int8_t ndim, const int64_t *shape, const int32_t *cs,
                          const int32_t *bs, int32_t typesize, const char *label) {
  for (int contiguous = 0; contiguous <= 1; contiguous++) {
    b2nd_context_t *ctx = make_ctx(ndim, shape, cs, bs, typesize, contiguous, NULL, NULL, 0);
    CHECK_MSG(ctx != NULL, "%s: b2nd_create_ctx failed", label);
    if (ctx == NULL) return;
    int64_t nitems = 1;
    for (int i = 0; i < ndim; i++) nitems *= shape[i];
    size_t nbytes = (size_t)nitems * (size_t)typesize;

    for (int kind = 0; kind < 4; kind++) {
      b2nd_array_t *a = NULL;
      int rc;
      uint8_t fill[64];
      for (int k = 0; k < typesize && k < 64; k++) fill[k] = (uint8_t)(0x5A + 3 * k);
      switch (kind) {
        case 0: rc = b2nd_uninit(ctx, &a); break;
        case 1: rc = b2nd_empty(ctx, &a); break;
        case 2: rc = b2nd_zeros(ctx, &a); break;
        default: rc = b2nd_full(ctx, &a, fill); break;
      }
      CHECK_MSG(rc == 0 && a != NULL, "%s kind %d contiguous %d rc %d", label, kind,
                contiguous, rc);
      if (rc != 0 || a == NULL) continue;
      check_geometry(a, ndim, shape, cs, bs, typesize, label);
      CHECK(a->dtype != NULL);
      CHECK_EQ_INT(a->dtype_format, 0);
      if (kind >= 2 && nbytes <= (64u << 20)) {
        uint8_t *out = tc_malloc(nbytes + 1);
        memset(out, 0xEE, nbytes + 1);
        CHECK_EQ_INT(b2nd_to_cbuffer(a, out, (int64_t)nbytes), 0);
        int bad = 0;
        for (size_t i = 0; i < nbytes && !bad; i++) {
          uint8_t want = (kind == 2) ? 0 : fill[(i % (size_t)typesize) % 64];
          if (out[i] != want) bad = 1;
        }
        CHECK_MSG(!bad, "%s kind %d: wrong fill values", label, kind);
        CHECK_EQ_INT(out[nbytes], 0xEE);
        free(out);
      }
      CHECK_EQ_INT(b2nd_free(a), 0);
    }
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
}

static void fixed_geometries(void) {
  { /* 1-D, nothing divides */
    int64_t s[1] = {100}; int32_t c[1] = {30}, b[1] = {7};
    geometry_case(1, s, c, b, 4, "1d-nondividing");
  }
  { /* 1-D, chunk larger than the array */
    int64_t s[1] = {10}; int32_t c[1] = {50}, b[1] = {16};
    geometry_case(1, s, c, b, 8, "1d-bigchunk");
  }
  { /* 2-D, dividing */
    int64_t s[2] = {64, 64}; int32_t c[2] = {32, 32}, b[2] = {16, 16};
    geometry_case(2, s, c, b, 4, "2d-dividing");
  }
  { /* 2-D, non-dividing everywhere */
    int64_t s[2] = {40, 50}; int32_t c[2] = {15, 20}, b[2] = {4, 6};
    geometry_case(2, s, c, b, 2, "2d-nondividing");
  }
  { /* 3-D, odd typesize */
    int64_t s[3] = {10, 11, 12}; int32_t c[3] = {4, 5, 6}, b[3] = {3, 2, 4};
    geometry_case(3, s, c, b, 3, "3d-typesize3");
  }
  { /* block == chunk, single chunk */
    int64_t s[2] = {7, 9}; int32_t c[2] = {7, 9}, b[2] = {7, 9};
    geometry_case(2, s, c, b, 1, "2d-single");
  }
  { /* big items */
    int64_t s[2] = {9, 5}; int32_t c[2] = {4, 5}, b[2] = {2, 5};
    geometry_case(2, s, c, b, 24, "2d-typesize24");
  }
  { /* zero-length dimensions */
    int64_t s[1] = {0}; int32_t c[1] = {4}, b[1] = {2};
    geometry_case(1, s, c, b, 4, "1d-empty");
  }
  {
    int64_t s[3] = {5, 0, 3}; int32_t c[3] = {2, 2, 2}, b[3] = {1, 1, 1};
    geometry_case(3, s, c, b, 4, "3d-middle-empty");
  }
  {
    int64_t s[2] = {0, 0}; int32_t c[2] = {0, 0}, b[2] = {0, 0};
    geometry_case(2, s, c, b, 4, "2d-all-zero");
  }
  { /* ndim 0: a single item */
    geometry_case(0, NULL, NULL, NULL, 8, "0d");
  }
}

/* Random geometries for every ndim in 1..8, plus B2ND_MAX_DIM. */
static void random_geometries(void) {
  uint64_t seed = 0x2545F4914F6CDD1Dull;
  for (int ndim = 1; ndim <= 8; ndim++) {
    for (int rep = 0; rep < 6; rep++) {
      int64_t s[B2ND_MAX_DIM];
      int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
      /* keep the total small: about 4096 items at most */
      int budget = ndim <= 2 ? 60 : ndim <= 4 ? 9 : 4;
      for (int i = 0; i < ndim; i++) {
        s[i] = 1 + (int64_t)(tc_rand(&seed) % (uint32_t)budget);
        c[i] = 1 + (int32_t)(tc_rand(&seed) % (uint32_t)(s[i] + 1));
        b[i] = 1 + (int32_t)(tc_rand(&seed) % (uint32_t)c[i]);
      }
      char label[64];
      snprintf(label, sizeof label, "random ndim %d rep %d", ndim, rep);
      geometry_case((int8_t)ndim, s, c, b, 1 + (int32_t)(tc_rand(&seed) % 8), label);
    }
  }
  { /* B2ND_MAX_DIM dimensions */
    int64_t s[B2ND_MAX_DIM];
    int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
    for (int i = 0; i < B2ND_MAX_DIM; i++) {
      s[i] = (i % 5 == 0) ? 3 : (i % 3 == 0) ? 2 : 1;
      c[i] = (i % 5 == 0) ? 2 : 1;
      b[i] = 1;
    }
    geometry_case(B2ND_MAX_DIM, s, c, b, 4, "ndim16");
    for (int i = 0; i < B2ND_MAX_DIM; i++) {
      s[i] = (i == 3 || i == 15) ? 5 : 2;
      c[i] = (i == 3 || i == 15) ? 4 : 2;
      b[i] = (i == 15) ? 3 : 1;
    }
    geometry_case(B2ND_MAX_DIM, s, c, b, 2, "ndim16-b");
  }
}

/* nans: float32 and float64 arrays read back as NaN; other sizes fail. */
static void nans(void) {
  int64_t s[2] = {13, 7};
  int32_t c[2] = {5, 4}, b[2] = {2, 3};
  for (int ts = 4; ts <= 8; ts += 4) {
    b2nd_context_t *ctx = make_ctx(2, s, c, b, ts, false, ts == 4 ? "<f4" : "<f8", NULL, 0);
    REQUIRE(ctx != NULL);
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_nans(ctx, &a), 0);
    REQUIRE(a != NULL);
    check_geometry(a, 2, s, c, b, ts, "nans");
    CHECK_STR(a->dtype, ts == 4 ? "<f4" : "<f8");
    uint8_t out[13 * 7 * 8];
    CHECK_EQ_INT(b2nd_to_cbuffer(a, out, 13 * 7 * ts), 0);
    int bad = 0;
    for (int i = 0; i < 13 * 7; i++) {
      if (ts == 4) {
        float f;
        memcpy(&f, out + 4 * i, 4);
        if (!isnan(f)) bad++;
      } else {
        double d;
        memcpy(&d, out + 8 * i, 8);
        if (!isnan(d)) bad++;
      }
    }
    CHECK_MSG(bad == 0, "%d items of a typesize %d nans array are not NaN", bad, ts);
    /* a slice too */
    int64_t start[2] = {3, 2}, stop[2] = {9, 7}, bshape[2] = {6, 5};
    CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, out, bshape, 30 * ts), 0);
    if (ts == 8) {
      double d;
      memcpy(&d, out + 8 * 29, 8);
      CHECK(isnan(d));
    }
    CHECK_EQ_INT(b2nd_free(a), 0);
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
  /* NaN has no meaning for 2-byte items */
  b2nd_context_t *ctx = make_ctx(2, s, c, b, 2, false, NULL, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_NEG(b2nd_nans(ctx, &a));
  park(a);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
}

/* full with several item sizes and values. */
static void full_values(void) {
  int64_t s[3] = {6, 7, 9};
  int32_t c[3] = {4, 3, 5}, b[3] = {2, 2, 5};
  {
    b2nd_context_t *ctx = make_ctx(3, s, c, b, 4, false, "<i4", NULL, 0);
    REQUIRE(ctx != NULL);
    int32_t v = -123456789;
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_full(ctx, &a, &v), 0);
    REQUIRE(a != NULL);
    int32_t out[6 * 7 * 9];
    CHECK_EQ_INT(b2nd_to_cbuffer(a, out, sizeof out), 0);
    int bad = 0;
    for (int i = 0; i < 6 * 7 * 9; i++) bad += out[i] != v;
    CHECK_EQ_INT(bad, 0);
    /* overwrite part of it: the rest keeps the fill value */
    int32_t patch[2 * 2 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t start[3] = {3, 2, 4}, stop[3] = {5, 4, 6}, ps[3] = {2, 2, 2};
    CHECK_EQ_INT(b2nd_set_slice_cbuffer(patch, ps, sizeof patch, start, stop, a), 0);
    CHECK_EQ_INT(b2nd_to_cbuffer(a, out, sizeof out), 0);
    bad = 0;
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 7; j++)
        for (int k = 0; k < 9; k++) {
          int32_t want = v;
          if (i >= 3 && i < 5 && j >= 2 && j < 4 && k >= 4 && k < 6)
            want = patch[(i - 3) * 4 + (j - 2) * 2 + (k - 4)];
          bad += out[(i * 7 + j) * 9 + k] != want;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(b2nd_free(a), 0);
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
  {
    b2nd_context_t *ctx = make_ctx(3, s, c, b, 8, true, "<f8", NULL, 0);
    REQUIRE(ctx != NULL);
    double v = 3.25;
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_full(ctx, &a, &v), 0);
    REQUIRE(a != NULL);
    double out[6 * 7 * 9];
    CHECK_EQ_INT(b2nd_to_cbuffer(a, out, sizeof out), 0);
    int bad = 0;
    for (int i = 0; i < 6 * 7 * 9; i++) bad += out[i] != 3.25;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(b2nd_free(a), 0);
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
  { /* a 0-dim array holds exactly one item */
    b2nd_context_t *ctx = make_ctx(0, NULL, NULL, NULL, 4, false, NULL, NULL, 0);
    REQUIRE(ctx != NULL);
    int32_t v = 77, out = 0;
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_full(ctx, &a, &v), 0);
    REQUIRE(a != NULL);
    CHECK_EQ_INT(a->nitems, 1);
    CHECK_EQ_INT(a->sc->nchunks, 1);
    CHECK_EQ_INT(b2nd_to_cbuffer(a, &out, 4), 0);
    CHECK_EQ_INT(out, 77);
    CHECK_EQ_INT(b2nd_free(a), 0);
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
}

/* dtype strings and formats are carried into the array. */
static void dtypes(void) {
  int64_t s[1] = {10};
  int32_t c[1] = {4}, b[1] = {2};
  b2nd_context_t *ctx = make_ctx(1, s, c, b, 4, false, NULL, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
  REQUIRE(a != NULL);
  /* no dtype given: the array still gets one (a raw-bytes type) */
  CHECK(a->dtype != NULL && a->dtype[0] != '\0');
  CHECK_EQ_INT(a->dtype_format, DTYPE_NUMPY_FORMAT);
  CHECK_EQ_INT(b2nd_free(a), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.cparams = &cp};
  char dtype[64];
  strcpy(dtype, ">c8");
  ctx = b2nd_create_ctx(&st, 1, s, c, b, dtype, 5, NULL, 0);
  REQUIRE(ctx != NULL);
  dtype[0] = 'X'; /* the context must have taken a copy */
  CHECK_EQ_INT(b2nd_empty(ctx, &a), 0);
  REQUIRE(a != NULL);
  CHECK_STR(a->dtype, ">c8");
  CHECK_EQ_INT(a->dtype_format, 5);
  check_geometry(a, 1, s, c, b, 8, "dtype-format-5");
  CHECK_EQ_INT(b2nd_free(a), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
}

/* User metalayers given to the context end up on every array made from it. */
static void metalayers(void) {
  int64_t s[2] = {20, 30};
  int32_t c[2] = {10, 10}, b[2] = {5, 5};
  uint8_t c1[3] = {'a', 'b', 'c'};
  uint8_t c2[300];
  for (int i = 0; i < 300; i++) c2[i] = (uint8_t)(i * 7);
  blosc2_metalayer metas[2] = {
    {.name = "first", .content = c1, .content_len = 3},
    {.name = "second_meta", .content = c2, .content_len = 300},
  };
  for (int contiguous = 0; contiguous <= 1; contiguous++) {
    b2nd_context_t *ctx = make_ctx(2, s, c, b, 4, contiguous, "<i4", metas, 2);
    REQUIRE(ctx != NULL);
    for (int round = 0; round < 2; round++) { /* the context is reusable */
      b2nd_array_t *a = NULL;
      CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
      REQUIRE(a != NULL);
      CHECK_EQ_INT(a->sc->nmetalayers, 3);
      CHECK_EQ_INT(blosc2_meta_exists(a->sc, "b2nd"), 0);
      CHECK_EQ_INT(blosc2_meta_exists(a->sc, "first"), 1);
      CHECK_EQ_INT(blosc2_meta_exists(a->sc, "second_meta"), 2);
      CHECK_NEG(blosc2_meta_exists(a->sc, "third"));
      uint8_t *content = NULL;
      int32_t len = 0;
      CHECK(blosc2_meta_get(a->sc, "first", &content, &len) >= 0);
      CHECK_EQ_INT(len, 3);
      if (content) CHECK_MEM(content, c1, 3);
      free(content);
      content = NULL;
      CHECK(blosc2_meta_get(a->sc, "second_meta", &content, &len) >= 0);
      CHECK_EQ_INT(len, 300);
      if (content) CHECK_MEM(content, c2, 300);
      free(content);
      check_geometry(a, 2, s, c, b, 4, "metalayers");
      CHECK_EQ_INT(b2nd_free(a), 0);
    }
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
  /* as many user metalayers as allowed */
  blosc2_metalayer many[B2ND_MAX_METALAYERS];
  char names[B2ND_MAX_METALAYERS][16];
  uint8_t vals[B2ND_MAX_METALAYERS];
  for (int i = 0; i < B2ND_MAX_METALAYERS; i++) {
    snprintf(names[i], sizeof names[i], "meta%02d", i);
    vals[i] = (uint8_t)(100 + i);
    many[i].name = names[i];
    many[i].content = &vals[i];
    many[i].content_len = 1;
  }
  b2nd_context_t *ctx = make_ctx(2, s, c, b, 4, true, NULL, many, B2ND_MAX_METALAYERS);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
  REQUIRE(a != NULL);
  CHECK_EQ_INT(a->sc->nmetalayers, B2ND_MAX_METALAYERS + 1);
  for (int i = 0; i < B2ND_MAX_METALAYERS; i++) {
    uint8_t *content = NULL;
    int32_t len = 0;
    CHECK(blosc2_meta_get(a->sc, names[i], &content, &len) >= 0);
    CHECK(len == 1 && content != NULL && content[0] == vals[i]);
    free(content);
  }
  CHECK_EQ_INT(b2nd_free(a), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
}

/* Invalid parameters are refused without crashing. */
static void errors(void) {
  int64_t s[2] = {10, 10};
  int32_t c[2] = {5, 5}, b[2] = {2, 2};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp};
  CHECK(b2nd_create_ctx(&st, -1, s, c, b, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, B2ND_MAX_DIM + 1, s, c, b, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, 2, NULL, c, b, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, 2, s, NULL, b, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, 2, s, c, NULL, NULL, 0, NULL, 0) == NULL);
  {
    int64_t neg[2] = {10, -1};
    CHECK(b2nd_create_ctx(&st, 2, neg, c, b, NULL, 0, NULL, 0) == NULL);
  }
  {
    int32_t negc[2] = {5, -5};
    CHECK(b2nd_create_ctx(&st, 2, s, negc, b, NULL, 0, NULL, 0) == NULL);
  }
  {
    int32_t zb[2] = {2, 0}; /* zero block inside a non-zero chunk */
    CHECK(b2nd_create_ctx(&st, 2, s, c, zb, NULL, 0, NULL, 0) == NULL);
  }
  {
    /* the block product does not fit in int32 */
    int64_t bs_[2] = {65536, 65536};
    int32_t bc[2] = {65536, 65536}, bb[2] = {65536, 65536};
    CHECK(b2nd_create_ctx(&st, 2, bs_, bc, bb, NULL, 0, NULL, 0) == NULL);
  }
  /* A context may be valid while an array built from it is not: every
     constructor listed must refuse it. */
  enum { ZEROS = 1, EMPTY = 2, UNINIT = 4 };
  static const struct {
    int64_t shape[2];
    int32_t cs[2], bs[2];
    int ctors;
  } unbuildable[] = {
    /* chunk of 2^30 4-byte items: more than the 2 GB a chunk can hold */
    {{1 << 20, 1 << 20}, {1 << 15, 1 << 15}, {64, 64}, ZEROS | EMPTY},
    /* chunk item count overflows int32 */
    {{1 << 20, 1 << 20}, {1 << 16, 1 << 16}, {64, 64}, ZEROS},
    /* total item count overflows int64 */
    {{INT64_C(1) << 62, 4}, {1, 1}, {1, 1}, UNINIT},
  };
  for (size_t k = 0; k < sizeof unbuildable / sizeof unbuildable[0]; k++) {
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, unbuildable[k].shape, unbuildable[k].cs,
                                          unbuildable[k].bs, NULL, 0, NULL, 0);
    if (ctx == NULL) continue;
    int ctors = unbuildable[k].ctors;
    b2nd_array_t *a = NULL;
    if (ctors & ZEROS) {
      CHECK_NEG(b2nd_zeros(ctx, &a));
      park(a);
      a = NULL;
    }
    if (ctors & EMPTY) {
      CHECK_NEG(b2nd_empty(ctx, &a));
      park(a);
      a = NULL;
    }
    if (ctors & UNINIT) {
      CHECK_NEG(b2nd_uninit(ctx, &a));
      park(a);
    }
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
  /* NULL arguments */
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, s, c, b, NULL, 0, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_NEG(b2nd_zeros(NULL, &a));
  CHECK_NEG(b2nd_zeros(ctx, NULL));
  CHECK_NEG(b2nd_empty(NULL, &a));
  CHECK_NEG(b2nd_uninit(ctx, NULL));
  CHECK_NEG(b2nd_nans(NULL, &a));
  int32_t v = 1;
  CHECK_NEG(b2nd_full(NULL, &a, &v));
  CHECK(a == NULL);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  /* storage NULL means defaults (1-byte items) */
  ctx = b2nd_create_ctx(NULL, 2, s, c, b, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx != NULL) {
    CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
    if (a != NULL) {
      CHECK_EQ_INT(a->sc->typesize, BLOSC2_CPARAMS_DEFAULTS.typesize);
      check_geometry(a, 2, s, c, b, BLOSC2_CPARAMS_DEFAULTS.typesize, "null storage");
      CHECK_EQ_INT(b2nd_free(a), 0);
    }
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
}

/* An array stored on disk from a context with a urlpath. */
static void on_disk(void) {
  const char *path = "test_b2nd_ctx_constructors.b2nd";
  blosc2_remove_urlpath(path);
  int64_t s[2] = {33, 17};
  int32_t c[2] = {10, 8}, b[2] = {3, 8};
  b2nd_context_t *ctx =
      new_ctx(2, s, c, b, 2, (ctx_opts_t){.contiguous = true, .urlpath = path, .dtype = "<u2"});
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  uint16_t v = 0xBEEF;
  CHECK_EQ_INT(b2nd_full(ctx, &a, &v), 0);
  REQUIRE(a != NULL);
  check_geometry(a, 2, s, c, b, 2, "on disk");
  CHECK_EQ_INT(b2nd_free(a), 0);
  a = NULL;
  CHECK_EQ_INT(b2nd_open(path, &a), 0);
  if (a != NULL) {
    check_geometry(a, 2, s, c, b, 2, "reopened");
    CHECK_STR(a->dtype, "<u2");
    uint16_t out[33 * 17];
    CHECK_EQ_INT(b2nd_to_cbuffer(a, out, sizeof out), 0);
    int bad = 0;
    for (int i = 0; i < 33 * 17; i++) bad += out[i] != 0xBEEF;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(b2nd_free(a), 0);
  }
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  blosc2_remove_urlpath(path);
}

/* The members of c-blosc2's struct b2nd_context_s, in its order. */
typedef struct {
  int8_t ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM];
  int32_t blockshape[B2ND_MAX_DIM];
  char *dtype;
  int8_t dtype_format;
  blosc2_storage *b2_storage;
  blosc2_metalayer metalayers[B2ND_MAX_METALAYERS];
  int32_t nmetalayers;
} reference_ctx_layout;

static void context_members(void) {
  int64_t shape[3] = {10, 0, 7};
  int32_t cs[3] = {4, 3, 7}, bs[3] = {2, 3, 4};
  uint8_t content[3] = {1, 2, 3};
  blosc2_metalayer meta = {.name = "extra", .content = content, .content_len = 3};
  b2nd_context_t *ctx = make_ctx(3, shape, cs, bs, 8, true, "<f8", &meta, 1);
  REQUIRE(ctx != NULL);
  const reference_ctx_layout *c = (const reference_ctx_layout *)ctx;
  CHECK_EQ_INT(c->ndim, 3);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(c->shape[i], shape[i]);
    CHECK_EQ_INT(c->chunkshape[i], cs[i]);
    CHECK_EQ_INT(c->blockshape[i], bs[i]);
  }
  REQUIRE(c->dtype != NULL);
  CHECK(strcmp(c->dtype, "<f8") == 0);
  CHECK_EQ_INT(c->dtype_format, 0);
  REQUIRE(c->b2_storage != NULL && c->b2_storage->cparams != NULL);
  CHECK_EQ_INT(c->b2_storage->cparams->typesize, 8);
  CHECK_EQ_INT(c->b2_storage->contiguous, 1);
  CHECK_EQ_INT(c->nmetalayers, 1);
  CHECK(strcmp(c->metalayers[0].name, "extra") == 0);
  CHECK_EQ_INT(c->metalayers[0].content_len, 3);
  CHECK_MEM(c->metalayers[0].content, content, 3);
  b2nd_free_ctx(ctx);
}

/* The storage c-blosc2 shows through ctx->b2_storage is the one the next
   calls use: its own tests set the urlpath to NULL there to make the next
   arrays in memory.  A pointer kept to it stays good across calls that
   change the context's shape (b2nd_get_slice). */
static void context_storage_writes(void) {
  const char *path = "test_b2nd_ctx_storage.b2nd";
  const char *path2 = "test_b2nd_ctx_storage2.b2nd";
  blosc2_remove_urlpath(path);
  blosc2_remove_urlpath(path2);
  int64_t s[2] = {12, 9};
  int32_t c[2] = {5, 9}, b[2] = {2, 3};
  b2nd_context_t *ctx = new_ctx(2, s, c, b, 4, (ctx_opts_t){.urlpath = path, .nthreads = 1});
  REQUIRE(ctx != NULL);
  blosc2_storage *st = ((reference_ctx_layout *)ctx)->b2_storage;
  REQUIRE(st != NULL && st->cparams != NULL);
  b2nd_array_t *on_disk = NULL, *in_mem = NULL, *slice = NULL, *other = NULL;
  int32_t v = 77;
  CHECK_EQ_INT(b2nd_full(ctx, &on_disk, &v), 0);
  REQUIRE(on_disk != NULL);
  CHECK(on_disk->sc->storage->urlpath != NULL);

  st->urlpath = NULL;
  st->cparams->clevel = 0;
  CHECK_EQ_INT(b2nd_zeros(ctx, &in_mem), 0);
  REQUIRE(in_mem != NULL);
  CHECK(in_mem->sc->storage->urlpath == NULL);
  CHECK_EQ_INT(in_mem->sc->storage->cparams->clevel, 0);
  /* the array on disk was not overwritten */
  int32_t out[12 * 9];
  CHECK_EQ_INT(b2nd_to_cbuffer(on_disk, out, sizeof out), 0);
  CHECK_EQ_INT(out[12 * 9 - 1], 77);

  int64_t start[2] = {1, 2}, stop[2] = {4, 9};
  CHECK_EQ_INT(b2nd_get_slice(ctx, &slice, on_disk, start, stop), 0);
  REQUIRE(slice != NULL);
  CHECK(slice->sc->storage->urlpath == NULL);
  CHECK(((reference_ctx_layout *)ctx)->b2_storage == st);
  st->urlpath = (char *)path2;
  CHECK_EQ_INT(b2nd_zeros(ctx, &other), 0);
  REQUIRE(other != NULL);
  CHECK(other->sc->storage->urlpath != NULL &&
        strcmp(other->sc->storage->urlpath, path2) == 0);
  CHECK_EQ_INT(other->shape[0], 3);

  b2nd_free(other);
  b2nd_free(slice);
  b2nd_free(in_mem);
  b2nd_free(on_disk);
  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(path);
  blosc2_remove_urlpath(path2);
}

int main(void) {
  blosc2_init();
  context_members();
  context_storage_writes();
  fixed_geometries();
  random_geometries();
  nans();
  full_values();
  dtypes();
  metalayers();
  errors();
  on_disk();
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_ctx_constructors");
}
