/* Mutation fuzzer for the "b2nd" metalayer, meant to be built with
 * -fsanitize=address,undefined (see run.sh).
 *
 * Each iteration serializes a valid metalayer for a random geometry with
 * b2nd_serialize_meta, damages it (bit flips, byte overwrites, truncation,
 * insertion, deletion, or a structured lie: impossible ndim, edge-value
 * shapes, wrong msgpack headers, lying dtype lengths, ...) and hands the
 * result, in a heap buffer of exactly its length, to
 *   - b2nd_deserialize_meta (with and without the dtype outputs),
 *   - b2nd_deserialize_meta_inline (compiled here, so fully instrumented),
 *   - b2nd_from_schunk and b2nd_from_cframe (copy and no copy) of a frame
 *     carrying it as its "b2nd" metalayer; accepted arrays are read a bit.
 * Any sanitizer report or crash ends the run with a non-zero status; the
 * input being processed is then written to fuzz_b2nd_meta.last and the
 * iteration printed (the run is deterministic for a given seed; with
 * FUZZ_TRACE=1 in the environment every iteration is announced first).
 *
 * Usage: fuzz_b2nd_meta [iterations=20000] [seed=1] */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2.h"
#include "b2nd.h"

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define HAVE_DEATH_CALLBACK 1
#endif
#endif

static uint64_t state;

static uint64_t next64(void) { /* splitmix64 */
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int64_t rnd(int64_t n) { return n <= 0 ? 0 : (int64_t)(next64() % (uint64_t)n); }

static void put_be(uint8_t *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--) {
    p[i] = (uint8_t)v;
    v >>= 8;
  }
}

static const int64_t edge64[] = {0, 1, -1, 2, 7, 255, 65536, INT32_MAX, (int64_t)INT32_MAX + 1,
                                 INT64_C(1) << 32, INT64_C(1) << 40, INT64_C(1) << 62,
                                 INT64_MAX, INT64_MAX - 1, INT64_MIN, -65536};
static const int32_t edge32[] = {0, 1, -1, 2, 3, 255, 4096, 65536, 1 << 20, 1 << 30, INT32_MAX,
                                 INT32_MIN, -2};
#define NEDGE64 ((int)(sizeof edge64 / sizeof edge64[0]))
#define NEDGE32 ((int)(sizeof edge32 / sizeof edge32[0]))

typedef struct {
  uint8_t *p;
  int32_t len, cap;
} buf_t;

static void ensure(buf_t *b, int32_t cap) {
  if (b->cap >= cap) return;
  b->p = realloc(b->p, (size_t)cap);
  if (b->p == NULL) abort();
  b->cap = cap;
}

/* Offsets of the parts of a well-formed metalayer for ndim nd. */
static int32_t off_shape(int nd) { (void)nd; return 3; }
static int32_t off_chunk(int nd) { return 4 + 9 * nd; }
static int32_t off_block(int nd) { return 5 + 14 * nd; }
static int32_t off_dtype(int nd) { return 6 + 19 * nd; }

