/* b2nd arrays to and from buffers, frames and files:
 * b2nd_from_cbuffer / to_cbuffer, b2nd_from_schunk, b2nd_from_cframe /
 * to_cframe (copy true and false), b2nd_open / open_offset, b2nd_save /
 * save_append (contiguous and sparse storage), b2nd_copy (same and other
 * chunk/block shapes), b2nd_print_meta, b2nd_refresh.
 *
 * Also pins down the storage layout inside a chunk (blocks in C order, items
 * in C order inside a block, padding zeroed), which is what makes frames
 * exchangeable with other Blosc2 implementations. */
#include "b2nd_common.h"
#include <unistd.h>

static int64_t nitems_of(const geom_t *g) { return prod(g->ndim, g->shape); }

static b2nd_context_t *make_ctx_st(const geom_t *g, bool contiguous, const char *urlpath,
                                   const blosc2_metalayer *metas, int nmetas) {
  return geom_ctx(g, (ctx_opts_t){.contiguous = contiguous, .urlpath = urlpath, .metas = metas,
                                  .nmetas = nmetas, .nthreads = 2, .dthreads = 2});
}

static b2nd_context_t *make_ctx(const geom_t *g, bool contiguous) {
  return make_ctx_st(g, contiguous, NULL, NULL, 0);
}

/* Distinct, non-repeating item contents: byte k of item i. */
static uint8_t *make_data(const geom_t *g, uint32_t seed) {
  int64_t n = nitems_of(g);
  uint8_t *d = tc_malloc((size_t)(n * g->typesize));
  for (int64_t i = 0; i < n; i++) {
    uint32_t v = (uint32_t)i * 2654435761u + seed;
    for (int k = 0; k < g->typesize; k++) {
      d[i * g->typesize + k] = (uint8_t)(v >> (8 * (k % 4))) ^ (uint8_t)(k * 17);
    }
  }
  return d;
}

static void check_same_geometry(const b2nd_array_t *a, const geom_t *g, const char *label) {
  CHECK_MSG(a->ndim == g->ndim, "%s: ndim %d", label, a->ndim);
  for (int i = 0; i < g->ndim; i++) {
    CHECK_MSG(a->shape[i] == g->shape[i] && a->chunkshape[i] == g->cs[i] &&
              a->blockshape[i] == g->bs[i], "%s: dim %d", label, i);
  }
  CHECK_MSG(a->nitems == nitems_of(g), "%s: nitems", label);
  CHECK_MSG(a->sc != NULL && a->sc->typesize == g->typesize, "%s: typesize", label);
}

/* Where item `idx` (flat C-order index into the array) lives: chunk number
   and item offset inside the decompressed chunk. */
static void locate(const geom_t *g, int64_t idx, int64_t *nchunk, int64_t *offset) {
  int64_t coord[B2ND_MAX_DIM];
  for (int i = g->ndim - 1; i >= 0; i--) {
    coord[i] = idx % g->shape[i];
    idx /= g->shape[i];
  }
  int64_t chunk = 0, block = 0, inblock = 0;
  for (int i = 0; i < g->ndim; i++) {
    int64_t nch = (g->shape[i] + g->cs[i] - 1) / g->cs[i];
    int64_t extc = (g->cs[i] + g->bs[i] - 1) / g->bs[i] * g->bs[i];
    int64_t nbl = extc / g->bs[i];
    int64_t inchunk = coord[i] % g->cs[i];
    chunk = chunk * nch + coord[i] / g->cs[i];
    block = block * nbl + inchunk / g->bs[i];
    inblock = inblock * g->bs[i] + inchunk % g->bs[i];
  }
  int64_t blocknitems = 1;
  for (int i = 0; i < g->ndim; i++) blocknitems *= g->bs[i];
  *nchunk = chunk;
  *offset = block * blocknitems + inblock;
}

