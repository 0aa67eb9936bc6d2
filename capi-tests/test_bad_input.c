/* Corrupted input: truncated chunks, mutated header fields, flipped payload
 * bytes and random garbage given to decompress / getitem / cbuffer_sizes /
 * cbuffer_validate.  Invalid input must give a negative code (or, when a
 * mutation leaves a still-decodable chunk, a size within bounds), never a
 * crash or an out-of-bounds write.
 *
 * Every mutation is deterministic (fixed seeds).  Each group of cases runs in
 * a forked child so a crash is reported as a failure naming the group; the
 * parent keeps going.  Payload fuzzing lives in test_bad_input_fuzz.c. */
#include "test_common.h"
#include <sys/wait.h>
#include <unistd.h>

#define GUARD 64

typedef struct {
  uint8_t *chunk;
  int32_t csize;
  int32_t nbytes;
  const char *name;
} sample;

static sample samples[8];
static int nsamples;

static void add_sample(const char *name, int codec, int filter, int typesize, int clevel,
                       int32_t blocksize, int32_t n, int kind) {
  uint8_t *src = tc_malloc(n);
  tc_fill(src, n, kind, (uint64_t)nsamples);
  uint8_t *chunk = tc_malloc(n + BLOSC2_MAX_OVERHEAD);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.typesize = typesize;
  cp.clevel = (uint8_t)clevel;
  cp.blocksize = blocksize;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, src, n, chunk, n + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(cctx);
  REQUIRE(csize > 0);
  samples[nsamples].chunk = chunk;
  samples[nsamples].csize = csize;
  samples[nsamples].nbytes = n;
  samples[nsamples].name = name;
  nsamples++;
  free(src);
}

/* Decompress `buf` (srcsize bytes) into a guarded buffer of `destsize`.
   Returns the library result; flags writes past destsize as failure. */
static int guarded_decompress(const uint8_t *buf, int32_t srcsize, int32_t destsize, int *overflow) {
  uint8_t *out = tc_malloc((size_t)destsize + GUARD);
  memset(out, 0xC3, (size_t)destsize + GUARD);
  int rc = blosc2_decompress(buf, srcsize, out, destsize);
  *overflow = 0;
  for (int i = 0; i < GUARD; i++) *overflow |= out[destsize + i] != 0xC3;
  free(out);
  return rc;
}

static int guarded_getitem(const uint8_t *buf, int32_t srcsize, int start, int nitems, int32_t destsize,
                           int *overflow) {
  uint8_t *out = tc_malloc((size_t)destsize + GUARD);
  memset(out, 0xC3, (size_t)destsize + GUARD);
  int rc = blosc2_getitem(buf, srcsize, start, nitems, out, destsize);
  *overflow = 0;
  for (int i = 0; i < GUARD; i++) *overflow |= out[destsize + i] != 0xC3;
  free(out);
  return rc;
}

/* ---- case groups (run in children) ---- */

static void group_truncation(const sample *s) {
  uint8_t *buf = tc_malloc(s->csize);
  memcpy(buf, s->chunk, s->csize);
  int step = s->csize > 4000 ? s->csize / 997 : 1;
  for (int32_t len = 0; len < s->csize; len += step) {
    /* copy into an exactly-sized heap block so over-reads are detectable
       by memory checkers */
    uint8_t *t = tc_malloc(len);
    memcpy(t, buf, len);
    int ov;
    int rc = guarded_decompress(t, len, s->nbytes, &ov);
    CHECK_MSG(rc < 0, "%s: truncated to %d: decompress rc %d", s->name, len, rc);
    CHECK_MSG(!ov, "%s: truncated to %d: write past dest", s->name, len);
    rc = guarded_getitem(t, len, 0, 1, s->nbytes, &ov);
    CHECK_MSG(rc < 0 || len >= BLOSC_EXTENDED_HEADER_LENGTH,
              "%s: truncated to %d: getitem rc %d", s->name, len, rc);
    CHECK_MSG(!ov, "%s: truncated to %d: getitem write past dest", s->name, len);
    if (len >= BLOSC_MIN_HEADER_LENGTH) {
      size_t nb = 0;
      CHECK_MSG(blosc1_cbuffer_validate(t, len, &nb) < 0, "%s: validate accepted length %d", s->name, len);
    }
    free(t);
  }
  free(buf);
}

