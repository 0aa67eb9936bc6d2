/* Prefilter (compression) and postfilter (decompression) callbacks:
 * parameters seen by the callbacks, data transformation, error propagation,
 * multi-threaded use. */
#include "test_common.h"
#include <pthread.h>

typedef struct {
  int32_t scale;
  int calls;
  int bad;
  int fail_at_block;  /* -1: never */
  pthread_mutex_t mu;
} cbstate;

static int my_prefilter(blosc2_prefilter_params *p) {
  cbstate *st = (cbstate *)p->user_data;
  int bad = 0;
  if (p->output_typesize != 4) bad++;
  if (p->output_size <= 0 || p->output_size % 4) bad++;
  if (p->output_offset < 0 || p->output_offset % 4) bad++;
  if (p->nchunk != -1) bad++;
  if (p->input == NULL || p->output == NULL) bad++;
  pthread_mutex_lock(&st->mu);
  st->calls++;
  st->bad += bad;
  pthread_mutex_unlock(&st->mu);
  if (st->fail_at_block >= 0 && p->nblock == st->fail_at_block) return -1;
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->output_size / 4; i++) out[i] = in[i] * st->scale;
  return 0;
}

static int my_postfilter(blosc2_postfilter_params *p) {
  cbstate *st = (cbstate *)p->user_data;
  int bad = 0;
  if (p->typesize != 4) bad++;
  if (p->size <= 0 || p->size % 4) bad++;
  if (p->offset < 0 || p->offset % 4) bad++;
  if (p->input == NULL || p->output == NULL) bad++;
  pthread_mutex_lock(&st->mu);
  st->calls++;
  st->bad += bad;
  pthread_mutex_unlock(&st->mu);
  if (st->fail_at_block >= 0 && p->nblock == st->fail_at_block) return -1;
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->size / 4; i++) out[i] = in[i] + st->scale;
  return 0;
}

static void run(int nthreads, int codec) {
  int32_t nitems = 250000, n = nitems * 4;
  int32_t *src = tc_malloc(n), *back = tc_malloc(n);
  for (int i = 0; i < nitems; i++) src[i] = i % 5000;
  uint8_t *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD);

  cbstate pre = {3, 0, 0, -1, PTHREAD_MUTEX_INITIALIZER};
  blosc2_prefilter_params preparams;
  memset(&preparams, 0, sizeof(preparams));
  preparams.user_data = &pre;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = (uint8_t)codec;
  cp.nthreads = (int16_t)nthreads;
  cp.blocksize = 32768;
  cp.prefilter = my_prefilter;
  cp.preparams = &preparams;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ_INT(pre.calls, n / 32768 + (n % 32768 ? 1 : 0));
  CHECK_EQ_INT(pre.bad, 0);

  /* plain decompression shows the prefiltered data */
  CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
  int bad = 0;
  for (int i = 0; i < nitems; i++) bad += back[i] != src[i] * 3;
  CHECK_MSG(bad == 0, "prefilter nt %d codec %d: %d wrong items", nthreads, codec, bad);

  /* postfilter undoes part of it */
  cbstate post = {7, 0, 0, -1, PTHREAD_MUTEX_INITIALIZER};
  blosc2_postfilter_params postparams;
  memset(&postparams, 0, sizeof(postparams));
  postparams.user_data = &post;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  dp.postfilter = my_postfilter;
  dp.postparams = &postparams;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(dctx != NULL);
  memset(back, 0, n);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, n), n);
  bad = 0;
  for (int i = 0; i < nitems; i++) bad += back[i] != src[i] * 3 + 7;
  CHECK_MSG(bad == 0, "postfilter nt %d codec %d: %d wrong items", nthreads, codec, bad);
  CHECK_EQ_INT(post.calls, n / 32768 + (n % 32768 ? 1 : 0));
  CHECK_EQ_INT(post.bad, 0);
  blosc2_dparams got;
  CHECK_EQ_INT(blosc2_ctx_get_dparams(dctx, &got), 0);
  CHECK(got.postfilter == my_postfilter);

  /* postfilter failure is reported */
  post.fail_at_block = 2;
  CHECK(blosc2_decompress_ctx(dctx, dest, csize, back, n) < 0);
  blosc2_free_ctx(dctx);

  /* prefilter failure is reported */
  pre.fail_at_block = 1;
  CHECK(blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD) < 0);
  blosc2_free_ctx(cctx);
  free(src); free(back); free(dest);
}

int main(void) {
  blosc2_init();
  run(1, BLOSC_BLOSCLZ);
  run(1, BLOSC_ZSTD);
  run(2, BLOSC_LZ4);
  run(4, BLOSC_BLOSCLZ);
  blosc2_destroy();
  TEST_MAIN_END("test_prefilter_postfilter");
}
