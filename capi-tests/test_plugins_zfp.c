/* The ZFP codecs registered at start (zfp_acc 33, zfp_prec 34, zfp_rate 35):
 * float and double data in super-chunks carrying a hand-made "b2nd"
 * metalayer (the codecs take the block shape from it), 1 to 4 dimensions,
 * blocks that do and do not divide the chunk.  Checks the meaning of
 * compcode_meta for each mode: the absolute error bound of fixed accuracy,
 * the error relative to the magnitude of fixed precision, and the exact
 * stream sizes of fixed rate; plus what the codecs refuse.
 *
 * A library built without zfp (ours without the `zfp` Cargo feature) knows
 * the three names but fails every chunk using them with
 * BLOSC2_ERROR_CODEC_SUPPORT: the test then checks the names and that, and
 * skips the rest (prints SKIP, exits 0). */
#include <math.h>

#include "test_common.h"
#include "b2nd.h"

#define ZFP_ACC 33
#define ZFP_PREC 34
#define ZFP_RATE 35

typedef struct {
  int ndim;
  int32_t chunk[4];
  int32_t block[4];
} geo_t;

static const geo_t GEOS[] = {
    {1, {1000}, {128}},
    {1, {90}, {20}},
    {2, {50, 40}, {16, 16}},
    {2, {30, 30}, {10, 7}},
    {3, {20, 20, 20}, {8, 8, 8}},
    {3, {10, 12, 9}, {5, 6, 4}},
    {4, {8, 8, 8, 8}, {4, 4, 4, 4}},
    {4, {10, 6, 7, 9}, {5, 4, 7, 6}},
};
#define NGEOS ((int)(sizeof(GEOS) / sizeof(GEOS[0])))

/* ---------------------------------------------------------------- b2nd meta */

static size_t put_be(uint8_t *p, uint64_t v, int nbytes) {
  for (int i = 0; i < nbytes; i++) p[i] = (uint8_t)(v >> (8 * (nbytes - 1 - i)));
  return (size_t)nbytes;
}

/* msgpack: [version 0, ndim, [shape int64...], [chunkshape int32...],
 *           [blockshape int32...], dtype format 0, dtype str32]. */
static int32_t make_b2nd_meta(uint8_t *out, int ndim, const int64_t *shape,
                              const int32_t *chunk, const int32_t *block,
                              const char *dtype) {
  size_t n = 0;
  out[n++] = 0x97;
  out[n++] = 0;
  out[n++] = (uint8_t)ndim;
  out[n++] = (uint8_t)(0x90 | ndim);
  for (int i = 0; i < ndim; i++) {
    out[n++] = 0xd3;
    n += put_be(out + n, (uint64_t)shape[i], 8);
  }
  out[n++] = (uint8_t)(0x90 | ndim);
  for (int i = 0; i < ndim; i++) {
    out[n++] = 0xd2;
    n += put_be(out + n, (uint32_t)chunk[i], 4);
  }
  out[n++] = (uint8_t)(0x90 | ndim);
  for (int i = 0; i < ndim; i++) {
    out[n++] = 0xd2;
    n += put_be(out + n, (uint32_t)block[i], 4);
  }
  out[n++] = 0;
  out[n++] = 0xdb;
  n += put_be(out + n, (uint32_t)strlen(dtype), 4);
  memcpy(out + n, dtype, strlen(dtype));
  n += strlen(dtype);
  return (int32_t)n;
}

static int32_t geo_meta(const geo_t *g, int ts, uint8_t *out) {
  int64_t shape[4];
  for (int i = 0; i < g->ndim; i++) shape[i] = (i == 0 ? 3 : 1) * (int64_t)g->chunk[i];
  return make_b2nd_meta(out, g->ndim, shape, g->chunk, g->block, ts == 4 ? "<f4" : "<f8");
}

/* ---------------------------------------------------------------- data */

static int64_t block_items(const geo_t *g) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) n *= g->block[i];
  return n;
}

/* Blocks per chunk along dimension i (the chunk padded to whole blocks). */
static int32_t bpc(const geo_t *g, int i) {
  return (g->chunk[i] + g->block[i] - 1) / g->block[i];
}

static int64_t chunk_items(const geo_t *g) {
  int64_t n = block_items(g);
  for (int i = 0; i < g->ndim; i++) n *= bpc(g, i);
  return n;
}

