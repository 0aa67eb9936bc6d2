/* Frame interop tool, built once against the reference c-blosc2 and once
 * against libblosc2-rs (tests/interop_frames/run.sh).
 *
 *   frame_tool write DIR   writes a fixed set of frames into DIR
 *   frame_tool read DIR    opens every frame of that set and prints a digest
 *
 * Both builds write the same frames from the same calls, so the files can be
 * compared byte for byte, and each build's reader must print the same digest
 * for the files of either writer. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { if (!(x)) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); exit(1); } } while (0)

static const char *CODECS[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
static const int CODEC_IDS[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const int TYPESIZES[] = {1, 2, 4, 8, 16};

static void fill(uint8_t *buf, int32_t n, int seed) {
  for (int32_t i = 0; i < n; i++) buf[i] = (uint8_t)((i * seed) / 13 + (i % 7 == 0 ? seed : 0));
}

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static blosc2_cparams params(int c, int t) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)CODEC_IDS[c];
  cp.typesize = TYPESIZES[t];
  cp.clevel = (uint8_t)(1 + (c + t) % 9);
  cp.nthreads = 1;
  if (t % 2) cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  return cp;
}

static void add_content(blosc2_schunk *sc, int c, int t, int32_t chunkbytes, int short_last) {
  uint8_t *buf = malloc(chunkbytes);
  for (int i = 0; i < 4; i++) {
    fill(buf, chunkbytes, 3 + i + c * 5 + t);
    CHECK(blosc2_schunk_append_buffer(sc, buf, chunkbytes) == i + 1);
  }
  /* a special chunk (zeros) and a short last chunk */
  uint8_t zeros[BLOSC_EXTENDED_HEADER_LENGTH];
  blosc2_cparams cp = params(c, t);
  CHECK(blosc2_chunk_zeros(cp, chunkbytes, zeros, sizeof zeros) > 0);
  CHECK(blosc2_schunk_append_chunk(sc, zeros, true) == 5);
  /* a short last chunk, or a full one where later edits need a fixed chunksize
     (the reference cannot rebuild special chunks of variable-size frames) */
  int32_t last = short_last ? chunkbytes / 2 : chunkbytes;
  fill(buf, last, 41);
  CHECK(blosc2_schunk_append_buffer(sc, buf, last) == 6);
  free(buf);
}

static void add_vlmeta(blosc2_schunk *sc) {
  uint8_t v[300];
  fill(v, sizeof v, 9);
  CHECK(blosc2_vlmeta_add(sc, "vlinfo", v, sizeof v, NULL) >= 0);
  CHECK(blosc2_vlmeta_add(sc, "empty", (uint8_t *)"", 0, NULL) >= 0);
}

