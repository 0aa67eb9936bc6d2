/* Contexts a client replaces in a super-chunk (cause C2 of the python-blosc2
 * issue): python-blosc2 frees schunk->cctx / schunk->dctx and stores new ones
 * (or NULL).  blosc2_schunk_free frees the contexts the struct holds at that
 * moment and nothing else; the super-chunk keeps working with the new ones.
 * Run under valgrind by the C suite, which reports any double free. */
#include "test_common.h"

#define NITEMS 2000

static void exercise(bool contiguous, int replace_dctx_with_null) {
  int32_t data[NITEMS], back[NITEMS];
  for (int i = 0; i < NITEMS; i++) data[i] = i * 3;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);

  for (int round = 0; round < 3; round++) {
    blosc2_free_ctx(sc->cctx);
    sc->cctx = blosc2_create_cctx(*sc->storage->cparams);
    REQUIRE(sc->cctx != NULL);
    blosc2_free_ctx(sc->dctx);
    sc->dctx = blosc2_create_dctx(*sc->storage->dparams);
    REQUIRE(sc->dctx != NULL);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), round + 2);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, round + 1, back, sizeof(back)),
                 sizeof(data));
    CHECK_MEM(back, data, sizeof(data));
  }
  if (replace_dctx_with_null) {
    /* python-blosc2's __dealloc__ frees the dctx itself and leaves NULL. */
    blosc2_free_ctx(sc->dctx);
    sc->dctx = NULL;
  }
  CHECK_EQ_INT(blosc2_schunk_free(sc), 0);
}

int main(void) {
  blosc2_init();
  exercise(false, 0);
  exercise(true, 0);
  exercise(false, 1);
  exercise(true, 1);
  blosc2_destroy();
  TEST_MAIN_END("test_schunk_client_contexts");
}