static double field_value(const int64_t *c, int ndim, uint64_t seed) {
  double v = 0;
  uint64_t st = seed + 1;
  for (int i = 0; i < ndim; i++) {
    v += sin((double)c[i] * (0.05 + 0.03 * i)) * (10.0 + i) + (double)c[i] * 0.1;
    st = st * 6364136223846793005ull + (uint64_t)c[i] + 1442695040888963407ull;
  }
  return v + (double)((st >> 33) % 1000) * 1e-5;
}

/* A b2nd chunk: block after block (C order), each block in C order; items
 * outside the chunk shape (padding) are zero. */
static void fill_chunk(const geo_t *g, int ts, uint64_t seed, uint8_t *out) {
  int64_t nb = chunk_items(g) / block_items(g);
  int64_t bi = block_items(g);
  for (int64_t b = 0; b < nb; b++) {
    int64_t bc[4], rest = b;
    for (int i = g->ndim - 1; i >= 0; i--) {
      bc[i] = rest % bpc(g, i);
      rest /= bpc(g, i);
    }
    for (int64_t k = 0; k < bi; k++) {
      int64_t c[4];
      int inside = 1;
      rest = k;
      for (int i = g->ndim - 1; i >= 0; i--) {
        c[i] = bc[i] * g->block[i] + rest % g->block[i];
        rest /= g->block[i];
        if (c[i] >= g->chunk[i]) inside = 0;
      }
      double v = inside ? field_value(c, g->ndim, seed) : 0.0;
      int64_t at = (b * bi + k) * ts;
      if (ts == 4) {
        float f = (float)v;
        memcpy(out + at, &f, 4);
      } else {
        memcpy(out + at, &v, 8);
      }
    }
  }
}

static double item(const uint8_t *buf, int ts, int64_t i) {
  if (ts == 4) {
    float f;
    memcpy(&f, buf + i * 4, 4);
    return f;
  }
  double d;
  memcpy(&d, buf + i * 8, 8);
  return d;
}

/* ---------------------------------------------------------------- helpers */

static blosc2_cparams zfp_cparams(int codec, uint8_t meta, int ts, int32_t blocksize,
                                  int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.compcode_meta = meta;
  cp.typesize = ts;
  cp.clevel = 5;
  cp.blocksize = blocksize;
  cp.nthreads = (int16_t)nthreads;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = BLOSC_NOFILTER;
    cp.filters_meta[i] = 0;
  }
  return cp;
}

/* A new in-memory super-chunk with the given metalayer (none if len is 0). */
static blosc2_schunk *new_schunk(blosc2_cparams *cp, int nthreads, const char *name,
                                 uint8_t *meta, int32_t len) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.contiguous = false;
  st.cparams = cp;
  st.dparams = &dp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (len > 0) CHECK(blosc2_meta_add(sc, name, meta, len) >= 0);
  return sc;
}

static int zfp_bits_per_block(int ts, int ndim, uint8_t meta) {
  double rate = (double)meta / 100.0 * ts * 8;
  int bits = (int)floor((double)(1 << (2 * ndim)) * rate + 0.5);
  int minbits = ts == 4 ? 1 + 8 : 1 + 11;
  return bits < minbits ? minbits : bits;
}

/* Fixed rate: every stream has exactly the size the rate gives. */
static void check_rate_sizes(const geo_t *g, int ts, uint8_t meta, const uint8_t *chunk,
                             const char *what) {
  if (chunk[2] & 0x02) return; /* stored as is */
  int32_t nbytes = tc_le32(chunk + 4), blocksize = tc_le32(chunk + 8);
  int32_t nblocks = (nbytes + blocksize - 1) / blocksize;
  int64_t zblocks = 1;
  for (int i = 0; i < g->ndim; i++) zblocks *= (g->block[i] + 3) / 4;
  int64_t bits = zblocks * zfp_bits_per_block(ts, g->ndim, meta);
  int32_t expect = (int32_t)((bits + 63) / 64 * 8);
  for (int32_t j = 0; j < nblocks; j++) {
    int32_t start = tc_le32(chunk + 32 + 4 * j);
    int32_t csize = tc_le32(chunk + start);
    int32_t want = expect < blocksize ? expect : blocksize;
    CHECK_MSG(csize == want, "%s: block %d stream %d bytes, expected %d", what, j, csize, want);
  }
}

static int ncases, ncompressed;

