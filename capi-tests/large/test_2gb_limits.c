/*
 * Behaviour of the library at the 2 GiB limits: buffers of exactly
 * BLOSC2_MAX_BUFFERSIZE bytes and one byte more, chunks whose compressed
 * size is INT32_MAX, a super-chunk whose chunksize sits at the limit and
 * super-chunks whose total nbytes (an int64) passes 2 GiB and 4 GiB.
 *
 * Needs about 6 GiB of RAM and runs for about a minute, so it is not part of
 * the ordinary suite; see README.md and run.sh in this directory.
 *
 * Every case runs in a forked child, so that a crash in one case is reported
 * as such and the others still run.  Each prints one line:
 *     <case>: <results>
 * Diff the output of two libraries to compare them.
 */
#include <blosc2.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXBUF ((int32_t)BLOSC2_MAX_BUFFERSIZE)
#define GIB ((int64_t)1 << 30)

static const char *tmpdir = "/tmp";

static void fill_random(uint8_t *p, int64_t n, uint64_t seed) {
  uint64_t x = seed | 1;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    memcpy(p + i, &x, 8);
  }
  for (; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; p[i] = (uint8_t)x; }
}

static void fill_pattern(uint8_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)(i % 251);
}

static uint8_t *xmalloc(int64_t n) {
  uint8_t *p = malloc((size_t)n);
  if (p == NULL) { printf("malloc(%lld) failed\n", (long long)n); exit(2); }
  return p;
}

static blosc2_cparams cparams_with(int clevel, int typesize, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.nthreads = (int16_t)nthreads;
  cp.compcode = BLOSC_LZ4;
  return cp;
}

/* blosc2_compress_ctx with srcsize bytes; roundtrip when it succeeds. */
static void compress_case(int32_t srcsize, int clevel, int random) {
  blosc2_cparams cp = cparams_with(clevel, 4, 2);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *src = xmalloc(srcsize > 0 ? srcsize : 1);
  if (random) fill_random(src, srcsize, 42); else fill_pattern(src, srcsize);
  uint8_t *dest = xmalloc(INT_MAX);
  int rc = blosc2_compress_ctx(cctx, src, srcsize, dest, INT_MAX);
  printf("compress=%d", rc);
  if (rc > 0) {
    int32_t nb = 0, cb = 0, bs = 0;
    int rs = blosc2_cbuffer_sizes(dest, &nb, &cb, &bs);
    printf(" sizes=%d nbytes=%d cbytes=%d", rs, nb, cb);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 2;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    uint8_t *back = xmalloc(srcsize);
    int d = blosc2_decompress_ctx(dctx, dest, rc, back, srcsize);
    printf(" decompress=%d equal=%d", d, d == srcsize && memcmp(src, back, srcsize) == 0);
    int32_t item = 0;
    int g = blosc2_getitem_ctx(dctx, dest, rc, (srcsize / 4) - 1, 1, &item, 4);
    printf(" getitem_last=%d ok=%d", g,
           g == 4 && memcmp(&item, src + ((int64_t)srcsize / 4 - 1) * 4, 4) == 0);
    free(back);
    blosc2_free_ctx(dctx);
  }
  printf("\n");
  free(dest);
  free(src);
  blosc2_free_ctx(cctx);
}

/* blosc2_chunk_zeros with nbytes, then decompressing it when it succeeds. */
static void zeros_case(int32_t nbytes, int typesize) {
  blosc2_cparams cp = cparams_with(5, typesize, 1);
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  int rc = blosc2_chunk_zeros(cp, nbytes, chunk, sizeof(chunk));
  printf("chunk_zeros=%d", rc);
  if (rc > 0) {
    int32_t nb = 0, cb = 0, bs = 0;
    int rs = blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs);
    printf(" sizes=%d nbytes=%d", rs, nb);
  }
  printf("\n");
}

static blosc2_schunk *new_schunk(int contiguous, const char *urlpath, int clevel) {
  blosc2_cparams cp = cparams_with(clevel, 4, 2);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath,
                       .cparams = &cp, .dparams = &dp};
  if (urlpath) blosc2_remove_urlpath(urlpath);
  return blosc2_schunk_new(&st);
}

