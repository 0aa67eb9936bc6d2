/*
 * Helpers shared by the tests of the plugins registered at start
 * (test_plugins_*.c): the n-dimensional geometry of a super-chunk carrying a
 * "b2nd" metalayer and the chunk layout b2nd gives it, super-chunks with
 * every filter slot empty, a user filter recording what it is handed, the
 * refusal to register a plugin's id, and small one-shot context calls.
 * Only blosc2.h is used (not b2nd.h).  `static` functions, as in
 * test_common.h.
 */
#ifndef BLOSC2_CAPI_PLUGIN_COMMON_H
#define BLOSC2_CAPI_PLUGIN_COMMON_H

#include "test_common.h"
#include <stdbool.h>

#include "b2nd_meta_craft.h"

/* ---- the geometry of a b2nd array stored in a super-chunk ---- */

#define MAXD 8

typedef struct {
  int ndim;
  int64_t shape[MAXD];
  int32_t chunk[MAXD];
  int32_t block[MAXD];
} geo_t;

/* The "b2nd" metalayer of g with dtype format 0. */
static int32_t b2nd_meta(uint8_t *out, const geo_t *g, const char *dtype) {
  return craft_b2nd_meta(out, (uint8_t)g->ndim, g->ndim, g->shape, g->chunk, g->block, 0,
                         dtype, NULL);
}

static int64_t block_items(const geo_t *g) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) n *= g->block[i];
  return n;
}

/* Blocks per chunk along dimension i (the chunk padded to whole blocks). */
static int64_t bpc(const geo_t *g, int i) { return (g->chunk[i] + g->block[i] - 1) / g->block[i]; }

static int64_t nblocks(const geo_t *g) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) n *= bpc(g, i);
  return n;
}

/* Chunks along dimension i. */
static int64_t cpa(const geo_t *g, int i) { return (g->shape[i] + g->chunk[i] - 1) / g->chunk[i]; }

static int64_t nchunks(const geo_t *g) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) n *= cpa(g, i);
  return n;
}

/* The C-order multi-index of flat index k in a grid of `shape`. */
static void unravel(int64_t k, int nd, const int64_t *shape, int64_t *idx) {
  for (int i = nd - 1; i >= 0; i--) {
    idx[i] = k % shape[i];
    k /= shape[i];
  }
}

/* b2nd hands chunk `nc` to the super-chunk block after block (C order of
 * the block grid), each block's items in C order.  For item k of block b of
 * chunk nc: its coordinates in the array (gl), and whether it lies inside
 * the chunk and the array (the items outside are padding). */
static bool chunk_item(const geo_t *g, int64_t nc, int64_t b, int64_t k, int64_t *gl) {
  int64_t grid[MAXD], bgrid[MAXD], bshape[MAXD], corner[MAXD], bpos[MAXD], loc[MAXD];
  for (int i = 0; i < g->ndim; i++) {
    grid[i] = cpa(g, i);
    bgrid[i] = bpc(g, i);
    bshape[i] = g->block[i];
  }
  unravel(nc, g->ndim, grid, corner);
  unravel(b, g->ndim, bgrid, bpos);
  unravel(k, g->ndim, bshape, loc);
  bool inside = true;
  for (int i = 0; i < g->ndim; i++) {
    int64_t in_chunk = bpos[i] * bshape[i] + loc[i];
    gl[i] = corner[i] * g->chunk[i] + in_chunk;
    if (in_chunk >= g->chunk[i] || gl[i] >= g->shape[i]) inside = false;
  }
  return inside;
}

/* ---- super-chunks and chunks ---- */

/* Parameters with every filter slot empty, clevel 5. */
static blosc2_cparams plugin_cparams(int ts, uint8_t codec, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.compcode = codec;
  cp.clevel = 5;
  cp.nthreads = nthreads;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = BLOSC_NOFILTER;
    cp.filters_meta[i] = 0;
  }
  return cp;
}

/* A new super-chunk (decompressing with 2 threads). */
static blosc2_schunk *plugin_schunk(blosc2_cparams *cp, bool contiguous) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = contiguous, .cparams = cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  return sc;
}

/* Adds the "b2nd" metalayer of g (checked). */
static void add_b2nd_meta(blosc2_schunk *sc, const geo_t *g, const char *dtype) {
  uint8_t meta[512];
  int32_t len = b2nd_meta(meta, g, dtype);
  CHECK_EQ_INT(blosc2_meta_add(sc, "b2nd", meta, len), 0);
}

/* A copy (to free) of chunk `nc` of sc, its length in *cbytes; NULL when
 * the super-chunk gives no chunk (*cbytes <= 0 then). */
