/* The ndcell filter plugin (BLOSC_FILTER_NDCELL, id 32), registered at start:
 * it regroups every block of a super-chunk carrying a "b2nd" metalayer into
 * cubic cells (side = the filter meta).  Round trips through super-chunks and
 * frames for 1..4 and 8 dimensions with shapes, chunk shapes and block shapes
 * that do not divide each other; the exact cell layout seen by the next filter;
 * and the refusals (no "b2nd", side 0, a cell larger than the block, no
 * super-chunk). */
#include "test_common.h"
#include <stdbool.h>

#define MAXD 8
/* FILTER_NDCELL of blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_NDCELL 32

typedef struct {
  int ndim;
  int64_t shape[MAXD];
  int32_t chunk[MAXD];
  int32_t block[MAXD];
} geo_t;

/* The "b2nd" metalayer, msgpack-encoded by hand: [version 0, ndim, shape
 * (int64), chunkshape (int32), blockshape (int32), dtype format 0, dtype]. */
static int32_t b2nd_meta(uint8_t *out, const geo_t *g, const char *dtype) {
  int32_t n = 0;
  out[n++] = 0x97;
  out[n++] = 0;
  out[n++] = (uint8_t)g->ndim;
  out[n++] = (uint8_t)(0x90 + g->ndim);
  for (int i = 0; i < g->ndim; i++) {
    out[n++] = 0xd3;
    for (int k = 7; k >= 0; k--) out[n++] = (uint8_t)((uint64_t)g->shape[i] >> (8 * k));
  }
  out[n++] = (uint8_t)(0x90 + g->ndim);
  for (int i = 0; i < g->ndim; i++) {
    out[n++] = 0xd2;
    for (int k = 3; k >= 0; k--) out[n++] = (uint8_t)((uint32_t)g->chunk[i] >> (8 * k));
  }
  out[n++] = (uint8_t)(0x90 + g->ndim);
  for (int i = 0; i < g->ndim; i++) {
    out[n++] = 0xd2;
    for (int k = 3; k >= 0; k--) out[n++] = (uint8_t)((uint32_t)g->block[i] >> (8 * k));
  }
  int32_t dlen = (int32_t)strlen(dtype);
  out[n++] = 0;
  out[n++] = 0xdb;
  for (int k = 3; k >= 0; k--) out[n++] = (uint8_t)((uint32_t)dlen >> (8 * k));
  memcpy(out + n, dtype, (size_t)dlen);
  return n + dlen;
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

static int64_t nchunks(const geo_t *g) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) n *= (g->shape[i] + g->chunk[i] - 1) / g->chunk[i];
  return n;
}

static void unravel(int64_t k, int nd, const int64_t *shape, int64_t *idx) {
  for (int i = nd - 1; i >= 0; i--) {
    idx[i] = k % shape[i];
    k /= shape[i];
  }
}

/* The bytes b2nd hands to the super-chunk for chunk `nc`: block after block
 * (C order), each block in C order; items outside the chunk or array are 0. */
static void fill_chunk(const geo_t *g, int64_t nc, int ts, uint8_t *out) {
  int64_t grid[MAXD], bgrid[MAXD], bshape[MAXD], corner[MAXD], bpos[MAXD], loc[MAXD];
  for (int i = 0; i < g->ndim; i++) {
    grid[i] = (g->shape[i] + g->chunk[i] - 1) / g->chunk[i];
    bgrid[i] = bpc(g, i);
    bshape[i] = g->block[i];
  }
  unravel(nc, g->ndim, grid, corner);
  size_t o = 0;
  for (int64_t b = 0; b < nblocks(g); b++) {
    unravel(b, g->ndim, bgrid, bpos);
    for (int64_t k = 0; k < block_items(g); k++) {
      unravel(k, g->ndim, bshape, loc);
      bool inside = true;
      uint64_t v = 0;
      for (int i = 0; i < g->ndim; i++) {
        int64_t in_chunk = bpos[i] * bshape[i] + loc[i];
        int64_t gl = corner[i] * g->chunk[i] + in_chunk;
        if (in_chunk >= g->chunk[i] || gl >= g->shape[i]) inside = false;
        v += (uint64_t)gl * (uint64_t)(3 * i + 1);
      }
      v += (uint64_t)((k * 7 + nc) % 3);
      for (int t = 0; t < ts; t++) out[o++] = inside ? (uint8_t)(v >> (8 * (t % 8))) : 0;
    }
  }
}

