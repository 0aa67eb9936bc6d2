/* Opening a libblosc2 by path and finding the functions the drivers call,
   so that the same driver code times ours and the reference. */
#ifndef B2RS_PROFILE_BLOSC2_LIB_H
#define B2RS_PROFILE_BLOSC2_LIB_H

#include <blosc2.h>
#include <dlfcn.h>
#include <stdio.h>

typedef blosc2_context *(*b2_cctx_fn)(blosc2_cparams);
typedef blosc2_context *(*b2_dctx_fn)(blosc2_dparams);
typedef int (*b2_code_fn)(blosc2_context *, const void *, int32_t, void *, int32_t);
typedef void (*b2_free_fn)(blosc2_context *);

struct blosc2_lib {
  b2_cctx_fn new_cctx;
  b2_dctx_fn new_dctx;
  b2_code_fn compress, decompress;
  b2_free_fn free_ctx;
};

/* Open the library at `path` (each path once per process), call its
   blosc2_init and fill `l`: 0, or -1 with a message when the library or one
   of the functions is missing. */
static inline int open_blosc2(const char *path, struct blosc2_lib *l) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return -1;
  }
  void (*init)(void) = (void (*)(void))dlsym(h, "blosc2_init");
  l->new_cctx = (b2_cctx_fn)dlsym(h, "blosc2_create_cctx");
  l->new_dctx = (b2_dctx_fn)dlsym(h, "blosc2_create_dctx");
  l->compress = (b2_code_fn)dlsym(h, "blosc2_compress_ctx");
  l->decompress = (b2_code_fn)dlsym(h, "blosc2_decompress_ctx");
  l->free_ctx = (b2_free_fn)dlsym(h, "blosc2_free_ctx");
  if (!init || !l->new_cctx || !l->new_dctx || !l->compress || !l->decompress || !l->free_ctx) {
    fprintf(stderr, "missing blosc2 functions in %s\n", path);
    return -1;
  }
  init();
  return 0;
}

#endif
