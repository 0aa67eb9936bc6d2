/* cbytes of a super-chunk held in memory (no frame) when special-value chunks
 * are replaced or deleted (cause C7 of the python-blosc2 issue): as in the
 * reference, the 32 bytes of a replaced or deleted special chunk stay counted
 * (python-blosc2 compares cbytes after slice writes into b2nd arrays). */
#include "test_common.h"
#include "b2nd.h"

static int32_t chunk_cbytes(blosc2_schunk *sc, int64_t n) {
  uint8_t *c;
  bool nf;
  int cb = blosc2_schunk_get_chunk(sc, n, &c, &nf);
  if (cb > 0 && nf) free(c);
  return cb;
}

int main(void) {
  blosc2_init();
  int64_t data[500];
  for (int i = 0; i < 500; i++) data[i] = i;

  /* Super-chunk level: three zero chunks, the middle one replaced, the last deleted. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  for (int i = 0; i < 3; i++) {
    uint8_t *z = malloc(BLOSC_EXTENDED_HEADER_LENGTH);
    REQUIRE(z != NULL);
    CHECK_EQ_INT(blosc2_chunk_zeros(cp, sizeof(data), z, BLOSC_EXTENDED_HEADER_LENGTH),
                 BLOSC_EXTENDED_HEADER_LENGTH);
    CHECK_EQ_INT(blosc2_schunk_append_chunk(sc, z, false), i + 1);
  }
  CHECK_EQ_INT(sc->cbytes, 3 * 32);
  uint8_t real[sizeof(data) + BLOSC2_MAX_OVERHEAD];
  int cb = blosc2_compress_ctx(sc->cctx, data, sizeof(data), real, sizeof(real));
  REQUIRE(cb > 32);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 1, real, true), 3);
  CHECK_EQ_INT(chunk_cbytes(sc, 1), cb);
  CHECK_EQ_INT(sc->cbytes, 3 * 32 + cb);
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 2), 2);
  CHECK_EQ_INT(sc->cbytes, 3 * 32 + cb);
  /* A real chunk is taken off whole. */
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 1), 1);
  CHECK_EQ_INT(sc->cbytes, 3 * 32);
  CHECK_EQ_INT(sc->nbytes, sizeof(data));
  blosc2_schunk_free(sc);

  /* b2nd: an in-memory array of zeros, one chunk overwritten by a slice. */
  blosc2_cparams bcp = BLOSC2_CPARAMS_DEFAULTS;
  bcp.typesize = 8;
  blosc2_storage bst = {.contiguous = false, .cparams = &bcp};
  int64_t shape[1] = {20};
  int32_t chunkshape[1] = {10}, blockshape[1] = {5};
  b2nd_context_t *ctx = b2nd_create_ctx(&bst, 1, shape, chunkshape, blockshape, NULL, 0,
                                        NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *arr;
  REQUIRE(b2nd_zeros(ctx, &arr) == 0);
  CHECK_EQ_INT(arr->sc->cbytes, 2 * 32);
  int64_t start[1] = {0}, stop[1] = {10}, bshape[1] = {10};
  CHECK_EQ_INT(b2nd_set_slice_cbuffer(data, bshape, 10 * 8, start, stop, arr), 0);
  int32_t new_cb = chunk_cbytes(arr->sc, 0);
  CHECK(new_cb > 32);
  CHECK_EQ_INT(arr->sc->cbytes, 2 * 32 + new_cb);
  int64_t back[20];
  int64_t s0[1] = {0}, s1[1] = {20}, shp[1] = {20};
  CHECK_EQ_INT(b2nd_get_slice_cbuffer(arr, s0, s1, back, shp, sizeof(back)), 0);
  CHECK_MEM(back, data, 10 * 8);
  CHECK_EQ_INT(back[10], 0);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);

  blosc2_destroy();
  TEST_MAIN_END("test_schunk_cbytes_special");
}