/* ndcell's layout of one block, computed the slow, obvious way: for every
 * cell (C order of the cell grid), the block's items falling in it (C order). */
static void expected_cells(const geo_t *g, int side, int ts, const uint8_t *blk, uint8_t *out) {
  int64_t bshape[MAXD], cgrid[MAXD], cpos[MAXD], loc[MAXD];
  int64_t ncells = 1;
  for (int i = 0; i < g->ndim; i++) {
    bshape[i] = g->block[i];
    cgrid[i] = (g->block[i] + side - 1) / side;
    ncells *= cgrid[i];
  }
  size_t o = 0;
  for (int64_t c = 0; c < ncells; c++) {
    unravel(c, g->ndim, cgrid, cpos);
    for (int64_t k = 0; k < block_items(g); k++) {
      unravel(k, g->ndim, bshape, loc);
      bool in = true;
      for (int i = 0; i < g->ndim; i++)
        if (loc[i] / side != cpos[i]) in = false;
      if (in) {
        memcpy(out + o, blk + k * ts, (size_t)ts);
        o += (size_t)ts;
      }
    }
  }
}

/* A user filter (id 201) placed after ndcell that records what it is given. */
#define CAPTURE_ID 201
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

static int capture_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                            blosc2_dparams *dparams, uint8_t id) {
  (void)meta; (void)dparams; (void)id;
  memcpy(dest, src, (size_t)size);
  return 0;
}

static blosc2_schunk *new_schunk(int ts, int side, uint8_t codec, const geo_t *g, bool with_meta,
                                 bool capture) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.compcode = codec;
  cp.clevel = 5;
  cp.nthreads = 1;
  cp.blocksize = (int32_t)(block_items(g) * ts);
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = BLOSC_NOFILTER;
    cp.filters_meta[i] = 0;
  }
  cp.filters[3] = FILTER_NDCELL;
  cp.filters_meta[3] = (uint8_t)side;
  /* Only two filters that move bytes: the reference does not round trip
   * some chunks made with three (e.g. SHUFFLE three times). */
  if (capture)
    cp.filters[4] = CAPTURE_ID;
  else
    cp.filters[5] = BLOSC_SHUFFLE;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (with_meta) {
    uint8_t meta[512];
    int32_t len = b2nd_meta(meta, g, "|u1");
    CHECK_EQ_INT(blosc2_meta_add(sc, "b2nd", meta, len), 0);
  }
  return sc;
}

static const geo_t geos[] = {
  {1, {1000}, {300}, {70}},
  {2, {50, 37}, {20, 15}, {7, 6}},
  {2, {8, 300}, {8, 256}, {3, 100}},
  {3, {13, 11, 9}, {8, 6, 5}, {4, 3, 5}},
  {4, {7, 6, 5, 9}, {5, 4, 3, 6}, {3, 2, 3, 4}},
  {8, {3, 2, 3, 2, 3, 2, 2, 3}, {2, 2, 2, 2, 3, 2, 2, 3}, {2, 2, 2, 2, 2, 2, 2, 3}},
};
static const int sides[][3] = {{1, 3, 16}, {2, 3, 5}, {4, 10, 17}, {2, 3, 1}, {2, 1, 2}, {2, 1, 2}};