/* One chunk of nbytes appended with append_buffer; read back. */
static void append_buffer_case(int32_t nbytes, int kind, int clevel, int random) {
  char path[256];
  const char *url = NULL;
  if (kind == 2) { snprintf(path, sizeof(path), "%s/b2_2gb_%d.b2frame", tmpdir, (int)getpid()); url = path; }
  blosc2_schunk *sc = new_schunk(kind != 0, url, clevel);
  uint8_t *src = xmalloc(nbytes > 0 ? nbytes : 1);
  if (random) fill_random(src, nbytes, 7); else fill_pattern(src, nbytes);
  int64_t n = blosc2_schunk_append_buffer(sc, src, nbytes);
  printf("append=%lld nchunks=%lld nbytes=%lld cbytes_gt_2g=%d chunksize=%d",
         (long long)n, (long long)sc->nchunks, (long long)sc->nbytes,
         sc->cbytes > INT32_MAX, sc->chunksize);
  if (n > 0) {
    uint8_t *back = xmalloc(nbytes);
    int d = blosc2_schunk_decompress_chunk(sc, 0, back, nbytes);
    printf(" decompress_chunk=%d equal=%d", d, d == nbytes && memcmp(src, back, nbytes) == 0);
    free(back);
    if (kind == 1) {
      uint8_t *cframe = NULL;
      bool needs_free = false;
      int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
      printf(" to_buffer_gt_2g=%d", len > INT32_MAX);
      if (len > 0) {
        blosc2_schunk *sc2 = blosc2_schunk_from_buffer(cframe, len, false);
        printf(" from_buffer=%s", sc2 ? "ok" : "NULL");
        if (sc2) {
          int32_t tail[4] = {0};
          int g = blosc2_schunk_get_slice_buffer(sc2, (nbytes / 4) - 4, nbytes / 4, tail);
          printf(" slice_tail=%d ok=%d", g,
                 g == 0 && memcmp(tail, src + ((int64_t)nbytes / 4 - 4) * 4, 16) == 0);
          blosc2_schunk_free(sc2);
        }
        if (needs_free) free(cframe);
      }
    }
    if (kind == 2) {
      blosc2_schunk_free(sc);
      sc = blosc2_schunk_open(url);
      printf(" reopen=%s", sc ? "ok" : "NULL");
      if (sc) {
        uint8_t *back2 = xmalloc(nbytes);
        int d2 = blosc2_schunk_decompress_chunk(sc, 0, back2, nbytes);
        printf(" decompress_chunk=%d equal=%d", d2, d2 == nbytes && memcmp(src, back2, nbytes) == 0);
        free(back2);
      }
    }
  }
  printf("\n");
  free(src);
  if (sc) blosc2_schunk_free(sc);
  if (url) blosc2_remove_urlpath(url);
}

/* A chunk made with blosc2_chunk_zeros(MAXBUF) appended with append_chunk. */
static void append_zeros_chunk_case(int kind) {
  blosc2_schunk *sc = new_schunk(kind, NULL, 5);
  blosc2_cparams cp = cparams_with(5, 1, 1); /* MAXBUF is not a multiple of 4 */
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  int rc = blosc2_chunk_zeros(cp, MAXBUF, chunk, sizeof(chunk));
  int64_t n = blosc2_schunk_append_chunk(sc, chunk, true);
  int64_t n2 = blosc2_schunk_append_chunk(sc, chunk, true);
  printf("zeros=%d append=%lld append2=%lld nbytes=%lld chunksize=%d", rc, (long long)n,
         (long long)n2, (long long)sc->nbytes, sc->chunksize);
  int32_t probe[2] = {-1, -1};
  int64_t start = ((int64_t)MAXBUF * 2) / 4 - 2;
  int g = blosc2_schunk_get_slice_buffer(sc, start, start + 2, probe);
  printf(" slice_end=%d zero=%d", g, probe[0] == 0 && probe[1] == 0);
  uint8_t *back = xmalloc(MAXBUF);
  memset(back, 0xff, 16);
  int d = blosc2_schunk_decompress_chunk(sc, 1, back, MAXBUF);
  printf(" decompress_chunk=%d zero=%d\n", d, back[0] == 0 && back[MAXBUF - 1] == 0);
  free(back);
  blosc2_schunk_free(sc);
}

