/* libFuzzer target: the input is a small program of b2nd operations run on
   an array built from a model buffer (the expected items in C order) and
   checked against it after every step.

   Input layout: 5 header bytes pick ndim (1..4, now and then up to 8), the
   typesize (1, 2, 4, 8 and odd sizes), codec, clevel, filter, storage,
   threads and how the array is built; then one byte each for the shape,
   chunk and block length of every dimension; then operations, an opcode
   byte each followed by the bytes it reads (a missing byte reads as 0).
   Sizes stay small (at most MAX_ITEMS items, MAX_CHUNKS chunks, MAX_OPS
   operations) so that one input runs in milliseconds.

   Hostile arguments (reversed, negative or out-of-range slices, too small
   buffers, out-of-range orthogonal indexes, negative shapes, bad axes,
   invalid geometry) must fail with a negative code and leave the array
   alone.  A valid operation that succeeds must give exactly the items the
   model computes; a difference abort()s (silent corruption).  Where the
   reference's behaviour is not pinned down (a resize or insert away from
   chunk boundaries, the items a resize adds inside existing chunks, empty
   selections) either outcome is accepted and the model takes the library's
   answer (check_resized reads the new items back).  FUZZ_TRACE=1 in the
   environment prints every operation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <b2nd.h>
#include "fuzz_init.h"
#define OP_PROGRAM "b2nd_slice"
#include "op_program.h"

#define MAX_OPS 48
#define MAX_ITEMS (16 * 1024)
#define MAX_CHUNKS 256
#define MAX_CHUNK_ITEMS 4096
#define MAX_SEL 6
#define CANARY 32
#define CANARY_BYTE 0x5A



/* ---- the model: items in C order ---- */
typedef struct {
  int nd;
  int32_t ts;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunk[B2ND_MAX_DIM], block[B2ND_MAX_DIM];
  uint8_t *data;
} model;

static int64_t nitems_of(int nd, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= shape[i];
  return n;
}

/* Chunks of a shape with the model's chunk shape, or -1 when over bound. */
static int64_t nchunks_of(const model *m, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < m->nd; i++) {
    if (shape[i] == 0) return 0;
    n *= (shape[i] + m->chunk[i] - 1) / m->chunk[i];
    if (n > MAX_CHUNKS) return -1;
  }
  return n;
}

static int shape_ok(const model *m, const int64_t *shape) {
  for (int i = 0; i < m->nd; i++)
    if (shape[i] < 0 || shape[i] > 64) return 0;
  return nitems_of(m->nd, shape) <= MAX_ITEMS && nchunks_of(m, shape) >= 0;
}

/* Flat C-order index of coordinates `c` in `shape`. */
static int64_t flat(int nd, const int64_t *shape, const int64_t *c) {
  int64_t f = 0;
  for (int i = 0; i < nd; i++) f = f * shape[i] + c[i];
  return f;
}

/* Advance coordinates over the box [0, ext); 0 when done. */
static int next_coord(int nd, const int64_t *ext, int64_t *c) {
  for (int i = nd - 1; i >= 0; i--) {
    if (++c[i] < ext[i]) return 1;
    c[i] = 0;
  }
  return 0;
}

/* Deterministic item bytes. */
static void gen_bytes(uint8_t *buf, int64_t len, uint8_t seed) {
  uint32_t x = 0x2545F491u * (seed + 1u);
  for (int64_t i = 0; i < len; i++) {
    if (seed & 1) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      buf[i] = (uint8_t)x;
    } else {
      buf[i] = (uint8_t)(i / 5 + seed);
    }
  }
}