static void round_trips(void) {
  int cases = 0;
  for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
    const geo_t *g = &geos[gi];
    for (int s = 0; s < 3; s++) {
      int side = sides[gi][s];
      static const int tss[] = {1, 2, 3, 4, 8};
      for (int t = 0; t < 5; t++) {
        int ts = tss[t];
        uint8_t codec = (t % 2) ? BLOSC_ZSTD : BLOSC_LZ4;
        int32_t nbytes = (int32_t)(nblocks(g) * block_items(g) * ts);
        uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
        blosc2_schunk *sc = new_schunk(ts, side, codec, g, true, false);
        int64_t n = nchunks(g);
        for (int64_t c = 0; c < n; c++) {
          fill_chunk(g, c, ts, src);
          CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), c + 1);
        }
        /* Every chunk names ndcell with the side, and decodes exactly. */
        for (int64_t c = 0; c < n; c++) {
          fill_chunk(g, c, ts, src);
          memset(back, 0xee, (size_t)nbytes);
          CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, back, nbytes), nbytes);
          CHECK_MEM(back, src, nbytes);
          uint8_t *chunk; bool needs_free;
          int cb = blosc2_schunk_get_chunk(sc, c, &chunk, &needs_free);
          CHECK(cb > 32);
          if (cb > 32) {
            if (!(chunk[2] & 0x02)) {
              CHECK_EQ_INT(chunk[16 + 3], FILTER_NDCELL);
              CHECK_EQ_INT(chunk[24 + 3], side);
              cases++;
            }
            if (needs_free) free(chunk);
          }
        }
        /* The same through a contiguous frame copy (the super-chunk it opens
         * gives the filter its "b2nd" metalayer). */
        uint8_t *cframe; bool needs_free;
        int64_t flen = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
        CHECK(flen > 0);
        if (flen > 0) {
          blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, flen, true);
          CHECK(copy != NULL);
          if (copy != NULL) {
            int64_t last = n - 1;
            fill_chunk(g, last, ts, src);
            CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, last, back, nbytes), nbytes);
            CHECK_MEM(back, src, nbytes);
            blosc2_schunk_free(copy);
          }
          if (needs_free) free(cframe);
        }
        /* Items read through the slice API (decodes whole blocks).  Not
         * exactly one block's worth across two blocks: a known reference
         * getitem bug (see test_getitem_blocksized). */
        int64_t items = nbytes / ts;
        int64_t start = items / 3, stop = items / 3 + items * 2 / 5;
        fill_chunk(g, 0, ts, src);
        CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, start, stop, back), 0);
        CHECK_MSG(memcmp(back, src + start * ts, (size_t)((stop - start) * ts)) == 0,
                  "slice of geometry %d, side %d, typesize %d", (int)gi, side, ts);
        blosc2_schunk_free(sc);
        free(src);
        free(back);
      }
    }
  }
  CHECK(cases > 100);
}

static void layout(void) {
  blosc2_filter f = {0};
  f.id = CAPTURE_ID;
  f.name = "tc_capture_ndcell";
  f.version = 1;
  f.forward = capture_forward;
  f.backward = capture_backward;
  CHECK_EQ_INT(blosc2_register_filter(&f), 0);
  for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
    const geo_t *g = &geos[gi];
    for (int s = 0; s < 3; s++) {
      int side = sides[gi][s];
      int ts = (gi % 2) ? 2 : 4;
      int32_t bbytes = (int32_t)(block_items(g) * ts);
      int32_t nbytes = (int32_t)(nblocks(g) * bbytes);
      uint8_t *src = tc_malloc((size_t)nbytes), *expect = tc_malloc((size_t)nbytes);
      uint8_t *back = tc_malloc((size_t)nbytes);
      captured_cap = (size_t)nbytes;
      captured = tc_malloc(captured_cap);
      captured_len = 0;
      fill_chunk(g, nchunks(g) - 1, ts, src);
      for (int64_t b = 0; b < nblocks(g); b++)
        expected_cells(g, side, ts, src + b * bbytes, expect + b * bbytes);
      blosc2_schunk *sc = new_schunk(ts, side, BLOSC_LZ4, g, true, true);
      CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), 1);
      CHECK_EQ_INT(captured_len, nbytes);
      if (captured_len == (size_t)nbytes) CHECK_MEM(captured, expect, nbytes);
      CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, nbytes), nbytes);
      CHECK_MSG(memcmp(back, src, (size_t)nbytes) == 0,
                "captured round trip of geometry %d, side %d, typesize %d", (int)gi, side, ts);
      blosc2_schunk_free(sc);
      free(captured);
      captured = NULL;
      free(src);
      free(expect);
      free(back);
    }
  }
  /* The README's example: a 4 x 8 block of bytes with 2 x 2 cells. */
  geo_t g = {2, {4, 8}, {4, 8}, {4, 8}};
  uint8_t src[32], back[32];
  static const uint8_t want[32] = {0,  1,  8,  9,  2,  3,  10, 11, 4,  5,  12, 13, 6,  7,  14, 15,
                                   16, 17, 24, 25, 18, 19, 26, 27, 20, 21, 28, 29, 22, 23, 30, 31};
  for (int i = 0; i < 32; i++) src[i] = (uint8_t)i;
  captured_cap = 32;
  captured = tc_malloc(captured_cap);
  captured_len = 0;
  blosc2_schunk *sc = new_schunk(1, 2, BLOSC_BLOSCLZ, &g, true, true);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, 32), 1);
  CHECK_EQ_INT(captured_len, 32);
  CHECK_MEM(captured, want, 32);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, 32), 32);
  CHECK_MEM(back, src, 32);
  blosc2_schunk_free(sc);
  free(captured);
  captured = NULL;
}