static void mutate_structured(buf_t *m, int nd) {
  uint8_t *p = m->p;
  int32_t len = m->len;
  int kind = (int)rnd(12);
  switch (kind) {
    case 0: /* ndim byte */
      if (len > 2) {
        static const uint8_t v[] = {0, 1, 15, 16, 17, 31, 64, 127, 128, 200, 255};
        p[2] = rnd(3) ? v[rnd(sizeof v)] : (uint8_t)(nd + rnd(3) - 1);
      }
      break;
    case 1: /* array headers */
    {
      int32_t o[3] = {off_shape(nd), off_chunk(nd), off_block(nd)};
      int32_t at = o[rnd(3)];
      if (at < len) {
        static const uint8_t v[] = {0x90, 0x91, 0x9f, 0xdc, 0xdd, 0xc0, 0x00, 0xff};
        p[at] = rnd(2) ? v[rnd(sizeof v)] : (uint8_t)(0x90 + nd + rnd(3) - 1);
      }
      break;
    }
    case 2: case 3: /* a shape value */
      if (nd > 0) {
        int32_t at = off_shape(nd) + 1 + 9 * (int32_t)rnd(nd) + 1;
        if (at + 8 <= len) put_be(p + at, (uint64_t)edge64[rnd(NEDGE64)], 8);
      }
      break;
    case 4: case 5: /* a chunkshape or blockshape value */
      if (nd > 0) {
        int32_t base = rnd(2) ? off_chunk(nd) : off_block(nd);
        int32_t at = base + 1 + 5 * (int32_t)rnd(nd) + 1;
        if (at + 4 <= len) put_be(p + at, (uint32_t)edge32[rnd(NEDGE32)], 4);
      }
      break;
    case 6: /* all chunkshapes/blockshapes to one edge value */
      for (int i = 0; i < nd; i++) {
        int32_t v = edge32[rnd(NEDGE32)];
        int32_t a1 = off_chunk(nd) + 1 + 5 * i + 1, a2 = off_block(nd) + 1 + 5 * i + 1;
        if (a1 + 4 <= len) put_be(p + a1, (uint32_t)v, 4);
        if (a2 + 4 <= len && rnd(2)) put_be(p + a2, (uint32_t)v, 4);
      }
      break;
    case 7: /* dtype length */
    {
      int32_t at = off_dtype(nd) + 2;
      if (at + 4 <= len) {
        int32_t real = len - at - 4;
        static const uint32_t v[] = {0, 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x10000u};
        uint32_t val = rnd(2) ? v[rnd(6)] : (uint32_t)(real + rnd(5) - 2);
        put_be(p + at, val, 4);
      }
      break;
    }
    case 8: /* dtype marker / format */
    {
      int32_t at = off_dtype(nd) + (int32_t)rnd(2);
      if (at < len) p[at] = rnd(2) ? (uint8_t)(0xd9 + rnd(4)) : (uint8_t)next64();
      break;
    }
    case 9: /* element type bytes */
      if (nd > 0) {
        int32_t base = (int32_t[]){off_shape(nd), off_chunk(nd), off_block(nd)}[rnd(3)];
        int32_t at = base + 1 + (int32_t)rnd(nd) * (base == 3 ? 9 : 5);
        if (at < len) p[at] = (uint8_t)next64();
      }
      break;
    case 10: /* first byte / version */
      if (len > 1) p[rnd(2)] = (uint8_t)next64();
      break;
    default: /* cut right at a part boundary */
    {
      int32_t cuts[4] = {off_chunk(nd), off_block(nd), off_dtype(nd), off_dtype(nd) + 6};
      int32_t c = cuts[rnd(4)] + (int32_t)rnd(3) - 1;
      if (c >= 0 && c < len) m->len = c;
      break;
    }
  }
}

static void mutate(buf_t *m, int nd) {
  int kind = (int)rnd(9);
  switch (kind) {
    case 0: /* untouched */
      break;
    case 1: /* bit flips */
      for (int k = 1 + (int)rnd(4); k > 0 && m->len > 0; k--)
        m->p[rnd(m->len)] ^= (uint8_t)(1u << rnd(8));
      break;
    case 2: /* byte overwrites */
      for (int k = 1 + (int)rnd(4); k > 0 && m->len > 0; k--)
        m->p[rnd(m->len)] = (uint8_t)next64();
      break;
    case 3: /* truncation */
      m->len = (int32_t)rnd(m->len + 1);
      break;
    case 4: { /* insertion */
      int32_t n = 1 + (int32_t)rnd(9), at = (int32_t)rnd(m->len + 1);
      ensure(m, m->len + n);
      memmove(m->p + at + n, m->p + at, (size_t)(m->len - at));
      for (int32_t i = 0; i < n; i++) m->p[at + i] = (uint8_t)next64();
      m->len += n;
      break;
    }
    case 5: { /* deletion */
      if (m->len == 0) break;
      int32_t at = (int32_t)rnd(m->len);
      int32_t n = 1 + (int32_t)rnd(m->len - at);
      if (n > 9) n = 9;
      memmove(m->p + at, m->p + at + n, (size_t)(m->len - at - n));
      m->len -= n;
      break;
    }
    case 6: { /* random bytes with a plausible start */
      int32_t n = (int32_t)rnd(120);
      ensure(m, n + 3);
      for (int32_t i = 0; i < n; i++) m->p[i] = (uint8_t)next64();
      if (n > 2 && rnd(2)) {
        m->p[0] = 0x97;
        m->p[1] = 0;
        m->p[2] = (uint8_t)rnd(18);
      }
      m->len = n;
      break;
    }
    case 7: /* two structured lies */
      mutate_structured(m, nd);
      /* fall through */
    default:
      mutate_structured(m, nd);
      break;
  }
}

