/* The int_trunc filter plugin (BLOSC_FILTER_INT_TRUNC, id 36), registered at
 * start: lossy, zeroes low bits of 1-, 2-, 4- or 8-byte integers.  The meta
 * is a signed precision: >= 0 keeps that many high bits, < 0 zeroes that
 * many low bits.  Round trips through super-chunks give exactly the truncated
 * items (within 2^zeroed of the source); other typesizes and precisions that
 * would zero everything are refused. */
#include "plugin_common.h"

/* BLOSC_FILTER_INT_TRUNC of blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_INT_TRUNC 36

/* Bits int_trunc zeroes for a precision on items of `ts` bytes. */
static int zeroed_bits(int ts, int prec) { return prec >= 0 ? ts * 8 - prec : -prec; }

static uint64_t load(const uint8_t *p, int ts) {
  uint64_t v = 0;
  for (int k = 0; k < ts; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

static void store(uint8_t *p, int ts, uint64_t v) {
  for (int k = 0; k < ts; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* The truncated copy of `src` (`n` a whole number of items). */
static void truncated(const uint8_t *src, uint8_t *dst, int32_t n, int ts, int prec) {
  int z = zeroed_bits(ts, prec);
  uint64_t mask = ~((UINT64_C(1) << z) - 1);
  for (int32_t i = 0; i + ts <= n; i += ts) store(dst + i, ts, load(src + i, ts) & mask);
}

static blosc2_schunk *new_schunk(int ts, int prec, uint8_t codec, bool shuffle) {
  blosc2_cparams cp = plugin_cparams(ts, codec, 2);
  cp.filters[4] = FILTER_INT_TRUNC;
  cp.filters_meta[4] = (uint8_t)(int8_t)prec;
  if (shuffle) cp.filters[5] = BLOSC_SHUFFLE;
  return plugin_schunk(&cp, true);
}

static void round_trips(void) {
  static const int tss[] = {1, 2, 4, 8};
  /* Whole items only: bytes past the last whole item are the subject of
   * test_plugins_int_trunc_leftover (a reference bug). */
  static const int32_t sizes[] = {4096, 10000, 64};
  int cases = 0;
  for (int t = 0; t < 4; t++) {
    int ts = tss[t], width = ts * 8;
    const int precs[] = {1, 3, width - 1, width, -1, -3, -(width - 1)};
    for (int p = 0; p < 7; p++) {
      int prec = precs[p];
      for (int z = 0; z < 3; z++) {
        int32_t n = sizes[z];
        uint8_t *src = tc_malloc((size_t)n), *back = tc_malloc((size_t)n), *want = tc_malloc((size_t)n);
        blosc2_schunk *sc = new_schunk(ts, prec, (p % 2) ? BLOSC_ZSTD : BLOSC_LZ4, z != 1);
        const int nc = 2;
        int kinds[2] = {TC_FILL_SMOOTH_F64, TC_FILL_RANDOM};
        for (int c = 0; c < nc; c++) {
          tc_fill(src, (size_t)n, kinds[c], (uint64_t)(ts * 100 + p));
          CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, n), c + 1);
        }
        for (int c = 0; c < nc; c++) {
          tc_fill(src, (size_t)n, kinds[c], (uint64_t)(ts * 100 + p));
          CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, back, n), n);
          int cb;
          uint8_t *chunk = chunk_copy(sc, c, &cb);
          REQUIRE(cb >= 32);
          /* Stored as is (the filters did not run), or a special chunk (the
           * truncated items are all equal: there are no filter bytes). */
          bool memcpyed = (chunk[2] & 0x02) != 0;
          bool special = cb == 32;
          if (!memcpyed && !special) {
            CHECK_EQ_INT(chunk[16 + 4], FILTER_INT_TRUNC);
            CHECK_EQ_INT((int8_t)chunk[24 + 4], prec);
            cases++;
          }
          free(chunk);
          if (memcpyed) {
            CHECK_MEM(back, src, n);
            continue;
          }
          truncated(src, want, n, ts, prec);
          CHECK_MSG(memcmp(back, want, (size_t)n) == 0, "ts %d prec %d nbytes %d chunk %d", ts,
                    prec, n, c);
          /* The lossy bound: every item within 2^zeroed below the source. */
          int zb = zeroed_bits(ts, prec);
          int off = 0;
          for (int32_t i = 0; i + ts <= n; i += ts) {
            uint64_t a = load(src + i, ts), b = load(back + i, ts);
            if (b > a || a - b >= (UINT64_C(1) << zb)) off++;
          }
          CHECK_EQ_INT(off, 0);
        }
        blosc2_schunk_free(sc);
        free(src);
        free(back);
        free(want);
      }
    }
  }
  CHECK(cases > 90);
}

static void refusals(void) {
  static const int bad[][2] = {{3, 2}, {4, 0}, {4, -32}, {1, 9}, {2, -16}, {16, 4}, {8, -64}};
  uint8_t src[4096];
  tc_fill(src, sizeof src, TC_FILL_RAMP32, 7);
  for (int i = 0; i < 7; i++) {
    blosc2_schunk *sc = new_schunk(bad[i][0], bad[i][1], BLOSC_LZ4, true);
    CHECK_MSG(blosc2_schunk_append_buffer(sc, src, (int32_t)sizeof src) < 0, "ts %d prec %d",
              bad[i][0], bad[i][1]);
    blosc2_schunk_free(sc);
  }
}

int main(void) {
  blosc2_init();
  check_filter_id_taken(FILTER_INT_TRUNC, "int_trunc");
  round_trips();
  refusals();
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_int_trunc");
}
