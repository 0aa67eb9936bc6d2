/*
 * Tiny helpers shared by the libblosc2 C API tests.
 *
 * Every test program counts failed checks and returns non-zero from main()
 * when any check failed.  Checks never abort, so one run reports every
 * problem; REQUIRE* variants return from main (via `goto`-free early exit)
 * when continuing would only crash.
 */
#ifndef BLOSC2_CAPI_TEST_COMMON_H
#define BLOSC2_CAPI_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "blosc2.h"

static int tc_failures = 0;
static int tc_checks = 0;

#define CHECK(cond)                                                           \
  do {                                                                        \
    tc_checks++;                                                              \
    if (!(cond)) {                                                            \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);         \
    }                                                                         \
  } while (0)

#define CHECK_MSG(cond, ...)                                                  \
  do {                                                                        \
    tc_checks++;                                                              \
    if (!(cond)) {                                                            \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
    }                                                                         \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                    \
  do {                                                                        \
    long long tc_a_ = (long long)(a), tc_b_ = (long long)(b);                 \
    tc_checks++;                                                              \
    if (tc_a_ != tc_b_) {                                                     \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__,      \
              __LINE__, #a, #b, tc_a_, tc_b_);                                \
    }                                                                         \
  } while (0)

#define CHECK_NEG(a)                                                          \
  do {                                                                        \
    long long tc_a_ = (long long)(a);                                         \
    tc_checks++;                                                              \
    if (tc_a_ >= 0) {                                                         \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s:%d: expected negative %s, got %lld\n",         \
              __FILE__, __LINE__, #a, tc_a_);                                 \
    }                                                                         \
  } while (0)

#define CHECK_STR(a, b)                                                       \
  do {                                                                        \
    const char *tc_a_ = (a), *tc_b_ = (b);                                    \
    tc_checks++;                                                              \
    if (tc_a_ == NULL || tc_b_ == NULL || strcmp(tc_a_, tc_b_) != 0) {        \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", __FILE__,  \
              __LINE__, #a, #b, tc_a_ ? tc_a_ : "(null)",                     \
              tc_b_ ? tc_b_ : "(null)");                                      \
    }                                                                         \
  } while (0)

#define CHECK_MEM(a, b, n)                                                    \
  do {                                                                        \
    tc_checks++;                                                              \
    long tc_i_ = tc_first_diff((const void *)(a), (const void *)(b),          \
                               (size_t)(n));                                  \
    if (tc_i_ >= 0) {                                                         \
      tc_failures++;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s and %s differ at byte %ld of %ld\n",    \
              __FILE__, __LINE__, #a, #b, tc_i_, (long)(n));                  \
    }                                                                         \
  } while (0)

/* Abort the whole program (counted as a failure) when a precondition fails. */
#define REQUIRE(cond)                                                         \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "FATAL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
      exit(2);                                                                \
    }                                                                         \
  } while (0)

static inline long tc_first_diff(const void *a, const void *b, size_t n) {
  const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
  for (size_t i = 0; i < n; i++) {
    if (pa[i] != pb[i]) return (long)i;
  }
  return -1;
}

static inline void *tc_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  REQUIRE(p != NULL);
  return p;
}

/* Deterministic xorshift PRNG so failures are reproducible. */
static inline uint32_t tc_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return (uint32_t)(x >> 16);
}

/* Fill kinds for test data. */
enum { TC_FILL_RAMP32, TC_FILL_RANDOM, TC_FILL_TEXT, TC_FILL_SMOOTH_F64,
       TC_FILL_LOWENTROPY };

static inline void tc_fill(void *buf, size_t n, int kind, uint64_t seed) {
  uint8_t *b = (uint8_t *)buf;
  uint64_t st = seed * 2654435761u + 88172645463325252ull;
  switch (kind) {
    case TC_FILL_RAMP32: {
      size_t i = 0;
      for (; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)(i / 4 + seed);
        memcpy(b + i, &v, 4);
      }
      for (; i < n; i++) b[i] = (uint8_t)i;
      break;
    }
    case TC_FILL_RANDOM:
      for (size_t i = 0; i < n; i++) b[i] = (uint8_t)tc_rand(&st);
      break;
    case TC_FILL_TEXT: {
      static const char *words[] = {"blosc ", "chunk ", "block ", "shuffle ",
                                    "the ", "of ", "compress ", "data ",
                                    "zstd ", "lz4 "};
      size_t i = 0;
      while (i < n) {
        const char *w = words[tc_rand(&st) % 10];
        size_t l = strlen(w);
        for (size_t k = 0; k < l && i < n; k++) b[i++] = (uint8_t)w[k];
      }
      break;
    }
    case TC_FILL_SMOOTH_F64: {
      size_t i = 0;
      for (; i + 8 <= n; i += 8) {
        double v = 1000.0 + (double)(i / 8) * 0.25 + (double)(seed % 7);
        memcpy(b + i, &v, 8);
      }
      for (; i < n; i++) b[i] = 0;
      break;
    }
    default: /* TC_FILL_LOWENTROPY */
      for (size_t i = 0; i < n; i++) b[i] = (uint8_t)((tc_rand(&st) % 4) * 3);
      break;
  }
}

static inline int32_t tc_le32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) |
                   ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
}

/* A VL-block chunk of two blocks (1000 and 500 bytes of a ramp) written
 * with `cp` into `chunk` (`size` bytes), whose header nbytes and first
 * block size are then raised so that the first block claims `claim` bytes:
 * the chunk's length (the run stops when writing it fails). */
static inline int tc_vl_chunk_claiming(blosc2_cparams cp, int32_t claim, uint8_t *chunk,
                                       int32_t size) {
  uint8_t a[1000], b[500];
  tc_fill(a, sizeof a, TC_FILL_RAMP32, 1);
  tc_fill(b, sizeof b, TC_FILL_RAMP32, 2);
  const void *srcs[2] = {a, b};
  int32_t sizes[2] = {1000, 500};
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  int csize = blosc2_vlcompress_ctx(cctx, srcs, sizes, 2, chunk, size);
  blosc2_free_ctx(cctx);
  REQUIRE(csize > BLOSC_EXTENDED_HEADER_LENGTH + 8);
  int32_t nbytes = claim + 500;
  int32_t bstart = tc_le32(chunk + BLOSC_EXTENDED_HEADER_LENGTH);
  REQUIRE(bstart > 0 && bstart + 4 <= csize);
  memcpy(chunk + BLOSC2_CHUNK_NBYTES, &nbytes, 4);
  memcpy(chunk + bstart, &claim, 4);
  return csize;
}

#define TEST_MAIN_END(name)                                                   \
  do {                                                                        \
    if (tc_failures) {                                                        \
      fprintf(stderr, "%s: %d of %d checks FAILED\n", name, tc_failures,      \
              tc_checks);                                                     \
      return 1;                                                               \
    }                                                                         \
    printf("%s: all %d checks passed\n", name, tc_checks);                    \
    return 0;                                                                 \
  } while (0)

#endif /* BLOSC2_CAPI_TEST_COMMON_H */
