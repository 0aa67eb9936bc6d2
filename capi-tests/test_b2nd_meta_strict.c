/* Strict validation of the "b2nd" metalayer (listed in
 * KNOWN_REFERENCE_FAILURES.txt: the reference only checks the structure in
 * b2nd_deserialize_meta and accepts some impossible arrays on load).
 *
 * b2nd_deserialize_meta must refuse a metalayer that parses but cannot
 * describe an array: negative shapes, chunk or block shapes, zero chunks in a
 * non-empty dimension, zero blocks in a non-zero chunk, chunk or block item
 * counts beyond int32, item counts or padded shapes beyond int64, and an ndim
 * that disagrees with the array headers.  b2nd_from_cframe and b2nd_open must
 * refuse frames carrying them.  Valid corner cases (empty dimensions, chunks
 * larger than the array, blocks larger than their chunk, which c-blosc2
 * creates and whose padded chunk is then one block) must still be accepted,
 * and those the reference loads must load here too. */
#include "b2nd_common.h"

/* A metalayer with dtype "|u1" (format 0): markers[k] >= 0 replaces the
   fixarray header of shape / chunkshape / blockshape; ndim_byte may differ
   from the number of entries. */
static int32_t craft(uint8_t *out, uint8_t ndim_byte, int nentries, const int64_t *shape,
                     const int32_t *cs, const int32_t *bs, const int *markers) {
  return craft_b2nd_meta(out, ndim_byte, nentries, shape, cs, bs, 0, "|u1", markers);
}

static int deserialize(const uint8_t *meta, int32_t len) {
  uint8_t *copy = tc_malloc((size_t)len);
  memcpy(copy, meta, (size_t)len);
  int8_t ndim;
  int64_t s[B2ND_MAX_DIM];
  int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
  char *dtype = NULL;
  int8_t fmt;
  int rc = b2nd_deserialize_meta(copy, len, &ndim, s, c, b, &dtype, &fmt);
  if (rc < 0) CHECK_MSG(dtype == NULL, "dtype allocated although the metalayer was refused");
  free(dtype);
  /* without the dtype outputs the answer must be the same */
  int rc2 = b2nd_deserialize_meta(copy, len, &ndim, s, c, b, NULL, NULL);
  CHECK_MSG((rc < 0) == (rc2 < 0), "with dtype %d, without %d", rc, rc2);
  free(copy);
  return rc;
}

/* 0: refused everywhere, else the number of entry points that accepted it
   (from_cframe copy / no copy, open). */
static int load_frame(const uint8_t *meta, int32_t len) {
  int64_t clen;
  uint8_t *frame = frame_with_meta(meta, len, 1, &clen);
  int rcs[3];
  int accepted = load_frame_everywhere(frame, clen, "test_b2nd_meta_strict.b2nd", rcs);
  free(frame);
  return accepted;
}

int main(void) {
  blosc2_init();
  struct {
    const char *label;
    int nd;
    int64_t shape[3];
    int32_t cs[3], bs[3];
  } bad[] = {
    {"negative shape", 2, {-1, 10}, {5, 5}, {5, 5}},
    {"most negative shape", 1, {INT64_MIN}, {5}, {5}},
    {"negative chunkshape", 2, {10, 10}, {5, -5}, {5, 5}},
    {"negative blockshape", 2, {10, 10}, {5, 5}, {5, -1}},
    {"zero blockshape in a chunk", 2, {10, 10}, {5, 5}, {5, 0}},
    {"zero chunkshape, non-empty", 2, {10, 10}, {5, 0}, {5, 0}},
    {"blockshape product overflows int32", 2, {65536, 65536}, {65536, 65536}, {65536, 65536}},
    {"chunkshape product overflows int32", 2, {65536, 65536}, {65536, 65536}, {1, 1}},
    {"chunkshape product 2^32", 3, {2048, 2048, 1024}, {2048, 2048, 1024}, {1, 1, 1}},
    {"shape product overflows int64", 2, {INT64_C(1) << 62, 4}, {1, 1}, {1, 1}},
    {"padded shape overflows int64", 1, {INT64_MAX}, {1000}, {10}},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    uint8_t buf[256];
    int32_t len = craft(buf, (uint8_t)bad[k].nd, bad[k].nd, bad[k].shape, bad[k].cs, bad[k].bs,
                        NULL);
    int rc = deserialize(buf, len);
    CHECK_MSG(rc < 0, "%s: b2nd_deserialize_meta returned %d", bad[k].label, rc);
  }

  /* ndim that disagrees with the array headers */
  {
    int64_t shape[3] = {10, 20, 30};
    int32_t cs[3] = {5, 10, 15}, bs[3] = {5, 5, 5};
    uint8_t buf[256];
    int32_t len = craft(buf, 1, 2, shape, cs, bs, NULL); /* says 1, holds 2 */
    CHECK_MSG(deserialize(buf, len) < 0, "ndim 1 with 2-entry arrays");
    int m1[3] = {0x93, -1, -1};
    len = craft(buf, 2, 2, shape, cs, bs, m1); /* shape header says 3 */
    CHECK_MSG(deserialize(buf, len) < 0, "shape array header 0x93 for ndim 2");
    CHECK_MSG(load_frame(buf, len) == 0, "frame with shape array header 0x93 for ndim 2");
    int m2[3] = {-1, -1, 0x91};
    len = craft(buf, 2, 2, shape, cs, bs, m2);
    CHECK_MSG(deserialize(buf, len) < 0, "blockshape array header 0x91 for ndim 2");
    CHECK_MSG(load_frame(buf, len) == 0, "frame with blockshape array header 0x91 for ndim 2");
    int m3[3] = {0xdc, -1, -1}; /* not a fixarray at all */
    len = craft(buf, 2, 2, shape, cs, bs, m3);
    CHECK_MSG(deserialize(buf, len) < 0, "shape header 0xdc");
  }

  /* valid corner cases keep working */
  struct {
    const char *label;
    int nd;
    int64_t shape[3];
    int32_t cs[3], bs[3];
    bool loaded_by_reference; /* then every entry point must load it */
  } good[] = {
    {"empty placeholder", 2, {0, 0}, {0, 0}, {0, 0}, false},
    {"empty dimension", 3, {5, 0, 3}, {2, 2, 2}, {1, 1, 1}, false},
    {"chunk larger than the array", 1, {10}, {50}, {16}, false},
    {"block equals chunk", 2, {7, 9}, {7, 9}, {7, 9}, false},
    {"blockshape larger than chunkshape", 2, {10, 10}, {5, 5}, {5, 6}, true},
    {"blockshape much larger than chunkshape", 1, {100}, {4}, {4096}, true},
    {"large but valid", 2, {INT64_C(1) << 40, 1000}, {1 << 20, 1000}, {1 << 10, 100}, false},
    {"ndim 0", 0, {0}, {0}, {0}, false},
  };
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
    uint8_t buf[256];
    int32_t len = craft(buf, (uint8_t)good[k].nd, good[k].nd, good[k].shape, good[k].cs,
                        good[k].bs, NULL);
    int rc = deserialize(buf, len);
    CHECK_MSG(rc == len, "%s: b2nd_deserialize_meta returned %d", good[k].label, rc);
    if (good[k].loaded_by_reference) {
      int acc = load_frame(buf, len);
      CHECK_MSG(acc == 3, "%s: loaded by %d entry points of 3", good[k].label, acc);
    }
  }
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_meta_strict");
}
