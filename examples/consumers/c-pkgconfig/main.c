/* A C consumer of the installed libblosc2, built with
 *   cc main.c $(pkg-config --cflags --libs blosc2)
 * Compresses 1 MiB of int32 with every codec, decompresses, checks. */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (256 * 1024)

int main(void) {
  static int32_t src[N], back[N];
  static uint8_t chunk[N * 4 + BLOSC2_MAX_OVERHEAD];
  const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  for (int i = 0; i < N; i++) src[i] = i / 3;
  blosc2_init();
  printf("blosc2 %s (%s)\n", blosc2_get_version_string(), BLOSC2_VERSION_STRING);
  for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = (uint8_t)blosc2_compname_to_compcode(codecs[c]);
    cp.clevel = 5;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    int csize = blosc2_compress_ctx(cctx, src, sizeof src, chunk, sizeof chunk);
    blosc2_free_ctx(cctx);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int dsize = blosc2_decompress_ctx(dctx, chunk, csize, back, sizeof back);
    blosc2_free_ctx(dctx);
    if (csize <= 0 || dsize != (int)sizeof src || memcmp(src, back, sizeof src) != 0) {
      fprintf(stderr, "FAIL %s: csize %d dsize %d\n", codecs[c], csize, dsize);
      return 1;
    }
    printf("%-8s %8d -> %7d bytes (ratio %.1f) round trip ok\n", codecs[c], (int)sizeof src, csize,
           (double)sizeof src / csize);
  }
  blosc2_destroy();
  printf("c-pkgconfig: OK\n");
  return 0;
}
