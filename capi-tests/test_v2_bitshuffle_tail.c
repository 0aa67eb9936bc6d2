/* Chunks of format version 2 (written before c-blosc2 2.0) with bitshuffle:
 * a block of a multiple of 8 whole items is bit-unshuffled and the bytes
 * after its last whole item come out as stored, the same as version 3 and
 * later; a block of another item count is stored as is.
 * Known reference bug: c-blosc2 3.3.5 never writes those trailing bytes of a
 * version 2 block (they keep what the destination held), see
 * KNOWN_REFERENCE_FAILURES.txt.  Found by fuzz/diff_chunk. */
#include "test_common.h"

/* A one-block chunk, blosclz format, split off, bitshuffle in the flags,
 * its single stream stored raw (a stream of cbytes == block size). */
static int32_t make_chunk(uint8_t *chunk, uint8_t version, int32_t typesize,
                          const uint8_t *block, int32_t n) {
  int32_t cbytes = BLOSC_MIN_HEADER_LENGTH + 4 + 4 + n;
  memset(chunk, 0, (size_t)cbytes);
  chunk[BLOSC2_CHUNK_VERSION] = version;
  chunk[BLOSC2_CHUNK_VERSIONLZ] = 1;
  chunk[BLOSC2_CHUNK_FLAGS] = BLOSC_DOBITSHUFFLE | 0x10; /* 0x10: not split */
  chunk[BLOSC2_CHUNK_TYPESIZE] = (uint8_t)typesize;
  int32_t bstart = BLOSC_MIN_HEADER_LENGTH + 4;
  memcpy(chunk + BLOSC2_CHUNK_NBYTES, &n, 4);
  memcpy(chunk + BLOSC2_CHUNK_BLOCKSIZE, &n, 4);
  memcpy(chunk + BLOSC2_CHUNK_CBYTES, &cbytes, 4);
  memcpy(chunk + BLOSC_MIN_HEADER_LENGTH, &bstart, 4);
  memcpy(chunk + bstart, &n, 4);
  memcpy(chunk + bstart + 4, block, (size_t)n);
  return cbytes;
}

static void check(int32_t typesize, int32_t n) {
  uint8_t block[600], chunk[700], v2[600], v3[600];
  REQUIRE(n <= (int32_t)sizeof block);
  for (int32_t i = 0; i < n; i++) block[i] = (uint8_t)(0x40 + 7 * i);
  int32_t items = n / typesize;
  int32_t cbytes = make_chunk(chunk, 2, typesize, block, n);
  memset(v2, 0xA5, sizeof v2);
  CHECK_EQ_INT(blosc2_decompress(chunk, cbytes, v2, n), n);
  if (items % 8 == 0) {
    /* Version 3 decodes this block the same way: compare with it. */
    cbytes = make_chunk(chunk, 3, typesize, block, n);
    memset(v3, 0x5A, sizeof v3);
    CHECK_EQ_INT(blosc2_decompress(chunk, cbytes, v3, n), n);
    CHECK_MEM(v2, v3, (size_t)n);
    /* The bytes after the last whole item are the stored ones. */
    int32_t whole = items * typesize;
    CHECK_MEM(v2 + whole, block + whole, (size_t)(n - whole));
  } else {
    CHECK_MEM(v2, block, (size_t)n);
  }
}

int main(void) {
  blosc2_init();
  check(4, 34);  /* 8 items and 2 bytes */
  check(16, 518); /* 32 items and 6 bytes */
  check(8, 131); /* 16 items and 3 bytes */
  check(4, 36);  /* 9 items: stored */
  check(4, 32);  /* 8 items, no tail */
  blosc2_destroy();
  TEST_MAIN_END("test_v2_bitshuffle_tail");
}
