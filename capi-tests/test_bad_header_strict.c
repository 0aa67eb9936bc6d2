/* Header fields that are plainly invalid must be rejected:
 *  - a chunk format version of 0 (no Blosc release ever wrote it)
 *  - a negative cbytes or nbytes field
 * Newer versions stay readable when they announce no unknown feature in the
 * flags2 byte (that is how c-blosc2 marks incompatible changes), and are
 * refused when they do.
 * Known reference bug: c-blosc2 3.3.5 ignores these fields and decodes the
 * chunk anyway (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  int32_t n = 40000;
  uint8_t *src = tc_malloc(n), *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD),
          *buf = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *out = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 1);
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
  REQUIRE(csize > 0);
  static const uint8_t bad_versions[] = {0};
  for (int i = 0; i < 1; i++) {
    memcpy(buf, chunk, csize);
    buf[BLOSC2_CHUNK_VERSION] = bad_versions[i];
    int rc = blosc2_decompress(buf, csize, out, n);
    CHECK_MSG(rc < 0, "version %d accepted by decompress (%d)", bad_versions[i], rc);
    rc = blosc2_getitem(buf, csize, 0, 4, out, n);
    CHECK_MSG(rc < 0, "version %d accepted by getitem (%d)", bad_versions[i], rc);
  }
  /* a future version without unknown features decodes; with one it does not */
  memcpy(buf, chunk, csize);
  buf[BLOSC2_CHUNK_VERSION] = BLOSC2_VERSION_FORMAT + 1;
  CHECK_EQ_INT(blosc2_decompress(buf, csize, out, n), n);
  CHECK_MEM(out, src, n);
  buf[BLOSC2_CHUNK_BLOSC2_FLAGS2] |= 0x80;
  CHECK(blosc2_decompress(buf, csize, out, n) < 0);
  memcpy(buf, chunk, csize);
  int32_t neg = -5;
  memcpy(buf + BLOSC2_CHUNK_CBYTES, &neg, 4);
  int rc = blosc2_decompress(buf, csize, out, n);
  CHECK_MSG(rc < 0, "negative cbytes accepted (%d)", rc);
  memcpy(buf, chunk, csize);
  memcpy(buf + BLOSC2_CHUNK_NBYTES, &neg, 4);
  rc = blosc2_decompress(buf, csize, out, n);
  CHECK_MSG(rc < 0, "negative nbytes accepted (%d)", rc);
  free(src); free(chunk); free(buf); free(out);
  blosc2_destroy();
  TEST_MAIN_END("test_bad_header_strict");
}