static void group_header_fields(const sample *s) {
  uint8_t *buf = tc_malloc(s->csize);
  uint8_t *out = tc_malloc(s->nbytes);
  int ov, rc;
#define RESET() memcpy(buf, s->chunk, s->csize)
  /* (bad version bytes: see test_bad_version.c) */
  /* cbytes larger than the buffer */
  RESET();
  int32_t big = s->csize + 1000;
  memcpy(buf + BLOSC2_CHUNK_CBYTES, &big, 4);
  rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
  CHECK_MSG(rc < 0, "%s: cbytes > srcsize accepted (%d)", s->name, rc);
  size_t nb;
  CHECK(blosc1_cbuffer_validate(buf, s->csize, &nb) < 0);
  /* negative nbytes / cbytes: see test_bad_header_strict.c */
  /* nbytes larger than dest */
  RESET();
  int32_t more = s->nbytes + 1;
  memcpy(buf + BLOSC2_CHUNK_NBYTES, &more, 4);
  rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
  CHECK_MSG(rc < 0, "%s: nbytes > destsize accepted (%d)", s->name, rc);
  CHECK(!ov);
  /* nbytes beyond the maximum buffer size */
  RESET();
  int32_t huge = INT32_MAX;
  memcpy(buf + BLOSC2_CHUNK_NBYTES, &huge, 4);
  CHECK(guarded_decompress(buf, s->csize, s->nbytes, &ov) < 0);
  CHECK(!ov);
  /* blocksize 0, negative, or larger than the maximum */
  static const int32_t bad_bs[] = {0, -1, BLOSC2_MAXBLOCKSIZE + 1};
  for (int i = 0; i < 3; i++) {
    RESET();
    memcpy(buf + BLOSC2_CHUNK_BLOCKSIZE, &bad_bs[i], 4);
    rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
    CHECK_MSG(rc < 0, "%s: blocksize %d accepted (%d)", s->name, bad_bs[i], rc);
    CHECK(!ov);
    rc = guarded_getitem(buf, s->csize, 0, 1, s->nbytes, &ov);
    CHECK_MSG(rc < 0, "%s: getitem with blocksize %d accepted (%d)", s->name, bad_bs[i], rc);
    CHECK(!ov);
  }
  /* typesize 0 */
  RESET();
  buf[BLOSC2_CHUNK_TYPESIZE] = 0;
  rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
  CHECK_MSG(rc < 0, "%s: typesize 0 accepted (%d)", s->name, rc);
  CHECK(!ov);
  /* undefined filter id in the pipeline */
  RESET();
  if (!(buf[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED)) {
    buf[BLOSC2_CHUNK_FILTER_CODES + 2] = 17;
    rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
    CHECK_MSG(rc < 0, "%s: undefined filter accepted (%d)", s->name, rc);
    CHECK(!ov);
  }
  /* every single header byte set to each of several values: no crash, no
     overflow, result negative or the (possibly mutated) nbytes */
  static const uint8_t vals[] = {0x00, 0x01, 0x7F, 0x80, 0xFF};
  for (int pos = 0; pos < BLOSC_EXTENDED_HEADER_LENGTH; pos++) {
    for (int v = 0; v < 5; v++) {
      RESET();
      buf[pos] = vals[v];
      rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
      CHECK_MSG(!ov, "%s: header[%d]=%d: write past dest", s->name, pos, vals[v]);
      CHECK_MSG(rc < 0 || rc <= s->nbytes, "%s: header[%d]=%d: rc %d", s->name, pos, vals[v], rc);
      rc = guarded_getitem(buf, s->csize, 3, 5, s->nbytes, &ov);
      CHECK_MSG(!ov, "%s: header[%d]=%d: getitem write past dest", s->name, pos, vals[v]);
      size_t nbv;
      (void)blosc1_cbuffer_validate(buf, s->csize, &nbv);
    }
  }
#undef RESET
  free(buf);
  free(out);
}

static void group_garbage(int seed_base) {
  for (int seed = seed_base; seed < seed_base + 200; seed++) {
    uint64_t st = (uint64_t)seed * 7919 + 1;
    int32_t len = (int32_t)(tc_rand(&st) % 300);
    uint8_t *g = tc_malloc(len);
    for (int32_t i = 0; i < len; i++) g[i] = (uint8_t)tc_rand(&st);
    /* a plausible but wrong version byte makes garbage reach deeper checks */
    if (len > 0 && (seed & 1)) g[0] = (uint8_t)(1 + seed % BLOSC2_VERSION_FORMAT);
    int ov;
    int rc = guarded_decompress(g, len, 4096, &ov);
    CHECK_MSG(rc < 0 || rc <= 4096, "garbage seed %d: rc %d", seed, rc);
    CHECK_MSG(!ov, "garbage seed %d: write past dest", seed);
    rc = guarded_getitem(g, len, 0, 4, 4096, &ov);
    CHECK_MSG(!ov, "garbage seed %d: getitem write past dest", seed);
    if (len >= BLOSC_MIN_HEADER_LENGTH) {
      size_t nb;
      (void)blosc1_cbuffer_validate(g, len, &nb);
      int32_t a, b, c;
      (void)blosc2_cbuffer_sizes(g, &a, &b, &c);
    }
    free(g);
  }
}

static void group_payload_flips(const sample *s, int seed_base, int nseeds) {
  uint8_t *buf = tc_malloc(s->csize);
  for (int seed = seed_base; seed < seed_base + nseeds; seed++) {
    uint64_t st = (uint64_t)seed * 104729 + 17;
    memcpy(buf, s->chunk, s->csize);
    int nflips = 1 + (int)(tc_rand(&st) % 4);
    for (int k = 0; k < nflips; k++) {
      int32_t pos = BLOSC_EXTENDED_HEADER_LENGTH +
                    (int32_t)(tc_rand(&st) % (uint32_t)(s->csize - BLOSC_EXTENDED_HEADER_LENGTH));
      buf[pos] ^= (uint8_t)(1 + tc_rand(&st) % 255);
    }
    int ov;
    int rc = guarded_decompress(buf, s->csize, s->nbytes, &ov);
    CHECK_MSG(rc < 0 || rc == s->nbytes, "%s flip seed %d: rc %d", s->name, seed, rc);
    CHECK_MSG(!ov, "%s flip seed %d: write past dest", s->name, seed);
    rc = guarded_getitem(buf, s->csize, 7, 100, s->nbytes, &ov);
    CHECK_MSG(!ov, "%s flip seed %d: getitem write past dest", s->name, seed);
  }
  free(buf);
}

static void group_api_misuse(void) {
  const sample *s = &samples[0];
  uint8_t *out = tc_malloc(s->nbytes);
  /* negative sizes */
  CHECK(blosc2_decompress(s->chunk, -1, out, s->nbytes) < 0);
  CHECK(blosc2_decompress(s->chunk, s->csize, out, -1) < 0);
  CHECK(blosc2_getitem(s->chunk, -1, 0, 1, out, s->nbytes) < 0);
  CHECK(blosc2_getitem(s->chunk, s->csize, 0, 1, out, -1) < 0);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  CHECK(blosc2_decompress_ctx(dctx, s->chunk, 0, out, s->nbytes) < 0);
  CHECK(blosc2_getitem_ctx(dctx, s->chunk, 0, 0, 1, out, s->nbytes) < 0);
  /* compression context used for decompression */
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  CHECK(blosc2_decompress_ctx(cctx, s->chunk, s->csize, out, s->nbytes) < 0);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(out);
}

/* Run fn in a child process; report crash/failed checks. */
#define IN_CHILD(label, call)                                                  \
  do {                                                                        \
    fflush(stdout);                                                           \
    fflush(stderr);                                                           \
    pid_t pid_ = fork();                                                      \
    REQUIRE(pid_ >= 0);                                                       \
    if (pid_ == 0) {                                                          \
      tc_failures = 0;                                                        \
      call;                                                                   \
      _exit(tc_failures ? 1 : 0);                                             \
    }                                                                         \
    int status_ = 0;                                                          \
    waitpid(pid_, &status_, 0);                                               \
    tc_checks++;                                                              \
    if (WIFSIGNALED(status_)) {                                               \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s: crashed with signal %d\n", label,             \
              WTERMSIG(status_));                                             \
    } else if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0) {            \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s: failed checks (exit %d)\n", label,            \
              WIFEXITED(status_) ? WEXITSTATUS(status_) : -1);                \
    }                                                                         \
  } while (0)

