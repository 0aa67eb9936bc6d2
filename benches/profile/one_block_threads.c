/* Time of each decompression call of 64 KiB one-block chunks (int32
   0, 1, 2, ..., typesize 4, shuffle: four streams per block, the chunks the
   split decoder of src/chunk/split.rs shares between threads), at 1, 2, 4,
   8 and 16 threads: throughput and the distribution of call times.  64
   chunks, 20 untimed rounds, then ROUNDS (environment, default 300) timed
   rounds per thread count.  The library is opened by path:

     gcc -O2 -I.ref/blosc2/include benches/profile/one_block_threads.c -o one_block_threads -ldl
     ./one_block_threads $PWD/.ref/blosc2/lib/libblosc2.so.9 5 1
     ./one_block_threads $PWD/target/release/libblosc2.so      5 1

   Arguments: LIB CODEC CLEVEL [NTHREADS: that thread count alone]. */
#include <blosc2.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef blosc2_context *(*cctx_fn)(blosc2_cparams);
typedef blosc2_context *(*dctx_fn)(blosc2_dparams);
typedef int (*code_fn)(blosc2_context *, const void *, int32_t, void *, int32_t);
typedef void (*free_fn)(blosc2_context *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s LIB CODEC CLEVEL [NTHREADS]\n", argv[0]);
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  void (*init)(void) = (void (*)(void))dlsym(h, "blosc2_init");
  cctx_fn cc = (cctx_fn)dlsym(h, "blosc2_create_cctx");
  dctx_fn dc = (dctx_fn)dlsym(h, "blosc2_create_dctx");
  code_fn comp = (code_fn)dlsym(h, "blosc2_compress_ctx"), dec = (code_fn)dlsym(h, "blosc2_decompress_ctx");
  free_fn fr = (free_fn)dlsym(h, "blosc2_free_ctx");
  init();
  int codec = atoi(argv[2]), clevel = atoi(argv[3]);
  const int chunk = 65536, nch = 64, n = chunk * nch / 4;
  int32_t *src = malloc((size_t)n * 4);
  for (int i = 0; i < n; i++) src[i] = i;
  uint8_t *packed = malloc((size_t)nch * (chunk + 64)), *out = malloc((size_t)chunk * nch);
  int cs[64];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec; cp.clevel = clevel; cp.typesize = 4; cp.nthreads = 1;
  blosc2_context *c = cc(cp);
  for (int k = 0; k < nch; k++) cs[k] = comp(c, (uint8_t *)src + (size_t)k * chunk, chunk, packed + (size_t)k * (chunk + 64), chunk + 64);
  fr(c);
  int ths[] = {1, 2, 4, 8, 16};
  const int rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : 300, calls = rounds * nch;
  double *t = malloc(sizeof(double) * calls);
  int only = argc > 4 ? atoi(argv[4]) : 0;
  for (int ti = 0; ti < 5; ti++) {
    if (only && ths[ti] != only) continue;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = ths[ti];
    blosc2_context *d = dc(dp);
    for (int r = 0; r < 20; r++)
      for (int k = 0; k < nch; k++) dec(d, packed + (size_t)k * (chunk + 64), cs[k], out + (size_t)k * chunk, chunk);
    double t0 = now();
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < nch; k++) {
        double a = now();
        if (dec(d, packed + (size_t)k * (chunk + 64), cs[k], out + (size_t)k * chunk, chunk) != chunk) return 3;
        t[r * nch + k] = now() - a;
      }
    double tot = now() - t0;
    if (memcmp(out, src, (size_t)chunk * nch)) return 4;
    double sum = 0; for (int i = 0; i < calls; i++) sum += t[i];
    qsort(t, calls, sizeof(double), cmp);
    printf("codec %d cl %d th %2d: %.2f GB/s  mean %.1f us  p10 %.1f p50 %.1f p90 %.1f p99 %.1f p999 %.1f\n", codec, clevel, ths[ti],
           (double)calls * chunk / tot, sum / calls / 1e3, t[calls / 10] / 1e3, t[calls / 2] / 1e3, t[calls * 9 / 10] / 1e3,
           t[calls * 99 / 100] / 1e3, t[calls * 999 / 1000] / 1e3);
    fr(d);
  }
  return 0;
}