/* One case: two chunks through a super-chunk, then the error checks. */
static void run_case(int codec, uint8_t meta, int ts, const geo_t *g, int nthreads) {
  char what[160];
  snprintf(what, sizeof what, "codec %d meta %d ts %d ndim %d block %dx%dx%dx%d threads %d",
           codec, meta, ts, g->ndim, g->block[0], g->ndim > 1 ? g->block[1] : 1,
           g->ndim > 2 ? g->block[2] : 1, g->ndim > 3 ? g->block[3] : 1, nthreads);
  uint8_t mbuf[256];
  int32_t mlen = geo_meta(g, ts, mbuf);
  int32_t blocksize = (int32_t)(block_items(g) * ts);
  int64_t nitems = chunk_items(g);
  int32_t nbytes = (int32_t)(nitems * ts);
  blosc2_cparams cp = zfp_cparams(codec, meta, ts, blocksize, nthreads);
  blosc2_schunk *sc = new_schunk(&cp, nthreads, "b2nd", mbuf, mlen);
  uint8_t *src = tc_malloc((size_t)nbytes);
  uint8_t *out = tc_malloc((size_t)nbytes);
  for (int c = 0; c < 2; c++) {
    fill_chunk(g, ts, (uint64_t)(c * 7 + codec), src);
    int64_t rc = blosc2_schunk_append_buffer(sc, src, nbytes);
    CHECK_MSG(rc == c + 1, "%s: append chunk %d gave %lld", what, c, (long long)rc);
    if (rc < 0) continue;
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int cb = blosc2_schunk_get_chunk(sc, c, &chunk, &needs_free);
    CHECK_MSG(cb > 0, "%s: no chunk %d (%d)", what, c, cb);
    ncases++;
    if (cb > 0 && cb < nbytes) ncompressed++;
    if (cb > 0 && codec == ZFP_RATE) check_rate_sizes(g, ts, meta, chunk, what);
    int dn = blosc2_schunk_decompress_chunk(sc, c, out, nbytes);
    CHECK_MSG(dn == nbytes, "%s: decompressed %d of %d", what, dn, nbytes);
    double amax = 0, emax = 0;
    for (int64_t i = 0; i < nitems; i++) {
      double x = item(src, ts, i), y = item(out, ts, i);
      if (fabs(x) > amax) amax = fabs(x);
      if (fabs(x - y) > emax || isnan(y)) emax = isnan(y) ? INFINITY : fabs(x - y);
    }
    double bound;
    if (codec == ZFP_ACC) {
      /* |error| <= 10^meta (meta signed), but not below the type's own
       * resolution at the largest magnitude. */
      bound = pow(10.0, (int8_t)meta);
      double res = amax * (ts == 4 ? ldexp(1.0, -22) : ldexp(1.0, -51));
      if (bound < res) bound = res;
    } else if (codec == ZFP_PREC) {
      /* meta + 3 + 2 * ndim bit planes: an error relative to the largest
       * magnitude of about 2^(2 * ndim + 2 - planes). */
      int planes = meta + 3 + 2 * g->ndim;
      if (planes > 64) planes = 64;
      bound = amax * ldexp(1.0, 2 * g->ndim + 3 - planes);
    } else {
      /* meta percent of the original size: meta/100 * 8 * ts bits a value. */
      double rate = (double)meta / 100.0 * ts * 8;
      bound = amax * ldexp(1.0, (int)(2 * g->ndim + 6 - rate));
    }
    CHECK_MSG(emax <= bound, "%s: chunk %d max error %g > %g", what, c, emax, bound);
    /* Single items decode like the whole chunk (where the reference's cell
     * decoding of fixed-rate chunks works: at least one item's bits a cell). */
    if (codec != ZFP_RATE || zfp_bits_per_block(ts, g->ndim, meta) >= ts * 8) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.schunk = sc;
      blosc2_context *dctx = blosc2_create_dctx(dp);
      REQUIRE(dctx != NULL);
      for (int k = 0; k < 5 && cb > 0; k++) {
        int32_t at = (int32_t)(((int64_t)k * 7919 + 13) % nitems);
        uint8_t one[8];
        int r = blosc2_getitem_ctx(dctx, chunk, cb, at, 1, one, ts);
        CHECK_MSG(r == ts, "%s: getitem %d gave %d", what, at, r);
        if (r == ts) CHECK_MEM(one, out + (int64_t)at * ts, ts);
      }
      blosc2_free_ctx(dctx);
    }
    if (needs_free) free(chunk);
  }
  free(src);
  free(out);
  blosc2_schunk_free(sc);
}

/* ---------------------------------------------------------------- refusals */

