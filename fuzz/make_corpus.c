/* Writes the seed corpus of the fuzz targets with the library itself:
   fuzz/corpus/chunk (chunks of several codecs and filters, special chunks),
   fuzz/corpus/frame (contiguous frames with metalayers) and
   fuzz/corpus/b2nd (b2nd arrays as contiguous frames),
   fuzz/corpus/vlchunk (variable-length-block chunks),
   fuzz/corpus/lazy (contiguous frames, read from disk as lazy chunks; one
   lazy chunk also goes to fuzz/corpus/chunk) and
   fuzz/corpus/sframe (sparse frames, index and chunk files joined by the
   separator of fuzz/sframe.c) and
   fuzz/corpus/diff_compress (compression parameters and data, laid out as
   fuzz/diff_compress.c reads them).
   Usage: make_corpus OUTDIR   (run.sh builds and runs it when needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <blosc2.h>
#include <b2nd.h>

/* Only here so that the sanitizer-coverage runtime links; never called. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)data;
  (void)size;
  return 0;
}

static const char *outdir;

static void save(const char *sub, const char *name, const void *buf, int64_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/%s", outdir, sub, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(buf, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

/* 4 KiB of int32 values: a slow ramp with some noise, so codecs find work. */
static void fill(int32_t *v, int n, int seed) {
  uint32_t x = 2463534242u + (uint32_t)seed;
  for (int i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v[i] = i * 3 + (int32_t)(x % 7);
  }
}

static void chunk(const char *name, uint8_t codec, uint8_t clevel, int32_t typesize,
                  uint8_t filter, int8_t filter_meta, int32_t blocksize, int seed) {
  int32_t src[1024];
  uint8_t dest[4096 + BLOSC2_MAX_OVERHEAD];
  fill(src, 1024, seed);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec;
  cp.clevel = clevel;
  cp.typesize = typesize;
  cp.blocksize = blocksize;
  memset(cp.filters, 0, sizeof cp.filters);
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
  cp.filters_meta[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter_meta;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int n = blosc2_compress_ctx(cctx, src, sizeof src, dest, sizeof dest);
  blosc2_free_ctx(cctx);
  if (n <= 0) {
    fprintf(stderr, "compressing %s failed: %d\n", name, n);
    exit(1);
  }
  save("chunk", name, dest, n);
}

static void frame(const char *name, uint8_t codec, int nchunks, int with_meta) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec;
  cp.typesize = 4;
  blosc2_storage storage = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  if (with_meta) {
    uint8_t meta[8] = {0x93, 1, 2, 3, 4, 5, 6, 7};
    if (blosc2_meta_add(sc, "fuzzmeta", meta, sizeof meta) < 0) {
      fprintf(stderr, "meta_add failed\n");
      exit(1);
    }
    char vl[] = "a variable-length metalayer";
    if (blosc2_vlmeta_add(sc, "fuzzvl", (uint8_t *)vl, sizeof vl, NULL) < 0) exit(1);
  }
  int32_t src[256];
  for (int i = 0; i < nchunks; i++) {
    fill(src, 256, i);
    if (blosc2_schunk_append_buffer(sc, src, sizeof src) < 0) {
      fprintf(stderr, "append failed\n");
      exit(1);
    }
  }
  uint8_t *buf = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  if (len < 0) {
    fprintf(stderr, "to_buffer failed\n");
    exit(1);
  }
  save("frame", name, buf, len);
  save("lazy", name, buf, len);
  if (needs_free) free(buf);
  blosc2_schunk_free(sc);
}