/* Expected decompressed chunks of an array holding `data`. */
static uint8_t *expected_chunks(const geom_t *g, const uint8_t *data, int64_t *nchunks,
                                int64_t *chunkbytes) {
  int64_t nch = 1, extc = 1;
  for (int i = 0; i < g->ndim; i++) {
    nch *= (g->shape[i] + g->cs[i] - 1) / g->cs[i];
    extc *= (g->cs[i] + g->bs[i] - 1) / g->bs[i] * g->bs[i];
  }
  *nchunks = nch;
  *chunkbytes = extc * g->typesize;
  uint8_t *out = calloc((size_t)(nch * extc), (size_t)g->typesize);
  REQUIRE(out != NULL);
  int64_t n = nitems_of(g);
  for (int64_t i = 0; i < n; i++) {
    int64_t c, o;
    locate(g, i, &c, &o);
    memcpy(out + (c * extc + o) * g->typesize, data + i * g->typesize, (size_t)g->typesize);
  }
  return out;
}

static const geom_t geoms[] = {
  {1, {1000}, {300}, {64}, 4},
  {1, {77}, {77}, {77}, 1},
  {2, {40, 50}, {15, 20}, {4, 6}, 2},
  {2, {64, 64}, {32, 32}, {16, 16}, 8},
  {2, {5, 7}, {4, 6}, {2, 4}, 4},
  {3, {10, 11, 12}, {4, 5, 6}, {3, 2, 4}, 3},
  {3, {9, 1, 30}, {4, 1, 16}, {2, 1, 5}, 16},
  {4, {6, 5, 4, 7}, {3, 5, 2, 4}, {1, 2, 2, 3}, 4},
  {5, {3, 4, 2, 3, 5}, {2, 3, 2, 2, 4}, {1, 2, 1, 2, 3}, 1},
};
#define NGEOMS ((int)(sizeof geoms / sizeof geoms[0]))

/* from_cbuffer / to_cbuffer round trip plus the chunk layout. */
static void cbuffer_roundtrip(void) {
  for (int gi = 0; gi < NGEOMS; gi++) {
    const geom_t *g = &geoms[gi];
    for (int contiguous = 0; contiguous <= 1; contiguous++) {
      char label[64];
      snprintf(label, sizeof label, "geom %d contiguous %d", gi, contiguous);
      b2nd_context_t *ctx = make_ctx(g, contiguous);
      REQUIRE(ctx != NULL);
      uint8_t *data = make_data(g, (uint32_t)gi);
      int64_t nbytes = nitems_of(g) * g->typesize;
      b2nd_array_t *a = NULL;
      int rc = b2nd_from_cbuffer(ctx, &a, data, nbytes);
      CHECK_MSG(rc == 0, "%s: from_cbuffer rc %d", label, rc);
      if (a == NULL) {
        free(data);
        b2nd_free_ctx(ctx);
        continue;
      }
      check_same_geometry(a, g, label);
      check_content(a, data, nbytes, label, true);
      /* a larger buffer is fine too */
      uint8_t *big = tc_malloc((size_t)nbytes + 100);
      CHECK_EQ_INT(b2nd_to_cbuffer(a, big, nbytes + 100), 0);
      CHECK_MEM(big, data, nbytes);
      free(big);

      /* chunk layout: blocks in C order, items in C order, padding zero */
      int64_t nchunks, chunkbytes;
      uint8_t *exp = expected_chunks(g, data, &nchunks, &chunkbytes);
      CHECK_EQ_INT(a->sc->nchunks, nchunks);
      uint8_t *chunk = tc_malloc((size_t)chunkbytes);
      for (int64_t c = 0; c < nchunks && c < a->sc->nchunks; c++) {
        int n = blosc2_schunk_decompress_chunk(a->sc, c, chunk, (int32_t)chunkbytes);
        CHECK_MSG(n == chunkbytes, "%s chunk %lld: %d bytes", label, (long long)c, n);
        long d = tc_first_diff(chunk, exp + c * chunkbytes, (size_t)chunkbytes);
        CHECK_MSG(d < 0, "%s chunk %lld: layout differs at byte %ld", label, (long long)c, d);
      }
      free(chunk);
      free(exp);

      /* too small buffers are refused */
      if (nbytes > 1) {
        uint8_t *small = tc_malloc((size_t)nbytes);
        CHECK_NEG(b2nd_to_cbuffer(a, small, nbytes - 1));
        b2nd_array_t *bad = NULL;
        CHECK_NEG(b2nd_from_cbuffer(ctx, &bad, data, nbytes - 1));
        park(bad);
        free(small);
      }
      CHECK_EQ_INT(b2nd_free(a), 0);
      free(data);
      CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
    }
  }
  /* NULL arguments */
  geom_t g = {1, {10}, {5}, {5}, 1};
  b2nd_context_t *ctx = make_ctx(&g, false);
  uint8_t buf[10] = {0};
  b2nd_array_t *a = NULL;
  CHECK_NEG(b2nd_from_cbuffer(ctx, &a, NULL, 10));
  CHECK_NEG(b2nd_from_cbuffer(NULL, &a, buf, 10));
  CHECK_NEG(b2nd_to_cbuffer(NULL, buf, 10));
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, buf, 10), 0);
  CHECK_NEG(b2nd_to_cbuffer(a, NULL, 10));
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

