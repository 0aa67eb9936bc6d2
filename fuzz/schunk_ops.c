/* libFuzzer target: the input is a small program of super-chunk operations
   run against an in-memory super-chunk (sparse or contiguous) and checked
   against a plain model: the expected uncompressed bytes of every chunk and
   the expected metalayers and vlmetalayers.

   Input layout: 4 header bytes pick the typesize, filter, storage, threads,
   codec, clevel and the chunk size in items (1..512); every following
   operation is one opcode byte plus the argument bytes it reads (a missing
   byte reads as 0).  At most MAX_OPS operations and MAX_CHUNKS chunks, so
   one input runs in milliseconds.

   Operations are also given hostile arguments (negative or out-of-range
   indexes, invalid permutations, reversed or too long slices, too small
   destinations, over-long names); those must fail with a negative code and
   leave the super-chunk as it was.  Where the reference's behaviour for an
   edge case is not pinned down (chunks of other sizes, metalayers added to
   a frame that holds chunks, an empty range), either outcome is accepted and
   the model follows what the library reports.  A difference between the
   library and the model in data it claims to hold is reported and abort()s:
   that is silent corruption. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blosc2.h>
#include "fuzz_init.h"
#define OP_PROGRAM "schunk_ops"
#include "op_program.h"

#define MAX_OPS 64
#define MAX_CHUNKS 64
#define MAX_CHUNK_ITEMS 512
#define MAX_META 16
#define MAX_VLMETA 24
#define META_MAXLEN 48
#define VLMETA_MAXLEN 300
#define CANARY 32
#define CANARY_BYTE 0xA5

/* ---- input reader ---- */
static uint16_t rd16(reader *r) {
  uint16_t lo = rd8(r);
  return (uint16_t)(lo | ((uint16_t)rd8(r) << 8));
}

/* A number near the interesting range [0, lim], or (1 in 8) a hostile one. */
static int64_t rd_num(reader *r, int64_t lim) {
  uint8_t sel = rd8(r);
  if ((sel & 7) != 7) {
    uint16_t v = rd16(r);
    return lim >= 0 ? (int64_t)(v % (uint64_t)(lim + 1)) : 0;
  }
  switch ((sel >> 3) % 10) {
    case 0: return -1;
    case 1: return lim + 1;
    case 2: return lim + 1 + rd8(r);
    case 3: return INT64_MIN;
    case 4: return INT64_MAX;
    case 5: return -(int64_t)rd8(r) - 2;
    case 6: return (int64_t)INT32_MAX;
    case 7: return (int64_t)INT32_MAX + 1;
    case 8: return INT64_MAX / 2 + 3;
    default: return lim;
  }
}

/* ---- model ---- */
typedef struct {
  uint8_t *data; /* expected bytes */
  int32_t len;
  int defined; /* 0: uninitialized special chunk, contents unspecified */
} mchunk;

typedef struct {
  char name[40];
  uint8_t content[VLMETA_MAXLEN];
  int32_t len;
} mmeta;

typedef struct {
  mchunk ch[MAX_CHUNKS];
  int64_t n;
  mmeta meta[MAX_META];
  int nmeta;
  mmeta vlmeta[MAX_VLMETA];
  int nvlmeta;
  int32_t ts, cs; /* typesize, regular chunk size in bytes */
  int irregular;  /* a chunk of another size was ever accepted */
  int special;    /* an all-zero or uninitialized chunk was ever accepted */
} model;


static void model_free(model *m) {
  for (int64_t i = 0; i < m->n; i++) free(m->ch[i].data);
  m->n = 0;
}

/* Deterministic chunk contents from a kind and a seed. */
static void gen_bytes(uint8_t *buf, int32_t len, uint8_t kind, uint8_t seed) {
  uint32_t x = 0x9E3779B9u ^ ((uint32_t)seed * 0x01000193u) ^ kind;
  switch (kind % 4) {
    case 0: /* random-ish */
      for (int32_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (uint8_t)x;
      }
      break;
    case 1: /* ramp: compressible, good for shuffle/delta */
      for (int32_t i = 0; i < len; i++) buf[i] = (uint8_t)(i / 3 + seed);
      break;
    case 2: /* runs */
      for (int32_t i = 0; i < len; i++) buf[i] = (uint8_t)((i / (1 + seed % 37)) * 7 + seed);
      break;
    default: /* constant */
      memset(buf, seed, (size_t)len);
      break;
  }
}

