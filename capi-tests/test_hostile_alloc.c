/*
 * Memory on hostile input: small frames, arrays and chunks whose headers or
 * metalayers claim huge sizes, fed through the C entry points with the
 * address space limited to 512 MiB.  Each call must return a clean error
 * (or a clean success) instead of dying for want of memory.
 *
 * The inputs are built here with the library itself, then patched:
 *  - a b2nd frame whose metalayer claims chunks of 1.76 GB over chunks of
 *    a few KB (typesize 8964, shape [1000], chunkshape [196396]);
 *  - a frame whose offsets index claims 2^28 chunks in 32 bytes;
 *  - a frame whose header claims 2^40 bytes in 2^31 fixed-size chunks;
 *  - a frame whose metalayer claims 2 GB of content;
 *  - a chunk claiming 500 MiB in one block, read into small buffers;
 *  - a shuffled VL-block chunk whose first block claims 300 MiB: its output
 *    buffer fits under the limit, the filter's scratch buffers do not (the
 *    call must fail cleanly instead of aborting on the scratch).
 * And one honest array that must be readable within the limit: 1000 items
 * of 8964 bytes in one repeated-value chunk of 1.76 GB, which b2nd_to_cbuffer
 * reads block by block instead of through a chunk-sized buffer.
 * Every frame goes through blosc2_schunk_from_buffer and, written to a
 * temporary file, blosc2_schunk_open; the b2nd one through b2nd_from_cframe,
 * b2nd_open and b2nd_to_cbuffer.
 */
#include <sys/resource.h>
#include <unistd.h>

#include "b2nd.h"
#include "test_common.h"

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int64_t be64(const uint8_t *p) {
  return (int64_t)(((uint64_t)be32(p) << 32) | be32(p + 4));
}

static void put_be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put_be64(uint8_t *p, int64_t v) {
  put_be32(p, (uint32_t)((uint64_t)v >> 32));
  put_be32(p + 4, (uint32_t)v);
}

static void put_le32(uint8_t *p, int32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

/* The frame of a super-chunk, in a malloc'ed buffer. */
static uint8_t *frame_of(blosc2_schunk *sc, int64_t *len) {
  uint8_t *cframe = NULL;
  bool needs_free = false;
  *len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  REQUIRE(*len > 0);
  uint8_t *copy = tc_malloc((size_t)*len);
  memcpy(copy, cframe, (size_t)*len);
  if (needs_free) free(cframe);
  return copy;
}

/* A frame of three chunks of 1000 bytes and one small metalayer. */
static uint8_t *small_frame(int64_t *len) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  REQUIRE(blosc2_meta_add(sc, "small", (uint8_t *)"abc", 3) >= 0);
  uint8_t data[1000];
  for (int i = 0; i < 3; i++) {
    tc_fill(data, sizeof data, TC_FILL_RAMP32, (uint64_t)i);
    REQUIRE(blosc2_schunk_append_buffer(sc, data, sizeof data) == i + 1);
  }
  uint8_t *f = frame_of(sc, len);
  blosc2_schunk_free(sc);
  return f;
}

/* `frame` with its offsets index replaced by `index` (frame length patched). */
static uint8_t *with_offsets_index(const uint8_t *frame, int64_t len, const uint8_t *index,
                                   int32_t index_len, int64_t *out_len) {
  int64_t data_end = (int64_t)be32(frame + 11) + be64(frame + 39);
  int64_t trailer_len = be32(frame + len - 22);
  *out_len = data_end + index_len + trailer_len;
  uint8_t *out = tc_malloc((size_t)*out_len);
  memcpy(out, frame, (size_t)data_end);
  memcpy(out + data_end, index, (size_t)index_len);
  memcpy(out + data_end + index_len, frame + len - trailer_len, (size_t)trailer_len);
  put_be64(out + 16, *out_len);
  return out;
}

/* Typesize 8964, four chunks of different sizes, and a "b2nd" metalayer
 * claiming shape [1000], chunkshape [196396], blockshape [64]. */
