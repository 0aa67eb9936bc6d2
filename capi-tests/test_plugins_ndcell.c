/* The ndcell filter plugin (BLOSC_FILTER_NDCELL, id 32), registered at start:
 * it regroups every block of a super-chunk carrying a "b2nd" metalayer into
 * cubic cells (side = the filter meta).  Round trips through super-chunks and
 * frames for 1..4 and 8 dimensions with shapes, chunk shapes and block shapes
 * that do not divide each other; the exact cell layout seen by the next filter;
 * and the refusals (no "b2nd", side 0, a cell larger than the block, no
 * super-chunk). */
#include "plugin_common.h"

/* FILTER_NDCELL of blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_NDCELL 32

/* The bytes b2nd hands to the super-chunk for chunk `nc`: block after block
 * (C order), each block in C order; items outside the chunk or array are 0. */
static void fill_chunk(const geo_t *g, int64_t nc, int ts, uint8_t *out) {
  size_t o = 0;
  for (int64_t b = 0; b < nblocks(g); b++) {
    for (int64_t k = 0; k < block_items(g); k++) {
      int64_t gl[MAXD];
      bool inside = chunk_item(g, nc, b, k, gl);
      uint64_t v = 0;
      for (int i = 0; i < g->ndim; i++) v += (uint64_t)gl[i] * (uint64_t)(3 * i + 1);
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

/* The capture filter (plugin_common.h) placed after ndcell. */
#define CAPTURE_ID 201

static blosc2_schunk *new_schunk(int ts, int side, uint8_t codec, const geo_t *g, bool with_meta,
                                 bool capture) {
  return nd_filter_schunk(FILTER_NDCELL, side, ts, codec, g, with_meta ? "|u1" : NULL,
                          capture ? CAPTURE_ID : 0);
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
          int cb;
          uint8_t *chunk = chunk_copy(sc, c, &cb);
          CHECK(cb > 32);
          if (cb > 32 && !(chunk[2] & 0x02)) {
            CHECK_EQ_INT(chunk[16 + 3], FILTER_NDCELL);
            CHECK_EQ_INT(chunk[24 + 3], side);
            cases++;
          }
          free(chunk);
        }
        /* The same through a contiguous frame copy (the super-chunk it opens
         * gives the filter its "b2nd" metalayer). */
        blosc2_schunk *copy = frame_copy(sc);
        if (copy != NULL) {
          int64_t last = n - 1;
          fill_chunk(g, last, ts, src);
          CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, last, back, nbytes), nbytes);
          CHECK_MEM(back, src, nbytes);
          blosc2_schunk_free(copy);
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
  register_capture(CAPTURE_ID, "tc_capture_ndcell");
  for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
    const geo_t *g = &geos[gi];
    for (int s = 0; s < 3; s++) {
      int side = sides[gi][s];
      int ts = (gi % 2) ? 2 : 4;
      int32_t bbytes = (int32_t)(block_items(g) * ts);
      int32_t nbytes = (int32_t)(nblocks(g) * bbytes);
      uint8_t *src = tc_malloc((size_t)nbytes), *expect = tc_malloc((size_t)nbytes);
      uint8_t *back = tc_malloc((size_t)nbytes);
      capture_begin((size_t)nbytes);
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
      capture_end();
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
  capture_begin(32);
  blosc2_schunk *sc = new_schunk(1, 2, BLOSC_BLOSCLZ, &g, true, true);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, 32), 1);
  CHECK_EQ_INT(captured_len, 32);
  CHECK_MEM(captured, want, 32);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, 32), 32);
  CHECK_MEM(back, src, 32);
  blosc2_schunk_free(sc);
  capture_end();
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
  int cb;
  uint8_t *copy = chunk_copy(sc, 0, &cb);
  REQUIRE(cb > 32);
  REQUIRE((copy[2] & 0x02) == 0);
  /* ...cannot be decoded without a super-chunk... */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  CHECK_NEG(decompress_with(&dp, copy, cb, back, nbytes));
  /* ...nor with a side of 0 in its header... */
  dp.schunk = sc;
  CHECK_EQ_INT(decompress_with(&dp, copy, cb, back, nbytes), nbytes);
  CHECK_MEM(back, src, nbytes);
  copy[24 + 3] = 0;
  CHECK_NEG(decompress_with(&dp, copy, cb, back, nbytes));
  /* ...nor with a super-chunk whose block shape has another item count. */
  geo_t other = *g;
  other.block[1] = 5;
  blosc2_schunk *sc2 = new_schunk(ts, 2, BLOSC_LZ4, &other, true, false);
  copy[24 + 3] = 2;
  dp.schunk = sc2;
  CHECK_NEG(decompress_with(&dp, copy, cb, back, nbytes));
  blosc2_schunk_free(sc2);
  free(copy);

  /* Compressing outside a super-chunk fails. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.blocksize = (int32_t)(block_items(g) * ts);
  cp.filters[4] = FILTER_NDCELL;
  cp.filters_meta[4] = 2;
  uint8_t *out = tc_malloc((size_t)nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK_NEG(compress_with(&cp, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD));
  /* With the super-chunk in the parameters it works. */
  cp.schunk = sc;
  CHECK(compress_with(&cp, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD) > 0);
  free(out);
  blosc2_schunk_free(sc);
  free(src);
  free(back);
}

int main(void) {
  blosc2_init();
  check_filter_id_taken(FILTER_NDCELL, "ndcell");
  round_trips();
  layout();
  refusals();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_ndcell");
}