/* A zeros chunk whose header is edited to claim nbytes beyond the limit. */
static void forged_chunk_case(int32_t claimed, int kind) {
  blosc2_schunk *sc = new_schunk(kind, NULL, 5);
  blosc2_cparams cp = cparams_with(5, 4, 1);
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  blosc2_chunk_zeros(cp, 1024, chunk, sizeof(chunk));
  memcpy(chunk + 4, &claimed, 4); /* nbytes field */
  int64_t n = blosc2_schunk_append_chunk(sc, chunk, true);
  printf("append=%lld nchunks=%lld nbytes=%lld\n", (long long)n, (long long)sc->nchunks,
         (long long)sc->nbytes);
  blosc2_schunk_free(sc);
}

/* fill_special with chunksize near the limit and a total far past 4 GiB. */
static void fill_special_case(int32_t chunksize, int kind) {
  blosc2_schunk *sc = new_schunk(kind, NULL, 5);
  int64_t nitems = (int64_t)3 * (MAXBUF / 4) + 5;
  int64_t r = blosc2_schunk_fill_special(sc, nitems, BLOSC2_SPECIAL_ZERO, chunksize);
  printf("fill=%lld nchunks=%lld nbytes=%lld chunksize=%d", (long long)r,
         (long long)sc->nchunks, (long long)sc->nbytes, sc->chunksize);
  if (r > 0) {
    int32_t probe[8];
    memset(probe, 0xff, sizeof(probe));
    int64_t start = nitems - 8;
    int g = blosc2_schunk_get_slice_buffer(sc, start, nitems, probe);
    int zero = 1;
    for (int i = 0; i < 8; i++) zero &= probe[i] == 0;
    printf(" slice_end=%d zero=%d", g, zero);
  }
  printf("\n");
  blosc2_schunk_free(sc);
}

/* Many 256 MiB chunks, total nbytes past 4 GiB, through a file frame. */
static void many_chunks_case(int kind) {
  char path[256];
  const char *url = NULL;
  if (kind == 2) { snprintf(path, sizeof(path), "%s/b2_2gb_many_%d.b2frame", tmpdir, (int)getpid()); url = path; }
  blosc2_schunk *sc = new_schunk(kind != 0, url, 5);
  const int32_t cs = 256 << 20;
  const int nch = 18; /* 4.5 GiB */
  uint8_t *buf = xmalloc(cs);
  int64_t last = 0;
  for (int i = 0; i < nch; i++) {
    memset(buf, i + 1, cs);
    last = blosc2_schunk_append_buffer(sc, buf, cs);
    if (last < 0) break;
  }
  printf("append_last=%lld nchunks=%lld nbytes=%lld", (long long)last, (long long)sc->nchunks,
         (long long)sc->nbytes);
  if (kind == 2) {
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(url);
    printf(" reopen=%s nbytes=%lld", sc ? "ok" : "NULL", sc ? (long long)sc->nbytes : -1LL);
  }
  if (sc) {
    /* a slice straddling chunks 16|17, at byte offsets past 4 GiB */
    int64_t s = ((int64_t)cs * 17) / 4 - 4;
    int32_t probe[8];
    int g = blosc2_schunk_get_slice_buffer(sc, s, s + 8, probe);
    int ok = g == 0;
    for (int i = 0; i < 8; i++) {
      uint8_t v = (uint8_t)(i < 4 ? 17 : 18);
      uint32_t want = v * 0x01010101u;
      ok &= (uint32_t)probe[i] == want;
    }
    printf(" slice_past_4g=%d ok=%d", g, ok);
    int d = blosc2_schunk_decompress_chunk(sc, nch - 1, buf, cs);
    printf(" last_chunk=%d ok=%d", d, d == cs && buf[0] == nch && buf[cs - 1] == nch);
    blosc2_schunk_free(sc);
  }
  printf("\n");
  free(buf);
  if (url) blosc2_remove_urlpath(url);
}

