// zstd alone, outside both libraries: the same mostly-zero int64 data as
// cross_decode.c (4 MiB) is compressed by zstd level LEVEL in frames of
// BLOCK bytes, and the frames are decoded by the zstd inside the reference
// library (its exported ZSTD_* functions, opened by path) and by the zstd
// that zstd-sys built for ours (its static libzstd.a, linked in), each with
// its own context, best of 30 passes, three times.  Compare with
// cross_decode.c to tell zstd's own speed from what the library around it
// costs:
//
//   Z=$(ls -d ~/.cargo/registry/src/*/zstd-sys-2.1.3*/zstd/lib | head -1)
//   A=$(ls -t target/release/build/zstd-sys-*/out/libzstd.a | head -1)
//   gcc -O2 -I$Z benches/profile/zstd_frames.c $A -o zstd_frames -ldl
//   ./zstd_frames $PWD/.ref/blosc2/lib/libblosc2.so.9 8192 1
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "zstd.h"
#include "common.h"

typedef size_t (*decode_fn)(ZSTD_DCtx *, void *, size_t, const void *, size_t);
typedef ZSTD_DCtx *(*new_dctx_fn)(void);

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s REFERENCE_LIB BLOCK LEVEL\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  decode_fn ref_decode = (decode_fn)dlsym(lib, "ZSTD_decompressDCtx");
  new_dctx_fn ref_new_dctx = (new_dctx_fn)dlsym(lib, "ZSTD_createDCtx");
  if (!ref_decode || !ref_new_dctx) return 1;
  size_t block = (size_t)atoi(argv[2]), total = (size_t)4 << 20;
  int level = atoi(argv[3]);
  if (block == 0 || total % block != 0) return 2;
  size_t nframes = total / block, slot = ZSTD_compressBound(block);
  uint8_t *src = malloc(total), *out = malloc(total), *frames = malloc(nframes * slot);
  size_t *fsize = malloc(nframes * sizeof(size_t));
  if (!src || !out || !frames || !fsize) return 1;
  uint64_t state = 42;
  for (size_t i = 0; i < total / 8; i++) {
    int64_t v = next_word(&state) % 100 == 0 ? (int64_t)(next_word(&state) % 1000000) : 0;
    memcpy(src + 8 * i, &v, 8);
  }
  for (size_t k = 0; k < nframes; k++) {
    fsize[k] = ZSTD_compress(frames + k * slot, slot, src + k * block, block, level);
    if (ZSTD_isError(fsize[k])) return 1;
  }
  ZSTD_DCtx *dctx[2] = {ref_new_dctx(), ZSTD_createDCtx()};
  const char *name[2] = {"zstd in the reference library", "zstd-sys's libzstd.a"};
  for (int round = 0; round < 3; round++) {
    for (int w = 0; w < 2; w++) {
      double best = 1e30;
      for (int pass = 0; pass < 30; pass++) {
        double t0 = seconds();
        for (size_t k = 0; k < nframes; k++) {
          size_t r = w ? ZSTD_decompressDCtx(dctx[1], out + k * block, block, frames + k * slot,
                                             fsize[k])
                       : ref_decode(dctx[0], out + k * block, block, frames + k * slot, fsize[k]);
          if (r != block) return 1;
        }
        double t = seconds() - t0;
        if (t < best) best = t;
      }
      if (memcmp(src, out, total) != 0) return 1;
      printf("%-30s %.3f GB/s\n", name[w], (double)total / best / 1e9);
    }
  }
  return 0;
}
