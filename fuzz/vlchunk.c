/* libFuzzer target: the input is one variable-length-block chunk (each
   block its own size, as blosc2_vlcompress_ctx writes them).  Counts its
   blocks, decompresses each on its own and all of them at once. */
#include <stdint.h>
#include <stdlib.h>
#include <blosc2.h>
#include "fuzz_init.h"

#define MAX_BLOCKS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > INT32_MAX) return 0;
  int32_t nblocks = 0;
  if (blosc2_vlchunk_get_nblocks(data, (int32_t)size, &nblocks) < 0) return 0;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  if (dctx == NULL) return 0;
  /* Blocks from the start and the end, and one past the end (must fail). */
  int32_t picks[4] = {0, 1, nblocks - 1, nblocks};
  for (int i = 0; i < 4; i++) {
    uint8_t *block = NULL;
    int32_t bsize = 0;
    if (picks[i] < 0) continue;
    if (blosc2_vldecompress_block_ctx(dctx, data, (int32_t)size, picks[i], &block, &bsize) >= 0)
      free(block);
  }
  if (nblocks > 0 && nblocks <= MAX_BLOCKS) {
    void *dests[MAX_BLOCKS] = {0};
    int32_t dsizes[MAX_BLOCKS] = {0};
    int n = blosc2_vldecompress_ctx(dctx, data, (int32_t)size, dests, dsizes, nblocks);
    for (int i = 0; i < n && i < MAX_BLOCKS; i++) free(dests[i]);
    /* Room for one block fewer than there are: must fail, not overrun. */
    n = blosc2_vldecompress_ctx(dctx, data, (int32_t)size, dests, dsizes, nblocks - 1);
    for (int i = 0; i < n && i < nblocks - 1; i++) free(dests[i]);
  }
  blosc2_free_ctx(dctx);
  return 0;
}