/* A super-chunk assembled by hand (metalayer + chunks in the documented
   layout) is a valid array; b2nd_from_schunk takes it over. */
static void from_schunk(void) {
  for (int gi = 0; gi < NGEOMS; gi++) {
    const geom_t *g = &geoms[gi];
    for (int which = 0; which < 2; which++) { /* "b2nd", then legacy "caterva" */
      char label[64];
      snprintf(label, sizeof label, "from_schunk geom %d %s", gi, which ? "caterva" : "b2nd");
      uint8_t *data = make_data(g, 1000u + (uint32_t)gi);
      int64_t nchunks, chunkbytes;
      uint8_t *exp = expected_chunks(g, data, &nchunks, &chunkbytes);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = g->typesize;
      int32_t blocknitems = 1;
      for (int i = 0; i < g->ndim; i++) blocknitems *= g->bs[i];
      cp.blocksize = blocknitems * g->typesize;
      blosc2_storage st = {.contiguous = (gi % 2) == 0, .cparams = &cp};
      blosc2_schunk *sc = blosc2_schunk_new(&st);
      REQUIRE(sc != NULL);
      uint8_t *smeta = NULL;
      int len = b2nd_serialize_meta(g->ndim, g->shape, g->cs, g->bs, "|V", 0, &smeta);
      REQUIRE(len > 0);
      CHECK(blosc2_meta_add(sc, which ? "caterva" : "b2nd", smeta, len) >= 0);
      free(smeta);
      for (int64_t c = 0; c < nchunks; c++) {
        CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, exp + c * chunkbytes, (int32_t)chunkbytes),
                     c + 1);
      }
      b2nd_array_t *a = NULL;
      int rc = b2nd_from_schunk(sc, &a);
      CHECK_MSG(rc == 0 && a != NULL, "%s: rc %d", label, rc);
      if (a != NULL) {
        CHECK(a->sc == sc);
        check_same_geometry(a, g, label);
        CHECK_STR(a->dtype, "|V");
        check_content(a, data, nitems_of(g) * g->typesize, label, true);
        CHECK_EQ_INT(b2nd_free(a), 0); /* frees sc too */
      } else {
        blosc2_schunk_free(sc);
      }
      free(exp);
      free(data);
    }
  }
  /* no b2nd metalayer: refused, the super-chunk stays the caller's */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t x = 1;
  CHECK(blosc2_meta_add(sc, "other", &x, 1) >= 0);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_from_schunk(sc, &a), BLOSC2_ERROR_METALAYER_NOT_FOUND);
  CHECK_NEG(b2nd_from_schunk(NULL, &a));
  CHECK_NEG(b2nd_from_schunk(sc, NULL));
  blosc2_schunk_free(sc);
}

