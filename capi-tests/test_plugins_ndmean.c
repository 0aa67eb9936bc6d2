/* The ndmean filter plugin (BLOSC_FILTER_NDMEAN, id 33), registered at start:
 * lossy, for float32/float64 items of a super-chunk carrying a "b2nd"
 * metalayer.  Every block is cut into cells (side = the filter meta, clipped
 * to the block shape) and every item comes back as the mean of its cell,
 * summed in the item's precision in C order.  Round trips for 1..4
 * dimensions with shapes, chunk shapes and block shapes that do not divide
 * each other, the exact bits, the lossy bound, the layout handed to the next
 * filter, and the refusals (other item sizes, no "b2nd", bad sides). */
#include "plugin_common.h"

/* BLOSC_FILTER_NDMEAN of blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_NDMEAN 33

/* Chunk `nc` as b2nd lays it out (blocks in C order, each in C order), as
 * float32 (ts 4) or float64 (ts 8); items outside the chunk or array are 0. */
static void fill_chunk(const geo_t *g, int64_t nc, int ts, uint8_t *out) {
  size_t o = 0;
  uint64_t st = 12345 + (uint64_t)nc;
  for (int64_t b = 0; b < nblocks(g); b++) {
    for (int64_t k = 0; k < block_items(g); k++) {
      int64_t gl[MAXD];
      bool inside = chunk_item(g, nc, b, k, gl);
      double v = -20.0;
      for (int i = 0; i < g->ndim; i++) v += 0.37 * (double)gl[i] * (double)(3 * i + 1);
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

/* The capture filter (plugin_common.h) placed after ndmean. */
#define CAPTURE_ID 202

static blosc2_schunk *new_schunk(int ts, int side, uint8_t codec, const geo_t *g, bool with_meta,
                                 bool capture) {
  return nd_filter_schunk(FILTER_NDMEAN, side, ts, codec, g,
                          with_meta ? (ts == 4 ? "<f4" : "<f8") : NULL, capture ? CAPTURE_ID : 0);
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
          int cb;
          uint8_t *chunk = chunk_copy(sc, c, &cb);
          REQUIRE(cb > 32);
          bool memcpyed = (chunk[2] & 0x02) != 0;
          if (!memcpyed) {
            CHECK_EQ_INT(chunk[16 + 3], FILTER_NDMEAN);
            CHECK_EQ_INT(chunk[24 + 3], side);
          }
          free(chunk);
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
        blosc2_schunk *copy = frame_copy(sc);
        if (copy != NULL) {
          uint8_t *again = tc_malloc((size_t)nbytes);
          CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, n - 1, back, nbytes), nbytes);
          CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, n - 1, again, nbytes), nbytes);
          CHECK_MEM(again, back, nbytes);
          free(again);
          blosc2_schunk_free(copy);
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
  register_capture(CAPTURE_ID, "tc_capture_ndmean");
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
      capture_begin((size_t)nbytes);
      blosc2_schunk *sc = new_schunk(ts, side, BLOSC_LZ4, g, true, true);
      CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), 1);
      CHECK_EQ_INT(captured_len, nbytes);
      if (captured_len == (size_t)nbytes) CHECK_MEM(captured, cells, nbytes);
      CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, nbytes), nbytes);
      CHECK_MSG(memcmp(back, expect, (size_t)nbytes) == 0,
                "captured round trip of geometry %d, side %d, typesize %d", (int)gi, side, ts);
      blosc2_schunk_free(sc);
      capture_end();
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
  int cb;
  uint8_t *copy = chunk_copy(sc, 0, &cb);
  REQUIRE(cb > 32);
  REQUIRE((copy[2] & 0x02) == 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  CHECK_NEG(decompress_with(&dp, copy, cb, back, nb)); /* no super-chunk */
  dp.schunk = sc;
  CHECK_EQ_INT(decompress_with(&dp, copy, cb, back, nb), nb);
  CHECK_EQ_INT(copy[24 + 3], 3);
  copy[24 + 3] = 0;
  CHECK_NEG(decompress_with(&dp, copy, cb, back, nb));
  copy[24 + 3] = 200;
  CHECK_NEG(decompress_with(&dp, copy, cb, back, nb));
  free(copy);
  /* Compressing outside a super-chunk fails. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.blocksize = (int32_t)(block_items(g) * ts);
  cp.filters[4] = FILTER_NDMEAN;
  cp.filters_meta[4] = 2;
  uint8_t *out = tc_malloc((size_t)nb + BLOSC2_MAX_OVERHEAD);
  CHECK_NEG(compress_with(&cp, src, nb, out, nb + BLOSC2_MAX_OVERHEAD));
  free(out);
  blosc2_schunk_free(sc);
  free(src);
  free(back);
}

int main(void) {
  blosc2_init();
  check_filter_id_taken(FILTER_NDMEAN, "ndmean");
  round_trips();
  layout();
  refusals();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_ndmean");
}