/* Compare chunk i of the super-chunk with the model, several ways. */
static void verify_chunk(blosc2_schunk *sc, const model *m, int64_t i) {
  const mchunk *c = &m->ch[i];
  uint8_t *chunk = NULL;
  bool needs_free = false;
  int csize = blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
  check(csize > 0 && chunk != NULL, "get_chunk failed", i, csize);
  int32_t nbytes = -1, cbytes = -1;
  check(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, NULL) >= 0, "cbuffer_sizes", i, 0);
  check(nbytes == c->len, "chunk nbytes differs from model", nbytes, c->len);
  check(cbytes <= csize, "chunk cbytes beyond its size", cbytes, csize);
  if (needs_free) free(chunk);
  uint8_t *dest = malloc((size_t)c->len + CANARY);
  memset(dest, CANARY_BYTE, (size_t)c->len + CANARY);
  int rc = blosc2_schunk_decompress_chunk(sc, i, dest, c->len);
  check(rc == c->len, "decompress_chunk size", rc, c->len);
  if (c->defined && memcmp(dest, c->data, (size_t)c->len) != 0) {
    int32_t k = 0;
    while (dest[k] == c->data[k]) k++;
    fprintf(stderr, "chunk %lld byte %d: got %02x want %02x\n", (long long)i, k, dest[k],
            c->data[k]);
    fail("decompressed chunk differs from model", i, k);
  }
  for (int k = 0; k < CANARY; k++)
    check(dest[c->len + k] == CANARY_BYTE, "decompress_chunk wrote past nbytes", i, k);
  free(dest);
}

static void verify_meta(blosc2_schunk *sc, const model *m) {
  check(sc->nmetalayers == m->nmeta, "nmetalayers", sc->nmetalayers, m->nmeta);
  for (int i = 0; i < m->nmeta; i++) {
    uint8_t *content = NULL;
    int32_t len = -1;
    int rc = blosc2_meta_get(sc, m->meta[i].name, &content, &len);
    check(rc >= 0, "meta_get of a metalayer the model has", i, rc);
    check(len == m->meta[i].len, "metalayer length", len, m->meta[i].len);
    if (len > 0 && memcmp(content, m->meta[i].content, (size_t)len) != 0)
      fail("metalayer content", i, len);
    free(content);
  }
}

static int vl_find(const model *m, const char *name) {
  for (int i = 0; i < m->nvlmeta; i++)
    if (strcmp(m->vlmeta[i].name, name) == 0) return i;
  return -1;
}

static void verify_vlmeta(blosc2_schunk *sc, const model *m) {
  check(sc->nvlmetalayers == m->nvlmeta, "nvlmetalayers", sc->nvlmetalayers, m->nvlmeta);
  char *names[MAX_VLMETA + 1];
  int nn = blosc2_vlmeta_get_names(sc, names);
  check(nn == m->nvlmeta, "vlmeta_get_names count", nn, m->nvlmeta);
  for (int i = 0; i < nn; i++) check(vl_find(m, names[i]) >= 0, "vlmeta name not in model", i, 0);
  for (int i = 0; i < m->nvlmeta; i++) {
    uint8_t *content = NULL;
    int32_t len = -1;
    int rc = blosc2_vlmeta_get(sc, m->vlmeta[i].name, &content, &len);
    check(rc >= 0, "vlmeta_get of a vlmetalayer the model has", i, rc);
    check(len == m->vlmeta[i].len, "vlmetalayer length", len, m->vlmeta[i].len);
    if (len > 0 && memcmp(content, m->vlmeta[i].content, (size_t)len) != 0)
      fail("vlmetalayer content", i, len);
    free(content);
  }
}

static void verify_all(blosc2_schunk *sc, const model *m) {
  check(sc->nchunks == m->n, "nchunks", sc->nchunks, m->n);
  for (int64_t i = 0; i < m->n; i++) verify_chunk(sc, m, i);
  verify_meta(sc, m);
  verify_vlmeta(sc, m);
}

/* ---- chunk making ---- */
typedef struct {
  uint8_t *chunk; /* compressed, malloc'ed */
  int32_t csize;
  uint8_t *data; /* expected bytes, malloc'ed */
  int32_t len;
  int defined;
} made;

