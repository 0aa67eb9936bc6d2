/* One configuration, one library per process: compress 64 MiB in chunks of
   CHUNK_KIB through one context, then decompress the chunks DREP times
   (environment, default 1), ITERS rounds; prints the best round's speeds.
   The library is opened by path, so the same binary drives ours and the
   reference:

     gcc -O2 -I.ref/blosc2/include benches/profile/one_config.c -o one_config -ldl
     ./one_config $PWD/.ref/blosc2/lib/libblosc2.so.9 5 3 0 4096 2 3
     ./one_config $PWD/target/release/libblosc2.so      5 3 0 4096 2 3
     DREP=30 perf record -D 2500 ./one_config LIB 5 3 0 4096 2 1   (decompression only)

   DATASET: 0 random 64-bit words, 1 int32 arange, 2 float64 ramp plus small
   noise, 3 int64 zeros with one word in a hundred set (up to 1e6), 4 int64
   ramp in the high bytes ((4 i) << 30, the low three bytes zero: c-blosc2's
   plugins/filters/int_trunc test data), 5 vs_reference's f64-linspace-noise
   (repeated every 4 MiB), 6 runs of 12-51 bytes repeating a pattern of
   3, 5, 6 or 7 random bytes, each followed by 2 random bytes (matches of
   short odd periods, as in RGB pixels; use with TYPESIZE=1 and no
   filter); typesize 8 for all of them unless the
   environment's TYPESIZE says otherwise.  NTHREADS (environment, default 1,
   up to 64) sets the threads of both contexts; TOTAL_MIB (environment,
   default 64) how much data goes through. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blosc2_lib.h"
#include "common.h"

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s LIB CODEC CLEVEL FILTER CHUNK_KIB DATASET ITERS\n", argv[0]);
    return 2;
  }
  struct blosc2_lib lib;
  if (open_blosc2(argv[1], &lib) != 0) return 1;
  int codec = atoi(argv[2]), clevel = atoi(argv[3]), filter = atoi(argv[4]);
  size_t chunk = (size_t)atoi(argv[5]) * 1024;
  int dataset = atoi(argv[6]), iters = atoi(argv[7]);
  int drep = getenv("DREP") ? atoi(getenv("DREP")) : 1;
  int typesize = getenv("TYPESIZE") ? atoi(getenv("TYPESIZE")) : 8;
  int nthreads = getenv("NTHREADS") ? atoi(getenv("NTHREADS")) : 1;
  if (chunk == 0 || iters < 1 || drep < 1 || typesize < 1 || typesize > 255) return 2;
  if (nthreads < 1 || nthreads > 64) return 2;

  const int total_mib = getenv("TOTAL_MIB") ? atoi(getenv("TOTAL_MIB")) : 64;
  if (total_mib < 1 || total_mib > 4096) return 2;
  const size_t total = (size_t)total_mib << 20;
  if (chunk > total) return 2;
  const size_t nchunks = total / chunk, slot = chunk + BLOSC2_MAX_OVERHEAD;
  uint8_t *src = malloc(total), *packed = malloc(nchunks * slot), *out = malloc(total);
  int32_t *csize = malloc(nchunks * sizeof(int32_t));
  if (!src || !packed || !out || !csize) return 1;
  uint64_t state = 42;
  for (size_t i = 0; i < total && dataset == 6;) {
    uint64_t w = next_word(&state);
    static const int periods[4] = {3, 5, 6, 7};
    int period = periods[w % 4];
    size_t run = 12 + (w >> 8) % 40;
    for (size_t k = 0; k < run && i < total; k++, i++)
      src[i] = (uint8_t)(w >> (16 + 5 * (k % (size_t)period)));
    for (int k = 0; k < 2 && i < total; k++, i++) src[i] = (uint8_t)(w >> (52 + 4 * k));
  }
  for (size_t i = 0; i < total / 8 && dataset != 6; i++) {
    uint64_t w = next_word(&state);
    if (dataset == 0) {
      memcpy(src + 8 * i, &w, 8);
    } else if (dataset == 1) {
      int32_t pair[2] = {(int32_t)(2 * i), (int32_t)(2 * i + 1)};
      memcpy(src + 8 * i, pair, 8);
    } else if (dataset == 3) {
      int64_t v = (w % 100 == 0) ? (int64_t)(next_word(&state) % 1000000) : 0;
      memcpy(src + 8 * i, &v, 8);
    } else if (dataset == 4) {
      int64_t v = (int64_t)(4 * i) << 30;
      memcpy(src + 8 * i, &v, 8);
    } else if (dataset == 5) {
      /* vs_reference's f64-linspace-noise: 0..100 over 4 MiB of values,
         uniform noise of 1e-6, repeated every 4 MiB */
      const size_t n = (4u << 20) / 8;
      double v = (double)(i % n) * (100.0 / (double)(n - 1)) + ((double)(w >> 11) / 9007199254740992.0 - 0.5) * 1e-6;
      memcpy(src + 8 * i, &v, 8);
    } else {
      double v = (double)i / (double)(total / 8) * 100.0 + (double)(w >> 40) * 1e-12;
      memcpy(src + 8 * i, &v, 8);
    }
  }

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.nthreads = (int16_t)nthreads;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_context *cctx = lib.new_cctx(cp), *dctx = lib.new_dctx(dp);

  double best_c = 1e30, best_d = 1e30;
  size_t packed_bytes = 0;
  for (int it = 0; it < iters; it++) {
    double t0 = seconds();
    packed_bytes = 0;
    for (size_t k = 0; k < nchunks; k++) {
      csize[k] = lib.compress(cctx, src + k * chunk, (int32_t)chunk, packed + k * slot, (int32_t)slot);
      if (csize[k] <= 0) {
        fprintf(stderr, "compression failed: %d\n", csize[k]);
        return 1;
      }
      packed_bytes += (size_t)csize[k];
    }
    double t1 = seconds();
    if (t1 - t0 < best_c) best_c = t1 - t0;
    for (int r = 0; r < drep; r++) {
      double a = seconds();
      for (size_t k = 0; k < nchunks; k++) {
        if (lib.decompress(dctx, packed + k * slot, csize[k], out + k * chunk, (int32_t)chunk) !=
            (int)chunk) {
          fprintf(stderr, "decompression failed\n");
          return 1;
        }
      }
      double b = seconds();
      if (b - a < best_d) best_d = b - a;
    }
  }
  if (memcmp(src, out, total) != 0) {
    fprintf(stderr, "round trip mismatch\n");
    return 1;
  }
  printf("%s: comp %.3f GB/s decomp %.3f GB/s ratio %.2f\n", argv[1], (double)total / best_c / 1e9,
         (double)total / best_d / 1e9, (double)total / (double)packed_bytes);
  return 0;
}