static uint8_t *lying_b2nd_frame(int64_t *len) {
  const int32_t ts = 8964;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int64_t shape[1] = {1000};
  int32_t chunkshape[1] = {196396}, blockshape[1] = {64};
  uint8_t *meta = NULL;
  int mlen = b2nd_serialize_meta(1, shape, chunkshape, blockshape, "|V8964", 0, &meta);
  REQUIRE(mlen > 0);
  REQUIRE(blosc2_meta_add(sc, "b2nd", meta, mlen) >= 0);
  free(meta);
  uint8_t *data = tc_malloc((size_t)ts * 4);
  for (int i = 0; i < 4; i++) {
    int32_t n = ts * (i + 1);
    for (int32_t k = 0; k < n; k++) data[k] = (uint8_t)(k % 7 + i);
    uint8_t *chunk = tc_malloc((size_t)n + BLOSC2_MAX_OVERHEAD);
    int cb = blosc2_compress_ctx(sc->cctx, data, n, chunk, n + BLOSC2_MAX_OVERHEAD);
    REQUIRE(cb > 0);
    REQUIRE(blosc2_schunk_append_chunk(sc, chunk, true) == i + 1);
    free(chunk);
  }
  free(data);
  uint8_t *f = frame_of(sc, len);
  blosc2_schunk_free(sc);
  return f;
}

static void write_file(const char *path, const uint8_t *buf, int64_t len) {
  FILE *f = fopen(path, "wb");
  REQUIRE(f != NULL);
  REQUIRE(fwrite(buf, 1, (size_t)len, f) == (size_t)len);
  fclose(f);
}

/* Open a frame both ways; whatever opens must read its first chunk into a
 * small buffer without dying. */
static void feed_frame(const char *what, const uint8_t *frame, int64_t len, const char *path) {
  uint8_t *copy = tc_malloc((size_t)len);
  memcpy(copy, frame, (size_t)len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(copy, len, true);
  uint8_t out[1000];
  if (sc != NULL) {
    fprintf(stderr, "note: %s: blosc2_schunk_from_buffer opened it (%" PRId64 " chunks)\n",
            what, sc->nchunks);
    (void)blosc2_schunk_decompress_chunk(sc, 0, out, sizeof out);
    blosc2_schunk_free(sc);
  }
  free(copy);
  write_file(path, frame, len);
  sc = blosc2_schunk_open(path);
  if (sc != NULL) {
    fprintf(stderr, "note: %s: blosc2_schunk_open opened it\n", what);
    (void)blosc2_schunk_decompress_chunk(sc, 0, out, sizeof out);
    blosc2_schunk_free(sc);
  }
  unlink(path);
  CHECK(1);
}

static void test_lying_b2nd(const char *path) {
  int64_t len;
  uint8_t *frame = lying_b2nd_frame(&len);
  CHECK(len < 64 * 1024);
  int64_t outlen = 1000 * 8964;
  uint8_t *out = tc_malloc((size_t)outlen);
  b2nd_array_t *arr = NULL;
  if (b2nd_from_cframe(frame, len, true, &arr) >= 0) {
    CHECK_NEG(b2nd_to_cbuffer(arr, out, outlen));
    b2nd_free(arr);
  } else {
    fprintf(stderr, "note: b2nd_from_cframe refused the lying array\n");
  }
  write_file(path, frame, len);
  arr = NULL;
  if (b2nd_open(path, &arr) >= 0) {
    CHECK_NEG(b2nd_to_cbuffer(arr, out, outlen));
    b2nd_free(arr);
  } else {
    fprintf(stderr, "note: b2nd_open refused the lying array\n");
  }
  unlink(path);
  free(out);
  free(frame);
}

static void test_huge_repeated_value_chunk(void) {
  const int32_t ts = 8964;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  int64_t shape[1] = {1000};
  int32_t chunkshape[1] = {196396}, blockshape[1] = {64};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&st, 1, shape, chunkshape, blockshape, "|V8964", 0, NULL, 0);
  REQUIRE(ctx != NULL);
  uint8_t *value = tc_malloc((size_t)ts);
  for (int32_t k = 0; k < ts; k++) value[k] = (uint8_t)(k % 251);
  b2nd_array_t *arr = NULL;
  REQUIRE(b2nd_full(ctx, &arr, value) == 0);
  int64_t outlen = 1000 * (int64_t)ts;
  uint8_t *out = tc_malloc((size_t)outlen);
  CHECK_EQ_INT(b2nd_to_cbuffer(arr, out, outlen), 0);
  int same = 1;
  for (int64_t i = 0; i < 1000; i++) {
    if (memcmp(out + i * ts, value, (size_t)ts) != 0) same = 0;
  }
  CHECK(same);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  free(out);
  free(value);
}