static int64_t stats_lib_ok, stats_inline_ok, stats_schunk_ok, stats_cframe_ok, stats_reads;

static void check_decoded(int rc, int32_t len, int8_t ndim, const char *dtype) {
  if (rc < 0) return;
  if (rc > len || ndim < 0 || ndim > B2ND_MAX_DIM) {
    fprintf(stderr, "decoder returned %d for %d bytes with ndim %d\n", rc, len, ndim);
    abort();
  }
  if (dtype != NULL) (void)strlen(dtype); /* must be NUL terminated */
}

/* Light use of an accepted array (only when it is small). */
static void exercise(b2nd_array_t *a) {
  if (a == NULL || a->sc == NULL) return;
  int64_t ts = a->sc->typesize;
  if (a->ndim < 0 || a->ndim > B2ND_MAX_DIM) abort();
  if (a->nitems <= 0 || ts <= 0 || a->nitems > (1 << 16) || a->extchunknitems > (1 << 20)) return;
  stats_reads++;
  uint8_t *buf = malloc((size_t)(a->nitems * ts));
  if (buf == NULL) return;
  int64_t start[B2ND_MAX_DIM] = {0}, stop[B2ND_MAX_DIM], shape1[B2ND_MAX_DIM];
  for (int i = 0; i < a->ndim; i++) {
    stop[i] = 1;
    shape1[i] = 1;
  }
  (void)b2nd_get_slice_cbuffer(a, start, stop, buf, shape1, ts);
  (void)b2nd_to_cbuffer(a, buf, a->nitems * ts);
  free(buf);
}

/* The input being processed, written out if a sanitizer kills the run. */
static const uint8_t *cur_input;
static int32_t cur_len;
static long cur_iteration = -1;

static void dump_current(void) {
  if (cur_iteration < 0) {
    fprintf(stderr, "fuzz_b2nd_meta: died outside the iterations (e.g. the leak check at "
            "exit)\n");
    return;
  }
  fprintf(stderr, "fuzz_b2nd_meta: died at iteration %ld (input of %d bytes saved to "
          "fuzz_b2nd_meta.last)\n", cur_iteration, cur_len);
  FILE *f = fopen("fuzz_b2nd_meta.last", "wb");
  if (f == NULL) return;
  if (cur_input != NULL && cur_len > 0) fwrite(cur_input, 1, (size_t)cur_len, f);
  fclose(f);
}

