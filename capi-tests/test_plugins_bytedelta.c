/* The bytedelta filter plugins registered at start: BLOSC_FILTER_BYTEDELTA
 * (35) and the legacy BLOSC_FILTER_BYTEDELTA_BUGGY (34), whose chunks must
 * keep decoding the way the reference decodes them.  Round trips through
 * super-chunks (meta = the stream count, or 0 for the super-chunk's
 * typesize), the exact transform of both flavours, and a chunk written by the
 * reference c-blosc2 3.3.5 with id 34. */
#include "plugin_common.h"

/* BLOSC_FILTER_BYTEDELTA_BUGGY / BLOSC_FILTER_BYTEDELTA of
 * blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_BYTEDELTA_BUGGY 34
#define FILTER_BYTEDELTA 35

/* One block through bytedelta, modelled here: `ts` streams of n = len / ts
 * bytes, each replaced by its byte differences (the first against 0).  The
 * buggy flavour restarts from 0 after the last whole 16-byte group of each
 * stream.  Trailing len % ts bytes pass through. */
static void model(bool buggy, bool forward, int ts, const uint8_t *in, uint8_t *out, int32_t len) {
  int32_t n = len / ts;
  int32_t restart = (buggy && n >= 16) ? n / 16 * 16 : -1;
  for (int k = 0; k < ts; k++) {
    uint8_t prev = 0;
    for (int32_t i = 0; i < n; i++) {
      if (i == restart) prev = 0;
      uint8_t v = in[k * n + i];
      if (forward) {
        out[k * n + i] = (uint8_t)(v - prev);
        prev = v;
      } else {
        prev = (uint8_t)(v + prev);
        out[k * n + i] = prev;
      }
    }
  }
  memcpy(out + n * ts, in + n * ts, (size_t)(len - n * ts));
}

static blosc2_schunk *new_schunk(int id, int ts, int meta, uint8_t codec, int32_t blocksize) {
  blosc2_cparams cp = plugin_cparams(ts, codec, 2);
  cp.blocksize = blocksize;
  cp.filters[4] = BLOSC_SHUFFLE;
  cp.filters[5] = (uint8_t)id;
  cp.filters_meta[5] = (uint8_t)meta;
  return plugin_schunk(&cp, false);
}

static void round_trips(void) {
  static const int tss[] = {1, 2, 3, 4, 8, 12, 16};
  static const int32_t sizes[] = {4000, 10007, 65536, 999};
  static const int32_t bsizes[] = {0, 1024, 0, 0};
  static const int kinds[] = {TC_FILL_SMOOTH_F64, TC_FILL_RAMP32, TC_FILL_LOWENTROPY};
  int cases = 0;
  for (int id = FILTER_BYTEDELTA_BUGGY; id <= FILTER_BYTEDELTA; id++) {
    for (int t = 0; t < 7; t++) {
      int ts = tss[t];
      for (int z = 0; z < 4; z++) {
        int32_t nbytes = sizes[z];
        /* The buggy flavour is only defined on whole items (the reference
         * leaves trailing bytes unwritten there). */
        if (id == FILTER_BYTEDELTA_BUGGY) nbytes = nbytes / ts * ts;
        int32_t bs = bsizes[z] / ts * ts;
        for (int meta_zero = 0; meta_zero < 2; meta_zero++) {
          uint8_t codec = (z % 2) ? BLOSC_ZSTD : BLOSC_LZ4;
          blosc2_schunk *sc = new_schunk(id, ts, meta_zero ? 0 : ts, codec, bs);
          uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
          for (int c = 0; c < 3; c++) {
            tc_fill(src, (size_t)nbytes, kinds[c], (uint64_t)(ts + c));
            CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), c + 1);
          }
          for (int c = 0; c < 3; c++) {
            tc_fill(src, (size_t)nbytes, kinds[c], (uint64_t)(ts + c));
            CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, back, nbytes), nbytes);
            CHECK_MSG(memcmp(back, src, (size_t)nbytes) == 0,
                      "filter %d ts %d nbytes %d meta %d chunk %d", id, ts, nbytes,
                      meta_zero ? 0 : ts, c);
            int cb;
            uint8_t *chunk = chunk_copy(sc, c, &cb);
            REQUIRE(cb > 32);
            if (!(chunk[2] & 0x02)) {
              CHECK_EQ_INT(chunk[16 + 5], id);
              CHECK_EQ_INT(chunk[24 + 5], meta_zero ? 0 : ts);
              cases++;
            }
            free(chunk);
          }
          blosc2_schunk_free(sc);
          free(src);
          free(back);
        }
      }
    }
  }
  CHECK(cases > 200);
}

/* The transform itself: chunks written with one flavour and decoded as the
 * other (the filter id patched in the header) give what the model predicts;
 * the plain decodings give the source. */