typedef void (*case_fn)(void);
#define CASE(name, body) static void name(void) { body; }
CASE(c_compress_max_pattern, compress_case(MAXBUF, 5, 0))
CASE(c_compress_max_memcpy, compress_case(MAXBUF, 0, 1))
CASE(c_compress_max_random, compress_case(MAXBUF, 5, 1))
CASE(c_compress_max_plus1, compress_case(MAXBUF + 1, 5, 0))
CASE(c_compress_intmax, compress_case(INT_MAX, 5, 0))
CASE(c_zeros_max_ts4, zeros_case(MAXBUF, 4))
CASE(c_zeros_max, zeros_case(MAXBUF, 1))
CASE(c_zeros_max_plus1, zeros_case(MAXBUF + 1, 1))
CASE(c_zeros_intmax, zeros_case(INT_MAX, 1))
CASE(c_append_max_mem, append_buffer_case(MAXBUF, 0, 5, 0))
CASE(c_append_max_cframe_memcpy, append_buffer_case(MAXBUF, 1, 0, 1))
CASE(c_append_max_file_memcpy, append_buffer_case(MAXBUF, 2, 0, 1))
CASE(c_append_max_plus1_mem, append_buffer_case(MAXBUF + 1, 0, 5, 0))
CASE(c_append_max_plus1_cframe, append_buffer_case(MAXBUF + 1, 1, 5, 0))
CASE(c_append_zeros_chunk_mem, append_zeros_chunk_case(0))
CASE(c_append_zeros_chunk_cframe, append_zeros_chunk_case(1))
CASE(c_forged_max_plus1_mem, forged_chunk_case(MAXBUF + 1, 0))
CASE(c_forged_intmax_mem, forged_chunk_case(INT_MAX, 0))
CASE(c_forged_intmax_cframe, forged_chunk_case(INT_MAX, 1))
CASE(c_forged_negative_cframe, forged_chunk_case(-16, 1))
CASE(c_fill_special_max_mem, fill_special_case(MAXBUF - (MAXBUF % 4), 0))
CASE(c_fill_special_max_cframe, fill_special_case(MAXBUF - (MAXBUF % 4), 1))
CASE(c_fill_special_intmax_mem, fill_special_case(INT_MAX - 3, 0))
CASE(c_fill_special_intmax_cframe, fill_special_case(INT_MAX - 3, 1))
CASE(c_many_chunks_mem, many_chunks_case(0))
CASE(c_many_chunks_cframe, many_chunks_case(1))
CASE(c_many_chunks_file, many_chunks_case(2))

static const struct { const char *name; case_fn fn; } cases[] = {
#define E(n) {#n + 2, n}
  E(c_compress_max_pattern), E(c_compress_max_memcpy), E(c_compress_max_random),
  E(c_compress_max_plus1), E(c_compress_intmax), E(c_zeros_max_ts4), E(c_zeros_max), E(c_zeros_max_plus1),
  E(c_zeros_intmax), E(c_append_max_mem), E(c_append_max_cframe_memcpy),
  E(c_append_max_file_memcpy), E(c_append_max_plus1_mem), E(c_append_max_plus1_cframe),
  E(c_append_zeros_chunk_mem), E(c_append_zeros_chunk_cframe), E(c_forged_max_plus1_mem),
  E(c_forged_intmax_mem), E(c_forged_intmax_cframe), E(c_forged_negative_cframe),
  E(c_fill_special_max_mem), E(c_fill_special_max_cframe), E(c_fill_special_intmax_mem),
  E(c_fill_special_intmax_cframe), E(c_many_chunks_mem), E(c_many_chunks_cframe),
  E(c_many_chunks_file),
};

int main(int argc, char **argv) {
  if (getenv("TMPDIR")) tmpdir = getenv("TMPDIR");
  const char *only = argc > 1 ? argv[1] : NULL;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    if (only && strstr(cases[i].name, only) == NULL) continue;
    printf("%s: ", cases[i].name);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      blosc2_init();
      cases[i].fn();
      fflush(stdout);
      blosc2_destroy();
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) printf("CRASHED signal=%d\n", WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0) printf("(exit %d)\n", WEXITSTATUS(status));
    fflush(stdout);
  }
  return 0;
}
