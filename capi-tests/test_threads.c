/* Threading: internal nthreads 1, 2, 4 (global and context API) and 8
 * application pthreads, each with its own contexts, compressing and
 * decompressing concurrently and checking every byte. */
#include "test_common.h"
#include <pthread.h>

static void internal_threads(void) {
  int32_t n = 4 << 20;
  uint8_t *src = tc_malloc(n), *dest = tc_malloc(n + BLOSC2_MAX_OVERHEAD), *back = tc_malloc(n);
  tc_fill(src, n, TC_FILL_SMOOTH_F64, 1);
  static const int nts[] = {1, 2, 4};
  for (int i = 0; i < 3; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.nthreads = (int16_t)nts[i];
    cp.compcode = BLOSC_LZ4;
    cp.blocksize = 65536;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    int csize = blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK(csize > 0);
    /* (block order in the output may depend on scheduling, so the bytes are
       not compared across thread counts; the decoded data is.) */
    for (int j = 0; j < 3; j++) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = (int16_t)nts[j];
      blosc2_context *dctx = blosc2_create_dctx(dp);
      memset(back, 0, n);
      CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dest, csize, back, n), n);
      CHECK_MSG(memcmp(src, back, n) == 0, "cthreads %d dthreads %d", nts[i], nts[j]);
      blosc2_free_ctx(dctx);
    }
    blosc2_free_ctx(cctx);
    /* global API */
    blosc2_set_nthreads((int16_t)nts[i]);
    blosc1_set_blocksize(65536);
    csize = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, n, dest, n + BLOSC2_MAX_OVERHEAD);
    CHECK(csize > 0);
    memset(back, 0, n);
    CHECK_EQ_INT(blosc2_decompress(dest, csize, back, n), n);
    CHECK_MEM(src, back, n);
  }
  blosc1_set_blocksize(0);
  blosc2_set_nthreads(1);
  free(src); free(dest); free(back);
}

typedef struct {
  int id;
  int iterations;
  int failures;
  char msg[200];
} worker;

static void *work(void *arg) {
  worker *w = (worker *)arg;
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  for (int it = 0; it < w->iterations; it++) {
    /* multiple of 8: DELTA with a partial trailing item is a known reference
       bug covered by test_delta_leftover.c */
    int32_t n = (100000 + w->id * 7777 + it * 1001) / 8 * 8;
    uint8_t *src = malloc(n), *dest = malloc(n + BLOSC2_MAX_OVERHEAD), *back = malloc(n);
    if (!src || !dest || !back) { w->failures++; break; }
    tc_fill(src, n, (w->id + it) % 2 ? TC_FILL_TEXT : TC_FILL_SMOOTH_F64, (uint64_t)(w->id * 100 + it));
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[(w->id + it) % 5];
    cp.typesize = 1 << (it % 4);
    cp.clevel = (uint8_t)(1 + (w->id + it) % 9);
    cp.nthreads = (int16_t)(1 + it % 2);
    cp.blocksize = (it % 3) ? 16384 : 0;
    if (it % 4 == 3) cp.filters[4] = BLOSC_DELTA;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)(1 + (it + 1) % 2);
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int csize = cctx ? blosc2_compress_ctx(cctx, src, n, dest, n + BLOSC2_MAX_OVERHEAD) : -1;
    int dsize = -1;
    if (csize > 0) {
      memset(back, 0, n);
      dsize = blosc2_decompress_ctx(dctx, dest, csize, back, n);
    }
    if (csize <= 0 || dsize != n || memcmp(src, back, n) != 0) {
      if (!w->failures)
        snprintf(w->msg, sizeof(w->msg), "thread %d iter %d codec %d: csize %d dsize %d", w->id, it,
                 cp.compcode, csize, dsize);
      w->failures++;
    }
    /* getitem concurrently as well */
    if (csize > 0) {
      uint8_t items[800];
      int ts = cp.typesize;
      int rc = blosc2_getitem_ctx(dctx, dest, csize, 1000 / ts, 800 / ts, items, sizeof(items));
      if (rc != (800 / ts) * ts || memcmp(items, src + (1000 / ts) * ts, rc) != 0) {
        if (!w->failures) snprintf(w->msg, sizeof(w->msg), "thread %d iter %d getitem rc %d", w->id, it, rc);
        w->failures++;
      }
    }
    blosc2_free_ctx(cctx);
    blosc2_free_ctx(dctx);
    free(src); free(dest); free(back);
  }
  return NULL;
}

static void app_threads(void) {
  enum { NT = 8 };
  pthread_t th[NT];
  worker ws[NT];
  int iters = getenv("BLOSC2_UNDER_VALGRIND") ? 3 : 12;
  for (int i = 0; i < NT; i++) {
    memset(&ws[i], 0, sizeof(ws[i]));
    ws[i].id = i;
    ws[i].iterations = iters;
    REQUIRE(pthread_create(&th[i], NULL, work, &ws[i]) == 0);
  }
  for (int i = 0; i < NT; i++) {
    pthread_join(th[i], NULL);
    CHECK_MSG(ws[i].failures == 0, "%s (%d failures)", ws[i].msg, ws[i].failures);
  }
}

int main(void) {
  blosc2_init();
  internal_threads();
  app_threads();
  blosc2_destroy();
  /* contexts in threads without global init */
  app_threads();
  TEST_MAIN_END("test_threads");
}
