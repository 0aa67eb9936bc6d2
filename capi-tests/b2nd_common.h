/*
 * Helpers shared by the b2nd C API tests (test_b2nd_*.c): a seeded random
 * source, array geometries and C-order index arithmetic, context creation,
 * whole-array comparisons, super-chunks and frames carrying a given "b2nd"
 * metalayer, and a place to park what failed calls may leave behind.
 * `static` functions, as in test_common.h.
 */
#ifndef BLOSC2_CAPI_B2ND_COMMON_H
#define BLOSC2_CAPI_B2ND_COMMON_H

#include "test_common.h"
#include <stdbool.h>

#include "b2nd.h"
#include "b2nd_meta_craft.h"

/* ---- random numbers (define B2ND_TEST_SEED before including to reseed) ---- */

#ifndef B2ND_TEST_SEED
#define B2ND_TEST_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng = B2ND_TEST_SEED;

/* 0 <= r < n (0 when n <= 0). */
static int64_t rnd(int64_t n) { return n <= 0 ? 0 : (int64_t)(tc_rand(&rng) % (uint64_t)n); }

/* ---- failed constructors ---- */

/* Failed constructors of the reference may leave a half-built array behind
   (the documented contract says nothing about it).  Park such pointers here
   so they stay reachable instead of guessing whether they may be freed. */
/* external linkage, so the stores cannot be optimised away */
void *b2nd_test_parked[32];
static int nparked = 0;
static void park(void *p) {
  if (p != NULL && nparked < 32) b2nd_test_parked[nparked++] = p;
}

/* ---- geometry and C-order index arithmetic ---- */

typedef struct {
  int8_t ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM];
  int32_t bs[B2ND_MAX_DIM];
  int32_t typesize;
} geom_t;

static int64_t prod(int ndim, const int64_t *v) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= v[i];
  return n;
}

/* C-order strides in items. */
static void strides_of(int ndim, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i];
  }
}

/* Advance a multi-index inside [0, extent); false once wrapped around. */
static bool next_index(int ndim, int64_t *idx, const int64_t *extent) {
  for (int i = ndim - 1; i >= 0; i--) {
    if (++idx[i] < extent[i]) return true;
    idx[i] = 0;
  }
  return false;
}

/* ---- contexts ---- */

typedef struct {
  bool contiguous;
  const char *urlpath;
  const char *dtype;
  const blosc2_metalayer *metas;
  int nmetas;
  int nthreads;  /* compression threads; 0: the default */
  int dthreads;  /* decompression threads; 0: no dparams given */
} ctx_opts_t;

static b2nd_context_t *new_ctx(int8_t ndim, const int64_t *shape, const int32_t *cs,
                               const int32_t *bs, int32_t typesize, ctx_opts_t o) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  if (o.nthreads > 0) cp.nthreads = (int16_t)o.nthreads;
  /* b2nd_create_ctx copies the storage and cparams but keeps the dparams
     pointer */
  static blosc2_dparams dp;
  dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)o.dthreads;
  blosc2_storage st = {.contiguous = o.contiguous, .urlpath = (char *)o.urlpath, .cparams = &cp,
                       .dparams = o.dthreads > 0 ? &dp : NULL};
  return b2nd_create_ctx(&st, ndim, shape, cs, bs, o.dtype, 0, o.metas, o.nmetas);
}

static b2nd_context_t *geom_ctx(const geom_t *g, ctx_opts_t o) {
  return new_ctx(g->ndim, g->shape, g->cs, g->bs, g->typesize, o);
}

/* ---- comparisons ---- */

/* The whole array equals `want` (nbytes).  With `guard`, b2nd_to_cbuffer
   must also leave the bytes past nbytes alone. */
static void check_content(const b2nd_array_t *a, const uint8_t *want, int64_t nbytes,
                          const char *label, bool guard) {
  uint8_t *got = tc_malloc((size_t)nbytes + 16);
  memset(got, 0xCD, (size_t)nbytes + 16);
  int rc = b2nd_to_cbuffer(a, got, nbytes);
  CHECK_MSG(rc == 0, "%s: to_cbuffer rc %d", label, rc);
  long d = tc_first_diff(got, want, (size_t)nbytes);
  CHECK_MSG(d < 0, "%s: content differs at byte %ld of %lld", label, d, (long long)nbytes);
  if (guard) CHECK_MSG(got[nbytes] == 0xCD, "%s: to_cbuffer wrote past buffersize", label);
  free(got);
}

/* ---- super-chunks and frames carrying a given "b2nd" metalayer ---- */

static blosc2_schunk *schunk_with_meta(const uint8_t *meta, int32_t len, int32_t typesize,
                                       bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t *copy = tc_malloc((size_t)len);
  memcpy(copy, meta, (size_t)len);
  int rc = blosc2_meta_add(sc, "b2nd", copy, len);
  free(copy);
  REQUIRE(rc >= 0);
  return sc;
}

/* A contiguous frame (to free) of an empty super-chunk carrying `meta`. */
static uint8_t *frame_with_meta(const uint8_t *meta, int32_t len, int32_t typesize,
                                int64_t *flen) {
  blosc2_schunk *sc = schunk_with_meta(meta, len, typesize, true);
  uint8_t *cframe = NULL;
  bool needs_free = false;
  int64_t clen = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  REQUIRE(clen > 0);
  uint8_t *frame = tc_malloc((size_t)clen);
  memcpy(frame, cframe, (size_t)clen);
  if (needs_free) free(cframe);
  blosc2_schunk_free(sc);
  *flen = clen;
  return frame;
}

/* The frame through b2nd_from_cframe (copy false, then true) and b2nd_open
   (a file `path` holding the frame, removed afterwards): their codes in
   rcs[0..2]; returns how many accepted it (accepted arrays are freed). */
static int load_frame_everywhere(const uint8_t *frame, int64_t flen, const char *path,
                                 int rcs[3]) {
  int accepted = 0;
  for (int copy = 0; copy <= 1; copy++) {
    b2nd_array_t *a = NULL;
    rcs[copy] = b2nd_from_cframe((uint8_t *)frame, flen, copy, &a);
    if (rcs[copy] >= 0) {
      accepted++;
      b2nd_free(a);
    }
  }
  FILE *fp = fopen(path, "wb");
  REQUIRE(fp != NULL);
  REQUIRE(fwrite(frame, 1, (size_t)flen, fp) == (size_t)flen);
  fclose(fp);
  b2nd_array_t *a = NULL;
  rcs[2] = b2nd_open(path, &a);
  if (rcs[2] >= 0) {
    accepted++;
    b2nd_free(a);
  }
  remove(path);
  return accepted;
}

#endif /* BLOSC2_CAPI_B2ND_COMMON_H */