static void refusals(void) {
  const geo_t *g = &GEOS[2];
  int32_t nbytes = (int32_t)(chunk_items(g) * 4);
  uint8_t *src = tc_malloc((size_t)nbytes);
  uint8_t *out = tc_malloc((size_t)nbytes);
  fill_chunk(g, 4, 1, src);
  uint8_t mbuf[256];

  for (int codec = ZFP_ACC; codec <= ZFP_RATE; codec++) {
    /* A super-chunk without "b2nd". */
    blosc2_cparams cp = zfp_cparams(codec, 10, 4, (int32_t)(block_items(g) * 4), 1);
    uint8_t other[4] = {1, 2, 3, 4};
    blosc2_schunk *sc = new_schunk(&cp, 1, "other", other, 4);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
    blosc2_schunk_free(sc);

    /* Block dimensions under 4. */
    int64_t shape[2] = {100, 40};
    int32_t chunk[2] = {50, 40}, block[2] = {16, 3};
    int32_t mlen = make_b2nd_meta(mbuf, 2, shape, chunk, block, "<f4");
    cp = zfp_cparams(codec, 10, 4, 16 * 3 * 4, 1);
    sc = new_schunk(&cp, 1, "b2nd", mbuf, mlen);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, 16 * 3 * 4 * 10));
    blosc2_schunk_free(sc);

    /* Five dimensions. */
    int64_t shape5[5] = {8, 8, 8, 8, 8};
    int32_t c5[5] = {4, 4, 4, 4, 4};
    mlen = make_b2nd_meta(mbuf, 5, shape5, c5, c5, "<f4");
    cp = zfp_cparams(codec, 10, 4, 1024 * 4, 1);
    sc = new_schunk(&cp, 1, "b2nd", mbuf, mlen);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, 1024 * 4));
    blosc2_schunk_free(sc);

    /* A typesize other than 4 or 8. */
    mlen = geo_meta(g, 2, mbuf);
    cp = zfp_cparams(codec, 10, 2, (int32_t)(block_items(g) * 2), 1);
    sc = new_schunk(&cp, 1, "b2nd", mbuf, mlen);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, (int32_t)(chunk_items(g) * 2)));
    blosc2_schunk_free(sc);

    /* A good chunk, then decoded without a super-chunk, and with a
     * metalayer whose blocks are larger than the chunk's. */
    mlen = geo_meta(g, 4, mbuf);
    cp = zfp_cparams(codec, 10, 4, (int32_t)(block_items(g) * 4), 1);
    sc = new_schunk(&cp, 1, "b2nd", mbuf, mlen);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), 1);
    uint8_t *ch = NULL;
    bool needs_free = false;
    int cb = blosc2_schunk_get_chunk(sc, 0, &ch, &needs_free);
    CHECK(cb > 0 && (ch[2] & 0x02) == 0);
    if (cb > 0) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_context *dctx = blosc2_create_dctx(dp);
      CHECK_NEG(blosc2_decompress_ctx(dctx, ch, cb, out, nbytes));
      blosc2_free_ctx(dctx);

      int32_t bigblock[2] = {16, 17};
      int64_t shape2[2] = {100, 40};
      int32_t chunk2[2] = {50, 40};
      mlen = make_b2nd_meta(mbuf, 2, shape2, chunk2, bigblock, "<f4");
      blosc2_cparams cp2 = zfp_cparams(codec, 10, 4, 16 * 17 * 4, 1);
      blosc2_schunk *big = new_schunk(&cp2, 1, "b2nd", mbuf, mlen);
      dp.schunk = big;
      dctx = blosc2_create_dctx(dp);
      CHECK_NEG(blosc2_decompress_ctx(dctx, ch, cb, out, nbytes));
      blosc2_free_ctx(dctx);
      blosc2_schunk_free(big);
    }
    if (needs_free) free(ch);
    blosc2_schunk_free(sc);
  }
  free(src);
  free(out);
}

static void names(void) {
  static const char *NAMES[3] = {"zfp_acc", "zfp_prec", "zfp_rate"};
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(blosc2_compname_to_compcode(NAMES[i]), ZFP_ACC + i);
    const char *name = NULL;
    CHECK_EQ_INT(blosc2_compcode_to_compname(ZFP_ACC + i, &name), ZFP_ACC + i);
    CHECK_STR(name, NAMES[i]);
  }
}

/* Whether the ZFP codecs are built in: a chunk with codec 33 and no
 * super-chunk is written (the codec stores its blocks as they are) where they
 * are, and refused with BLOSC2_ERROR_CODEC_SUPPORT where they are not. */