static void one_input(const uint8_t *src, int32_t len, int32_t typesize, bool with_chunk,
                      bool frames) {
  cur_input = src;
  cur_len = len;
  /* exact-size copy: any overread is an ASan report */
  uint8_t *meta = malloc(len > 0 ? (size_t)len : 1);
  if (meta == NULL) abort();
  if (len > 0) memcpy(meta, src, (size_t)len);

  int8_t ndim = -1, fmt = -1;
  int64_t shape[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
  char *dtype = NULL;
  int rc = b2nd_deserialize_meta(meta, len, &ndim, shape, cs, bs, &dtype, &fmt);
  check_decoded(rc, len, ndim, dtype);
  stats_lib_ok += rc >= 0;
  free(dtype);
  dtype = NULL;
  rc = b2nd_deserialize_meta(meta, len, &ndim, shape, cs, bs, NULL, NULL);
  check_decoded(rc, len, ndim, NULL);
  rc = b2nd_deserialize_meta_inline(meta, len, &ndim, shape, cs, bs, &dtype, &fmt);
  check_decoded(rc, len, ndim, dtype);
  stats_inline_ok += rc >= 0;
  free(dtype);
  dtype = NULL;
  rc = b2nd_deserialize_meta_inline(meta, len, &ndim, shape, cs, bs, NULL, NULL);
  check_decoded(rc, len, ndim, NULL);

  if (frames && len > 0) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = typesize;
    cp.nthreads = 1;
    blosc2_storage st = {.contiguous = true, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    if (sc == NULL) abort();
    if (blosc2_meta_add(sc, "b2nd", meta, len) < 0) {
      blosc2_schunk_free(sc);
      free(meta);
      return;
    }
    if (with_chunk) {
      uint8_t data[256];
      for (int i = 0; i < 256; i++) data[i] = (uint8_t)i;
      (void)blosc2_schunk_append_buffer(sc, data, 256 - 256 % typesize);
    }
    uint8_t *cframe = NULL;
    bool needs_free = false;
    int64_t clen = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    uint8_t *frame = NULL;
    if (clen > 0) {
      frame = malloc((size_t)clen);
      if (frame == NULL) abort();
      memcpy(frame, cframe, (size_t)clen);
    }
    if (needs_free) free(cframe);

    /* from_schunk on the live super-chunk */
    b2nd_array_t *a = NULL;
    if (b2nd_from_schunk(sc, &a) >= 0 && a != NULL) {
      stats_schunk_ok++;
      exercise(a);
      b2nd_free(a); /* owns sc */
    } else {
      blosc2_schunk_free(sc);
    }
    if (frame != NULL) {
      for (int copy = 0; copy <= 1; copy++) {
        a = NULL;
        if (b2nd_from_cframe(frame, clen, copy, &a) >= 0 && a != NULL) {
          stats_cframe_ok++;
          if (copy) exercise(a);
          b2nd_free(a);
        }
      }
      free(frame);
    }
  }
  free(meta);
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  state = seed;
#ifdef HAVE_DEATH_CALLBACK
  __sanitizer_set_death_callback(dump_current);
#endif
  blosc2_init();
  buf_t m = {NULL, 0, 0};
  /* FUZZ_TRACE=1: name every iteration first (for deaths the callback above
     does not see, such as UBSan's) */
  bool trace = getenv("FUZZ_TRACE") != NULL;
  for (long it = 0; it < iterations; it++) {
    cur_iteration = it;
    if (trace) fprintf(stderr, "iteration %ld\n", it);
    int nd = rnd(4) ? (int)rnd(5) : (int)rnd(B2ND_MAX_DIM + 1);
    int64_t shape[B2ND_MAX_DIM];
    int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
    for (int i = 0; i < nd; i++) {
      shape[i] = rnd(8) ? rnd(40) : edge64[rnd(NEDGE64)];
      if (shape[i] < 0) shape[i] = 3; /* lies come from the mutations */
      cs[i] = (int32_t)(1 + rnd(shape[i] > 0 && shape[i] < 64 ? shape[i] : 64));
      bs[i] = (int32_t)(1 + rnd(cs[i]));
    }
    char dtype[48];
    int dl = (int)rnd(40);
    for (int i = 0; i < dl; i++) dtype[i] = (char)(' ' + rnd(95));
    dtype[dl] = '\0';
    uint8_t *smeta = NULL;
    int len = b2nd_serialize_meta((int8_t)nd, shape, cs, bs, rnd(8) ? dtype : NULL,
                                  (int8_t)rnd(128), &smeta);
    if (len <= 0 || smeta == NULL) {
      fprintf(stderr, "b2nd_serialize_meta failed (%d) for a valid geometry\n", len);
      return 1;
    }
    ensure(&m, len + 16);
    memcpy(m.p, smeta, (size_t)len);
    m.len = len;
    free(smeta);
    mutate(&m, nd);
    static const int32_t sizes[] = {1, 2, 4, 8, 3, 16};
    one_input(m.p, m.len, sizes[rnd(6)], rnd(2) == 0, true);
    if ((it + 1) % 5000 == 0) {
      fprintf(stderr, "%ld iterations\n", it + 1);
    }
  }
  cur_iteration = -1;
  free(m.p);
  blosc2_destroy();
  printf("fuzz_b2nd_meta: %ld inputs, decoded by library %" PRId64 ", by inline %" PRId64
         ", loaded via from_schunk %" PRId64 ", via from_cframe %" PRId64 ", arrays read %" PRId64
         "\n",
         iterations, stats_lib_ok, stats_inline_ok, stats_schunk_ok, stats_cframe_ok, stats_reads);
  return 0;
}