/* to_cframe / from_cframe with copy true and false. */
static void cframes(void) {
  uint8_t user[5] = {9, 8, 7, 6, 5};
  blosc2_metalayer metas[1] = {{.name = "user", .content = user, .content_len = 5}};
  for (int gi = 0; gi < NGEOMS; gi++) {
    const geom_t *g = &geoms[gi];
    for (int contiguous = 0; contiguous <= 1; contiguous++) {
      char label[64];
      snprintf(label, sizeof label, "cframe geom %d contiguous %d", gi, contiguous);
      b2nd_context_t *ctx = make_ctx_st(g, contiguous, NULL, metas, 1);
      REQUIRE(ctx != NULL);
      uint8_t *data = make_data(g, 77u * (uint32_t)gi);
      int64_t nbytes = nitems_of(g) * g->typesize;
      b2nd_array_t *a = NULL;
      CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, data, nbytes), 0);
      REQUIRE(a != NULL);
      const char *vl = "variable-length meta";
      CHECK(blosc2_vlmeta_add(a->sc, "vl", (uint8_t *)vl, (int32_t)strlen(vl), NULL) >= 0);

      uint8_t *cframe = NULL;
      int64_t cframe_len = 0;
      bool needs_free = false;
      CHECK_EQ_INT(b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free), 0);
      CHECK(cframe != NULL && cframe_len > 0);
      /* a private copy, so that copy=false can be exercised independently */
      uint8_t *mine = tc_malloc((size_t)cframe_len);
      memcpy(mine, cframe, (size_t)cframe_len);
      if (needs_free) free(cframe);

      for (int copy = 0; copy <= 1; copy++) {
        b2nd_array_t *b = NULL;
        int rc = b2nd_from_cframe(mine, cframe_len, copy, &b);
        CHECK_MSG(rc == 0 && b != NULL, "%s copy %d: rc %d", label, copy, rc);
        if (b == NULL) continue;
        check_same_geometry(b, g, label);
        check_content(b, data, nbytes, label, true);
        uint8_t *content = NULL;
        int32_t clen = 0;
        CHECK(blosc2_meta_get(b->sc, "user", &content, &clen) >= 0);
        CHECK(clen == 5 && content != NULL && memcmp(content, user, 5) == 0);
        free(content);
        content = NULL;
        CHECK(blosc2_vlmeta_get(b->sc, "vl", &content, &clen) >= 0);
        CHECK(clen == (int32_t)strlen(vl) && content != NULL && memcmp(content, vl, (size_t)clen) == 0);
        free(content);
        /* a frame of the reloaded array loads again */
        uint8_t *cf2 = NULL;
        int64_t cf2_len = 0;
        bool nf2 = false;
        CHECK_EQ_INT(b2nd_to_cframe(b, &cf2, &cf2_len, &nf2), 0);
        b2nd_array_t *c = NULL;
        CHECK_EQ_INT(b2nd_from_cframe(cf2, cf2_len, true, &c), 0);
        if (c != NULL) {
          check_content(c, data, nbytes, label, true);
          b2nd_free(c);
        }
        if (nf2) free(cf2);
        CHECK_EQ_INT(b2nd_free(b), 0);
      }
      free(mine);
      CHECK_EQ_INT(b2nd_free(a), 0);
      free(data);
      CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
    }
  }
  /* garbage is refused */
  uint8_t junk[256];
  for (int i = 0; i < 256; i++) junk[i] = (uint8_t)(i * 31 + 7);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_from_cframe(junk, sizeof junk, true, &a), BLOSC2_ERROR_FAILURE);
  CHECK_EQ_INT(b2nd_from_cframe(junk, 0, true, &a), BLOSC2_ERROR_FAILURE);
  CHECK_EQ_INT(b2nd_from_cframe(NULL, 100, true, &a), BLOSC2_ERROR_NULL_POINTER);
  /* a valid frame without a b2nd metalayer is refused */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t buf[100] = {1, 2, 3};
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), 1);
  uint8_t *cf = NULL;
  bool nf = false;
  int64_t cflen = blosc2_schunk_to_buffer(sc, &cf, &nf);
  CHECK(cflen > 0);
  if (cflen > 0) {
    CHECK_NEG(b2nd_from_cframe(cf, cflen, true, &a));
    park(a);
  }
  if (nf) free(cf);
  blosc2_schunk_free(sc);
}