static blosc2_cparams g_cparams;

static int all_zero(const uint8_t *p, int32_t len) {
  for (int32_t i = 0; i < len; i++)
    if (p[i] != 0) return 0;
  return 1;
}

/* Build a chunk from argument bytes: kind, seed, size selector, codec. */
static int make_chunk(reader *r, const model *m, made *out, blosc2_schunk *sc) {
  uint8_t kind = rd8(r), seed = rd8(r), sz = rd8(r);
  int32_t len = m->cs;
  if ((sz & 15) == 15) {
    /* another whole number of items: smaller, or (rarely) larger */
    int32_t items = m->cs / m->ts;
    int32_t k = (int32_t)(sz >> 4);
    len = (sz & 0x80) ? (items + 1 + k) * m->ts : (1 + (items - 1) * k / 8) * m->ts;
  }
  out->len = len;
  out->data = malloc((size_t)len);
  out->chunk = malloc((size_t)len + BLOSC2_MAX_OVERHEAD);
  out->defined = 1;
  blosc2_cparams cp = g_cparams;
  int csize;
  switch (kind >> 5) {
    case 0: /* zeros special */
      memset(out->data, 0, (size_t)len);
      csize = blosc2_chunk_zeros(cp, len, out->chunk, len + BLOSC2_MAX_OVERHEAD);
      break;
    case 1: /* uninitialized special: contents unspecified */
      memset(out->data, 0, (size_t)len);
      out->defined = 0;
      csize = blosc2_chunk_uninit(cp, len, out->chunk, len + BLOSC2_MAX_OVERHEAD);
      break;
    case 2: { /* repeated value */
      uint8_t val[8];
      gen_bytes(val, 8, 0, seed);
      for (int32_t i = 0; i < len; i++) out->data[i] = val[i % m->ts];
      csize = blosc2_chunk_repeatval(cp, len, out->chunk, len + BLOSC2_MAX_OVERHEAD, val);
      break;
    }
    default: { /* compressed data, sometimes with another codec/clevel */
      gen_bytes(out->data, len, kind, seed);
      if (kind & 8) {
        static const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB,
                                         BLOSC_ZSTD};
        cp.compcode = codecs[(kind >> 1) % 5];
        cp.clevel = (uint8_t)(seed % 10);
      }
      blosc2_context *cctx = blosc2_create_cctx(cp);
      check(cctx != NULL, "create_cctx", 0, 0);
      csize = blosc2_compress_ctx(cctx, out->data, len, out->chunk, len + BLOSC2_MAX_OVERHEAD);
      blosc2_free_ctx(cctx);
      break;
    }
  }
  check(csize > 0, "making a chunk failed", csize, len);
  out->csize = csize;
  return 0;
}

static void made_free(made *c) {
  free(c->chunk);
  free(c->data);
}

/* Put the made chunk's expected bytes at model index i (shifting up). */
static void model_insert(model *m, int64_t i, made *c) {
  memmove(&m->ch[i + 1], &m->ch[i], (size_t)(m->n - i) * sizeof(mchunk));
  m->ch[i].data = c->data;
  m->ch[i].len = c->len;
  m->ch[i].defined = c->defined;
  if (c->len != m->cs) m->irregular = 1;
  if (!c->defined || all_zero(c->data, c->len)) m->special = 1;
  c->data = NULL;
  m->n++;
}

/* Item ranges: byte offset of item `it` in the concatenation of the model,
   when every chunk but the last is full. */
static int model_regular(const model *m) {
  for (int64_t i = 0; i + 1 < m->n; i++)
    if (m->ch[i].len != m->cs) return 0;
  return m->n == 0 || m->ch[m->n - 1].len <= m->cs;
}

static int64_t model_nitems(const model *m) {
  int64_t b = 0;
  for (int64_t i = 0; i < m->n; i++) b += m->ch[i].len;
  return b / m->ts;
}

