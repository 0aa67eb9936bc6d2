/* What the operation-program targets (schunk_ops.c, b2nd_slice.c) share:
   the reader of their input bytes (a missing byte reads as 0), tracing of
   every operation when FUZZ_TRACE is set in the environment, and the
   model checks, which abort() on a difference: data the library claims to
   hold that is not what was written is silent corruption.  The including
   file defines OP_PROGRAM, its name in the messages. */
#ifndef BLOSC2_FUZZ_OP_PROGRAM_H
#define BLOSC2_FUZZ_OP_PROGRAM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  const uint8_t *p;
  size_t n, pos;
} reader;

static uint8_t rd8(reader *r) { return r->pos < r->n ? r->p[r->pos++] : 0; }
static int more(const reader *r) { return r->pos < r->n; }

/* -1 until the first input reads FUZZ_TRACE (trace_init). */
static int g_trace = -1;
#define TRACE(...)                                \
  do {                                            \
    if (g_trace > 0) fprintf(stderr, __VA_ARGS__); \
  } while (0)

static void trace_init(void) {
  if (g_trace < 0) g_trace = getenv("FUZZ_TRACE") != NULL;
}

static void fail(const char *what, int64_t a, int64_t b) {
  fprintf(stderr, OP_PROGRAM ": MISMATCH: %s (%lld, %lld)\n", what, (long long)a, (long long)b);
  abort();
}

static void check(int cond, const char *what, int64_t a, int64_t b) {
  if (!cond) fail(what, a, b);
}

#endif