static void vlchunk(const char *name, uint8_t codec, int nblocks) {
  static uint8_t blocks[8][700];
  const void *srcs[8];
  int32_t sizes[8];
  for (int i = 0; i < nblocks; i++) {
    sizes[i] = 100 + 75 * i;
    for (int j = 0; j < sizes[i]; j++) blocks[i][j] = (uint8_t)(j / (i + 2));
    srcs[i] = blocks[i];
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec;
  cp.typesize = 1;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t dest[8 * 700 + 8 * BLOSC2_MAX_OVERHEAD];
  int n = blosc2_vlcompress_ctx(cctx, srcs, sizes, nblocks, dest, sizeof dest);
  blosc2_free_ctx(cctx);
  if (n <= 0) {
    fprintf(stderr, "vlcompress %s failed: %d\n", name, n);
    exit(1);
  }
  save("vlchunk", name, dest, n);
}

static int64_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Append the file at `path` to buf (capacity cap) at *len. */
static void append_file(uint8_t *buf, int64_t cap, int64_t *len, const char *path) {
  FILE *f = fopen(path, "rb");
  int64_t n = file_size(path);
  if (f == NULL || n < 0 || *len + n > cap || fread(buf + *len, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  *len += n;
}

/* A sparse frame built in a scratch directory, saved as index + chunk files
   joined by the separator of fuzz/sframe.c; also saves one lazy chunk of
   the same data as a contiguous frame on disk to fuzz/corpus/chunk. */
static void sframe(const char *name, uint8_t codec, int nchunks, int with_meta,
                   const char *lazy_name) {
  char dir[] = "/tmp/blosc2-corpus-XXXXXX";
  if (mkdtemp(dir) == NULL) exit(1);
  char urlpath[256], cpath[256], path[300];
  snprintf(urlpath, sizeof urlpath, "%s/s.b2frame", dir);
  snprintf(cpath, sizeof cpath, "%s/c.b2frame", dir);
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = codec;
    cp.typesize = 4;
    blosc2_storage storage = {.contiguous = contiguous, .cparams = &cp,
                              .urlpath = contiguous ? cpath : urlpath};
    blosc2_schunk *sc = blosc2_schunk_new(&storage);
    if (sc == NULL) exit(1);
    if (with_meta) {
      uint8_t meta[4] = {0x93, 9, 8, 7};
      char vl[] = "sparse vlmeta";
      if (blosc2_meta_add(sc, "sfmeta", meta, sizeof meta) < 0) exit(1);
      if (blosc2_vlmeta_add(sc, "sfvl", (uint8_t *)vl, sizeof vl, NULL) < 0) exit(1);
    }
    int32_t src[256];
    for (int i = 0; i < nchunks; i++) {
      fill(src, 256, 10 + i);
      if (blosc2_schunk_append_buffer(sc, src, sizeof src) < 0) exit(1);
    }
    blosc2_schunk_free(sc);
  }
  static uint8_t buf[1 << 16];
  int64_t len = 0;
  snprintf(path, sizeof path, "%s/chunks.b2frame", urlpath);
  append_file(buf, sizeof buf, &len, path);
  for (int i = 0; i < nchunks; i++) {
    const char sep[] = "#B2CHUNK#";
    if (len + (int64_t)strlen(sep) > (int64_t)sizeof buf) exit(1);
    memcpy(buf + len, sep, strlen(sep));
    len += (int64_t)strlen(sep);
    snprintf(path, sizeof path, "%s/%08X.chunk", urlpath, (unsigned)i);
    append_file(buf, sizeof buf, &len, path);
    unlink(path);
  }
  save("sframe", name, buf, len);
  snprintf(path, sizeof path, "%s/chunks.b2frame", urlpath);
  unlink(path);
  rmdir(urlpath);
  if (lazy_name != NULL) {
    blosc2_schunk *sc = blosc2_schunk_open(cpath);
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int n = sc != NULL ? blosc2_schunk_get_lazychunk(sc, 0, &chunk, &needs_free) : -1;
    if (n <= 0) exit(1);
    save("chunk", lazy_name, chunk, n);
    if (needs_free) free(chunk);
    blosc2_schunk_free(sc);
  }
  unlink(cpath);
  rmdir(dir);
}

static void array(const char *name, int8_t ndim, const int64_t *shape, const int32_t *chunkshape,
                  const int32_t *blockshape, int32_t typesize, uint8_t codec) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec;
  cp.typesize = typesize;
  blosc2_storage storage = {.contiguous = true, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, ndim, shape, chunkshape, blockshape, NULL, 0,
                                        NULL, 0);
  int64_t nitems = 1;
  for (int i = 0; i < ndim; i++) nitems *= shape[i];
  int64_t size = nitems * typesize;
  uint8_t *src = malloc((size_t)size);
  for (int64_t i = 0; i < size; i++) src[i] = (uint8_t)(i / 3);
  b2nd_array_t *arr = NULL;
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &arr, src, size) != 0) exit(1);
  uint8_t *buf = NULL;
  int64_t len = 0;
  bool needs_free = false;
  if (b2nd_to_cframe(arr, &buf, &len, &needs_free) != 0) exit(1);
  save("b2nd", name, buf, len);
  if (needs_free) free(buf);
  /* The "b2nd" metalayer alone, a seed for b2nd_deserialize_meta. */
  uint8_t *meta = NULL;
  int32_t meta_len = 0;
  char meta_name[256];
  if (blosc2_meta_get(arr->sc, "b2nd", &meta, &meta_len) < 0) exit(1);
  snprintf(meta_name, sizeof meta_name, "%s-meta", name);
  save("b2nd", meta_name, meta, meta_len);
  free(meta);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  free(src);
}

