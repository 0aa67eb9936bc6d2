/* libFuzzer target: the input is one Blosc chunk.  Validates it, reads its
   sizes, and (when it claims at most 1 MiB) decompresses it with the
   context and Blosc1 calls and reads items back with getitem.  The cap
   keeps the executions fast: every decoding path (block counts, split
   streams, special values, memcpy) is reachable below it, and a larger
   claim is still validated and its sizes read. */
#include <stdint.h>
#include <stdlib.h>
#include <blosc2.h>
#include "fuzz_init.h"

#define MAX_NBYTES (1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t vnbytes = 0;
  int32_t nbytes = 0, cbytes = 0, blocksize = 0;
  if (size > INT32_MAX) return 0;
  (void)blosc1_cbuffer_validate(data, size, &vnbytes);
  if (size < BLOSC_MIN_HEADER_LENGTH) return 0;
  if (blosc2_cbuffer_sizes(data, &nbytes, &cbytes, &blocksize) < 0) return 0;
  if (nbytes < 0 || nbytes > MAX_NBYTES) return 0;
  uint8_t *dest = malloc((size_t)nbytes + 1);
  if (dest == NULL) return 0;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  if (dctx != NULL) {
    (void)blosc2_decompress_ctx(dctx, data, (int32_t)size, dest, nbytes);
    /* A destination one byte short must fail cleanly, never overrun. */
    if (nbytes > 0) (void)blosc2_decompress_ctx(dctx, data, (int32_t)size, dest, nbytes - 1);
    size_t typesize = 0;
    int flags = 0;
    blosc1_cbuffer_metainfo(data, &typesize, &flags);
    if (typesize > 0 && nbytes > 0) {
      int nitems = (int)((size_t)nbytes / typesize);
      /* A few items from the start, the middle and the end. */
      int starts[3] = {0, nitems / 2, nitems > 2 ? nitems - 2 : 0};
      for (int i = 0; i < 3; i++) {
        int n = nitems - starts[i] < 3 ? nitems - starts[i] : 3;
        (void)blosc2_getitem_ctx(dctx, data, (int32_t)size, starts[i], n, dest, nbytes);
      }
    }
    blosc2_free_ctx(dctx);
  }
  /* blosc1_decompress has no source size: it trusts the header's cbytes
     (as the reference does), so it may only see inputs that hold them. */
  if (cbytes >= BLOSC_MIN_HEADER_LENGTH && (size_t)cbytes <= size)
    (void)blosc1_decompress(data, dest, (size_t)nbytes);
  free(dest);
  return 0;
}