static void flavours(void) {
  const int ts = 4;
  const int32_t bsize = 400; /* streams of 100 bytes: the buggy restart is at 96 */
  const int32_t nbytes = 10 * bsize;
  uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
  uint8_t *tmp = tc_malloc((size_t)bsize), *expect = tc_malloc((size_t)nbytes);
  uint8_t *out = tc_malloc((size_t)nbytes + BLOSC2_MAX_OVERHEAD);
  for (int32_t i = 0; i < nbytes; i++) src[i] = (uint8_t)(i / 3 + (i % 100 >= 96 ? 40 : 0));
  for (int written = FILTER_BYTEDELTA_BUGGY; written <= FILTER_BYTEDELTA; written++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts;
    cp.compcode = BLOSC_LZ4;
    cp.blocksize = bsize;
    cp.filters[5] = (uint8_t)written;
    cp.filters_meta[5] = (uint8_t)ts;
    int cb = compress_with(&cp, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD);
    REQUIRE(cb > 32);
    REQUIRE((out[2] & 0x02) == 0);
    CHECK_EQ_INT(out[16 + 5], written);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    CHECK_EQ_INT(decompress_with(&dp, out, cb, back, nbytes), nbytes);
    CHECK_MEM(back, src, nbytes);
    /* Decoded as the other flavour. */
    int other = written == FILTER_BYTEDELTA ? FILTER_BYTEDELTA_BUGGY : FILTER_BYTEDELTA;
    out[16 + 5] = (uint8_t)other;
    for (int32_t b = 0; b < nbytes; b += bsize) {
      model(written == FILTER_BYTEDELTA_BUGGY, true, ts, src + b, tmp, bsize);
      model(other == FILTER_BYTEDELTA_BUGGY, false, ts, tmp, expect + b, bsize);
    }
    CHECK_EQ_INT(decompress_with(&dp, out, cb, back, nbytes), nbytes);
    CHECK_MEM(back, expect, nbytes);
    CHECK(memcmp(back, src, (size_t)nbytes) != 0);
  }
  free(src);
  free(back);
  free(tmp);
  free(expect);
  free(out);
}

/* Written by the reference c-blosc2 3.3.5: 160 bytes (see golden_source),
 * typesize 4, LZ4 at clevel 5, filters {0, 0, 0, 0, 0, 34}, filters_meta
 * {0, 0, 0, 0, 0, 4}, the default split mode, blocksize 0, one thread. */
static const uint8_t golden34[] = {
  0x05, 0x01, 0x35, 0x04, 0xa0, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00,
  0x5b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22, 0x01, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00,
  0x33, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x03, 0x01, 0x00, 0x0b, 0x13, 0x92,
  0x1f, 0x00, 0x13, 0x0b, 0x08, 0x00, 0x0f, 0x02, 0x00, 0x05, 0x13, 0x9d,
  0x19, 0x00, 0x13, 0x16, 0x08, 0x00, 0x0f, 0x02, 0x00, 0x05, 0x13, 0xa8,
  0x19, 0x00, 0x13, 0x21, 0x08, 0x00, 0x0f, 0x02, 0x00, 0x05, 0x80, 0xb3,
  0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03,
};

static void golden_source(uint8_t *src) {
  for (int i = 0; i < 160; i++)
    src[i] = (uint8_t)(3 * (i % 40) + 11 * (i / 40) + (i % 40 >= 32 ? 50 : 0));
}

static void golden(void) {
  uint8_t src[160], back[160], expect[160], tmp[160], out[160 + BLOSC2_MAX_OVERHEAD];
  int32_t len = (int32_t)sizeof golden34;
  golden_source(src);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  CHECK_EQ_INT(decompress_with(&dp, golden34, len, back, 160), 160);
  CHECK_MEM(back, src, 160);
  /* Its stored stream is the buggy transform: read as id 35 it differs. */
  uint8_t patched[sizeof golden34];
  memcpy(patched, golden34, sizeof golden34);
  patched[16 + 5] = FILTER_BYTEDELTA;
  model(true, true, 4, src, tmp, 160);
  model(false, false, 4, tmp, expect, 160);
  CHECK_EQ_INT(decompress_with(&dp, patched, len, back, 160), 160);
  CHECK_MEM(back, expect, 160);
  CHECK(memcmp(back, src, 160) != 0);
  /* Compressing the same source the same way writes the same bytes. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.clevel = 5;
  cp.nthreads = 1;
  cp.filters[5] = FILTER_BYTEDELTA_BUGGY;
  cp.filters_meta[5] = 4;
  int cb = compress_with(&cp, src, 160, out, (int32_t)sizeof out);
  CHECK_EQ_INT(cb, len);
  if (cb == len) CHECK_MEM(out, golden34, len);
}

static void refusals(void) {
  uint8_t src[4096], out[4096 + BLOSC2_MAX_OVERHEAD];
  tc_fill(src, sizeof src, TC_FILL_RAMP32, 3);
  for (int id = FILTER_BYTEDELTA_BUGGY; id <= FILTER_BYTEDELTA; id++) {
    /* meta 0 takes the typesize of the super-chunk: none here. */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.filters[4] = BLOSC_SHUFFLE;
    cp.filters[5] = (uint8_t)id;
    cp.filters_meta[5] = 0;
    CHECK_NEG(compress_with(&cp, src, (int32_t)sizeof src, out, (int32_t)sizeof out));
    /* A chunk naming meta 0 cannot be decoded without a super-chunk. */
    cp.filters_meta[5] = 4;
    int cb = compress_with(&cp, src, (int32_t)sizeof src, out, (int32_t)sizeof out);
    REQUIRE(cb > 32);
    REQUIRE((out[2] & 0x02) == 0);
    out[24 + 5] = 0;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    uint8_t back[4096];
    CHECK_NEG(decompress_with(&dp, out, cb, back, (int32_t)sizeof back));
  }
}

int main(void) {
  blosc2_init();
  check_filter_id_taken(FILTER_BYTEDELTA, "bytedelta");
  check_filter_id_taken(FILTER_BYTEDELTA_BUGGY, "bytedelta_buggy");
  round_trips();
  flavours();
  golden();
  refusals();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_bytedelta");
}