/* The whole array must match the model. */
static void verify_array(const b2nd_array_t *a, const model *m, const char *when) {
  check(a->ndim == m->nd, "ndim", a->ndim, m->nd);
  for (int i = 0; i < m->nd; i++) check(a->shape[i] == m->shape[i], "shape", i, a->shape[i]);
  int64_t n = nitems_of(m->nd, m->shape), len = n * m->ts;
  check(a->nitems == n, "nitems", a->nitems, n);
  uint8_t *buf = malloc((size_t)len + CANARY);
  memset(buf, CANARY_BYTE, (size_t)len + CANARY);
  int rc = b2nd_to_cbuffer(a, buf, len);
  check(rc >= 0, "to_cbuffer failed", rc, len);
  if (len > 0 && memcmp(buf, m->data, (size_t)len) != 0) {
    int64_t k = 0;
    while (buf[k] == m->data[k]) k++;
    fprintf(stderr, "%s: item %lld byte %lld: got %02x want %02x\n", when,
            (long long)(k / m->ts), (long long)(k % m->ts), buf[k], m->data[k]);
    fail("array differs from model", k, len);
  }
  for (int k = 0; k < CANARY; k++) check(buf[len + k] == CANARY_BYTE, "to_cbuffer overran", k, len);
  free(buf);
}

/* ---- slices ---- */
typedef struct {
  int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM];
  int valid; /* in range and not reversed */
  int empty; /* valid with a zero-length dimension */
} box;

/* A box from the input: mostly valid; 1 in 8 has a hostile dimension. */
static void rd_box(reader *r, const model *m, box *b) {
  uint8_t sel = rd8(r);
  b->valid = 1;
  b->empty = 0;
  for (int i = 0; i < m->nd; i++) {
    int64_t s = m->shape[i];
    int64_t a = rd8(r) % (s + 1), z = rd8(r) % (s + 1);
    if (a > z) {
      int64_t t = a;
      a = z;
      z = t;
    }
    b->start[i] = a;
    b->stop[i] = z;
    if (a == z) b->empty = 1;
  }
  if ((sel & 7) == 7 && m->nd > 0) {
    int d = (sel >> 3) % m->nd;
    switch ((sel >> 5) % 6) {
      case 0: b->stop[d] = m->shape[d] + 1 + (sel & 8); break;
      case 1: b->start[d] = -1 - (sel & 8); break;
      case 2: b->start[d] = b->stop[d] + 1; break;
      case 3: b->stop[d] = INT64_MAX; break;
      case 4: b->start[d] = INT64_MIN; break;
      default: b->stop[d] = -1; break;
    }
    b->valid = 0;
  }
}

/* Copy between the model and a C-order buffer of the box's shape. */
static void box_copy(model *m, const box *b, uint8_t *buf, int to_model) {
  int64_t ext[B2ND_MAX_DIM], c[B2ND_MAX_DIM], g[B2ND_MAX_DIM];
  for (int i = 0; i < m->nd; i++) {
    ext[i] = b->stop[i] - b->start[i];
    c[i] = 0;
  }
  if (nitems_of(m->nd, ext) == 0) return;
  int64_t k = 0;
  do {
    for (int i = 0; i < m->nd; i++) g[i] = c[i] + b->start[i];
    uint8_t *item = m->data + flat(m->nd, m->shape, g) * m->ts;
    if (to_model)
      memcpy(item, buf + k * m->ts, (size_t)m->ts);
    else
      memcpy(buf + k * m->ts, item, (size_t)m->ts);
    k++;
  } while (next_coord(m->nd, ext, c));
}

static const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};

typedef struct {
  blosc2_cparams cp;
  blosc2_dparams dp;
  blosc2_storage st;
} params;

static b2nd_context_t *make_ctx(params *p, int nd, const int64_t *shape, const int32_t *chunk,
                                const int32_t *block) {
  return b2nd_create_ctx(&p->st, (int8_t)nd, shape, chunk, block, NULL, 0, NULL, 0);
}

enum {
  OP_GET_SLICE_CBUFFER,
  OP_SET_SLICE_CBUFFER,
  OP_GET_SLICE,
  OP_RESIZE,
  OP_INSERT,
  OP_APPEND,
  OP_DELETE,
  OP_GET_ORTHO,
  OP_SET_ORTHO,
  OP_CFRAME,
  OP_VERIFY,
  OP_COUNT
};

/* Old item coordinate -> new one after a resize that adds or removes
   (new - old) indexes at `at` in every dimension; 0 when it is removed. */
