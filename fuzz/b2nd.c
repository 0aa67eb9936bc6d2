/* libFuzzer target: the input is a b2nd array as a contiguous frame, and
   also a serialized "b2nd" metalayer.  Loads the array (copying), copies it
   out in C order when it is small, and parses the input as the metalayer. */
#include <stdint.h>
#include <stdlib.h>
#include <b2nd.h>
#include "fuzz_init.h"

#define MAX_NBYTES (16 * 1024 * 1024)
#define MAX_CHUNKS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > INT32_MAX) return 0;
  b2nd_array_t *arr = NULL;
  if (b2nd_from_cframe((uint8_t *)data, (int64_t)size, true, &arr) == 0 && arr != NULL) {
    int64_t typesize = arr->sc != NULL ? arr->sc->typesize : 0;
    int64_t nitems = arr->nitems, ext = arr->extnitems, cn = arr->chunknitems;
    if (typesize > 0 && nitems >= 0 && ext >= nitems && cn > 0 &&
        nitems <= MAX_NBYTES / typesize && ext <= 4 * (int64_t)MAX_NBYTES / typesize &&
        ext / cn <= MAX_CHUNKS) {
      int64_t bufsize = nitems * typesize;
      uint8_t *buf = malloc((size_t)bufsize + 1);
      if (buf != NULL) {
        (void)b2nd_to_cbuffer(arr, buf, bufsize);
        free(buf);
      }
    }
    b2nd_free(arr);
  }
  int8_t ndim = 0, dtype_format = 0;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype = NULL;
  if (b2nd_deserialize_meta(data, (int32_t)size, &ndim, shape, chunkshape, blockshape, &dtype,
                            &dtype_format) >= 0)
    free(dtype);
  return 0;
}
