/* Variable-length block chunks: blosc2_vlcompress_ctx, blosc2_vldecompress_ctx,
 * blosc2_vlchunk_get_nblocks, blosc2_vldecompress_block_ctx.
 * Last, a small chunk whose first block claims nearly 2 GiB: both
 * decompression calls refuse it, and the process's peak memory stays small
 * (the claimed buffer may be reserved, but not filled before decoding). */
#include <sys/resource.h>

#include "test_common.h"

#define NB 7

static long peak_kib(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss : -1;
}

/* Two small zstd blocks whose first claims 0x7FFF0000 - 500 bytes. */
static void check_huge_claim(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.typesize = 1;
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(dctx != NULL);
  uint8_t chunk[4096];
  int csize = tc_vl_chunk_claiming(cp, 0x7FFF0000 - 500, chunk, sizeof chunk);
  long before = peak_kib();
  uint8_t *blk = NULL;
  int32_t bsz = 0;
  CHECK(blosc2_vldecompress_block_ctx(dctx, chunk, csize, 0, &blk, &bsz) < 0);
  void *dests[2] = {0};
  int32_t dsizes[2] = {0};
  CHECK(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, 2) < 0);
  long after = peak_kib();
  CHECK_MSG(after - before < 256 * 1024, "peak memory grew by %ld KiB", after - before);
  blosc2_free_ctx(dctx);
}

int main(void) {
  blosc2_init();
  static const int32_t sizes[NB] = {1, 100, 4096, 33333, 65536, 7, 200000};
  uint8_t *blocks[NB];
  const void *srcs[NB];
  int32_t total = 0;
  for (int i = 0; i < NB; i++) {
    blocks[i] = tc_malloc(sizes[i]);
    tc_fill(blocks[i], sizes[i], i % 2 ? TC_FILL_TEXT : TC_FILL_SMOOTH_F64, (uint64_t)i);
    srcs[i] = blocks[i];
    total += sizes[i];
  }
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZSTD, BLOSC_ZLIB};
  for (int c = 0; c < 4; c++) {
    for (int nt = 1; nt <= 2; nt++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)codecs[c];
      cp.typesize = 1;
      cp.nthreads = (int16_t)nt;
      blosc2_context *cctx = blosc2_create_cctx(cp);
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = (int16_t)nt;
      blosc2_context *dctx = blosc2_create_dctx(dp);
      REQUIRE(cctx && dctx);
      int32_t destsize = total + BLOSC2_MAX_OVERHEAD + 16 * NB + 1024;
      uint8_t *chunk = tc_malloc(destsize);
      int csize = blosc2_vlcompress_ctx(cctx, srcs, sizes, NB, chunk, destsize);
      CHECK_MSG(csize > BLOSC_EXTENDED_HEADER_LENGTH, "codec %d: csize %d", codecs[c], csize);
      if (csize > 0) {
        CHECK(chunk[BLOSC2_CHUNK_BLOSC2_FLAGS2] & BLOSC2_VL_BLOCKS);
        CHECK_EQ_INT(chunk[BLOSC2_CHUNK_VERSION], BLOSC2_VERSION_FORMAT_VL_BLOCKS);
        int32_t nbytes = 0, cbytes = 0;
        CHECK(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, NULL) >= 0);
        CHECK_EQ_INT(nbytes, total);
        CHECK_EQ_INT(cbytes, csize);
        int32_t nblocks = -1;
        CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(chunk, csize, &nblocks), 0);
        CHECK_EQ_INT(nblocks, NB);

        void *dests[NB + 2] = {0};
        int32_t dsizes[NB + 2] = {0};
        CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, NB + 2), NB);
        for (int i = 0; i < NB; i++) {
          CHECK_EQ_INT(dsizes[i], sizes[i]);
          CHECK_MSG(dests[i] != NULL && memcmp(dests[i], blocks[i], sizes[i]) == 0,
                    "codec %d block %d", codecs[c], i);
          free(dests[i]);
        }
        /* not enough output slots */
        CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, NB - 1),
                     BLOSC2_ERROR_INVALID_PARAM);

        for (int i = NB - 1; i >= 0; i--) {
          uint8_t *blk = NULL;
          int32_t bsz = -1;
          CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, i, &blk, &bsz), sizes[i]);
          CHECK_EQ_INT(bsz, sizes[i]);
          CHECK(blk != NULL && memcmp(blk, blocks[i], sizes[i]) == 0);
          free(blk);
        }
        uint8_t *blk = NULL;
        int32_t bsz = 0;
        CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, NB, &blk, &bsz),
                     BLOSC2_ERROR_INVALID_PARAM);
        CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, -1, &blk, &bsz),
                     BLOSC2_ERROR_INVALID_PARAM);

        /* the whole chunk through the regular API is the concatenation */
        uint8_t *all = tc_malloc(total);
        int rc = blosc2_decompress_ctx(dctx, chunk, csize, all, total);
        if (rc >= 0) {
          CHECK_EQ_INT(rc, total);
          int32_t off = 0;
          for (int i = 0; i < NB; i++) {
            CHECK(memcmp(all + off, blocks[i], sizes[i]) == 0);
            off += sizes[i];
          }
        }
        free(all);
        /* a truncated VL chunk is rejected */
        CHECK(blosc2_vldecompress_ctx(dctx, chunk, csize / 2, dests, dsizes, NB) < 0);
        CHECK(blosc2_vlchunk_get_nblocks(chunk, 8, &nblocks) < 0);
      }
      /* invalid inputs */
      CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, srcs, sizes, 0, chunk, destsize), BLOSC2_ERROR_INVALID_PARAM);
      int32_t badsizes[NB];
      memcpy(badsizes, sizes, sizeof(badsizes));
      badsizes[2] = 0;
      CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, srcs, badsizes, NB, chunk, destsize),
                   BLOSC2_ERROR_INVALID_PARAM);
      CHECK_EQ_INT(blosc2_vlcompress_ctx(dctx, srcs, sizes, NB, chunk, destsize),
                   BLOSC2_ERROR_INVALID_PARAM);
      free(chunk);
      blosc2_free_ctx(cctx);
      blosc2_free_ctx(dctx);
    }
  }
  /* A regular chunk is not a VL chunk. */
  {
    int32_t n = 10000;
    uint8_t *src = tc_malloc(n), *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
    tc_fill(src, n, TC_FILL_TEXT, 1);
    int csize = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
    CHECK(csize > 0);
    CHECK_EQ_INT(chunk[BLOSC2_CHUNK_BLOSC2_FLAGS2] & BLOSC2_VL_BLOCKS, 0);
    int32_t nblocks = 0;
    CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(chunk, csize, &nblocks), BLOSC2_ERROR_INVALID_PARAM);
    blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
    void *dests[4];
    int32_t dsizes[4];
    CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, 4), BLOSC2_ERROR_INVALID_PARAM);
    uint8_t *blk = NULL;
    int32_t bsz;
    CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, 0, &blk, &bsz), BLOSC2_ERROR_INVALID_PARAM);
    blosc2_free_ctx(dctx);
    free(src); free(chunk);
  }
  for (int i = 0; i < NB; i++) free(blocks[i]);
  /* Valgrind's calloc writes its zeros, so the claim is filled there (8 GB
     of memory and half a minute): the check is about the library's
     allocations, and runs without it. */
  if (getenv("BLOSC2_UNDER_VALGRIND") == NULL) check_huge_claim();
  blosc2_destroy();
  TEST_MAIN_END("test_vlblocks");
}
