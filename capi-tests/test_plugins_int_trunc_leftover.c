/* int_trunc (BLOSC_FILTER_INT_TRUNC, id 36) on buffers that end with a
 * partial item: the bytes past the last whole item are no item to truncate
 * and must come back as they were, as every other filter treats them.  The
 * reference c-blosc2 3.3.5 leaves them unwritten when compressing (they come
 * back as whatever its scratch buffer held, typically 0): listed in
 * KNOWN_REFERENCE_FAILURES.txt. */
#include "plugin_common.h"

/* BLOSC_FILTER_INT_TRUNC of blosc2/filters-registry.h (only blosc2.h is used). */
#define FILTER_INT_TRUNC 36

static void one(int ts, int prec, int32_t nbytes, int32_t blocksize, int shuffle) {
  uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
  uint8_t *out = tc_malloc((size_t)nbytes + BLOSC2_MAX_OVERHEAD);
  tc_fill(src, (size_t)nbytes, TC_FILL_RANDOM, (uint64_t)(ts + nbytes));
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  cp.compcode = BLOSC_LZ4;
  cp.blocksize = blocksize;
  cp.nthreads = 1;
  cp.filters[4] = FILTER_INT_TRUNC;
  cp.filters_meta[4] = (uint8_t)(int8_t)prec;
  cp.filters[5] = shuffle ? BLOSC_SHUFFLE : BLOSC_NOFILTER;
  int cb = compress_with(&cp, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(cb > 0);
  /* Stored as is (nothing truncated) would prove nothing. */
  CHECK(cb > 0 && (out[2] & 0x02) == 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  memset(back, 0xa5, (size_t)nbytes);
  CHECK_EQ_INT(decompress_with(&dp, out, cb, back, nbytes), nbytes);
  int32_t whole = nbytes / ts * ts;
  int zeroed = prec >= 0 ? ts * 8 - prec : -prec;
  int bad_items = 0;
  for (int32_t i = 0; i < whole; i += ts) {
    for (int k = 0; k < ts; k++) {
      int low = zeroed - 8 * k; /* bits of byte k that are zeroed */
      uint8_t keep = low >= 8 ? 0 : low <= 0 ? 0xff : (uint8_t)(0xff << low);
      if (back[i + k] != (src[i + k] & keep)) bad_items++;
    }
  }
  CHECK_EQ_INT(bad_items, 0);
  CHECK_MSG(memcmp(back + whole, src + whole, (size_t)(nbytes - whole)) == 0,
            "ts %d prec %d nbytes %d blocksize %d shuffle %d: trailing bytes changed", ts, prec,
            nbytes, blocksize, shuffle);
  free(src);
  free(back);
  free(out);
}

int main(void) {
  blosc2_init();
  /* The partial item inside the only block, and as a leftover block. */
  one(8, 20, 8 * 500 + 5, 0, 0);
  one(4, 5, 4 * 1000 + 3, 0, 1);
  one(8, 1, 10001, 10000, 0);
  one(2, 9, 4097, 2048, 1);
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_int_trunc_leftover");
}