static uint8_t *chunk_copy(blosc2_schunk *sc, int64_t nc, int *cbytes) {
  uint8_t *chunk;
  bool needs_free;
  int cb = blosc2_schunk_get_chunk(sc, nc, &chunk, &needs_free);
  *cbytes = cb;
  if (cb <= 0) return NULL;
  uint8_t *copy = tc_malloc((size_t)cb);
  memcpy(copy, chunk, (size_t)cb);
  if (needs_free) free(chunk);
  return copy;
}

/* The super-chunk opened from a contiguous frame copy of sc (checked; NULL
 * when either step failed).  The caller frees it. */
static blosc2_schunk *frame_copy(blosc2_schunk *sc) {
  uint8_t *cframe;
  bool needs_free;
  int64_t flen = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  CHECK(flen > 0);
  if (flen <= 0) return NULL;
  blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, flen, true);
  CHECK(copy != NULL);
  if (needs_free) free(cframe);
  return copy;
}

/* One compression or decompression through a context of its own. */
static int compress_with(const blosc2_cparams *cp, const void *src, int32_t n, void *dest,
                         int32_t cap) {
  blosc2_context *cctx = blosc2_create_cctx(*cp);
  int rc = blosc2_compress_ctx(cctx, src, n, dest, cap);
  blosc2_free_ctx(cctx);
  return rc;
}

static int decompress_with(const blosc2_dparams *dp, const void *src, int32_t n, void *dest,
                           int32_t cap) {
  blosc2_context *dctx = blosc2_create_dctx(*dp);
  int rc = blosc2_decompress_ctx(dctx, src, n, dest, cap);
  blosc2_free_ctx(dctx);
  return rc;
}

/* ---- user filters ---- */

static int noop_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                        blosc2_cparams *cparams, uint8_t id) {
  (void)meta; (void)cparams; (void)id;
  memcpy(dest, src, (size_t)size);
  return 0;
}

static int noop_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                         blosc2_dparams *dparams, uint8_t id) {
  (void)meta; (void)dparams; (void)id;
  memcpy(dest, src, (size_t)size);
  return 0;
}

/* blosc2_register_filter's code for a user filter `id` (backward: a copy). */
static int register_user_filter(uint8_t id, const char *name, blosc2_filter_forward_cb forward) {
  blosc2_filter f = {0};
  f.id = id;
  f.name = (char *)name;
  f.version = 1;
  f.forward = forward;
  f.backward = noop_backward;
  return blosc2_register_filter(&f);
}

/* The id is taken by a built-in plugin: users cannot register it. */
static void check_filter_id_taken(uint8_t id, const char *name) {
  CHECK_NEG(register_user_filter(id, name, noop_forward));
}

/* A user filter that records what it is given (up to captured_cap bytes;
 * captured_len counts them all) and passes it on. */
static uint8_t *captured;
static size_t captured_len, captured_cap;

static int capture_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                           blosc2_cparams *cparams, uint8_t id) {
  (void)meta; (void)cparams; (void)id;
  if (captured_len + (size_t)size <= captured_cap) memcpy(captured + captured_len, src, (size_t)size);
  captured_len += (size_t)size;
  memcpy(dest, src, (size_t)size);
  return 0;
}

static void register_capture(uint8_t id, const char *name) {
  CHECK_EQ_INT(register_user_filter(id, name, capture_forward), 0);
}

static void capture_begin(size_t cap) {
  captured_cap = cap;
  captured = tc_malloc(captured_cap);
  captured_len = 0;
}

static void capture_end(void) {
  free(captured);
  captured = NULL;
}

/* A super-chunk for a b2nd filter plugin (ndcell, ndmean): `filter` with
 * meta `side` in slot 3, blocks of g's block shape, then the capture filter
 * `capture_id` in slot 4 or, when it is 0, SHUFFLE in slot 5 (only two
 * filters that move bytes: the reference does not round trip some chunks
 * made with three, e.g. SHUFFLE three times).  With the "b2nd" metalayer of
 * g unless dtype is NULL. */
static blosc2_schunk *nd_filter_schunk(uint8_t filter, int side, int ts, uint8_t codec,
                                       const geo_t *g, const char *dtype, uint8_t capture_id) {
  blosc2_cparams cp = plugin_cparams(ts, codec, 1);
  cp.blocksize = (int32_t)(block_items(g) * ts);
  cp.filters[3] = filter;
  cp.filters_meta[3] = (uint8_t)side;
  if (capture_id)
    cp.filters[4] = capture_id;
  else
    cp.filters[5] = BLOSC_SHUFFLE;
  blosc2_schunk *sc = plugin_schunk(&cp, true);
  if (dtype) add_b2nd_meta(sc, g, dtype);
  return sc;
}

#endif /* BLOSC2_CAPI_PLUGIN_COMMON_H */