static int64_t file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

/* save / open / open_offset / save_append on both storages. */
static void files(void) {
  const char *path = "test_b2nd_buffers_a.b2nd";
  const char *path2 = "test_b2nd_buffers_b.b2nd";
  const char *dir = "test_b2nd_buffers_dir.b2nd";
  uint8_t user[2] = {42, 43};
  blosc2_metalayer metas[1] = {{.name = "user", .content = user, .content_len = 2}};
  for (int gi = 0; gi < NGEOMS; gi++) {
    const geom_t *g = &geoms[gi];
    char label[64];
    snprintf(label, sizeof label, "files geom %d", gi);
    uint8_t *data = make_data(g, 5u + (uint32_t)gi);
    int64_t nbytes = nitems_of(g) * g->typesize;
    for (int contiguous = 0; contiguous <= 1; contiguous++) {
      const char *target = contiguous ? path : dir;
      blosc2_remove_urlpath(target);
      b2nd_context_t *ctx = make_ctx_st(g, contiguous, NULL, metas, 1);
      REQUIRE(ctx != NULL);
      b2nd_array_t *a = NULL;
      CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, data, nbytes), 0);
      REQUIRE(a != NULL);
      CHECK(blosc2_vlmeta_add(a->sc, "vl", user, 2, NULL) >= 0);
      CHECK_EQ_INT(b2nd_save(a, (char *)target), 0);
      b2nd_array_t *b = NULL;
      CHECK_EQ_INT(b2nd_open(target, &b), 0);
      if (b != NULL) {
        check_same_geometry(b, g, label);
        check_content(b, data, nbytes, label, true);
        CHECK(b->sc->storage != NULL && b->sc->storage->contiguous == (bool)contiguous);
        CHECK(blosc2_meta_exists(b->sc, "user") >= 0);
        uint8_t *content = NULL;
        int32_t clen = 0;
        CHECK(blosc2_vlmeta_get(b->sc, "vl", &content, &clen) >= 0);
        CHECK(clen == 2 && content != NULL && content[0] == 42);
        free(content);
        CHECK_EQ_INT(b2nd_free(b), 0);
      }
      CHECK_EQ_INT(b2nd_free(a), 0);
      CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
      CHECK_EQ_INT(blosc2_remove_urlpath(target), 0);
    }
    /* arrays created directly on disk */
    for (int contiguous = 0; contiguous <= 1; contiguous++) {
      const char *target = contiguous ? path : dir;
      blosc2_remove_urlpath(target);
      b2nd_context_t *ctx = make_ctx_st(g, contiguous, target, NULL, 0);
      REQUIRE(ctx != NULL);
      b2nd_array_t *a = NULL;
      CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, data, nbytes), 0);
      REQUIRE(a != NULL);
      CHECK_EQ_INT(b2nd_free(a), 0);
      b2nd_array_t *b = NULL;
      CHECK_EQ_INT(b2nd_open(target, &b), 0);
      if (b != NULL) {
        check_same_geometry(b, g, label);
        check_content(b, data, nbytes, label, true);
        CHECK_EQ_INT(b2nd_free(b), 0);
      }
      CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
      CHECK_EQ_INT(blosc2_remove_urlpath(target), 0);
    }
    free(data);
  }

  /* save_append: several arrays one after the other in one file */
  blosc2_remove_urlpath(path2);
  {
    FILE *f = fopen(path2, "wb"); /* some unrelated leading bytes */
    REQUIRE(f != NULL);
    fputs("HEADER-BYTES-BEFORE-THE-FRAMES", f);
    fclose(f);
  }
  int64_t offsets[4];
  uint8_t *datas[4];
  for (int k = 0; k < 4; k++) {
    const geom_t *g = &geoms[(k * 2 + 1) % NGEOMS];
    datas[k] = make_data(g, 900u + (uint32_t)k);
    b2nd_context_t *ctx = make_ctx(g, k % 2 == 0);
    REQUIRE(ctx != NULL);
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, datas[k], nitems_of(g) * g->typesize), 0);
    REQUIRE(a != NULL);
    int64_t before = file_size(path2);
    offsets[k] = b2nd_save_append(a, path2);
    CHECK_MSG(offsets[k] == before, "append %d: offset %lld, file had %lld bytes", k,
              (long long)offsets[k], (long long)before);
    CHECK(file_size(path2) > before);
    CHECK_EQ_INT(b2nd_free(a), 0);
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  }
  for (int k = 3; k >= 0; k--) {
    const geom_t *g = &geoms[(k * 2 + 1) % NGEOMS];
    b2nd_array_t *b = NULL;
    CHECK_EQ_INT(b2nd_open_offset(path2, &b, offsets[k]), 0);
    if (b != NULL) {
      char label[64];
      snprintf(label, sizeof label, "open_offset %d", k);
      check_same_geometry(b, g, label);
      check_content(b, datas[k], nitems_of(g) * g->typesize, label, true);
      CHECK_EQ_INT(b2nd_free(b), 0);
    }
    free(datas[k]);
  }
  {
    b2nd_array_t *b = NULL;
    CHECK_NEG(b2nd_open_offset(path2, &b, offsets[1] + 3)); /* not a frame start */
    park(b);
  }
  CHECK_EQ_INT(blosc2_remove_urlpath(path2), 0);

  /* appending to a missing file starts it at offset 0; b2nd_open reads it */
  {
    const geom_t *g = &geoms[2];
    uint8_t *data = make_data(g, 31);
    b2nd_context_t *ctx = make_ctx(g, false);
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, data, nitems_of(g) * g->typesize), 0);
    REQUIRE(a != NULL);
    CHECK_EQ_INT(b2nd_save_append(a, path2), 0);
    b2nd_array_t *b = NULL;
    CHECK_EQ_INT(b2nd_open(path2, &b), 0);
    if (b != NULL) {
      check_content(b, data, nitems_of(g) * g->typesize, "append to new file", true);
      b2nd_free(b);
    }
    b = NULL;
    CHECK_EQ_INT(b2nd_open_offset(path2, &b, 0), 0);
    if (b != NULL) b2nd_free(b);
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    free(data);
    blosc2_remove_urlpath(path2);
  }

  /* missing files: the super-chunk that could not be opened is a NULL
     pointer to the reference (its b2nd_open passes it on to
     b2nd_from_schunk), and c-blosc2's bench/get_sparse prints the code */
  b2nd_array_t *b = NULL;
  CHECK_EQ_INT(b2nd_open("test_b2nd_buffers_does_not_exist.b2nd", &b), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(b2nd_open_offset("test_b2nd_buffers_does_not_exist.b2nd", &b, 0),
               BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(b2nd_open(NULL, &b), BLOSC2_ERROR_NULL_POINTER);
  CHECK(b == NULL);
}

/* b2nd_copy to the same and to other chunk/block shapes, memory and disk. */
static void copies(void) {
  const char *path = "test_b2nd_buffers_copy.b2nd";
  const char *dir = "test_b2nd_buffers_copy_dir.b2nd";
  uint8_t user[3] = {1, 2, 3};
  blosc2_metalayer metas[1] = {{.name = "user", .content = user, .content_len = 3}};
  for (int gi = 0; gi < NGEOMS; gi++) {
    const geom_t *g = &geoms[gi];
    uint8_t *data = make_data(g, 4242u + (uint32_t)gi);
    int64_t nbytes = nitems_of(g) * g->typesize;
    b2nd_context_t *ctx = make_ctx_st(g, gi % 2 == 1, NULL, metas, 1);
    REQUIRE(ctx != NULL);
    b2nd_array_t *src = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &src, data, nbytes), 0);
    REQUIRE(src != NULL);
    CHECK(blosc2_vlmeta_add(src->sc, "vl", user, 3, NULL) >= 0);

    for (int variant = 0; variant < 5; variant++) {
      geom_t h = *g; /* destination geometry */
      const char *urlpath = NULL;
      bool contiguous = false;
      switch (variant) {
        case 0: break; /* same shapes, memory */
        case 1:        /* other chunk and block shapes */
          for (int i = 0; i < h.ndim; i++) {
            h.cs[i] = (int32_t)(h.shape[i] / 2 + 1);
            h.bs[i] = h.cs[i] > 2 ? h.cs[i] / 2 : 1;
          }
          break;
        case 2: /* one chunk, one block */
          for (int i = 0; i < h.ndim; i++) {
            h.cs[i] = (int32_t)h.shape[i];
            h.bs[i] = (int32_t)h.shape[i];
          }
          contiguous = true;
          break;
        case 3: /* other shapes, contiguous file */
          for (int i = 0; i < h.ndim; i++) {
            h.cs[i] = h.cs[i] > 1 ? h.cs[i] - 1 : 1;
            h.bs[i] = 1;
          }
          urlpath = path;
          contiguous = true;
          break;
        default: /* same shapes, sparse directory */
          urlpath = dir;
          break;
      }
      if (urlpath) blosc2_remove_urlpath(urlpath);
      char label[64];
      snprintf(label, sizeof label, "copy geom %d variant %d", gi, variant);
      b2nd_context_t *dctx = make_ctx_st(&h, contiguous, urlpath, NULL, 0);
      REQUIRE(dctx != NULL);
      b2nd_array_t *dst = NULL;
      int rc = b2nd_copy(dctx, src, &dst);
      CHECK_MSG(rc == 0 && dst != NULL, "%s: rc %d", label, rc);
      if (dst != NULL) {
        check_same_geometry(dst, &h, label);
        check_content(dst, data, nbytes, label, true);
        CHECK_MSG(blosc2_meta_exists(dst->sc, "user") >= 0, "%s: user metalayer lost", label);
        uint8_t *content = NULL;
        int32_t clen = 0;
        CHECK_MSG(blosc2_vlmeta_get(dst->sc, "vl", &content, &clen) >= 0, "%s: vlmeta lost",
                  label);
        free(content);
        CHECK_EQ_INT(b2nd_free(dst), 0);
      }
      if (urlpath) {
        b2nd_array_t *back = NULL;
        CHECK_EQ_INT(b2nd_open(urlpath, &back), 0);
        if (back != NULL) {
          check_same_geometry(back, &h, label);
          check_content(back, data, nbytes, label, true);
          b2nd_free(back);
        }
        blosc2_remove_urlpath(urlpath);
      }
      CHECK_EQ_INT(b2nd_free_ctx(dctx), 0);
    }
    /* the source is untouched */
    check_content(src, data, nbytes, "copy source", true);
    CHECK_EQ_INT(b2nd_free(src), 0);
    CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
    free(data);
  }
}