static void test_hostile_frames(const char *path) {
  int64_t len;
  uint8_t *good = small_frame(&len);
  CHECK(len < 2048);

  /* An offsets index of 2^28 zeros (all chunks at offset 0) in 32 bytes,
   * with a variable chunksize and 2^40 bytes. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  uint8_t zeros[BLOSC_EXTENDED_HEADER_LENGTH];
  int zlen = blosc2_chunk_zeros(cp, INT32_MAX - 32 - 7, zeros, sizeof zeros);
  REQUIRE(zlen > 0);
  int64_t many_len;
  uint8_t *many = with_offsets_index(good, len, zeros, zlen, &many_len);
  put_be32(many + 58, 0);
  put_be64(many + 30, (int64_t)1 << 40);
  feed_frame("offsets index of 2^28 chunks", many, many_len, path);
  free(many);

  uint8_t *fixed = tc_malloc((size_t)len);
  memcpy(fixed, good, (size_t)len);
  put_be64(fixed + 30, (int64_t)1 << 40);
  put_be32(fixed + 58, 512);
  feed_frame("2^40 bytes in 2^31 chunks", fixed, len, path);
  free(fixed);

  uint8_t *meta = tc_malloc((size_t)len);
  memcpy(meta, good, (size_t)len);
  for (int64_t i = 0; i + 3 <= len; i++) {
    if (meta[i] == 0xc6 && meta[i + 1] == 0 && meta[i + 2] == 0) {
      put_be32(meta + i + 1, 0x7ffffff0u);
      break;
    }
  }
  feed_frame("metalayer of 2 GB", meta, len, path);
  free(meta);
  free(good);
}

static void test_huge_chunk_claims(void) {
  uint8_t data[4096];
  tc_fill(data, sizeof data, TC_FILL_RAMP32, 3);
  uint8_t chunk[4096 + BLOSC2_MAX_OVERHEAD];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cb = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  REQUIRE(cb > 0);
  put_le32(chunk + 4, 500 << 20);
  put_le32(chunk + 8, 500 << 20);
  uint8_t small[4096];
  CHECK_NEG(blosc2_decompress(chunk, cb, small, sizeof small));
  CHECK_NEG(blosc2_getitem(chunk, cb, 0, 16, small, sizeof small));
}

static void test_vl_block_claim(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.typesize = 4;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(dctx != NULL);
  uint8_t chunk[4096];
  int csize = tc_vl_chunk_claiming(cp, 300 << 20, chunk, sizeof chunk);
  uint8_t *blk = NULL;
  int32_t bsz = 0;
  CHECK_NEG(blosc2_vldecompress_block_ctx(dctx, chunk, csize, 0, &blk, &bsz));
  void *dests[2] = {0};
  int32_t dsizes[2] = {0};
  CHECK_NEG(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, 2));
  blosc2_free_ctx(dctx);
}

int main(void) {
  /* Valgrind needs more address space than the limit leaves. */
  if (getenv("BLOSC2_UNDER_VALGRIND") == NULL) {
    struct rlimit lim = {512u << 20, 512u << 20};
    REQUIRE(setrlimit(RLIMIT_AS, &lim) == 0);
  }
  blosc2_init();
  char path[64];
  snprintf(path, sizeof path, "/tmp/test_hostile_alloc_%d.b2frame", (int)getpid());
  test_lying_b2nd(path);
  test_hostile_frames(path);
  test_huge_chunk_claims();
  test_vl_block_claim();
  test_huge_repeated_value_chunk();
  blosc2_destroy();
  printf("test_hostile_alloc: %d checks, %d failures\n", tc_checks, tc_failures);
  return tc_failures ? 1 : 0;
}
