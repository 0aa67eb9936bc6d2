/* A 2-D array of doubles: build it from a C buffer, read a slice back and
 * save it to a file.  Build: cc b2nd_example.c -lblosc2 */
#include <stdio.h>
#include "b2nd.h"

int main(void) {
  blosc2_init();
  double data[100 * 80];
  for (int i = 0; i < 100 * 80; i++) data[i] = i * 0.5;

  /* 100 x 80 doubles, compressed in 25 x 20 chunks made of 5 x 20 blocks */
  int64_t shape[2] = {100, 80};
  int32_t chunkshape[2] = {25, 20};
  int32_t blockshape[2] = {5, 20};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(double);
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape,
                                        "<f8", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *array;
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &array, data, sizeof data) < 0) return 1;

  /* rows 10..12, columns 30..33 */
  int64_t start[2] = {10, 30}, stop[2] = {13, 34}, slice_shape[2] = {3, 4};
  double slice[3 * 4];
  if (b2nd_get_slice_cbuffer(array, start, stop, slice, slice_shape, sizeof slice) < 0) return 1;
  printf("slice[0][0] = %g (row 10, column 30), compression ratio %.1fx\n", slice[0],
         (double)array->sc->nbytes / (double)array->sc->cbytes);

  /* a single-file frame that b2nd_open() (or python-blosc2) can read */
  blosc2_remove_urlpath("example.b2nd");
  if (b2nd_save(array, "example.b2nd") < 0) return 1;

  b2nd_free(array);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  return slice[0] == 415.0 ? 0 : 1;
}