/* b2nd_print_meta writes the geometry to stdout. */
static void print_meta(void) {
  geom_t g = {3, {123, 45, 6}, {61, 17, 5}, {13, 9, 2}, 4};
  b2nd_context_t *ctx = make_ctx(&g, false);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
  REQUIRE(a != NULL);
  const char *tmp = "test_b2nd_buffers_print_meta.txt";
  fflush(stdout);
  int saved = dup(1);
  FILE *f = fopen(tmp, "w+");
  REQUIRE(saved >= 0 && f != NULL);
  dup2(fileno(f), 1);
  int rc = b2nd_print_meta(a);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  CHECK_EQ_INT(rc, 0);
  char text[4096] = {0};
  fseek(f, 0, SEEK_SET);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  remove(tmp);
  CHECK(n > 0);
  CHECK_MSG(strstr(text, "123") && strstr(text, "45") && strstr(text, "61") &&
            strstr(text, "17") && strstr(text, "13"),
            "print_meta output lacks the shapes: \"%s\"", text);
  CHECK_NEG(b2nd_print_meta(NULL));
  CHECK_EQ_INT(b2nd_free(a), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
}

/* A second handle on the same file follows shape changes made through the
   first one once refreshed. */
static void refresh(void) {
  const char *path = "test_b2nd_buffers_refresh.b2nd";
  blosc2_remove_urlpath(path);
  geom_t g = {2, {10, 12}, {4, 5}, {2, 5}, 4};
  uint8_t *data = make_data(&g, 3);
  b2nd_context_t *ctx = make_ctx_st(&g, true, path, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *w = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &w, data, 10 * 12 * 4), 0);
  REQUIRE(w != NULL);
  b2nd_array_t *r = NULL;
  CHECK_EQ_INT(b2nd_open(path, &r), 0);
  REQUIRE(r != NULL);
  CHECK_EQ_INT(b2nd_refresh(r), 0); /* nothing changed yet */
  CHECK_EQ_INT(r->shape[0], 10);

  /* grow through the writer: 10 -> 17 rows, new rows written */
  int64_t newshape[2] = {17, 12};
  CHECK_EQ_INT(b2nd_resize(w, newshape, NULL), 0);
  int32_t rows[7 * 12];
  for (int i = 0; i < 7 * 12; i++) rows[i] = 5000 + i;
  int64_t start[2] = {10, 0}, stop[2] = {17, 12}, bshape[2] = {7, 12};
  CHECK_EQ_INT(b2nd_set_slice_cbuffer(rows, bshape, sizeof rows, start, stop, w), 0);

  CHECK_EQ_INT(b2nd_refresh(r), 1);
  CHECK_EQ_INT(r->shape[0], 17);
  CHECK_EQ_INT(r->nitems, 17 * 12);
  CHECK_EQ_INT(r->extshape[0], 20);
  CHECK_EQ_INT(b2nd_refresh(r), 0);
  int32_t all[17 * 12];
  CHECK_EQ_INT(b2nd_to_cbuffer(r, all, sizeof all), 0);
  CHECK_MEM(all, data, 10 * 12 * 4);
  CHECK_MEM(all + 120, rows, sizeof rows);

  /* shrink through the writer; the reader follows without an explicit call */
  int64_t small[2] = {6, 12};
  CHECK_EQ_INT(b2nd_resize(w, small, NULL), 0);
  int32_t part[6 * 12];
  CHECK_EQ_INT(b2nd_to_cbuffer(r, part, sizeof part), 0);
  CHECK_EQ_INT(r->shape[0], 6);
  CHECK_MEM(part, data, sizeof part);
  CHECK_EQ_INT(b2nd_refresh(r), 0);

  /* arrays in memory never need a refresh */
  b2nd_context_t *mctx = make_ctx(&g, false);
  b2nd_array_t *m = NULL;
  CHECK_EQ_INT(b2nd_zeros(mctx, &m), 0);
  if (m) {
    CHECK_EQ_INT(b2nd_refresh(m), 0);
    b2nd_free(m);
  }
  b2nd_free_ctx(mctx);
  CHECK_NEG(b2nd_refresh(NULL));

  CHECK_EQ_INT(b2nd_free(r), 0);
  CHECK_EQ_INT(b2nd_free(w), 0);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  free(data);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  cbuffer_roundtrip();
  from_schunk();
  cframes();
  files();
  copies();
  print_meta();
  refresh();
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_buffers");
}