/* Compare/copy bytes [b0, b1) of the concatenated model with buf. */
static void model_slice_cmp(const model *m, int64_t b0, int64_t b1, const uint8_t *buf) {
  int64_t pos = 0;
  for (int64_t i = 0; i < m->n && pos < b1; i++) {
    int64_t s = pos, e = pos + m->ch[i].len;
    pos = e;
    if (e <= b0 || !m->ch[i].defined) continue;
    int64_t lo = s > b0 ? s : b0, hi = e < b1 ? e : b1;
    for (int64_t k = lo; k < hi; k++)
      if (buf[k - b0] != m->ch[i].data[k - s]) {
        fprintf(stderr, "slice byte %lld (chunk %lld): got %02x want %02x\n", (long long)k,
                (long long)i, buf[k - b0], m->ch[i].data[k - s]);
        fail("get_slice_buffer differs from model", b0, b1);
      }
  }
}

static void model_slice_set(model *m, int64_t b0, int64_t b1, const uint8_t *buf) {
  int64_t pos = 0;
  for (int64_t i = 0; i < m->n && pos < b1; i++) {
    int64_t s = pos, e = pos + m->ch[i].len;
    pos = e;
    if (e <= b0) continue;
    int64_t lo = s > b0 ? s : b0, hi = e < b1 ? e : b1;
    memcpy(m->ch[i].data + (lo - s), buf + (lo - b0), (size_t)(hi - lo));
    /* A partly written uninitialized chunk: only the written part is known,
       keep treating it as unspecified. */
    if (!m->ch[i].defined && lo == s && hi == e) m->ch[i].defined = 1;
  }
}

/* ---- names ---- */
static void rd_name(reader *r, char *name, size_t cap) {
  uint8_t b = rd8(r);
  size_t len;
  if ((b & 31) == 31)
    len = 32 + (b >> 5); /* over the 31-character limit */
  else
    len = 1 + (b & 3);
  if (len >= cap) len = cap - 1;
  for (size_t i = 0; i < len; i++) name[i] = (char)('a' + (i == 0 ? (b >> 2) % 6 : rd8(r) % 3));
  name[len] = '\0';
}

static int meta_find(const model *m, const char *name) {
  for (int i = 0; i < m->nmeta; i++)
    if (strcmp(m->meta[i].name, name) == 0) return i;
  return -1;
}

