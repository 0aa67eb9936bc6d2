/* The ndmean filter plugin (BLOSC_FILTER_NDMEAN, id 33), registered at start:
 * lossy, for float32/float64 items of a super-chunk carrying a "b2nd"
 * metalayer.  Every block is cut into cells (side = the filter meta, clipped
 * to the block shape) and every item comes back as the mean of its cell,
 * summed in the item's precision in C order.  Round trips for 1..4
 * dimensions with shapes, chunk shapes and block shapes that do not divide
 * each other, the exact bits, the lossy bound, the layout handed to the next
 * filter, and the refusals (other item sizes, no "b2nd", bad sides). */
#include "test_common.h"
#include <stdbool.h>

#define MAXD 8
/* BLOSC_FILTER_NDMEAN of blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_NDMEAN 33

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

/* Chunk `nc` as b2nd lays it out (blocks in C order, each in C order), as
 * float32 (ts 4) or float64 (ts 8); items outside the chunk or array are 0. */
static void fill_chunk(const geo_t *g, int64_t nc, int ts, uint8_t *out) {
  int64_t grid[MAXD], bgrid[MAXD], bshape[MAXD], corner[MAXD], bpos[MAXD], loc[MAXD];
  for (int i = 0; i < g->ndim; i++) {
    grid[i] = (g->shape[i] + g->chunk[i] - 1) / g->chunk[i];
    bgrid[i] = bpc(g, i);
    bshape[i] = g->block[i];
  }
  unravel(nc, g->ndim, grid, corner);
  size_t o = 0;
  uint64_t st = 12345 + (uint64_t)nc;
  for (int64_t b = 0; b < nblocks(g); b++) {
    unravel(b, g->ndim, bgrid, bpos);
    for (int64_t k = 0; k < block_items(g); k++) {
      unravel(k, g->ndim, bshape, loc);
      bool inside = true;
      double v = -20.0;
      for (int i = 0; i < g->ndim; i++) {
        int64_t in_chunk = bpos[i] * bshape[i] + loc[i];
        int64_t gl = corner[i] * g->chunk[i] + in_chunk;
        if (in_chunk >= g->chunk[i] || gl >= g->shape[i]) inside = false;
        v += 0.37 * (double)gl * (double)(3 * i + 1);
      }
      v += (double)(tc_rand(&st) % 1000) * 1e-3;
      if (!inside) v = 0.0;
      if (ts == 4) {
        float f = (float)v;
        memcpy(out + o, &f, 4);
      } else {
        memcpy(out + o, &v, 8);
      }
      o += (size_t)ts;
    }
  }
}

static double get(const uint8_t *p, int ts) {
  if (ts == 4) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

/* The cell of item k of a block, as an index in the C-order cell grid. */
static int64_t cell_of(const geo_t *g, int side, int64_t k) {
  int64_t bshape[MAXD], loc[MAXD];
  for (int i = 0; i < g->ndim; i++) bshape[i] = g->block[i];
  unravel(k, g->ndim, bshape, loc);
  int64_t c = 0;
  for (int i = 0; i < g->ndim; i++) {
    int64_t cs = side < g->block[i] ? side : g->block[i];
    int64_t gridi = (g->block[i] + cs - 1) / cs;
    c = c * gridi + loc[i] / cs;
  }
  return c;
}

static int64_t ncells(const geo_t *g, int side) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) {
    int64_t cs = side < g->block[i] ? side : g->block[i];
    n *= (g->block[i] + cs - 1) / cs;
  }
  return n;
}

/* What a round trip leaves in one block: every item replaced by the mean of
 * its cell, summed in the item's precision in C order.  Also returns the
 * range of every cell's original values. */
static void expected_block(const geo_t *g, int side, int ts, const uint8_t *blk, uint8_t *out,
                           double *lo, double *hi) {
  int64_t nc = ncells(g, side), nk = block_items(g);
  for (int64_t c = 0; c < nc; c++) {
    float sf = 0.0f;
    double sd = 0.0;
    int64_t n = 0;
    lo[c] = 1e300;
    hi[c] = -1e300;
    for (int64_t k = 0; k < nk; k++) {
      if (cell_of(g, side, k) != c) continue;
      double x = get(blk + k * ts, ts);
      if (ts == 4) {
        float xf;
        memcpy(&xf, blk + k * ts, 4);
        sf += xf;
      } else {
        sd += x;
      }
      if (x < lo[c]) lo[c] = x;
      if (x > hi[c]) hi[c] = x;
      n++;
    }
    float mf = sf / (float)n;
    double md = sd / (double)n;
    for (int64_t k = 0; k < nk; k++) {
      if (cell_of(g, side, k) != c) continue;
      if (ts == 4)
        memcpy(out + k * ts, &mf, 4);
      else
        memcpy(out + k * ts, &md, 8);
    }
  }
}

/* A user filter (id 202) placed after ndmean that records what it is given. */
#define CAPTURE_ID 202
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
  cp.filters[3] = FILTER_NDMEAN;
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
    int32_t len = b2nd_meta(meta, g, ts == 4 ? "<f4" : "<f8");
    CHECK_EQ_INT(blosc2_meta_add(sc, "b2nd", meta, len), 0);
  }
  return sc;
}

