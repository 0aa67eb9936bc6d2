/* python-blosc2's use of a super-chunk's prefilter (cause C1 of the
 * python-blosc2 issue): the prefilter sees the super-chunk's current_nchunk
 * when the client compresses through schunk->cctx, and a prefilter the client
 * installs through storage->cparams with a new cctx runs on every append. */
#include "test_common.h"

#define NITEMS 1000

typedef struct {
  int calls;
  int64_t nchunks[16];
} seen_t;

static int record_nchunk(blosc2_prefilter_params *p) {
  seen_t *s = (seen_t *)p->user_data;
  if (p->nblock == 0 && s->calls < 16) s->nchunks[s->calls++] = p->nchunk;
  memcpy(p->output, p->input, (size_t)p->output_size);
  return 0;
}

int main(void) {
  blosc2_init();
  int32_t data[NITEMS];
  for (int i = 0; i < NITEMS; i++) data[i] = i;
  uint8_t chunk[sizeof(data) + BLOSC2_MAX_OVERHEAD];

  /* 1. A prefilter given at creation, compressing through schunk->cctx:
   *    params->nchunk is the current_nchunk the client set. */
  seen_t seen1 = {0};
  blosc2_prefilter_params pre1;
  memset(&pre1, 0, sizeof(pre1));
  pre1.user_data = &seen1;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  cp.prefilter = record_nchunk;
  cp.preparams = &pre1;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  sc->current_nchunk = 7;
  CHECK(blosc2_compress_ctx(sc->cctx, data, sizeof(data), chunk, sizeof(chunk)) > 0);
  sc->current_nchunk = 2;
  CHECK(blosc2_compress_ctx(sc->cctx, data, sizeof(data), chunk, sizeof(chunk)) > 0);
  CHECK_EQ_INT(seen1.calls, 2);
  CHECK_EQ_INT(seen1.nchunks[0], 7);
  CHECK_EQ_INT(seen1.nchunks[1], 2);
  blosc2_schunk_free(sc);

  /* 2. A super-chunk made without a prefilter; the client writes one into
   *    storage->cparams and replaces cctx: append_buffer calls it with the
   *    index of the chunk being appended. */
  seen_t seen2 = {0};
  blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
  cp2.typesize = 4;
  cp2.nthreads = 1;
  blosc2_storage st2 = {.contiguous = true, .cparams = &cp2};
  sc = blosc2_schunk_new(&st2);
  REQUIRE(sc != NULL);
  blosc2_prefilter_params *pre2 = calloc(1, sizeof(*pre2));
  REQUIRE(pre2 != NULL);
  pre2->user_data = &seen2;
  sc->storage->cparams->prefilter = record_nchunk;
  sc->storage->cparams->preparams = pre2;
  blosc2_free_ctx(sc->cctx);
  sc->cctx = blosc2_create_cctx(*sc->storage->cparams);
  REQUIRE(sc->cctx != NULL);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), i + 1);
  }
  CHECK_EQ_INT(seen2.calls, 3);
  for (int i = 0; i < 3; i++) CHECK_EQ_INT(seen2.nchunks[i], i);
  int32_t back[NITEMS];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 2, back, sizeof(back)), sizeof(data));
  CHECK_MEM(back, data, sizeof(data));
  blosc2_schunk_free(sc);
  free(pre2);

  blosc2_destroy();
  TEST_MAIN_END("test_schunk_client_prefilter");
}
