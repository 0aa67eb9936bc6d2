/* What the frame targets do with a super-chunk they managed to open: read
   every chunk (whole and lazy), decompress it (bounded) through the
   super-chunk and through its context, read a few items and VL blocks, and
   read every metalayer and vlmetalayer.  The decompression caps keep an
   execution cheap (a tiny input can claim megabytes of run-length streams
   that the filters then undo); the decoding paths do not depend on sizes
   above them. */
#ifndef FUZZ_READ_SCHUNK_H
#define FUZZ_READ_SCHUNK_H

#include <stdint.h>
#include <stdlib.h>
#include <blosc2.h>

#define FUZZ_MAX_CHUNK_NBYTES (1024 * 1024)
#define FUZZ_MAX_TOTAL_NBYTES (4 * 1024 * 1024)
#define FUZZ_MAX_CHUNKS 256

/* Decompressed size of chunk `i` from its (possibly lazy) header, or -1.
   With `budget` (bytes left to decompress in this input) it also
   decompresses a lazy chunk through the super-chunk's context (which knows
   where the rest of it lives), as frame reads do, and reads a few items of
   it, taking its size from *budget. */
static int32_t fuzz_chunk_nbytes(blosc2_schunk *sc, int64_t i, int lazy, int64_t *budget) {
  uint8_t *chunk = NULL;
  bool needs_free = false;
  int csize = lazy ? blosc2_schunk_get_lazychunk(sc, i, &chunk, &needs_free)
                   : blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
  int32_t nbytes = -1;
  if (csize >= BLOSC_MIN_HEADER_LENGTH && chunk != NULL)
    (void)blosc2_cbuffer_sizes(chunk, &nbytes, NULL, NULL);
  if (budget != NULL && nbytes >= 0 && nbytes <= FUZZ_MAX_CHUNK_NBYTES && nbytes <= *budget &&
      sc->dctx != NULL) {
    *budget -= nbytes;
    uint8_t *dest = malloc((size_t)nbytes + 1);
    if (dest != NULL) {
      (void)blosc2_decompress_ctx(sc->dctx, chunk, csize, dest, nbytes);
      int32_t ts = sc->typesize > 0 ? sc->typesize : 1;
      if (nbytes / ts > 2) (void)blosc2_getitem_ctx(sc->dctx, chunk, csize, 1, 2, dest, nbytes);
      free(dest);
    }
  }
  if (needs_free) free(chunk);
  return nbytes;
}

static void fuzz_read_schunk(blosc2_schunk *sc) {
  /* Every decompression below takes from this budget. */
  int64_t budget = FUZZ_MAX_TOTAL_NBYTES;
  for (int64_t i = 0; i < sc->nchunks && i < FUZZ_MAX_CHUNKS; i++) {
    int32_t nbytes = fuzz_chunk_nbytes(sc, i, 0, NULL);
    int32_t lazy_nbytes = fuzz_chunk_nbytes(sc, i, 1, &budget);
    if (lazy_nbytes > nbytes) nbytes = lazy_nbytes;
    if (nbytes < 0 || nbytes > FUZZ_MAX_CHUNK_NBYTES) continue;
    if (nbytes > budget) break;
    budget -= nbytes;
    uint8_t *dest = malloc((size_t)nbytes + 1);
    if (dest == NULL) break;
    (void)blosc2_schunk_decompress_chunk(sc, i, dest, nbytes);
    free(dest);
    uint8_t *block = NULL;
    int32_t bsize = 0;
    if (blosc2_schunk_get_vlblock(sc, i, 0, &block, &bsize) >= 0) free(block);
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
}

#endif