/* Block shapes and sides chosen so that the side is never clipped in the
 * first dimension while a later dimension holds several cells: there the
 * reference places overlapping cells and cannot decode its own chunks. */
static const geo_t geos[] = {
  {1, {1000}, {300}, {70}},
  {2, {50, 37}, {20, 15}, {7, 6}},
  {3, {13, 11, 9}, {8, 6, 5}, {4, 3, 5}},
  {4, {7, 6, 5, 9}, {5, 4, 3, 6}, {3, 2, 3, 4}},
};
static const int sides[][3] = {{4, 7, 100}, {2, 3, 10}, {2, 4, 9}, {2, 3, 1}};

static void round_trips(void) {
  int cases = 0;
  for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
    const geo_t *g = &geos[gi];
    for (int s = 0; s < 3; s++) {
      int side = sides[gi][s];
      for (int ts = 4; ts <= 8; ts += 4) {
        uint8_t codec = (s % 2) ? BLOSC_ZSTD : BLOSC_LZ4;
        int32_t bbytes = (int32_t)(block_items(g) * ts);
        int32_t nbytes = (int32_t)(nblocks(g) * bbytes);
        int64_t nc = ncells(g, side);
        uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
        uint8_t *expect = tc_malloc((size_t)nbytes);
        double *lo = tc_malloc((size_t)nc * sizeof(double)), *hi = tc_malloc((size_t)nc * sizeof(double));
        blosc2_schunk *sc = new_schunk(ts, side, codec, g, true, false);
        int64_t n = nchunks(g);
        for (int64_t c = 0; c < n; c++) {
          fill_chunk(g, c, ts, src);
          CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), c + 1);
        }
        for (int64_t c = 0; c < n; c++) {
          fill_chunk(g, c, ts, src);
          CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, back, nbytes), nbytes);
          uint8_t *chunk; bool needs_free;
          int cb = blosc2_schunk_get_chunk(sc, c, &chunk, &needs_free);
          REQUIRE(cb > 32);
          bool memcpyed = (chunk[2] & 0x02) != 0;
          if (!memcpyed) {
            CHECK_EQ_INT(chunk[16 + 3], FILTER_NDMEAN);
            CHECK_EQ_INT(chunk[24 + 3], side);
          }
          if (needs_free) free(chunk);
          if (memcpyed) {
            CHECK_MEM(back, src, nbytes);
            continue;
          }
          cases++;
          int bad_bound = 0;
          for (int64_t b = 0; b < nblocks(g); b++) {
            expected_block(g, side, ts, src + b * bbytes, expect + b * bbytes, lo, hi);
            for (int64_t k = 0; k < block_items(g); k++) {
              double x = get(back + b * bbytes + k * ts, ts);
              int64_t cell = cell_of(g, side, k);
              if (x < lo[cell] || x > hi[cell]) bad_bound++;
            }
          }
          /* The exact bits of the mean, and the lossy bound. */
          CHECK_MSG(memcmp(back, expect, (size_t)nbytes) == 0,
                    "means of geometry %d, side %d, typesize %d, chunk %d", (int)gi, side, ts,
                    (int)c);
          CHECK_EQ_INT(bad_bound, 0);
        }
        /* The last chunk again, through a contiguous frame copy. */
        uint8_t *cframe; bool needs_free;
        int64_t flen = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
        CHECK(flen > 0);
        if (flen > 0) {
          blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, flen, true);
          CHECK(copy != NULL);
          if (copy != NULL) {
            uint8_t *again = tc_malloc((size_t)nbytes);
            CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, n - 1, back, nbytes), nbytes);
            CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, n - 1, again, nbytes), nbytes);
            CHECK_MEM(again, back, nbytes);
            free(again);
            blosc2_schunk_free(copy);
          }
          if (needs_free) free(cframe);
        }
        blosc2_schunk_free(sc);
        free(src);
        free(back);
        free(expect);
        free(lo);
        free(hi);
      }
    }
  }
  CHECK(cases > 30);
}

/* What ndmean hands to the next filter: cell after cell (C order of the cell
 * grid), the cell's mean once per item. */