static int zfp_available(void) {
  float src[256];
  for (int i = 0; i < 256; i++) src[i] = (float)i * 0.5f;
  uint8_t out[sizeof src + BLOSC2_MAX_OVERHEAD];
  int avail = 1;
  for (int codec = ZFP_ACC; codec <= ZFP_RATE; codec++) {
    blosc2_cparams cp = zfp_cparams(codec, 10, 4, 0, 1);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    REQUIRE(cctx != NULL);
    int rc = blosc2_compress_ctx(cctx, src, (int32_t)sizeof src, out, (int32_t)sizeof out);
    blosc2_free_ctx(cctx);
    if (codec == ZFP_ACC) {
      avail = rc != BLOSC2_ERROR_CODEC_SUPPORT;
    }
    if (avail) {
      CHECK_MSG(rc > 0, "codec %d without a super-chunk: %d", codec, rc);
    } else {
      CHECK_MSG(rc == BLOSC2_ERROR_CODEC_SUPPORT, "codec %d unavailable: %d", codec, rc);
    }
  }
  return avail;
}

/* Arrays with a ZFP codec and the default filter pipeline (SHUFFLE in the last
 * slot), as python-blosc2 creates them from {"codec": ZFP_ACC, ...}: the
 * reference builds the context and the array (its check against shuffle is not
 * compiled into the library), so we do too. */
static void with_default_filters(void) {
  int64_t shape[2] = {100, 123};
  int32_t chunk[2] = {50, 64}, block[2] = {16, 16};
  double *src = tc_malloc(100 * 123 * sizeof(double));
  double *back = tc_malloc(100 * 123 * sizeof(double));
  for (int i = 0; i < 100 * 123; i++) src[i] = (double)i;
  for (int codec = ZFP_ACC; codec <= ZFP_RATE; codec++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codec;
    cp.compcode_meta = 37;
    cp.typesize = 8;
    cp.splitmode = BLOSC_ALWAYS_SPLIT;
    blosc2_storage st = {.contiguous = false, .cparams = &cp};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, "<f8",
                                          DTYPE_NUMPY_FORMAT, NULL, 0);
    CHECK_MSG(ctx != NULL, "codec %d with shuffle: no context", codec);
    if (ctx == NULL) continue;
    b2nd_array_t *arr = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &arr, src, 100 * 123 * sizeof(double)), 0);
    if (arr != NULL) {
      CHECK_EQ_INT(b2nd_to_cbuffer(arr, back, 100 * 123 * sizeof(double)), 0);
      b2nd_free(arr);
    }
    b2nd_free_ctx(ctx);
  }
  free(src);
  free(back);
}

int main(void) {
  blosc2_init();
  names();
  if (!zfp_available()) {
    blosc2_destroy();
    if (tc_failures) TEST_MAIN_END("test_plugins_zfp");
    printf("test_plugins_zfp: SKIP (built without zfp: codecs 33..35 give %d)\n",
           BLOSC2_ERROR_CODEC_SUPPORT);
    return 0;
  }
  static const uint8_t ACC_METAS[] = {(uint8_t)-3, (uint8_t)-1, 0, 1};
  static const uint8_t PREC_METAS[] = {0, 8, 20};
  static const uint8_t RATE_METAS[] = {10, 25, 50};
  for (int ts = 4; ts <= 8; ts += 4) {
    for (int gi = 0; gi < NGEOS; gi++) {
      for (size_t m = 0; m < sizeof ACC_METAS; m++) run_case(ZFP_ACC, ACC_METAS[m], ts, &GEOS[gi], 1);
      for (size_t m = 0; m < sizeof PREC_METAS; m++)
        run_case(ZFP_PREC, PREC_METAS[m], ts, &GEOS[gi], 1);
      for (size_t m = 0; m < sizeof RATE_METAS; m++)
        run_case(ZFP_RATE, RATE_METAS[m], ts, &GEOS[gi], 1);
    }
  }
  /* Blocks in parallel. */
  run_case(ZFP_ACC, (uint8_t)-2, 8, &GEOS[2], 4);
  run_case(ZFP_PREC, 12, 4, &GEOS[5], 4);
  run_case(ZFP_RATE, 30, 8, &GEOS[7], 4);
  /* Most cases shrink (the near-lossless ones may not). */
  CHECK_MSG(ncompressed * 10 > ncases * 9, "only %d of %d chunks compressed", ncompressed, ncases);
  refusals();
  with_default_filters();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_zfp");
}
