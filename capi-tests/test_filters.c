/* Filters: shuffle, bitshuffle, delta, truncprec, pipelines, filters_meta,
 * and the public blosc2_(un)shuffle / blosc2_bit(un)shuffle functions. */
#include "test_common.h"
#include <math.h>

static int compress_filters(const uint8_t *filters, const uint8_t *meta, int typesize, int codec,
                            int32_t blocksize, const void *src, int32_t n, void *dest,
                            int32_t destsize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.compcode = (uint8_t)codec;
  cp.blocksize = blocksize;
  memcpy(cp.filters, filters, BLOSC2_MAX_FILTERS);
  memcpy(cp.filters_meta, meta, BLOSC2_MAX_FILTERS);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (cctx == NULL) return -1000;
  int rc = blosc2_compress_ctx(cctx, src, n, dest, destsize);
  blosc2_free_ctx(cctx);
  return rc;
}

static int decompress(const void *src, int32_t srcsize, void *dest, int32_t destsize) {
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int rc = blosc2_decompress_ctx(dctx, src, srcsize, dest, destsize);
  blosc2_free_ctx(dctx);
  return rc;
}

/* Lossless pipelines must round trip exactly, header records the pipeline. */
static void lossless_pipelines(void) {
  static const uint8_t pipes[][BLOSC2_MAX_FILTERS] = {
    {0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, BLOSC_SHUFFLE},
    {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
    {0, 0, 0, 0, 0, BLOSC_DELTA},
    {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE},
    {0, 0, 0, 0, BLOSC_DELTA, BLOSC_BITSHUFFLE},
    {BLOSC_SHUFFLE, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
    {BLOSC_DELTA, 0, 0, 0, 0, BLOSC_SHUFFLE},
    {BLOSC_DELTA, 0, 0, 0, BLOSC_DELTA, 0},
    {0, 0, 0, 0, BLOSC_SHUFFLE, BLOSC_DELTA},
    /* Delta followed by two or more reordering filters is covered by
       test_filters_delta_multishuffle.c (known reference bug). */
    {BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE, 0, 0, 0, 0},
  };
  static const uint8_t nometa[BLOSC2_MAX_FILTERS] = {0};
  static const int typesizes[] = {1, 2, 4, 8, 12};  /* 16368 % each == 0 */
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZSTD};
  int32_t n = 250000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    for (int t = 0; t < 5; t++) {
      for (int c = 0; c < 3; c++) {
        int kind = (p + t) % 2 ? TC_FILL_SMOOTH_F64 : TC_FILL_RAMP32;
        tc_fill(src, n, kind, p * 7 + t);
        int32_t bs = (c == 1) ? 16368 : 0;  /* several blocks (multiple of every typesize used) */
        int csize = compress_filters(pipes[p], nometa, typesizes[t], codecs[c], bs, src, n, dest,
                                     n + BLOSC2_MAX_OVERHEAD);
        CHECK_MSG(csize > 0, "pipe %zu ts %d codec %d: csize %d", p, typesizes[t], codecs[c], csize);
        if (csize <= 0) continue;
        size_t ts;
        int flags;
        blosc1_cbuffer_metainfo(dest, &ts, &flags);
        if (!(flags & BLOSC_MEMCPYED)) {
          for (int f = 0; f < BLOSC2_MAX_FILTERS; f++) {
            /* shuffle with typesize 1 may be dropped; everything else recorded */
            if (pipes[p][f] != BLOSC_SHUFFLE || typesizes[t] > 1)
              CHECK_MSG(dest[BLOSC2_CHUNK_FILTER_CODES + f] == pipes[p][f],
                        "pipe %zu slot %d: %d", p, f, dest[BLOSC2_CHUNK_FILTER_CODES + f]);
          }
        }
        memset(back, 0, n);
        CHECK_EQ_INT(decompress(dest, csize, back, n), n);
        CHECK_MSG(memcmp(src, back, n) == 0, "pipe %zu ts %d codec %d: roundtrip differs", p,
                  typesizes[t], codecs[c]);
        /* getitem through the pipeline, from a late block.  With DELTA only
           the first block is read here; later blocks are covered by
           test_getitem_delta.c (known reference bug). */
        int has_delta = memchr(pipes[p], BLOSC_DELTA, BLOSC2_MAX_FILTERS) != NULL;
        int its = dest[BLOSC2_CHUNK_TYPESIZE];
        int start = has_delta ? 10 : (n / its) - 1000, nitems = 500;
        uint8_t items[500 * 12];
        CHECK_EQ_INT(blosc2_getitem(dest, csize, start, nitems, items, sizeof(items)), nitems * its);
        CHECK_MSG(memcmp(items, src + (size_t)start * its, (size_t)nitems * its) == 0,
                  "pipe %zu ts %d codec %d: getitem differs", p, typesizes[t], codecs[c]);
      }
    }
  }
  free(src); free(dest); free(back);
}

