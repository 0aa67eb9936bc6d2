/* blosc2_set_threads_callback: with a callback installed, the blocks of a
 * multi-threaded compression or decompression run on the caller's threads.
 * The callback here starts one pthread per job slot and counts what it ran. */
#include <pthread.h>
#include "test_common.h"

typedef struct {
  void (*dojob)(void *);
  char *jobdata;
  size_t elsize;
  int first, last;
} worker_arg;

static int g_calls = 0;
static int g_jobs = 0;

static void *worker(void *p) {
  worker_arg *w = (worker_arg *)p;
  for (int i = w->first; i < w->last; i++) w->dojob(w->jobdata + (size_t)i * w->elsize);
  return NULL;
}

static void my_callback(void *data, void (*dojob)(void *), int numjobs, size_t elsize, void *jobdata) {
  int nworkers = *(int *)data;
  pthread_t th[8];
  worker_arg args[8];
  g_calls++;
  g_jobs += numjobs;
  int per = (numjobs + nworkers - 1) / nworkers;
  int started = 0;
  for (int t = 0; t < nworkers; t++) {
    args[t].dojob = dojob;
    args[t].jobdata = (char *)jobdata;
    args[t].elsize = elsize;
    args[t].first = t * per;
    args[t].last = (t + 1) * per < numjobs ? (t + 1) * per : numjobs;
    if (args[t].first >= args[t].last) break;
    pthread_create(&th[t], NULL, worker, &args[t]);
    started++;
  }
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}

int main(void) {
  blosc2_init();
  int nworkers = 3;
  blosc2_set_threads_callback(my_callback, &nworkers);
  int32_t n = 4 << 20;
  uint8_t *src = tc_malloc(n), *dst = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 7);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.nthreads = 4;
  cp.typesize = 8;
  cp.blocksize = 64 * 1024;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cs = blosc2_compress_ctx(cctx, src, n, dst, n + BLOSC2_MAX_OVERHEAD);
  CHECK(cs > 0);
  CHECK(g_calls >= 1);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 4;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int before = g_calls;
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dst, cs, back, n), n);
  CHECK_MEM(back, src, n);
  CHECK(g_calls > before);
  CHECK(g_jobs > 1);
  /* removing the callback goes back to the internal pool */
  blosc2_set_threads_callback(NULL, NULL);
  before = g_calls;
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dst, cs, back, n), n);
  CHECK_MEM(back, src, n);
  CHECK_EQ_INT(g_calls, before);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src);
  free(dst);
  free(back);
  blosc2_destroy();
  TEST_MAIN_END("test_threads_callback");
}