/* ---- the program ---- */
enum {
  OP_APPEND,
  OP_APPEND_BUFFER,
  OP_INSERT,
  OP_UPDATE,
  OP_DELETE,
  OP_REORDER,
  OP_GET_SLICE,
  OP_SET_SLICE,
  OP_GETITEM,
  OP_DECOMPRESS_SMALL,
  OP_META_ADD,
  OP_META_UPDATE,
  OP_VLMETA_ADD,
  OP_VLMETA_UPDATE,
  OP_VLMETA_DELETE,
  OP_ROUNDTRIP,
  OP_VERIFY,
  OP_COUNT
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4 || size > 4096) return 0;
  trace_init();
  reader r = {data, size, 0};
  static const int32_t typesizes[] = {1, 2, 4, 8};
  static const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  uint8_t h0 = rd8(&r), h1 = rd8(&r);
  uint16_t items = (uint16_t)(rd16(&r) % MAX_CHUNK_ITEMS + 1);

  model *m = calloc(1, sizeof(model));
  m->ts = typesizes[h0 & 3];
  m->cs = items * m->ts;

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = m->ts;
  cp.compcode = codecs[(h1 & 15) % 5];
  cp.clevel = (uint8_t)((h1 >> 4) % 10);
  cp.nthreads = (int16_t)(1 + ((h0 >> 5) & 1));
  memset(cp.filters, 0, sizeof(cp.filters));
  switch ((h0 >> 2) & 3) {
    case 0: break;
    case 1: cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE; break;
    case 2: cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE; break;
    default:
      cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
      break;
  }
  g_cparams = cp;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = cp.nthreads;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.contiguous = (h0 >> 4) & 1;
  st.cparams = &cp;
  st.dparams = &dp;
  TRACE("schunk typesize %d chunk %d bytes codec %d clevel %d filters %d nthreads %d "
        "contiguous %d\n", m->ts, m->cs, cp.compcode, cp.clevel, (h0 >> 2) & 3, cp.nthreads,
        st.contiguous);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  check(sc != NULL, "schunk_new", 0, 0);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  check(dctx != NULL, "create_dctx", 0, 0);

  for (int op = 0; op < MAX_OPS && more(&r); op++) {
    uint8_t code = rd8(&r) % OP_COUNT;
    int64_t touched = -1;
    switch (code) {
      case OP_APPEND:
      case OP_INSERT:
      case OP_UPDATE: {
        if (m->n >= MAX_CHUNKS && code != OP_UPDATE) {
          (void)rd8(&r);
          break;
        }
        int64_t lim = code == OP_UPDATE ? m->n - 1 : m->n;
        int64_t idx = code == OP_APPEND ? m->n : rd_num(&r, lim < 0 ? 0 : lim);
        int valid_idx = idx >= 0 && idx <= lim;
        made c;
        make_chunk(&r, m, &c, sc);
        /* Strictness: a chunk of the regular size into a super-chunk that
           only ever held regular ones must be taken. */
        int strict = valid_idx && c.len == m->cs && !m->irregular;
        int64_t rc;
        TRACE("op %d (0 append, 2 insert, 3 update) at %lld: %d bytes, csize %d, defined %d\n",
              code, (long long)idx, c.len, c.csize, c.defined);
        if (code == OP_APPEND) {
          bool copy = !strict || ((c.len + c.csize) & 1);
          rc = blosc2_schunk_append_chunk(sc, c.chunk, copy);
          if (!copy) c.chunk = NULL; /* the super-chunk owns it now */
        } else if (code == OP_INSERT) {
          rc = blosc2_schunk_insert_chunk(sc, idx, c.chunk, true);
        } else {
          rc = blosc2_schunk_update_chunk(sc, idx, c.chunk, true);
        }
        if (!valid_idx) {
          check(rc < 0, "chunk op at an invalid index succeeded", code, idx);
        } else if (strict) {
          check(rc >= 0, "chunk op of a regular chunk failed", code, rc);
        }
        if (rc >= 0) {
          if (code == OP_UPDATE) {
            free(m->ch[idx].data);
            m->ch[idx].data = c.data;
            m->ch[idx].len = c.len;
            m->ch[idx].defined = c.defined;
            if (c.len != m->cs) m->irregular = 1;
            if (!c.defined || all_zero(c.data, c.len)) m->special = 1;
            c.data = NULL;
          } else {
            model_insert(m, idx, &c);
          }
          check(rc == m->n, "chunk op return value", rc, m->n);
          touched = idx;
        }
        made_free(&c);
        break;
      }
      case OP_APPEND_BUFFER: {
        if (m->n >= MAX_CHUNKS) break;
        uint8_t kind = rd8(&r), seed = rd8(&r);
        uint8_t *buf = malloc((size_t)m->cs);
        gen_bytes(buf, m->cs, kind, seed);
        int64_t rc = blosc2_schunk_append_buffer(sc, buf, m->cs);
        TRACE("append_buffer %d bytes -> %lld\n", m->cs, (long long)rc);
        if (!m->irregular) check(rc >= 0, "append_buffer failed", rc, m->cs);
        if (rc >= 0) {
          made c = {NULL, 0, buf, m->cs, 1};
          model_insert(m, m->n, &c);
          check(rc == m->n, "append_buffer return value", rc, m->n);
          touched = m->n - 1;
        } else {
          free(buf);
        }
        break;
      }
      case OP_DELETE: {
        int64_t idx = rd_num(&r, m->n - 1 < 0 ? 0 : m->n - 1);
        int64_t rc = blosc2_schunk_delete_chunk(sc, idx);
        TRACE("delete_chunk %lld -> %lld\n", (long long)idx, (long long)rc);
        if (idx < 0 || idx >= m->n) {
          check(rc < 0, "delete_chunk at an invalid index succeeded", idx, rc);
        } else {
          check(rc >= 0, "delete_chunk failed", idx, rc);
          free(m->ch[idx].data);
          memmove(&m->ch[idx], &m->ch[idx + 1], (size_t)(m->n - idx - 1) * sizeof(mchunk));
          m->n--;
          check(rc == m->n, "delete_chunk return value", rc, m->n);
        }
        break;
      }
      case OP_REORDER: {
        uint8_t how = rd8(&r);
        int64_t n = m->n;
        int64_t *order = malloc(sizeof(int64_t) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) order[i] = i;
        for (int64_t i = n - 1; i > 0; i--) {
          int64_t j = rd8(&r) % (i + 1), t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
        int valid = 1;
        if (n > 0 && (how & 3) == 3) {
          int64_t at = rd8(&r) % n;
          switch ((how >> 2) % 4) {
            case 0: order[at] = n; break;
            case 1: order[at] = -1 - (int64_t)(how >> 4); break;
            case 2: order[at] = order[(at + 1) % n]; break; /* a repeat */
            default: order[at] = INT64_MAX - (int64_t)(how >> 4); break;
          }
          valid = n == 1 && (how >> 2) % 4 == 2; /* order[0] = order[0] */
        }
        int rc = blosc2_schunk_reorder_offsets(sc, order);
        TRACE("reorder_offsets (valid %d) ->  %d\n", valid, rc);
        if (!valid) {
          check(rc < 0, "reorder_offsets with an invalid order succeeded", how, rc);
        } else if (n == 0) {
          /* nothing to reorder: either answer */
        } else {
          check(rc >= 0, "reorder_offsets failed", n, rc);
          mchunk tmp[MAX_CHUNKS];
          memcpy(tmp, m->ch, sizeof(mchunk) * (size_t)n);
          for (int64_t i = 0; i < n; i++) m->ch[i] = tmp[order[i]];
          if (n > 0) touched = 0;
        }
        free(order);
        break;
      }
      case OP_GET_SLICE:
      case OP_SET_SLICE: {
        int64_t nitems = model_nitems(m);
        int64_t start = rd_num(&r, nitems), stop = rd_num(&r, nitems);
        uint8_t seed = rd8(&r);
        int in_range = start >= 0 && stop >= start && stop <= nitems;
        int nonempty = stop > start;
        /* A buffer only for ranges that can be valid; an invalid one gets a
           small buffer the library must not touch. */
        int64_t blen = in_range ? (stop - start) * m->ts : 16;
        uint8_t *buf = malloc((size_t)blen + CANARY);
        memset(buf, CANARY_BYTE, (size_t)blen + CANARY);
        if (code == OP_SET_SLICE && in_range) {
          gen_bytes(buf, (int32_t)blen, seed, seed);
        }
        int rc = code == OP_GET_SLICE ? blosc2_schunk_get_slice_buffer(sc, start, stop, buf)
                                      : blosc2_schunk_set_slice_buffer(sc, start, stop, buf);
        TRACE("%s_slice_buffer [%lld, %lld) -> %d\n", code == OP_GET_SLICE ? "get" : "set",
              (long long)start, (long long)stop, rc);
        if (!in_range && nonempty) {
          check(rc < 0, "slice out of range succeeded", start, stop);
        } else if (in_range && nonempty && model_regular(m) && sc->chunksize == m->cs) {
          check(rc >= 0, "slice in range failed", start, stop);
        }
        if (in_range && rc >= 0 && nonempty) {
          if (code == OP_GET_SLICE)
            model_slice_cmp(m, start * m->ts, stop * m->ts, buf);
          else
            model_slice_set(m, start * m->ts, stop * m->ts, buf);
          for (int64_t i = 0; i < m->n; i++)
            if (!m->ch[i].defined || all_zero(m->ch[i].data, m->ch[i].len)) m->special = 1;
          touched = (start * m->ts) / m->cs;
          if (touched >= m->n) touched = m->n - 1;
        }
        for (int k = 0; k < CANARY; k++)
          check(buf[blen + k] == CANARY_BYTE, "slice wrote past its buffer", start, stop);
        free(buf);
        break;
      }
      case OP_GETITEM: {
        int64_t idx = rd8(&r);
        int64_t start = rd_num(&r, MAX_CHUNK_ITEMS), nit = rd_num(&r, MAX_CHUNK_ITEMS);
        uint8_t dsel = rd8(&r);
        if (m->n == 0) break;
        idx %= m->n;
        const mchunk *c = &m->ch[idx];
        int64_t citems = c->len / m->ts;
        if (start > INT32_MAX || start < INT32_MIN || nit > INT32_MAX || nit < INT32_MIN) break;
        int valid = start >= 0 && nit >= 0 && start + nit <= citems;
        int64_t want = valid ? nit * m->ts : 0;
        int32_t destsize = (int32_t)want;
        if ((dsel & 3) == 3 && want > 0) destsize = (int32_t)(want - 1 - (dsel >> 2) % want);
        if (!valid) destsize = 8 * m->ts;
        uint8_t *chunk = NULL;
        bool needs_free = false;
        int csize = blosc2_schunk_get_chunk(sc, idx, &chunk, &needs_free);
        check(csize > 0, "get_chunk failed", idx, csize);
        uint8_t *dest = malloc((size_t)destsize + CANARY);
        memset(dest, CANARY_BYTE, (size_t)destsize + CANARY);
        int rc = blosc2_getitem_ctx(dctx, chunk, csize, (int)start, (int)nit, dest, destsize);
        TRACE("getitem chunk %lld start %lld nitems %lld destsize %d -> %d\n", (long long)idx,
              (long long)start, (long long)nit, destsize, rc);
        if (!valid && nit > 0) {
          check(rc < 0, "getitem out of range succeeded", start, nit);
        } else if (valid && destsize < want) {
          check(rc < 0, "getitem into a too small buffer succeeded", want, destsize);
        } else if (valid && nit > 0) {
          check(rc == want, "getitem size", rc, want);
          if (c->defined && memcmp(dest, c->data + start * m->ts, (size_t)want) != 0)
            fail("getitem bytes differ from model", start, nit);
        }
        for (int k = 0; k < CANARY; k++)
          check(dest[destsize + k] == CANARY_BYTE, "getitem wrote past destsize", idx, destsize);
        free(dest);
        if (needs_free) free(chunk);
        break;
      }
      case OP_DECOMPRESS_SMALL: {
        int64_t idx = rd_num(&r, m->n > 0 ? m->n - 1 : 0);
        uint8_t sh = rd8(&r);
        if (idx < 0 || idx >= m->n) {
          uint8_t tmp[64];
          int rc = blosc2_schunk_decompress_chunk(sc, idx, tmp, sizeof(tmp));
          check(rc < 0, "decompress_chunk of a missing chunk succeeded", idx, rc);
          break;
        }
        int32_t len = m->ch[idx].len;
        int32_t dsize = len - 1 - (int32_t)(sh % len);
        uint8_t *dest = malloc((size_t)dsize + CANARY);
        memset(dest, CANARY_BYTE, (size_t)dsize + CANARY);
        int rc = blosc2_schunk_decompress_chunk(sc, idx, dest, dsize);
        check(rc < 0, "decompress_chunk into a too small buffer succeeded", len, dsize);
        for (int k = 0; k < CANARY; k++)
          check(dest[dsize + k] == CANARY_BYTE, "decompress_chunk wrote past its buffer", len,
                dsize);
        free(dest);
        touched = idx;
        break;
      }
      case OP_META_ADD:
      case OP_META_UPDATE: {
        char name[48];
        rd_name(&r, name, sizeof(name));
        int32_t len = rd8(&r) % (META_MAXLEN + 1);
        uint8_t seed = rd8(&r);
        uint8_t content[META_MAXLEN + 1];
        gen_bytes(content, len, seed, seed);
        int found = meta_find(m, name);
        int longname = strlen(name) > BLOSC2_METALAYER_NAME_MAXLEN;
        if (code == OP_META_ADD) {
          int rc = blosc2_meta_add(sc, name, content, len);
          TRACE("meta_add %s len %d -> %d\n", name, len, rc);
          if (longname || found >= 0 || m->nmeta >= MAX_META) {
            check(rc < 0, "meta_add of a bad or existing name succeeded", found, rc);
          } else if (rc >= 0) {
            check(rc == m->nmeta, "meta_add index", rc, m->nmeta);
            mmeta *mm = &m->meta[m->nmeta++];
            strcpy(mm->name, name);
            memcpy(mm->content, content, (size_t)len);
            mm->len = len;
          }
          /* A refusal of a fresh name is accepted: a frame holding chunks
             has no room left in its header. */
        } else {
          int rc = blosc2_meta_update(sc, name, content, len);
          TRACE("meta_update %s len %d -> %d\n", name, len, rc);
          if (found < 0) {
            check(rc < 0, "meta_update of a missing metalayer succeeded", 0, rc);
          } else if (len <= m->meta[found].len) {
            /* The content is overwritten from its start; the length stays. */
            if (rc >= 0) {
              check(rc == found, "meta_update index", rc, found);
              memcpy(m->meta[found].content, content, (size_t)len);
            }
          }
          /* Longer content: refused (ours), or ignored while returning the
             index (the reference); the content must not change either way. */
        }
        verify_meta(sc, m);
        break;
      }
      case OP_VLMETA_ADD:
      case OP_VLMETA_UPDATE:
      case OP_VLMETA_DELETE: {
        char name[48];
        rd_name(&r, name, sizeof(name));
        int32_t len = rd16(&r) % (VLMETA_MAXLEN + 1);
        uint8_t seed = rd8(&r), cpsel = rd8(&r);
        uint8_t content[VLMETA_MAXLEN + 1];
        gen_bytes(content, len, seed, seed);
        int found = vl_find(m, name);
        int longname = strlen(name) > BLOSC2_VLMETALAYERS_NAME_MAXLEN;
        blosc2_cparams vcp = BLOSC2_CPARAMS_DEFAULTS;
        vcp.compcode = codecs[cpsel % 5];
        vcp.clevel = (uint8_t)((cpsel >> 3) % 10);
        vcp.typesize = 1 + (cpsel >> 7);
        blosc2_cparams *vcpp = (cpsel & 4) ? &vcp : NULL;
        int rc;
        if (code == OP_VLMETA_DELETE) {
          rc = blosc2_vlmeta_delete(sc, name);
          TRACE("vlmeta_delete %s -> %d\n", name, rc);
          if (found < 0) {
            check(rc < 0, "vlmeta_delete of a missing name succeeded", 0, rc);
          } else {
            check(rc >= 0, "vlmeta_delete failed", found, rc);
            memmove(&m->vlmeta[found], &m->vlmeta[found + 1],
                    (size_t)(m->nvlmeta - found - 1) * sizeof(mmeta));
            m->nvlmeta--;
            check(rc == m->nvlmeta, "vlmeta_delete return value", rc, m->nvlmeta);
          }
        } else {
          if (code == OP_VLMETA_ADD && found < 0 && m->nvlmeta >= MAX_VLMETA) break;
          rc = code == OP_VLMETA_ADD ? blosc2_vlmeta_add(sc, name, content, len, vcpp)
                                     : blosc2_vlmeta_update(sc, name, content, len, vcpp);
          TRACE("vlmeta_%s %s len %d -> %d\n", code == OP_VLMETA_ADD ? "add" : "update", name, len,
                rc);
          if (longname) {
            check(rc < 0, "vlmetalayer with an over-long name accepted", 0, rc);
          } else if (code == OP_VLMETA_UPDATE && found < 0) {
            check(rc < 0, "vlmeta_update of a missing name succeeded", 0, rc);
          } else if (len > 0 && (code == OP_VLMETA_UPDATE || found < 0)) {
            check(rc >= 0, "vlmeta add/update failed", found, rc);
          }
          /* Adding an existing name: refused (the reference) or a replace. */
          if (rc >= 0) {
            int at = found;
            if (at < 0) at = m->nvlmeta++;
            check(rc == at, "vlmetalayer index", rc, at);
            strcpy(m->vlmeta[at].name, name);
            memcpy(m->vlmeta[at].content, content, (size_t)len);
            m->vlmeta[at].len = len;
          }
        }
        verify_vlmeta(sc, m);
        break;
      }
      case OP_ROUNDTRIP: {
        uint8_t which = rd8(&r);
        uint8_t *cframe = NULL;
        bool needs_free = false;
        int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
        TRACE("to_buffer -> %lld; continue on the %s\n", (long long)len, (which & 1) ? "copy" : "original");
        check(len > 0 && cframe != NULL, "schunk_to_buffer failed", len, 0);
        blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, len, true);
        check(copy != NULL, "schunk_from_buffer of to_buffer's frame failed", len, 0);
        if (needs_free) free(cframe);
        verify_all(copy, m);
        if (which & 1) {
          blosc2_schunk_free(sc);
          sc = copy;
        } else {
          blosc2_schunk_free(copy);
        }
        break;
      }
      default: /* OP_VERIFY */
        verify_all(sc, m);
        break;
    }
    check(sc->nchunks == m->n, "nchunks after an operation", sc->nchunks, m->n);
    if (touched >= 0 && touched < m->n) verify_chunk(sc, m, touched);
  }
  verify_all(sc, m);

  blosc2_free_ctx(dctx);
  blosc2_schunk_free(sc);
  model_free(m);
  free(m);
  return 0;
}