static void shuffle_flags_in_header(void) {
  int32_t n = 80000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, n, TC_FILL_RAMP32, 1);
  static const uint8_t meta[BLOSC2_MAX_FILTERS] = {0};
  uint8_t pipe[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, 0, BLOSC_SHUFFLE};
  int csize = compress_filters(pipe, meta, 4, BLOSC_BLOSCLZ, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  size_t ts;
  int flags;
  blosc1_cbuffer_metainfo(dest, &ts, &flags);
  CHECK_EQ_INT(ts, 4);
  /* Blosc2 chunks signal the extended header with both bit 0 and bit 2 set. */
  CHECK_EQ_INT(flags & (BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE), BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE);
  free(src); free(dest);
}

static void delta_helps(void) {
  /* A slowly increasing 64-bit counter compresses better with delta. */
  int32_t n = 400000;
  int64_t *src = tc_malloc(n);
  for (int i = 0; i < n / 8; i++) src[i] = 1234567890123LL + (int64_t)i * 7919;
  uint8_t *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  static const uint8_t meta[BLOSC2_MAX_FILTERS] = {0};
  uint8_t plain[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, 0, BLOSC_SHUFFLE};
  uint8_t delta[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE};
  int c1 = compress_filters(plain, meta, 8, BLOSC_ZSTD, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  int c2 = compress_filters(delta, meta, 8, BLOSC_ZSTD, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK_MSG(c1 > 0 && c2 > 0 && c2 < c1, "plain %d delta %d", c1, c2);
  CHECK_EQ_INT(decompress(dest, c2, back, n), n);
  CHECK_MEM(src, back, n);
  free(src); free(dest); free(back);
}

static void truncprec(void) {
  int32_t nd = 20000;
  double *d = tc_malloc(nd * sizeof(double));
  float *f = tc_malloc(nd * sizeof(float));
  for (int i = 0; i < nd; i++) {
    d[i] = sin(i * 0.001) * 1000.0 + 1.0 / (i + 1.0);
    f[i] = (float)d[i];
  }
  uint8_t *dest = tc_malloc(nd * 8 + BLOSC2_MAX_OVERHEAD);
  double *dback = tc_malloc(nd * sizeof(double));
  float *fback = tc_malloc(nd * sizeof(float));
  static const int precs[] = {10, 20, 40, -5, -30};
  for (int k = 0; k < 5; k++) {
    int prec = precs[k];
    uint8_t pipe[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, BLOSC_TRUNC_PREC, BLOSC_SHUFFLE};
    uint8_t meta[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, (uint8_t)(int8_t)prec, 0};
    int csize = compress_filters(pipe, meta, 8, BLOSC_LZ4, 0, d, nd * 8, dest, nd * 8 + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(csize > 0, "double prec %d csize %d", prec, csize);
    if (csize > 0) {
      CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_CODES + 4], BLOSC_TRUNC_PREC);
      CHECK_EQ_INT((int8_t)dest[BLOSC2_CHUNK_FILTER_META + 4], prec);
      CHECK_EQ_INT(decompress(dest, csize, dback, nd * 8), nd * 8);
      int zeroed = prec >= 0 ? 52 - prec : -prec;
      uint64_t mask = ~((UINT64_C(1) << zeroed) - 1);
      int bad = 0;
      for (int i = 0; i < nd; i++) {
        uint64_t a, b;
        memcpy(&a, &d[i], 8);
        memcpy(&b, &dback[i], 8);
        if ((a & mask) != b) bad++;
      }
      CHECK_MSG(bad == 0, "double prec %d: %d values not truncated as expected", prec, bad);
    }
    if (prec > 23 || prec < -22) continue;
    csize = compress_filters(pipe, meta, 4, BLOSC_ZSTD, 0, f, nd * 4, dest, nd * 4 + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(csize > 0, "float prec %d csize %d", prec, csize);
    if (csize > 0) {
      CHECK_EQ_INT(decompress(dest, csize, fback, nd * 4), nd * 4);
      int zeroed = prec >= 0 ? 23 - prec : -prec;
      uint32_t mask = ~((UINT32_C(1) << zeroed) - 1);
      int bad = 0;
      for (int i = 0; i < nd; i++) {
        uint32_t a, b;
        memcpy(&a, &f[i], 4);
        memcpy(&b, &fback[i], 4);
        if ((a & mask) != b) bad++;
      }
      CHECK_MSG(bad == 0, "float prec %d: %d values not truncated as expected", prec, bad);
    }
  }
  /* Unsupported typesize or precision: compression fails with an error. */
  uint8_t pipe[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, 0, BLOSC_TRUNC_PREC};
  uint8_t meta[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, 0, 10};
  CHECK(compress_filters(pipe, meta, 2, BLOSC_LZ4, 0, d, nd * 8, dest, nd * 8 + BLOSC2_MAX_OVERHEAD) < 0);
  meta[5] = 60; /* more than 52 mantissa bits */
  CHECK(compress_filters(pipe, meta, 8, BLOSC_LZ4, 0, d, nd * 8, dest, nd * 8 + BLOSC2_MAX_OVERHEAD) < 0);
  free(d); free(f); free(dest); free(dback); free(fback);
}

static void shuffle_meta_bytestreams(void) {
  /* filters_meta for SHUFFLE selects the number of byte streams. */
  int32_t n = 160000;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 4);
  static const int metas[] = {0, 2, 4, 8};
  for (int k = 0; k < 4; k++) {
    uint8_t pipe[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, 0, BLOSC_SHUFFLE};
    uint8_t meta[BLOSC2_MAX_FILTERS] = {0, 0, 0, 0, 0, (uint8_t)metas[k]};
    int csize = compress_filters(pipe, meta, 8, BLOSC_BLOSCLZ, 0, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK_MSG(csize > 0, "meta %d csize %d", metas[k], csize);
    if (csize <= 0) continue;
    CHECK_EQ_INT(dest[BLOSC2_CHUNK_FILTER_META + 5], metas[k]);
    memset(back, 0, n);
    CHECK_EQ_INT(decompress(dest, csize, back, n), n);
    CHECK_MEM(src, back, n);
  }
  free(src); free(dest); free(back);
}

/* ---- public shuffle functions, checked against a plain C model ---- */

static void model_shuffle(int ts, int bs, const uint8_t *src, uint8_t *dst) {
  int nel = bs / ts;
  for (int i = 0; i < nel; i++)
    for (int j = 0; j < ts; j++) dst[j * nel + i] = src[i * ts + j];
  memcpy(dst + nel * ts, src + nel * ts, bs - nel * ts);
}

static int getbit(const uint8_t *p, long bit) { return (p[bit >> 3] >> (bit & 7)) & 1; }

/* Bit-transposition: output row r = (byte j of element, bit k) holds that bit
   of each element i, packed little-endian; only multiples of 8 elements are
   transposed, the remainder is copied verbatim. */
static void model_bitshuffle(int ts, int bs, const uint8_t *src, uint8_t *dst) {
  int nel = bs / ts;
  int nel8 = nel - nel % 8;
  memset(dst, 0, bs);
  for (int j = 0; j < ts; j++)
    for (int k = 0; k < 8; k++) {
      long row = (long)(j * 8 + k) * nel8;
      for (int i = 0; i < nel8; i++) {
        if (getbit(src + (long)i * ts + j, k)) {
          long ob = row + i;
          dst[ob >> 3] |= (uint8_t)(1u << (ob & 7));
        }
      }
    }
  memcpy(dst + (long)nel8 * ts, src + (long)nel8 * ts, bs - nel8 * ts);
}

static void public_shuffle_functions(void) {
  static const int tss[] = {2, 3, 4, 7, 8, 16, 255};
  static const int bss[] = {64, 1000, 4096, 12345, 65536};
  for (int t = 0; t < 7; t++) {
    for (int b = 0; b < 5; b++) {
      int ts = tss[t], bs = bss[b];
      uint8_t *src = tc_malloc(bs), *out = tc_malloc(bs), *model = tc_malloc(bs),
              *back = tc_malloc(bs);
      tc_fill(src, bs, TC_FILL_RANDOM, (uint64_t)(t * 10 + b));

      CHECK_EQ_INT(blosc2_shuffle(ts, bs, src, out), bs);
      model_shuffle(ts, bs, src, model);
      CHECK_MSG(memcmp(out, model, bs) == 0, "shuffle ts %d bs %d differs from model", ts, bs);
      CHECK_EQ_INT(blosc2_unshuffle(ts, bs, out, back), bs);
      CHECK_MSG(memcmp(back, src, bs) == 0, "unshuffle ts %d bs %d", ts, bs);

      CHECK_EQ_INT(blosc2_bitshuffle(ts, bs, src, out), bs);
      model_bitshuffle(ts, bs, src, model);
      CHECK_MSG(memcmp(out, model, bs) == 0, "bitshuffle ts %d bs %d differs from model", ts, bs);
      memset(back, 0, bs);
      CHECK_EQ_INT(blosc2_bitunshuffle(ts, bs, out, back), bs);
      CHECK_MSG(memcmp(back, src, bs) == 0, "bitunshuffle ts %d bs %d", ts, bs);
      free(src); free(out); free(model); free(back);
    }
  }
}

int main(void) {
  blosc2_init();
  public_shuffle_functions();
  shuffle_flags_in_header();
  lossless_pipelines();
  delta_helps();
  truncprec();
  shuffle_meta_bytestreams();
  blosc2_destroy();
  TEST_MAIN_END("test_filters");
}