/* A diff_compress input (fuzz/diff_compress.c's read_params): the codec
   byte (codec index 0-4 = blosclz, lz4, lz4hc, zlib, zstd; 0x40 two
   threads, 0x80 use_dict), clevel and splitmode, typesize, the filter
   pipeline (0 none, 8 shuffle, 10 bitshuffle, 12 delta, 13 trunc_prec,
   14 bytedelta, 15 int_trunc) and its meta bytes, the blocksize mode and
   its two bytes, the data transform and the length it makes, then
   `len` bytes of data. */
static void compress_seed(const char *name, uint8_t codec, int clevel, int splitmode,
                          int typesize, const uint8_t filters[6], const int8_t meta[6],
                          uint8_t bs_mode, uint8_t bs1, uint8_t bs2, uint8_t transform,
                          uint32_t length, const void *data, size_t len) {
  uint8_t buf[22 + 8192];
  if (len > 8192) exit(1);
  buf[0] = codec;
  buf[1] = (uint8_t)(clevel + 10 * (splitmode - 1));
  int common[5] = {1, 2, 4, 8, 16};
  buf[2] = 200;
  buf[3] = (uint8_t)(typesize - 1);
  for (int i = 0; i < 5; i++)
    if (common[i] == typesize) buf[2] = (uint8_t)i;
  for (int i = 0; i < 6; i++) {
    buf[4 + i] = filters[i];
    buf[10 + i] = (uint8_t)meta[i];
  }
  buf[16] = bs_mode;
  buf[17] = bs1;
  buf[18] = bs2;
  buf[19] = (uint8_t)(transform | (length % 4) << 3);
  buf[20] = (uint8_t)(length / 4);
  buf[21] = (uint8_t)(length / 4 >> 8);
  if (len > 0) memcpy(buf + 22, data, len);
  save("diff_compress", name, buf, (int64_t)(22 + len));
}