int main(void) {
  blosc2_init();
  add_sample("blosclz-shuffle", BLOSC_BLOSCLZ, BLOSC_SHUFFLE, 4, 5, 0, 50000, TC_FILL_RAMP32);
  add_sample("lz4-multiblock", BLOSC_LZ4, BLOSC_SHUFFLE, 8, 5, 4096, 40000, TC_FILL_SMOOTH_F64);
  add_sample("zstd-bitshuffle", BLOSC_ZSTD, BLOSC_BITSHUFFLE, 4, 5, 8192, 30000, TC_FILL_SMOOTH_F64);
  add_sample("zlib-noshuffle", BLOSC_ZLIB, BLOSC_NOSHUFFLE, 1, 5, 0, 20000, TC_FILL_TEXT);
  add_sample("lz4hc-split", BLOSC_LZ4HC, BLOSC_SHUFFLE, 2, 9, 2048, 20000, TC_FILL_TEXT);
  add_sample("memcpyed", BLOSC_BLOSCLZ, BLOSC_SHUFFLE, 4, 0, 0, 10000, TC_FILL_RANDOM);

  for (int i = 0; i < nsamples; i++) {
    char label[128];
    snprintf(label, sizeof(label), "truncation/%s", samples[i].name);
    IN_CHILD(label, group_truncation(&samples[i]));
    snprintf(label, sizeof(label), "header-fields/%s", samples[i].name);
    IN_CHILD(label, group_header_fields(&samples[i]));
  }
  for (int i = 0; i < nsamples; i++) {
    char label[128];
    snprintf(label, sizeof(label), "payload-flips/%s", samples[i].name);
    IN_CHILD(label, group_payload_flips(&samples[i], 0, 300));
  }
  for (int g = 0; g < 5; g++) {
    char label[64];
    snprintf(label, sizeof(label), "garbage/seeds %d..%d", g * 200, g * 200 + 199);
    IN_CHILD(label, group_garbage(g * 200));
  }
  IN_CHILD("api-misuse", group_api_misuse());
  for (int i = 0; i < nsamples; i++) free(samples[i].chunk);
  blosc2_destroy();
  TEST_MAIN_END("test_bad_input");
}