static void edit(blosc2_schunk *sc, int c, int t, int32_t chunkbytes) {
  uint8_t *buf = malloc(chunkbytes);
  blosc2_cparams cp = params(c, t);
  uint8_t *chunk = malloc(chunkbytes + BLOSC2_MAX_OVERHEAD);
  fill(buf, chunkbytes, 77);
  int cb = blosc2_compress_ctx(sc->cctx, buf, chunkbytes, chunk, chunkbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(cb > 0);
  CHECK(blosc2_schunk_insert_chunk(sc, 1, chunk, true) == 7);
  fill(buf, chunkbytes, 99);
  cb = blosc2_compress_ctx(sc->cctx, buf, chunkbytes, chunk, chunkbytes + BLOSC2_MAX_OVERHEAD);
  CHECK(blosc2_schunk_update_chunk(sc, 3, chunk, true) == 7);
  uint8_t nans[BLOSC_EXTENDED_HEADER_LENGTH];
  if (cp.typesize == 4 || cp.typesize == 8) {
    CHECK(blosc2_chunk_nans(cp, chunkbytes, nans, sizeof nans) > 0);
  } else {
    CHECK(blosc2_chunk_uninit(cp, chunkbytes, nans, sizeof nans) > 0);
  }
  CHECK(blosc2_schunk_update_chunk(sc, 0, nans, true) == 7);
  CHECK(blosc2_schunk_delete_chunk(sc, 2) == 6);
  free(chunk);
  free(buf);
}

static int write_all(const char *dir) {
  char path[1024];
  for (int c = 0; c < 5; c++) {
    for (int t = 0; t < 5; t++) {
      int32_t chunkbytes = 4000 * TYPESIZES[t];
      blosc2_cparams cp = params(c, t);
      uint8_t meta[16];
      fill(meta, sizeof meta, 5);

      /* 1. contiguous frame in memory -> to_buffer -> file */
      blosc2_storage st = {.contiguous = true, .cparams = &cp};
      blosc2_schunk *sc = blosc2_schunk_new(&st);
      CHECK(sc != NULL);
      CHECK(blosc2_meta_add(sc, "m1", meta, sizeof meta) == 0);
      add_content(sc, c, t, chunkbytes, 1);
      add_vlmeta(sc);
      uint8_t *cframe; bool needs_free;
      int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
      CHECK(len > 0);
      snprintf(path, sizeof path, "%s/mem_%s_%d.b2frame", dir, CODECS[c], TYPESIZES[t]);
      FILE *f = fopen(path, "wb"); CHECK(f); CHECK(fwrite(cframe, 1, len, f) == (size_t)len); fclose(f);
      if (needs_free) free(cframe);
      blosc2_schunk_free(sc);

      /* 2. contiguous frame on disk, edited in place */
      snprintf(path, sizeof path, "%s/disk_%s_%d.b2frame", dir, CODECS[c], TYPESIZES[t]);
      blosc2_remove_urlpath(path);
      blosc2_storage st2 = {.contiguous = true, .urlpath = path, .cparams = &cp};
      sc = blosc2_schunk_new(&st2);
      CHECK(sc != NULL);
      CHECK(blosc2_meta_add(sc, "m1", meta, sizeof meta) == 0);
      CHECK(blosc2_meta_add(sc, "m2", (uint8_t *)"xyz", 3) == 1);
      add_content(sc, c, t, chunkbytes, 0);
      add_vlmeta(sc);
      edit(sc, c, t, chunkbytes);
      CHECK(blosc2_meta_update(sc, "m2", (uint8_t *)"ab", 2) == 1);
      CHECK(blosc2_vlmeta_update(sc, "vlinfo", (uint8_t *)"updated", 7, NULL) == 0);
      blosc2_schunk_free(sc);

      /* 3. in-memory (sparse) super-chunk written with to_file */
      blosc2_storage st3 = {.contiguous = false, .cparams = &cp};
      sc = blosc2_schunk_new(&st3);
      CHECK(sc != NULL);
      CHECK(blosc2_meta_add(sc, "m1", meta, sizeof meta) == 0);
      add_content(sc, c, t, chunkbytes, 0);
      add_vlmeta(sc);
      edit(sc, c, t, chunkbytes);
      snprintf(path, sizeof path, "%s/tofile_%s_%d.b2frame", dir, CODECS[c], TYPESIZES[t]);
      blosc2_remove_urlpath(path);
      int64_t wrc = blosc2_schunk_to_file(sc, path);
      if (wrc <= 0) { fprintf(stderr, "tofile %d/%d: rc=%lld\n", c, t, (long long)wrc); exit(1); }
      blosc2_schunk_free(sc);

      /* 3b. sparse frame (a directory), edited in place */
      snprintf(path, sizeof path, "%s/sparse_%s_%d.b2frame", dir, CODECS[c], TYPESIZES[t]);
      blosc2_remove_urlpath(path);
      blosc2_storage st4 = {.contiguous = false, .urlpath = path, .cparams = &cp};
      sc = blosc2_schunk_new(&st4);
      CHECK(sc != NULL);
      CHECK(blosc2_meta_add(sc, "m1", meta, sizeof meta) == 0);
      add_content(sc, c, t, chunkbytes, 0);
      add_vlmeta(sc);
      edit(sc, c, t, chunkbytes);
      CHECK(blosc2_vlmeta_update(sc, "vlinfo", (uint8_t *)"sparse", 6, NULL) == 0);
      blosc2_schunk_free(sc);
    }
  }
  /* 4. special fill on a frame and on memory */
  for (int k = 0; k < 2; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    blosc2_storage st = {.contiguous = k == 0, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    CHECK(blosc2_schunk_fill_special(sc, 100003, BLOSC2_SPECIAL_ZERO, 8 * 1000) == 101);
    snprintf(path, sizeof path, "%s/special_%d.b2frame", dir, k);
    blosc2_remove_urlpath(path);
    int64_t rc = blosc2_schunk_to_file(sc, path);
    if (rc <= 0) { fprintf(stderr, "special %d: to_file rc=%lld\n", k, (long long)rc); exit(1); }
    blosc2_schunk_free(sc);
  }
  /* 5. two frames in one file (append_file) */
  snprintf(path, sizeof path, "%s/appended.bin", dir);
  blosc2_remove_urlpath(path);
  FILE *f = fopen(path, "wb"); CHECK(f); fwrite("0123456789", 1, 10, f); fclose(f);
  for (int k = 0; k < 2; k++) {
    blosc2_cparams cp = params(k, 2);
    blosc2_storage st = {.contiguous = k == 0, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    add_content(sc, k, 2, 16000, 1);
    int64_t off = blosc2_schunk_append_file(sc, path);
    CHECK(off >= 10);
    printf("appended frame %d at %lld\n", k, (long long)off);
    blosc2_schunk_free(sc);
  }
  return 0;
}

static void digest(blosc2_schunk *sc, const char *name) {
  printf("%s: nchunks=%lld nbytes=%lld chunksize=%d typesize=%d compcode=%d clevel=%d filters=",
         name, (long long)sc->nchunks, (long long)sc->nbytes, sc->chunksize, sc->typesize,
         sc->compcode, sc->clevel);
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) printf("%d", sc->filters[i]);
  printf(" nmeta=%d nvlmeta=%d\n", sc->nmetalayers, sc->nvlmetalayers);
  for (int i = 0; i < sc->nmetalayers; i++) {
    uint8_t *content; int32_t clen;
    CHECK(blosc2_meta_get(sc, sc->metalayers[i]->name, &content, &clen) == i);
    printf("  meta %s len=%d h=%016llx\n", sc->metalayers[i]->name, clen,
           (unsigned long long)fnv(content, clen));
    free(content);
  }
  char *names[64];
  int n = blosc2_vlmeta_get_names(sc, names);
  for (int i = 0; i < n; i++) {
    uint8_t *content; int32_t clen;
    CHECK(blosc2_vlmeta_get(sc, names[i], &content, &clen) == i);
    printf("  vlmeta %s len=%d h=%016llx\n", names[i], clen, (unsigned long long)fnv(content, clen));
    free(content);
  }
  for (int64_t i = 0; i < sc->nchunks; i++) {
    uint8_t *chunk; bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
    CHECK(cb > 0);
    int32_t nbytes, cbytes;
    CHECK(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, NULL) == 0);
    uint8_t *out = malloc(nbytes > 0 ? nbytes : 1);
    int d = blosc2_schunk_decompress_chunk(sc, i, out, nbytes);
    CHECK(d == nbytes);
    int special = cb >= BLOSC_EXTENDED_HEADER_LENGTH ? (chunk[31] >> 4) & 7 : 0;
    /* uninitialized values have no defined content */
    uint64_t h = special == BLOSC2_SPECIAL_UNINIT ? 0 : fnv(out, nbytes);
    printf("  chunk %lld nbytes=%d special=%d data=%016llx\n", (long long)i, nbytes, special,
           (unsigned long long)h);
    free(out);
    if (needs_free) free(chunk);
  }
}

static int read_all(const char *dir) {
  char path[1024];
  static const char *kinds[] = {"mem", "disk", "tofile"};
  for (int k = 0; k < 3; k++) {
    for (int c = 0; c < 5; c++) {
      for (int t = 0; t < 5; t++) {
        snprintf(path, sizeof path, "%s/%s_%s_%d.b2frame", dir, kinds[k], CODECS[c], TYPESIZES[t]);
        blosc2_schunk *sc = blosc2_schunk_open(path);
        CHECK(sc != NULL);
        digest(sc, path + strlen(dir) + 1);
        blosc2_schunk_free(sc);
        /* and through from_buffer, with and without copy */
        FILE *f = fopen(path, "rb"); CHECK(f);
        fseek(f, 0, SEEK_END); long len = ftell(f); fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc(len); CHECK(fread(buf, 1, len, f) == (size_t)len); fclose(f);
        for (int copy = 0; copy < 2; copy++) {
          sc = blosc2_schunk_from_buffer(buf, len, copy);
          CHECK(sc != NULL);
          digest(sc, copy ? "  (from_buffer copy)" : "  (from_buffer)");
          blosc2_schunk_free(sc);
        }
        free(buf);
      }
    }
  }
  for (int c = 0; c < 5; c++) {
    for (int t = 0; t < 5; t++) {
      snprintf(path, sizeof path, "%s/sparse_%s_%d.b2frame", dir, CODECS[c], TYPESIZES[t]);
      blosc2_schunk *sc = blosc2_schunk_open(path);
      CHECK(sc != NULL);
      digest(sc, path + strlen(dir) + 1);
      /* and as a contiguous frame */
      uint8_t *cframe; bool needs_free;
      int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
      CHECK(len > 0);
      blosc2_schunk *cf = blosc2_schunk_from_buffer(cframe, len, true);
      CHECK(cf != NULL);
      digest(cf, "  (sparse to_buffer)");
      blosc2_schunk_free(cf);
      if (needs_free) free(cframe);
      blosc2_schunk_free(sc);
    }
  }
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/special_%d.b2frame", dir, k);
    blosc2_schunk *sc = blosc2_schunk_open(path);
    CHECK(sc != NULL);
    digest(sc, path + strlen(dir) + 1);
    blosc2_schunk_free(sc);
  }
  snprintf(path, sizeof path, "%s/appended.bin", dir);
  blosc2_schunk *sc = blosc2_schunk_open_offset(path, 10);
  CHECK(sc != NULL);
  digest(sc, "appended@10");
  int64_t second = 10 + blosc2_schunk_frame_len(sc);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open_offset(path, second);
  CHECK(sc != NULL);
  digest(sc, "appended@2");
  blosc2_schunk_free(sc);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s write|read DIR\n", argv[0]); return 2; }
  blosc2_init();
  int rc = strcmp(argv[1], "write") == 0 ? write_all(argv[2]) : read_all(argv[2]);
  blosc2_destroy();
  return rc;
}
