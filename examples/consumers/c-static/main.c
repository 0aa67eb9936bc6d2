/* A C consumer linked statically against libblosc2.a:
 *   cc main.c -I$PREFIX/include $PREFIX/lib/libblosc2.a -lpthread -ldl -lm -lrt
 * (or `pkg-config --static --cflags --libs blosc2` with -Wl,-Bstatic).
 * Builds a super-chunk of 10 chunks in memory, reads it back. */
#include <blosc2.h>
#include <stdio.h>
#include <string.h>

#define CHUNK 50000

int main(void) {
  static int64_t data[CHUNK], back[CHUNK];
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = sizeof(int64_t);
  cp.compcode = BLOSC_ZSTD;
  cp.clevel = 3;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) { fprintf(stderr, "FAIL: schunk_new\n"); return 1; }
  for (int c = 0; c < 10; c++) {
    for (int i = 0; i < CHUNK; i++) data[i] = (int64_t)c * CHUNK + i;
    if (blosc2_schunk_append_buffer(sc, data, sizeof data) != c + 1) {
      fprintf(stderr, "FAIL: append %d\n", c); return 1;
    }
  }
  for (int c = 0; c < 10; c++) {
    int n = blosc2_schunk_decompress_chunk(sc, c, back, sizeof back);
    if (n != (int)sizeof back) { fprintf(stderr, "FAIL: decompress %d -> %d\n", c, n); return 1; }
    for (int i = 0; i < CHUNK; i++)
      if (back[i] != (int64_t)c * CHUNK + i) { fprintf(stderr, "FAIL: chunk %d item %d\n", c, i); return 1; }
  }
  printf("static: %lld bytes in %lld chunks -> %lld bytes (ratio %.1f)\n", (long long)sc->nbytes,
         (long long)sc->nchunks, (long long)sc->cbytes, (double)sc->nbytes / (double)sc->cbytes);
  blosc2_schunk_free(sc);
  blosc2_destroy();
  printf("c-static: OK\n");
  return 0;
}
