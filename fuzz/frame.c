/* libFuzzer target: the input is a contiguous frame (cframe).  Opens it as
   a super-chunk (copying), decompresses its chunks (bounded), and reads its
   metalayers and vlmetalayers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <blosc2.h>

#define MAX_CHUNK_NBYTES (16 * 1024 * 1024)
#define MAX_TOTAL_NBYTES (64 * 1024 * 1024)
#define MAX_CHUNKS 256

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  blosc2_init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > INT32_MAX) return 0;
  /* from_buffer takes a non-const pointer; with copy it must not write. */
  blosc2_schunk *sc = blosc2_schunk_from_buffer((uint8_t *)data, (int64_t)size, true);
  if (sc == NULL) return 0;
  int64_t total = 0;
  for (int64_t i = 0; i < sc->nchunks && i < MAX_CHUNKS; i++) {
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int csize = blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
    int32_t nbytes = -1;
    if (csize >= BLOSC_MIN_HEADER_LENGTH && chunk != NULL)
      (void)blosc2_cbuffer_sizes(chunk, &nbytes, NULL, NULL);
    if (needs_free) free(chunk);
    if (nbytes < 0 || nbytes > MAX_CHUNK_NBYTES) continue;
    total += nbytes;
    if (total > MAX_TOTAL_NBYTES) break;
    uint8_t *dest = malloc((size_t)nbytes + 1);
    if (dest == NULL) break;
    (void)blosc2_schunk_decompress_chunk(sc, i, dest, nbytes);
    free(dest);
  }
  for (int i = 0; i < (int)sc->nmetalayers && i < BLOSC2_MAX_METALAYERS; i++) {
    uint8_t *content = NULL;
    int32_t len = 0;
    if (sc->metalayers[i] == NULL || sc->metalayers[i]->name == NULL) continue;
    if (blosc2_meta_get(sc, sc->metalayers[i]->name, &content, &len) >= 0) free(content);
  }
  int nvl = sc->nvlmetalayers;
  if (nvl > 0 && nvl <= BLOSC2_MAX_VLMETALAYERS) {
    char *names[BLOSC2_MAX_VLMETALAYERS];
    int n = blosc2_vlmeta_get_names(sc, names);
    for (int i = 0; i < n && i < nvl; i++) {
      uint8_t *content = NULL;
      int32_t len = 0;
      if (blosc2_vlmeta_get(sc, names[i], &content, &len) >= 0) free(content);
    }
  }
  blosc2_schunk_free(sc);
  return 0;
}