static int map_coord(const model *m, const int64_t *newshape, const int64_t *at, const int64_t *c,
                     int64_t *out) {
  for (int i = 0; i < m->nd; i++) {
    int64_t d = newshape[i] - m->shape[i], j = c[i];
    if (d >= 0) {
      out[i] = j < at[i] ? j : j + d;
    } else {
      if (j < at[i]) out[i] = j;
      else if (j < at[i] - d) return 0;
      else out[i] = j + d;
    }
  }
  return 1;
}

/* Check that a resized array kept every surviving item where the model says,
   then take the library's array (its new items) into the model. */
static void check_resized(const b2nd_array_t *a, model *m, const int64_t *newshape,
                          const int64_t *at) {
  for (int i = 0; i < m->nd; i++) check(a->shape[i] == newshape[i], "resized shape", i, a->shape[i]);
  int64_t nn = nitems_of(m->nd, newshape);
  uint8_t *got = malloc((size_t)(nn * m->ts) + 1);
  int rc = b2nd_to_cbuffer(a, got, nn * m->ts);
  check(rc >= 0, "to_cbuffer after resize", rc, 0);
  int64_t c[B2ND_MAX_DIM] = {0}, o[B2ND_MAX_DIM];
  if (nitems_of(m->nd, m->shape) > 0) {
    do {
      if (!map_coord(m, newshape, at, c, o)) continue;
      const uint8_t *want = m->data + flat(m->nd, m->shape, c) * m->ts;
      const uint8_t *have = got + flat(m->nd, newshape, o) * m->ts;
      if (memcmp(want, have, (size_t)m->ts) != 0) {
        fprintf(stderr, "old item %lld (new %lld) moved wrong\n",
                (long long)flat(m->nd, m->shape, c), (long long)flat(m->nd, newshape, o));
        fail("resize lost or moved an item", flat(m->nd, m->shape, c), 0);
      }
    } while (next_coord(m->nd, m->shape, c));
  }
  free(m->data);
  m->data = got;
  for (int i = 0; i < m->nd; i++) m->shape[i] = newshape[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 5 || size > 4096) return 0;
  trace_init();
  reader r = {data, size, 0};
  static const int32_t typesizes[] = {1, 2, 4, 8, 1, 4, 3, 12};
  uint8_t h0 = rd8(&r), h1 = rd8(&r), h2 = rd8(&r), h3 = rd8(&r), h4 = rd8(&r);
  model *m = calloc(1, sizeof(model));
  m->nd = 1 + (h0 & 3);
  if ((h0 & 0xF0) == 0xF0) m->nd = 5 + ((h0 >> 2) & 3);
  int maxdim = m->nd > 4 ? 5 : m->nd > 2 ? 20 : 40;
  m->ts = typesizes[h1 & 7];

  params p;
  p.cp = BLOSC2_CPARAMS_DEFAULTS;
  p.cp.typesize = m->ts;
  p.cp.compcode = codecs[(h1 >> 3) % 5];
  p.cp.clevel = (uint8_t)(h2 % 10);
  p.cp.nthreads = (int16_t)(1 + ((h2 >> 4) & 1));
  memset(p.cp.filters, 0, sizeof(p.cp.filters));
  switch ((h2 >> 5) & 3) {
    case 0: break;
    case 1: p.cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE; break;
    case 2: p.cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE; break;
    default:
      p.cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
      p.cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
      break;
  }
  p.dp = BLOSC2_DPARAMS_DEFAULTS;
  p.dp.nthreads = p.cp.nthreads;
  p.st = BLOSC2_STORAGE_DEFAULTS;
  p.st.contiguous = h2 >> 7;
  p.st.cparams = &p.cp;
  p.st.dparams = &p.dp;

  for (int i = 0; i < m->nd; i++) {
    m->shape[i] = rd8(&r) % (maxdim + 1);
    uint8_t cb = rd8(&r), bb = rd8(&r);
    int64_t lim = m->shape[i] > 0 ? m->shape[i] + 2 : 4;
    m->chunk[i] = 1 + (int32_t)(cb % lim);
    /* blocks up to the chunk, sometimes beyond it (c-blosc2 accepts it) */
    m->block[i] = 1 + (int32_t)(bb % ((bb & 0x80) ? m->chunk[i] + 2 : m->chunk[i]));
  }
  /* Bounds: items, chunks and items a chunk. */
  while (nitems_of(m->nd, m->shape) > MAX_ITEMS)
    for (int i = 0; i < m->nd; i++) m->shape[i] /= 2;
  for (;;) {
    int64_t cn = 1;
    for (int i = 0; i < m->nd; i++) cn *= m->chunk[i];
    if (cn <= MAX_CHUNK_ITEMS) break;
    for (int i = 0; i < m->nd; i++) {
      m->chunk[i] = (m->chunk[i] + 1) / 2;
      if (m->block[i] > m->chunk[i]) m->block[i] = m->chunk[i];
    }
  }
  while (nchunks_of(m, m->shape) < 0)
    for (int i = 0; i < m->nd; i++)
      if (m->chunk[i] < m->shape[i]) m->chunk[i] = m->chunk[i] * 2 > (int32_t)m->shape[i] ? (int32_t)m->shape[i] : m->chunk[i] * 2;
  {
    int64_t cn = 1, bn = 1;
    for (int i = 0; i < m->nd; i++) {
      cn *= m->chunk[i];
      if (m->block[i] > m->chunk[i] + 2) m->block[i] = m->chunk[i];
      bn *= m->block[i];
    }
    if (cn > 4 * MAX_CHUNK_ITEMS || bn > 4 * MAX_CHUNK_ITEMS)
      for (int i = 0; i < m->nd; i++) m->block[i] = 1;
    if (cn > 4 * MAX_CHUNK_ITEMS) goto out_model;
  }

  /* Invalid geometry: creation must fail cleanly. */
  if ((h3 & 15) == 15) {
    /* room for the over-long ndim below: the library must refuse it before
       reading past B2ND_MAX_DIM entries, but keep the reads in bounds */
    int64_t shape[16] = {0};
    int32_t chunk[16] = {0}, block[16] = {0};
    memcpy(shape, m->shape, sizeof(m->shape));
    memcpy(chunk, m->chunk, sizeof(m->chunk));
    memcpy(block, m->block, sizeof(m->block));
    int d = (h3 >> 4) % m->nd;
    switch (h4 % 5) {
      case 0: shape[d] = -1 - (h4 >> 3); break;
      case 1: chunk[d] = 0; if (shape[d] == 0) shape[d] = 3; break;
      case 2: block[d] = 0; break;
      case 3: chunk[d] = -2; break;
      default: block[d] = -1 - (h4 >> 3); break;
    }
    int nd = m->nd;
    if ((h4 & 0xE0) == 0xE0) nd = B2ND_MAX_DIM + 1 + (h4 & 3); /* too many dimensions */
    b2nd_context_t *ctx = b2nd_create_ctx(&p.st, (int8_t)nd, shape, chunk, block, NULL, 0, NULL, 0);
    if (ctx != NULL) {
      b2nd_array_t *a = NULL;
      uint8_t buf[64] = {0};
      int rc = b2nd_from_cbuffer(ctx, &a, buf, sizeof(buf));
      check(rc < 0, "from_cbuffer with invalid geometry succeeded", h4 % 5, rc);
      rc = b2nd_zeros(ctx, &a);
      check(rc < 0, "zeros with invalid geometry succeeded", h4 % 5, rc);
      b2nd_free_ctx(ctx);
    }
    goto out_model;
  }

  int64_t n = nitems_of(m->nd, m->shape);
  m->data = malloc((size_t)(n * m->ts) + 1);
  b2nd_context_t *ctx = make_ctx(&p, m->nd, m->shape, m->chunk, m->block);
  check(ctx != NULL, "create_ctx with valid geometry", m->nd, 0);
  b2nd_array_t *arr = NULL;
  int rc;
  TRACE("ndim %d typesize %d codec %d clevel %d filters %d contiguous %d build %d\n", m->nd, m->ts,
        p.cp.compcode, p.cp.clevel, (h2 >> 5) & 3, p.st.contiguous, h3 & 3);
  for (int i = 0; i < m->nd; i++)
    TRACE("  dim %d: shape %lld chunk %d block %d\n", i, (long long)m->shape[i], m->chunk[i],
          m->block[i]);
  switch (h3 & 3) {
    case 0:
      gen_bytes(m->data, n * m->ts, h4);
      rc = b2nd_from_cbuffer(ctx, &arr, m->data, n * m->ts);
      break;
    case 1: {
      uint8_t fill[16];
      gen_bytes(fill, sizeof(fill), h4);
      for (int64_t i = 0; i < n; i++) memcpy(m->data + i * m->ts, fill, (size_t)m->ts);
      rc = b2nd_full(ctx, &arr, fill);
      break;
    }
    default: {
      gen_bytes(m->data, n * m->ts, h4);
      rc = (h3 & 3) == 2 ? b2nd_zeros(ctx, &arr) : b2nd_empty(ctx, &arr);
      if (rc >= 0 && n > 0) {
        int64_t start[B2ND_MAX_DIM] = {0};
        rc = b2nd_set_slice_cbuffer(m->data, m->shape, n * m->ts, start, m->shape, arr);
      }
      break;
    }
  }
  check(rc >= 0 && arr != NULL, "building a valid array failed", h3 & 3, rc);
  verify_array(arr, m, "built");

  for (int op = 0; op < MAX_OPS && more(&r); op++) {
    uint8_t code = rd8(&r) % OP_COUNT;
    switch (code) {
      case OP_GET_SLICE_CBUFFER:
      case OP_SET_SLICE_CBUFFER: {
        box b;
        rd_box(&r, m, &b);
        uint8_t small = rd8(&r);
        int64_t bshape[B2ND_MAX_DIM];
        int64_t bn = 1;
        for (int i = 0; i < m->nd; i++) {
          int64_t e;
          if (__builtin_sub_overflow(b.stop[i], b.start[i], &e) || e < 0 || e > 64) e = 1;
          bshape[i] = e;
          bn *= e;
        }
        int64_t bsize = bn * m->ts;
        int too_small = b.valid && bsize > 0 && (small & 7) == 7;
        int64_t pass = too_small ? bsize - 1 - (small >> 3) % bsize : bsize;
        uint8_t *buf = malloc((size_t)bsize + CANARY);
        memset(buf, CANARY_BYTE, (size_t)bsize + CANARY);
        if (code == OP_SET_SLICE_CBUFFER) gen_bytes(buf, bsize, small);
        rc = code == OP_GET_SLICE_CBUFFER
                 ? b2nd_get_slice_cbuffer(arr, b.start, b.stop, buf, bshape, pass)
                 : b2nd_set_slice_cbuffer(buf, bshape, pass, b.start, b.stop, arr);
        TRACE("%s_slice_cbuffer valid %d empty %d small %d -> %d\n",
              code == OP_GET_SLICE_CBUFFER ? "get" : "set", b.valid, b.empty, too_small, rc);
        if (!b.valid) {
          check(rc < 0, "slice out of range succeeded", code, 0);
        } else if (too_small) {
          check(rc < 0, "slice with a too small buffer succeeded", pass, bsize);
        } else if (!b.empty) {
          check(rc >= 0, "valid slice failed", code, rc);
          if (code == OP_GET_SLICE_CBUFFER) {
            uint8_t *want = malloc((size_t)bsize + 1);
            box_copy(m, &b, want, 0);
            if (memcmp(want, buf, (size_t)bsize) != 0) fail("get_slice_cbuffer differs from model", bn, 0);
            free(want);
          } else {
            box_copy(m, &b, buf, 1);
          }
        }
        for (int k = 0; k < CANARY; k++)
          check(buf[bsize + k] == CANARY_BYTE, "slice wrote past its buffer", k, bsize);
        free(buf);
        if (code == OP_SET_SLICE_CBUFFER) verify_array(arr, m, "set_slice_cbuffer");
        break;
      }
      case OP_GET_SLICE: {
        box b;
        rd_box(&r, m, &b);
        uint8_t cb = rd8(&r);
        int64_t sshape[B2ND_MAX_DIM];
        int32_t schunk[B2ND_MAX_DIM], sblock[B2ND_MAX_DIM];
        for (int i = 0; i < m->nd; i++) {
          int64_t e;
          if (__builtin_sub_overflow(b.stop[i], b.start[i], &e) || e < 0) e = 0;
          sshape[i] = e;
          schunk[i] = m->chunk[i];
          if (cb & 1) schunk[i] = e > 0 && e < m->chunk[i] ? (int32_t)e : m->chunk[i];
          sblock[i] = m->block[i] <= schunk[i] ? m->block[i] : schunk[i];
        }
        b2nd_context_t *sctx = make_ctx(&p, m->nd, sshape, schunk, sblock);
        check(sctx != NULL, "create_ctx for get_slice", 0, 0);
        b2nd_array_t *sl = NULL;
        rc = b2nd_get_slice(sctx, &sl, arr, b.start, b.stop);
        TRACE("get_slice valid %d -> %d\n", b.valid, rc);
        if (!b.valid) {
          check(rc < 0, "get_slice out of range succeeded", 0, rc);
        } else if (!b.empty) {
          check(rc >= 0 && sl != NULL, "valid get_slice failed", 0, rc);
        }
        if (rc >= 0 && sl != NULL && b.valid) {
          int64_t bn = nitems_of(m->nd, sshape);
          check(sl->ndim == m->nd, "get_slice ndim", sl->ndim, m->nd);
          for (int i = 0; i < m->nd; i++) check(sl->shape[i] == sshape[i], "get_slice shape", i, sl->shape[i]);
          uint8_t *want = malloc((size_t)(bn * m->ts) + 1), *got = malloc((size_t)(bn * m->ts) + 1);
          box_copy(m, &b, want, 0);
          rc = b2nd_to_cbuffer(sl, got, bn * m->ts);
          check(rc >= 0, "to_cbuffer of get_slice's array", rc, 0);
          if (bn > 0 && memcmp(want, got, (size_t)(bn * m->ts)) != 0) fail("get_slice differs from model", bn, 0);
          free(want);
          free(got);
        }
        if (sl != NULL) b2nd_free(sl);
        b2nd_free_ctx(sctx);
        break;
      }
      case OP_RESIZE: {
        uint8_t sel = rd8(&r);
        int64_t ns[B2ND_MAX_DIM], at[B2ND_MAX_DIM];
        int use_start = sel & 1, bad = 0;
        for (int i = 0; i < m->nd; i++) {
          int8_t delta = (int8_t)rd8(&r);
          uint8_t sb = rd8(&r);
          ns[i] = m->shape[i] + (delta % 9);
          if (sel & 2) ns[i] = m->shape[i] + (delta % 3) * m->chunk[i];
          if (ns[i] < 0) ns[i] = 0;
          /* start: aligned to chunks or anywhere up to the old shape */
          int64_t lo = ns[i] < m->shape[i] ? ns[i] : m->shape[i];
          at[i] = (sb & 1) ? lo : (sb >> 1) % (m->shape[i] + 1);
          if (sb & 2) at[i] -= at[i] % m->chunk[i];
        }
        if ((sel & 0x1C) == 0x1C) {
          int d = (sel >> 5) % m->nd;
          if (sel & 1) at[d] = (sel & 0x80) ? -1 : m->shape[d] + 1;
          else ns[d] = -1;
          bad = 1;
        }
        if (!bad && !shape_ok(m, ns)) break;
        /* Removing more than there is after `at` is out of range too. */
        for (int i = 0; i < m->nd && use_start && !bad; i++)
          if (ns[i] < m->shape[i] && at[i] + (m->shape[i] - ns[i]) > m->shape[i]) at[i] = ns[i];
        rc = b2nd_resize(arr, ns, use_start ? at : NULL);
        TRACE("resize start %d bad %d -> %d\n", use_start, bad, rc);
        if (bad) {
          check(rc < 0, "resize with a negative shape or start out of range succeeded", sel, rc);
          verify_array(arr, m, "failed resize");
          break;
        }
        if (rc < 0) {
          /* Refusals of starts away from chunk boundaries are documented;
             the array must be as it was. */
          verify_array(arr, m, "refused resize");
          break;
        }
        int64_t where[B2ND_MAX_DIM];
        for (int i = 0; i < m->nd; i++)
          where[i] = use_start ? at[i] : (ns[i] < m->shape[i] ? ns[i] : m->shape[i]);
        check_resized(arr, m, ns, where);
        break;
      }
      case OP_INSERT:
      case OP_APPEND:
      case OP_DELETE: {
        uint8_t ab = rd8(&r), pb = rd8(&r), lb = rd8(&r);
        int axis = ab % m->nd;
        int64_t pos = pb % (m->shape[axis] + 1);
        int bad = 0;
        if ((ab & 0xF0) == 0xF0) { axis = (ab & 8) ? -1 : m->nd + (ab & 3); bad = 1; }
        if (!bad && code != OP_APPEND && (lb & 0xF0) == 0xF0) { pos = (lb & 8) ? -1 - (lb & 3) : m->shape[axis] + 1; bad = 1; }
        int64_t ns[B2ND_MAX_DIM], at[B2ND_MAX_DIM] = {0};
        memcpy(ns, m->shape, sizeof(ns));
        int64_t len = lb % 5;
        if (code == OP_APPEND) pos = bad || axis < 0 || axis >= m->nd ? 0 : m->shape[axis];
        if (!bad) {
          if (code == OP_DELETE) {
            if (pos + len > m->shape[axis]) len = m->shape[axis] - pos;
            ns[axis] -= len;
          } else {
            ns[axis] += len;
          }
          if (!shape_ok(m, ns)) break;
          at[axis] = pos;
        }
        if (code == OP_DELETE) {
          rc = b2nd_delete(arr, (int8_t)axis, pos, len);
        } else {
          int64_t slab = m->ts;
          for (int i = 0; i < m->nd; i++)
            if (i != axis) slab *= m->shape[i];
          int64_t bsize = bad ? 64 : slab * len;
          uint8_t *buf = malloc((size_t)bsize + 1);
          gen_bytes(buf, bsize, pb);
          rc = code == OP_INSERT ? b2nd_insert(arr, buf, bsize, (int8_t)axis, pos)
                                 : b2nd_append(arr, buf, bsize, (int8_t)axis);
          if (rc >= 0 && !bad && bsize > 0) {
            /* Expected: the model with the slab block at `pos` on `axis`. */
            check_resized(arr, m, ns, at);
            box b;
            for (int i = 0; i < m->nd; i++) {
              b.start[i] = 0;
              b.stop[i] = m->shape[i];
            }
            b.start[axis] = pos;
            b.stop[axis] = pos + len;
            box_copy(m, &b, buf, 1);
            free(buf);
            TRACE("%s axis %d at %lld len %lld -> %d\n", code == OP_INSERT ? "insert" : "append",
                  axis, (long long)pos, (long long)len, rc);
            verify_array(arr, m, "insert/append");
            break;
          }
          free(buf);
        }
        TRACE("op %d axis %d at %lld len %lld bad %d -> %d\n", code, axis, (long long)pos,
              (long long)len, bad, rc);
        if (bad) {
          check(rc < 0, "insert/append/delete with a bad axis or position succeeded", code, rc);
          verify_array(arr, m, "refused insert/delete");
        } else if (rc < 0) {
          verify_array(arr, m, "refused insert/delete");
        } else if (code == OP_DELETE) {
          check_resized(arr, m, ns, at);
          verify_array(arr, m, "delete");
        } else {
          /* an empty insert: shape unchanged */
          verify_array(arr, m, "empty insert");
        }
        break;
      }
      case OP_GET_ORTHO:
      case OP_SET_ORTHO: {
        int64_t idx[B2ND_MAX_DIM][MAX_SEL];
        int64_t *sel[B2ND_MAX_DIM];
        int64_t ssize[B2ND_MAX_DIM], bshape[B2ND_MAX_DIM];
        int valid = 1;
        int64_t bn = 1;
        uint8_t seed = rd8(&r);
        for (int i = 0; i < m->nd; i++) {
          uint8_t cnt = rd8(&r);
          ssize[i] = cnt % (MAX_SEL + 1);
          bshape[i] = ssize[i];
          bn *= ssize[i];
          sel[i] = idx[i];
          for (int k = 0; k < ssize[i]; k++) {
            uint8_t v = rd8(&r);
            if ((v & 0xF8) == 0xF8 && (cnt & 0x80)) {
              idx[i][k] = (v & 1) ? -1 - (v & 6) : m->shape[i] + (v & 6);
              valid = 0;
            } else {
              idx[i][k] = m->shape[i] > 0 ? v % m->shape[i] : 0;
              if (m->shape[i] == 0) valid = 0;
            }
            /* a set takes each index once (the winner of a repeat is not
               specified) */
            if (code == OP_SET_ORTHO)
              for (int j = 0; j < k; j++)
                if (idx[i][j] == idx[i][k]) {
                  idx[i][k] = -1;
                  valid = 0;
                }
          }
        }
        int64_t bsize = bn * m->ts;
        uint8_t *buf = malloc((size_t)bsize + CANARY);
        memset(buf, CANARY_BYTE, (size_t)bsize + CANARY);
        if (code == OP_SET_ORTHO) gen_bytes(buf, bsize, seed);
        rc = code == OP_GET_ORTHO
                 ? b2nd_get_orthogonal_selection(arr, sel, ssize, buf, bshape, bsize)
                 : b2nd_set_orthogonal_selection(arr, sel, ssize, buf, bshape, bsize);
        TRACE("%s_orthogonal_selection valid %d items %lld -> %d\n",
              code == OP_GET_ORTHO ? "get" : "set", valid, (long long)bn, rc);
        if (!valid && bn > 0) {
          check(rc < 0, "orthogonal selection out of range succeeded", code, rc);
        } else if (valid && bn > 0) {
          check(rc >= 0, "valid orthogonal selection failed", code, rc);
          int64_t c[B2ND_MAX_DIM] = {0}, g[B2ND_MAX_DIM];
          int64_t k = 0;
          do {
            for (int i = 0; i < m->nd; i++) g[i] = idx[i][c[i]];
            uint8_t *item = m->data + flat(m->nd, m->shape, g) * m->ts;
            if (code == OP_GET_ORTHO) {
              if (memcmp(item, buf + k * m->ts, (size_t)m->ts) != 0)
                fail("get_orthogonal_selection differs from model", k, 0);
            } else {
              memcpy(item, buf + k * m->ts, (size_t)m->ts);
            }
            k++;
          } while (next_coord(m->nd, ssize, c));
        }
        for (int k = 0; k < CANARY; k++)
          check(buf[bsize + k] == CANARY_BYTE, "orthogonal selection wrote past its buffer", k, bsize);
        free(buf);
        if (code == OP_SET_ORTHO) verify_array(arr, m, "set_orthogonal_selection");
        break;
      }
      case OP_CFRAME: {
        uint8_t which = rd8(&r);
        uint8_t *cframe = NULL;
        int64_t clen = 0;
        bool needs_free = false;
        rc = b2nd_to_cframe(arr, &cframe, &clen, &needs_free);
        check(rc >= 0 && cframe != NULL && clen > 0, "to_cframe failed", rc, clen);
        b2nd_array_t *copy = NULL;
        rc = b2nd_from_cframe(cframe, clen, true, &copy);
        check(rc >= 0 && copy != NULL, "from_cframe of to_cframe's frame failed", rc, clen);
        if (needs_free) free(cframe);
        TRACE("cframe round trip %lld bytes; continue on the %s\n", (long long)clen,
              (which & 1) ? "copy" : "original");
        verify_array(copy, m, "from_cframe");
        for (int i = 0; i < m->nd; i++) {
          check(copy->chunkshape[i] == arr->chunkshape[i], "from_cframe chunkshape", i, copy->chunkshape[i]);
          check(copy->blockshape[i] == arr->blockshape[i], "from_cframe blockshape", i, copy->blockshape[i]);
        }
        if (which & 1) {
          b2nd_free(arr);
          arr = copy;
        } else {
          b2nd_free(copy);
        }
        break;
      }
      default:
        verify_array(arr, m, "verify");
        break;
    }
  }
  verify_array(arr, m, "end");
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
out_model:
  free(m->data);
  free(m);
  return 0;
}
