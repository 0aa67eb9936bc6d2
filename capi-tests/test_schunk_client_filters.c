/* Filters and codecs reached through replaced contexts (cause C3 of the
 * python-blosc2 issue): a postfilter the client writes into storage->dparams,
 * with a new schunk->dctx, runs in blosc2_schunk_decompress_chunk and
 * blosc2_schunk_get_slice_buffer; a new schunk->cctx with another codec and a
 * prefilter is what blosc2_schunk_append_buffer compresses with. */
#include "test_common.h"

#define NITEMS 1000

static int add_ten(blosc2_postfilter_params *p) {
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->size / 4; i++) out[i] = in[i] + 10;
  return 0;
}

static int times_two(blosc2_prefilter_params *p) {
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->output_size / 4; i++) out[i] = in[i] * 2;
  return 0;
}

int main(void) {
  blosc2_init();
  int32_t data[NITEMS], back[NITEMS];
  for (int i = 0; i < NITEMS; i++) data[i] = i;

  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.nthreads = 1;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1;
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    REQUIRE(sc != NULL);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);

    /* A postfilter through storage->dparams and a new dctx. */
    blosc2_postfilter_params *post = calloc(1, sizeof(*post));
    REQUIRE(post != NULL);
    sc->storage->dparams->postfilter = add_ten;
    sc->storage->dparams->postparams = post;
    blosc2_free_ctx(sc->dctx);
    sc->dctx = blosc2_create_dctx(*sc->storage->dparams);
    REQUIRE(sc->dctx != NULL);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, sizeof(back)), sizeof(data));
    CHECK_EQ_INT(back[0], 10);
    CHECK_EQ_INT(back[NITEMS - 1], NITEMS - 1 + 10);
    memset(back, 0, sizeof(back));
    CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, 0, NITEMS, back), 0);
    CHECK_EQ_INT(back[0], 10);
    CHECK_EQ_INT(back[NITEMS - 1], NITEMS - 1 + 10);

    /* Remove it again (as python-blosc2's remove_postfilter does). */
    sc->storage->dparams->postfilter = NULL;
    sc->storage->dparams->postparams = NULL;
    free(post);
    blosc2_free_ctx(sc->dctx);
    sc->dctx = blosc2_create_dctx(*sc->storage->dparams);
    REQUIRE(sc->dctx != NULL);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, sizeof(back)), sizeof(data));
    CHECK_MEM(back, data, sizeof(data));

    /* A new cctx with LZ4 and a prefilter. */
    blosc2_prefilter_params *pre = calloc(1, sizeof(*pre));
    REQUIRE(pre != NULL);
    sc->storage->cparams->compcode = BLOSC_LZ4;
    sc->storage->cparams->prefilter = times_two;
    sc->storage->cparams->preparams = pre;
    blosc2_free_ctx(sc->cctx);
    sc->cctx = blosc2_create_cctx(*sc->storage->cparams);
    REQUIRE(sc->cctx != NULL);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 2);
    uint8_t *chunk;
    bool needs_free;
    int cbytes = blosc2_schunk_get_chunk(sc, 1, &chunk, &needs_free);
    CHECK(cbytes > 0);
    if (cbytes > 0) {
      const char *lib = NULL;
      CHECK_EQ_INT(blosc2_cbuffer_complib(chunk) != NULL, 1);
      lib = blosc2_cbuffer_complib(chunk);
      CHECK_STR(lib, "LZ4");
      if (needs_free) free(chunk);
    }
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, back, sizeof(back)), sizeof(data));
    CHECK_EQ_INT(back[1], 2);
    CHECK_EQ_INT(back[NITEMS - 1], 2 * (NITEMS - 1));
    blosc2_schunk_free(sc);
    free(pre);
  }
  blosc2_destroy();
  TEST_MAIN_END("test_schunk_client_filters");
}