static void refusals(void) {
  const geo_t *g = &geos[1]; /* blocks of 7 x 6 = 42 items */
  int ts = 4;
  int32_t nbytes = (int32_t)(nblocks(g) * block_items(g) * ts);
  uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
  fill_chunk(g, 0, ts, src);

  /* No "b2nd" metalayer. */
  blosc2_schunk *sc = new_schunk(ts, 2, BLOSC_LZ4, g, false, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
  blosc2_schunk_free(sc);
  /* A side of 0; a cell (7 x 7 = 49 items) larger than the block (42). */
  sc = new_schunk(ts, 0, BLOSC_LZ4, g, true, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
  blosc2_schunk_free(sc);
  sc = new_schunk(ts, 7, BLOSC_LZ4, g, true, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
  blosc2_schunk_free(sc);
  /* A chunk that is not a whole number of blocks (the last one is short). */
  sc = new_schunk(ts, 2, BLOSC_LZ4, g, true, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes - 40));
  /* A good chunk... */
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), 1);
  uint8_t *chunk; bool needs_free;
  int cb = blosc2_schunk_get_chunk(sc, 0, &chunk, &needs_free);
  REQUIRE(cb > 32);
  uint8_t *copy = tc_malloc((size_t)cb);
  memcpy(copy, chunk, (size_t)cb);
  if (needs_free) free(chunk);
  REQUIRE((copy[2] & 0x02) == 0);
  /* ...cannot be decoded without a super-chunk... */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_NEG(blosc2_decompress_ctx(dctx, copy, cb, back, nbytes));
  blosc2_free_ctx(dctx);
  /* ...nor with a side of 0 in its header... */
  dp.schunk = sc;
  dctx = blosc2_create_dctx(dp);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, copy, cb, back, nbytes), nbytes);
  CHECK_MEM(back, src, nbytes);
  copy[24 + 3] = 0;
  CHECK_NEG(blosc2_decompress_ctx(dctx, copy, cb, back, nbytes));
  blosc2_free_ctx(dctx);
  /* ...nor with a super-chunk whose block shape has another item count. */
  geo_t other = *g;
  other.block[1] = 5;
  blosc2_schunk *sc2 = new_schunk(ts, 2, BLOSC_LZ4, &other, true, false);
  copy[24 + 3] = 2;
  dp.schunk = sc2;
  dctx = blosc2_create_dctx(dp);
  CHECK_NEG(blosc2_decompress_ctx(dctx, copy, cb, back, nbytes));
  blosc2_free_ctx(dctx);
  blosc2_schunk_free(sc2);
  free(copy);

  /* Compressing outside a super-chunk fails. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.blocksize = (int32_t)(block_items(g) * ts);
  cp.filters[4] = FILTER_NDCELL;
  cp.filters_meta[4] = 2;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *out = tc_malloc((size_t)nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK_NEG(blosc2_compress_ctx(cctx, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD));
  blosc2_free_ctx(cctx);
  /* With the super-chunk in the parameters it works. */
  cp.schunk = sc;
  cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  blosc2_free_ctx(cctx);
  free(out);
  blosc2_schunk_free(sc);
  free(src);
  free(back);
}

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

int main(void) {
  blosc2_init();
  /* The id is taken by the built-in plugin: users cannot register it. */
  blosc2_filter f = {0};
  f.id = FILTER_NDCELL;
  f.name = "ndcell";
  f.version = 1;
  f.forward = noop_forward;
  f.backward = noop_backward;
  CHECK_NEG(blosc2_register_filter(&f));
  round_trips();
  layout();
  refusals();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_ndcell");
}
