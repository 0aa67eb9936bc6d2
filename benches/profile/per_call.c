/* Fixed cost of one call: compress one small buffer once, then decompress it
   (or, with COMP=1 in the environment, compress it) ITERS times in a row
   through one context, five rounds, and print the best round's time per
   call.  The buffer stays in the cache, so what differs between libraries
   is the work done around the codec.  The library is opened by path:

     gcc -O2 -I.ref/blosc2/include benches/profile/per_call.c -o per_call -ldl
     ./per_call $PWD/.ref/blosc2/lib/libblosc2.so.9 4096 1 1 1
     ./per_call $PWD/target/release/libblosc2.so      4096 1 1 1

   Arguments: LIB NBYTES FILTER(0 none, 1 shuffle, 2 bitshuffle) DATA CODEC
   DATA: 0 random bytes (stored raw), 1 a byte counter that steps every
   8 bytes (compressible), 2 zeros (a special-value chunk), 3 a noisy
   float64 ramp (with LZ4HC: a regular chunk of stored blocks).  Typesize 8,
   clevel 5, one thread.  ITERS from the environment, default 200000. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blosc2_lib.h"
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s LIB NBYTES FILTER DATA CODEC\n", argv[0]);
    return 2;
  }
  struct blosc2_lib lib;
  if (open_blosc2(argv[1], &lib) != 0) return 1;

  int32_t n = atoi(argv[2]);
  int filter = atoi(argv[3]);
  int data = atoi(argv[4]);
  int codec = atoi(argv[5]);
  const char *it = getenv("ITERS");
  long iters = it ? atol(it) : 200000;
  int time_compression = getenv("COMP") != NULL;
  if (n <= 0 || iters <= 0) {
    fprintf(stderr, "NBYTES and ITERS must be positive\n");
    return 2;
  }

  uint8_t *src = malloc((size_t)n);
  /* With room past nbytes + BLOSC2_MAX_OVERHEAD both libraries keep a
     chunk whose blocks did not compress as a regular chunk of stored
     blocks (a few bytes longer); without it, as one memcpyed copy. DATA 3
     gets the room. */
  int32_t cap = n + BLOSC2_MAX_OVERHEAD + (data == 3 ? 4096 : 0);
  uint8_t *packed = malloc((size_t)cap);
  uint8_t *back = malloc((size_t)n);
  uint64_t state = 0x243F6A8885A308D3ULL;
  for (int32_t i = 0; i < n; i++) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    src[i] = data == 0 ? (uint8_t)(state >> 56) : data == 1 ? (uint8_t)(i / 8) : 0;
  }
  if (data == 3) {
    /* A float64 ramp with noise in its low bytes: codecs at clevel >= 3
       find nothing worth keeping, so the chunk holds its blocks stored
       (a regular chunk, not a memcpyed one). */
    int32_t count = n / 8;
    uint64_t w = 0x9E3779B97F4A7C15ull;
    for (int32_t i = 0; i < count; i++) {
      w ^= w << 13;
      w ^= w >> 7;
      w ^= w << 17;
      double v = (double)i * (100.0 / (double)(count - 1)) +
                 ((double)(w >> 11) / 9007199254740992.0 - 0.5) * 1e-6;
      memcpy(src + 8 * i, &v, 8);
    }
  }

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = 5;
  cp.typesize = 8;
  cp.nthreads = 1;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_context *cctx = lib.new_cctx(cp);
  blosc2_context *dctx = lib.new_dctx(dp);
  int csize = lib.compress(cctx, src, n, packed, cap);
  if (csize <= 0 || lib.decompress(dctx, packed, csize, back, n) != n ||
      memcmp(src, back, (size_t)n) != 0) {
    fprintf(stderr, "round trip failed (csize %d)\n", csize);
    return 1;
  }

  double best = 1e30;
  for (int round = 0; round < 5; round++) {
    double t = seconds();
    int rc = 0;
    if (time_compression) {
      for (long i = 0; i < iters; i++) rc |= lib.compress(cctx, src, n, packed, cap) <= 0;
    } else {
      for (long i = 0; i < iters; i++) rc |= lib.decompress(dctx, packed, csize, back, n) != n;
    }
    t = seconds() - t;
    if (rc) {
      fprintf(stderr, "a call failed\n");
      return 1;
    }
    if (t < best) best = t;
  }
  printf("%s: %s nbytes %d csize %d: %.1f ns/call\n", argv[1],
         time_compression ? "compress" : "decompress", n, csize, best / (double)iters * 1e9);
  return 0;
}