static void layout(void) {
  blosc2_filter f = {0};
  f.id = CAPTURE_ID;
  f.name = "tc_capture_ndmean";
  f.version = 1;
  f.forward = capture_forward;
  f.backward = capture_backward;
  CHECK_EQ_INT(blosc2_register_filter(&f), 0);
  for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
    const geo_t *g = &geos[gi];
    for (int s = 0; s < 3; s++) {
      int side = sides[gi][s];
      int ts = (gi % 2) ? 4 : 8;
      int32_t bbytes = (int32_t)(block_items(g) * ts);
      int32_t nbytes = (int32_t)(nblocks(g) * bbytes);
      int64_t nc = ncells(g, side);
      uint8_t *src = tc_malloc((size_t)nbytes), *expect = tc_malloc((size_t)nbytes);
      uint8_t *cells = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
      double *lo = tc_malloc((size_t)nc * sizeof(double)), *hi = tc_malloc((size_t)nc * sizeof(double));
      fill_chunk(g, 0, ts, src);
      size_t o = 0;
      for (int64_t b = 0; b < nblocks(g); b++) {
        uint8_t *eb = expect + b * bbytes;
        expected_block(g, side, ts, src + b * bbytes, eb, lo, hi);
        for (int64_t c = 0; c < nc; c++)
          for (int64_t k = 0; k < block_items(g); k++)
            if (cell_of(g, side, k) == c) {
              memcpy(cells + o, eb + k * ts, (size_t)ts);
              o += (size_t)ts;
            }
      }
      captured_cap = (size_t)nbytes;
      captured = tc_malloc(captured_cap);
      captured_len = 0;
      blosc2_schunk *sc = new_schunk(ts, side, BLOSC_LZ4, g, true, true);
      CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), 1);
      CHECK_EQ_INT(captured_len, nbytes);
      if (captured_len == (size_t)nbytes) CHECK_MEM(captured, cells, nbytes);
      CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, nbytes), nbytes);
      CHECK_MSG(memcmp(back, expect, (size_t)nbytes) == 0,
                "captured round trip of geometry %d, side %d, typesize %d", (int)gi, side, ts);
      blosc2_schunk_free(sc);
      free(captured);
      captured = NULL;
      free(src);
      free(expect);
      free(cells);
      free(back);
      free(lo);
      free(hi);
    }
  }
}

static void refusals(void) {
  const geo_t *g = &geos[1]; /* blocks of 7 x 6 = 42 items */
  int32_t nbytes = (int32_t)(nblocks(g) * block_items(g) * 16);
  uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);

  /* Only 4- and 8-byte items. */
  static const int bad_ts[] = {1, 2, 3, 16};
  for (int i = 0; i < 4; i++) {
    int ts = bad_ts[i];
    int32_t nb = (int32_t)(nblocks(g) * block_items(g) * ts);
    tc_fill(src, (size_t)nb, TC_FILL_RAMP32, 1);
    blosc2_schunk *sc = new_schunk(ts, 2, BLOSC_LZ4, g, true, false);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nb));
    blosc2_schunk_free(sc);
  }
  int ts = 4;
  int32_t nb = (int32_t)(nblocks(g) * block_items(g) * ts);
  fill_chunk(g, 0, ts, src);
  /* No "b2nd" metalayer. */
  blosc2_schunk *sc = new_schunk(ts, 2, BLOSC_LZ4, g, false, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nb));
  blosc2_schunk_free(sc);
  /* Sides 0 and above 127 (the meta is a signed byte). */
  static const int bad_sides[] = {0, 128, 255};
  for (int i = 0; i < 3; i++) {
    sc = new_schunk(ts, bad_sides[i], BLOSC_LZ4, g, true, false);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nb));
    blosc2_schunk_free(sc);
  }
  /* A chunk that is not a whole number of blocks. */
  sc = new_schunk(ts, 3, BLOSC_ZSTD, g, true, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nb - 40));
  /* A good chunk, then decoded with its side patched to 0 or 200. */
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nb), 1);
  uint8_t *chunk; bool needs_free;
  int cb = blosc2_schunk_get_chunk(sc, 0, &chunk, &needs_free);
  REQUIRE(cb > 32);
  uint8_t *copy = tc_malloc((size_t)cb);
  memcpy(copy, chunk, (size_t)cb);
  if (needs_free) free(chunk);
  REQUIRE((copy[2] & 0x02) == 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_NEG(blosc2_decompress_ctx(dctx, copy, cb, back, nb)); /* no super-chunk */
  blosc2_free_ctx(dctx);
  dp.schunk = sc;
  dctx = blosc2_create_dctx(dp);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, copy, cb, back, nb), nb);
  CHECK_EQ_INT(copy[24 + 3], 3);
  copy[24 + 3] = 0;
  CHECK_NEG(blosc2_decompress_ctx(dctx, copy, cb, back, nb));
  copy[24 + 3] = 200;
  CHECK_NEG(blosc2_decompress_ctx(dctx, copy, cb, back, nb));
  blosc2_free_ctx(dctx);
  free(copy);
  /* Compressing outside a super-chunk fails. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.blocksize = (int32_t)(block_items(g) * ts);
  cp.filters[4] = FILTER_NDMEAN;
  cp.filters_meta[4] = 2;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *out = tc_malloc((size_t)nb + BLOSC2_MAX_OVERHEAD);
  CHECK_NEG(blosc2_compress_ctx(cctx, src, nb, out, nb + BLOSC2_MAX_OVERHEAD));
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
  f.id = FILTER_NDMEAN;
  f.name = "ndmean";
  f.version = 1;
  f.forward = noop_forward;
  f.backward = noop_backward;
  CHECK_NEG(blosc2_register_filter(&f));
  round_trips();
  layout();
  refusals();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_ndmean");
}