static void compress_seeds(void) {
  int32_t ramp[1024];
  fill(ramp, 1024, 7);
  const char text[] = "every chunk we write is readable by the real c-blosc2, and back. ";
  const int8_t no_meta[6] = {0};
  const uint8_t shuffle[6] = {0, 0, 0, 0, 0, 8}, bitshuffle[6] = {0, 0, 0, 0, 0, 10};
  const uint8_t delta[6] = {0, 0, 0, 0, 12, 8}, none[6] = {0};
  /* Transforms: 0 the data as is, 2 repeated, 3 a ramp, 4 sparse, 5 runs,
     6 floats, 7 zero-padded. */
  compress_seed("blosclz-shuffle-raw", 0, 5, 4, 4, shuffle, no_meta, 0, 0, 0, 0, 0, ramp,
                sizeof ramp);
  compress_seed("lz4-bitshuffle-ramp", 1, 5, 4, 8, bitshuffle, no_meta, 0, 0, 0, 3, 65536,
                "\x03", 1);
  compress_seed("zstd-dict-repeat", 0x80 | 4, 9, 3, 4, shuffle, no_meta, 0, 0, 0, 2, 32768,
                text, sizeof text - 1);
  compress_seed("zlib-delta-odd-size", 3, 5, 4, 2, delta, no_meta, 6, 0, 1, 3, 4097, "\x05\x01",
                2);
  const uint8_t trunc[6] = {0, 0, 0, 13, 8, 0};
  const int8_t trunc_meta[6] = {0, 0, 0, 20, 0, 0};
  compress_seed("lz4hc-trunc-prec-doubles", 2, 6, 4, 8, trunc, trunc_meta, 0, 0, 0, 6, 16384,
                "\x01\x02", 2);
  const uint8_t bytedelta[6] = {0, 0, 0, 0, 8, 14};
  const int8_t bytedelta_meta[6] = {0, 0, 0, 0, 0, 4};
  compress_seed("zstd-bytedelta-floats", 4, 3, 4, 4, bytedelta, bytedelta_meta, 0, 0, 0, 6, 8192,
                "\x07", 1);
  const uint8_t int_trunc[6] = {15, 0, 0, 0, 0, 8};
  const int8_t int_trunc_meta[6] = {-3, 0, 0, 0, 0, 0};
  compress_seed("blosclz-int-trunc", 0, 9, 2, 2, int_trunc, int_trunc_meta, 0, 0, 0, 3, 6000,
                "\x09", 1);
  compress_seed("empty", 0, 0, 1, 1, none, no_meta, 0, 0, 0, 0, 0, NULL, 0);
  const uint8_t runs[] = {7, 1, 0, 2, 30, 3, 2, 0, 200, 9};
  compress_seed("typesize3-blocksize7-2threads", 0x40 | 1, 5, 1, 3, shuffle, no_meta, 4, 6, 0, 5,
                1000, runs, sizeof runs);
  /* README's blocksize row: typesize 8, 65549 bytes, a blocksize larger
     than the data (mode 7, 2: the data's length + 200), never split. */
  compress_seed("blocksize-past-data", 0, 5, 2, 8, shuffle, no_meta, 7, 2, 200, 3, 65549, "\x01",
                1);
  /* typesize 255, always split, blocksize 4096 (mode 6: 512 * 8). */
  compress_seed("typesize255-always-split", 4, 5, 1, 255, shuffle, no_meta, 6, 0, 2, 4, 20000,
                text, sizeof text - 1);
  const uint8_t two_deltas[6] = {12, 0, 8, 0, 12, 0};
  compress_seed("delta-shuffle-delta", 1, 5, 4, 4, two_deltas, no_meta, 0, 0, 0, 3, 8192, "\x02",
                1);
  compress_seed("zstd-sparse-odd-size", 4, 1, 3, 16, bitshuffle, no_meta, 4, 100, 0, 4, 3001,
                text, sizeof text - 1);
  compress_seed("lz4-padded-hostile-blocksize", 1, 9, 4, 8, shuffle, no_meta, 7, 0, 5, 7, 5000,
                text, sizeof text - 1);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  outdir = argv[1];
  blosc2_init();
  chunk("blosclz-shuffle", BLOSC_BLOSCLZ, 5, 4, BLOSC_SHUFFLE, 0, 0, 1);
  chunk("lz4-bitshuffle", BLOSC_LZ4, 5, 4, BLOSC_BITSHUFFLE, 0, 1024, 2);
  chunk("lz4hc-noshuffle", BLOSC_LZ4HC, 9, 8, BLOSC_NOSHUFFLE, 0, 0, 3);
  chunk("zlib-delta", BLOSC_ZLIB, 5, 4, BLOSC_DELTA, 0, 2048, 4);
  chunk("zstd-shuffle8", BLOSC_ZSTD, 3, 8, BLOSC_SHUFFLE, 0, 0, 5);
  chunk("memcpyed", BLOSC_BLOSCLZ, 0, 4, BLOSC_SHUFFLE, 0, 0, 6);
  uint8_t special[BLOSC_EXTENDED_HEADER_LENGTH + 8];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  int n = blosc2_chunk_zeros(cp, 4096, special, sizeof special);
  if (n < 0) return 1;
  save("chunk", "zeros", special, n);
  int32_t rv = 0x01020304;
  n = blosc2_chunk_repeatval(cp, 4096, special, sizeof special, &rv);
  if (n < 0) return 1;
  save("chunk", "repeatval", special, n);
  frame("blosclz-3chunks-meta", BLOSC_BLOSCLZ, 3, 1);
  frame("zstd-2chunks", BLOSC_ZSTD, 2, 0);
  vlchunk("vl-zstd-3blocks", BLOSC_ZSTD, 3);
  vlchunk("vl-lz4-6blocks", BLOSC_LZ4, 6);
  sframe("blosclz-3chunks-meta", BLOSC_BLOSCLZ, 3, 1, "lazy-blosclz");
  sframe("zstd-2chunks", BLOSC_ZSTD, 2, 0, NULL);
  int64_t s2[2] = {20, 30};
  int32_t c2[2] = {10, 15}, b2[2] = {5, 5};
  array("2d-f64", 2, s2, c2, b2, 8, BLOSC_LZ4);
  int64_t s3[3] = {7, 9, 11};
  int32_t c3[3] = {4, 5, 6}, b3[3] = {2, 3, 3};
  array("3d-u8", 3, s3, c3, b3, 1, BLOSC_ZSTD);
  compress_seeds();
  blosc2_free_resources();
  return 0;
}
