/* NDLZ (codec 32) streams too short for the block they claim.
 *
 * A VL-block chunk of one NDLZ block (cells of 8 x 8, four "same byte"
 * tokens) is built by hand twice: once claiming a 16 x 16 block, which the
 * four tokens cover (it must decode to 256 bytes of 7, so the chunk itself
 * is well formed), and once claiming 46,340 x 46,340 bytes (2 GiB less a
 * little) with the same 57 bytes.  The second must be refused by both VL
 * decompression calls without the process's peak memory growing: every
 * NDLZ token takes at least 2 bytes, so the decoder can tell the stream is
 * short before it writes anything.  (The reference clears the whole
 * claimed block before reading a token: see KNOWN_REFERENCE_FAILURES.txt.) */
#include <sys/resource.h>

#include "test_common.h"

#define NTOKENS 4
#define CHUNK_LEN (32 + 4 + 4 + 9 + 2 * NTOKENS)

static long peak_kib(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss : -1;
}

static void put_i32(uint8_t *p, int32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

/* The chunk: extended header (VL blocks, user codec 32 with meta 8), one
   block start, then the block: its size, the NDLZ preamble (ndim 2 and the
   two sides) and NTOKENS tokens "cell of byte 7". */
static void build(uint8_t *c, int32_t side) {
  int32_t nbytes = side * side;
  memset(c, 0, CHUNK_LEN);
  c[0] = 6;                     /* format version */
  c[1] = 1;                     /* codec format version */
  c[2] = (6 << 5) | 0x1 | 0x4;  /* user codec; both shuffle bits: extended */
  c[3] = 1;                     /* typesize */
  put_i32(c + 4, nbytes);
  put_i32(c + 8, 1);            /* VL chunks: the number of blocks */
  put_i32(c + 12, CHUNK_LEN);
  c[22] = 32;                   /* NDLZ */
  c[23] = 8;                    /* cells of 8 x 8 */
  c[30] = 0x1;                  /* VL blocks */
  put_i32(c + 32, 36);          /* the block's start */
  put_i32(c + 36, nbytes);
  c[40] = 2;
  put_i32(c + 41, side);
  put_i32(c + 45, side);
  for (int t = 0; t < NTOKENS; t++) {
    c[49 + 2 * t] = 64;
    c[50 + 2 * t] = 7;
  }
}

int main(void) {
  blosc2_init();
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(dctx != NULL);
  uint8_t chunk[CHUNK_LEN];

  build(chunk, 16);
  uint8_t *blk = NULL;
  int32_t bsz = 0;
  CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, CHUNK_LEN, 0, &blk, &bsz), 256);
  REQUIRE(blk != NULL);
  CHECK_EQ_INT(bsz, 256);
  int sevens = 0;
  for (int i = 0; i < 256; i++) sevens += blk[i] == 7;
  CHECK_EQ_INT(sevens, 256);
  free(blk);

  /* Valgrind's calloc writes its zeros, so the claimed block is touched
     there whatever the decoder does: the check runs without it. */
  if (getenv("BLOSC2_UNDER_VALGRIND") == NULL) {
    build(chunk, 46340);
    long before = peak_kib();
    blk = NULL;
    CHECK(blosc2_vldecompress_block_ctx(dctx, chunk, CHUNK_LEN, 0, &blk, &bsz) < 0);
    void *dests[1] = {0};
    int32_t dsizes[1] = {0};
    CHECK(blosc2_vldecompress_ctx(dctx, chunk, CHUNK_LEN, dests, dsizes, 1) < 0);
    long after = peak_kib();
    CHECK_MSG(after - before < 256 * 1024, "peak memory grew by %ld KiB", after - before);
  }
  blosc2_free_ctx(dctx);
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_ndlz_short_stream");
}
