/* The "b2nd" metalayer: b2nd_serialize_meta, b2nd_deserialize_meta and the
 * header-only b2nd_deserialize_meta_inline.
 *
 *  - round trips for ndim 0..16, all sorts of dtypes, and the exact byte
 *    layout (msgpack: fixarray, version, ndim, three fixarrays of int64 /
 *    int32 / int32 values, dtype format, str32 dtype);
 *  - malformed input (truncation at every byte, bad ndim, bad dtype
 *    header, random byte flips) gives a negative code and never a crash;
 *  - a frame whose b2nd metalayer describes an impossible array (negative
 *    or overflowing shapes, zero chunks, ...) is refused by
 *    b2nd_from_schunk, b2nd_from_cframe and b2nd_open.
 * Stricter rejections that the reference does not make live in
 * test_b2nd_meta_strict.c. */
#define B2ND_TEST_SEED 0x853C49E6748FEA9Bull
#include "b2nd_common.h"

/* Both decoders on the same input; returns the library's code and checks
   that whatever the library accepts the inline decoder reads the same way. */
static int decode_both(const uint8_t *meta, int32_t len, bool want_dtype, int8_t *ndim,
                       int64_t *shape, int32_t *cs, int32_t *bs, char **dtype, int8_t *fmt) {
  /* exact-size heap copy so that overreads are visible to memory checkers */
  uint8_t *copy = tc_malloc(len > 0 ? (size_t)len : 1);
  if (len > 0) memcpy(copy, meta, (size_t)len);
  char *d1 = NULL, *d2 = NULL;
  int8_t f1 = -1, f2 = -1, n1 = -1, n2 = -1;
  int64_t s2[B2ND_MAX_DIM];
  int32_t c2[B2ND_MAX_DIM], b2[B2ND_MAX_DIM];
  int rc1 = b2nd_deserialize_meta(copy, len, &n1, shape, cs, bs, want_dtype ? &d1 : NULL,
                                  want_dtype ? &f1 : NULL);
  int rc2 = b2nd_deserialize_meta_inline(copy, len, &n2, s2, c2, b2, want_dtype ? &d2 : NULL,
                                         want_dtype ? &f2 : NULL);
  /* the library may validate more than the header-only decoder, never less */
  CHECK_MSG(!(rc1 >= 0 && rc2 < 0), "library accepts (%d) what the inline decoder refuses (%d)",
            rc1, rc2);
  if (rc1 >= 0 && rc2 >= 0) {
    CHECK_EQ_INT(rc1, rc2);
    CHECK_EQ_INT(n1, n2);
    for (int i = 0; i < n1 && i < B2ND_MAX_DIM; i++) {
      CHECK(shape[i] == s2[i] && cs[i] == c2[i] && bs[i] == b2[i]);
    }
    if (want_dtype) {
      CHECK((d1 == NULL) == (d2 == NULL));
      if (d1 && d2) CHECK_STR(d1, d2);
      CHECK_EQ_INT(f1, f2);
    }
  }
  if (rc1 < 0 && want_dtype) CHECK_MSG(d1 == NULL, "dtype left allocated after an error");
  if (rc2 < 0 && want_dtype) CHECK_MSG(d2 == NULL, "inline dtype left allocated after an error");
  free(d2);
  *ndim = n1;
  if (dtype) *dtype = d1; else free(d1);
  if (fmt) *fmt = f1;
  free(copy);
  return rc1;
}

/* A valid geometry: item counts of the array fit in int64 and those of a
   chunk (hence of a block) in int32. */
static void random_geometry(int nd, int64_t *shape, int32_t *cs, int32_t *bs) {
  int64_t items = 1, chunk_items = 1;
  for (int i = 0; i < nd; i++) {
    switch (rnd(4)) {
      case 0: shape[i] = rnd(10); break;
      case 1: shape[i] = rnd(100000); break;
      case 2: shape[i] = (int64_t)1 << rnd(40); break;
      default: shape[i] = 1 + rnd(1000); break;
    }
    if (shape[i] > INT64_MAX / 4 / items) shape[i] = 1;
    items *= shape[i] > 0 ? shape[i] : 1;
    int64_t cap = INT32_MAX / chunk_items;
    if (cap > 4096) cap = 4096;
    if (shape[i] > 0 && shape[i] < cap) cap = shape[i];
    cs[i] = (int32_t)(1 + rnd(cap));
    chunk_items *= cs[i];
    bs[i] = (int32_t)(1 + rnd(cs[i]));
  }
}

static void roundtrips(void) {
  static const char *dtypes[] = {"|u1", "<f8", "", "|S12", "[('a', '<i4'), ('b', '<f8')]",
                                 "<M8[ns]", NULL};
  char long_dtype[1201];
  for (int i = 0; i < 1200; i++) long_dtype[i] = (char)('a' + i % 26);
  long_dtype[1200] = '\0';
  for (int nd = 0; nd <= B2ND_MAX_DIM; nd++) {
    for (int rep = 0; rep < 8; rep++) {
      int64_t shape[B2ND_MAX_DIM];
      int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
      random_geometry(nd, shape, cs, bs);
      const char *dtype = rep == 7 ? long_dtype : dtypes[rep % 7];
      int8_t fmt = (int8_t)(rep == 3 ? 127 : rep % 3);
      uint8_t *meta = NULL;
      int len = b2nd_serialize_meta((int8_t)nd, shape, cs, bs, dtype, fmt, &meta);
      const char *eff = dtype ? dtype : B2ND_DEFAULT_DTYPE;
      int dlen = (int)strlen(eff);
      CHECK_MSG(len == 12 + 19 * nd + dlen, "ndim %d: serialized length %d", nd, len);
      if (len <= 0 || meta == NULL) continue;

      /* the wire format, byte by byte */
      uint8_t want[2048];
      int32_t wlen = craft_b2nd_meta(want, (uint8_t)nd, nd, shape, cs, bs, fmt, eff, NULL);
      CHECK_EQ_INT(wlen, len);
      long d = tc_first_diff(meta, want, (size_t)len);
      CHECK_MSG(d < 0, "ndim %d dtype %s: layout differs at byte %ld", nd, eff, d);

      int8_t ndim = -1, f = -1;
      int64_t s[B2ND_MAX_DIM];
      int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
      char *dt = NULL;
      int rc = decode_both(meta, len, true, &ndim, s, c, b, &dt, &f);
      CHECK_EQ_INT(rc, len);
      CHECK_EQ_INT(ndim, nd);
      for (int i = 0; i < nd; i++) {
        CHECK_MSG(s[i] == shape[i] && c[i] == cs[i] && b[i] == bs[i], "ndim %d dim %d", nd, i);
      }
      CHECK_STR(dt, eff);
      CHECK_EQ_INT(f, fmt);
      free(dt);
      /* without dtype outputs only the shapes are read */
      rc = decode_both(meta, len, false, &ndim, s, c, b, NULL, NULL);
      CHECK_EQ_INT(rc, 6 + 19 * nd);
      CHECK_EQ_INT(ndim, nd);
      free(meta);
    }
  }
  /* a negative dtype format is refused */
  int64_t shape[1] = {10};
  int32_t cs[1] = {5}, bs[1] = {5};
  uint8_t *meta = NULL;
  CHECK_NEG(b2nd_serialize_meta(1, shape, cs, bs, "|u1", -1, &meta));
  if (meta) free(meta);
}

/* Cut a valid metalayer at every length. */
static void truncations(void) {
  for (int nd = 0; nd <= B2ND_MAX_DIM; nd += (nd < 4 ? 1 : 6)) {
    int64_t shape[B2ND_MAX_DIM];
    int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
    random_geometry(nd, shape, cs, bs);
    uint8_t *meta = NULL;
    int len = b2nd_serialize_meta((int8_t)nd, shape, cs, bs, "<i8", 0, &meta);
    REQUIRE(len > 0);
    int shapes_end = 6 + 19 * nd;
    for (int cut = 0; cut < len; cut++) {
      int8_t ndim;
      int64_t s[B2ND_MAX_DIM];
      int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
      char *dt = NULL;
      int8_t f = 99;
      int rc = decode_both(meta, cut, true, &ndim, s, c, b, &dt, &f);
      if (cut == shapes_end) {
        /* a metalayer that ends right after the shapes (older writers) */
        CHECK_MSG(rc == shapes_end, "ndim %d cut %d: rc %d", nd, cut, rc);
        CHECK(dt == NULL);
        CHECK_EQ_INT(f, 0);
      } else {
        CHECK_MSG(rc < 0, "ndim %d: truncated to %d of %d bytes, rc %d", nd, cut, len, rc);
        CHECK(dt == NULL);
      }
      free(dt);
      rc = decode_both(meta, cut, false, &ndim, s, c, b, NULL, NULL);
      if (cut < shapes_end) {
        CHECK_MSG(rc < 0, "ndim %d: shapes truncated to %d bytes, rc %d", nd, cut, rc);
      } else {
        CHECK_EQ_INT(rc, shapes_end);
      }
    }
    free(meta);
  }
}

/* Malformed headers the decoders must refuse. */
static void malformed(void) {
  int64_t shape[3] = {10, 20, 30};
  int32_t cs[3] = {5, 10, 15}, bs[3] = {5, 5, 5};
  uint8_t buf[256];
  int8_t ndim;
  int64_t s[B2ND_MAX_DIM];
  int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
  char *dt = NULL;
  int8_t f;
  /* ndim out of range */
  static const uint8_t bad_ndims[] = {17, 18, 100, 127, 0x80, 0xFF};
  for (size_t k = 0; k < sizeof bad_ndims; k++) {
    int32_t len = craft_b2nd_meta(buf, bad_ndims[k], 3, shape, cs, bs, 0, "|u1", NULL);
    CHECK_MSG(decode_both(buf, len, true, &ndim, s, c, b, &dt, &f) < 0, "ndim byte 0x%02x",
              bad_ndims[k]);
    CHECK(dt == NULL);
  }
  /* ndim claims more dimensions than are present */
  for (int claim = 4; claim <= B2ND_MAX_DIM; claim++) {
    int32_t len = craft_b2nd_meta(buf, (uint8_t)claim, 3, shape, cs, bs, 0, "|u1", NULL);
    CHECK_MSG(decode_both(buf, len, true, &ndim, s, c, b, &dt, &f) < 0, "ndim %d for 3", claim);
    CHECK(dt == NULL);
  }
  /* dtype header damage */
  int32_t len = craft_b2nd_meta(buf, 3, 3, shape, cs, bs, 0, "|u1", NULL);
  int dpos = 6 + 19 * 3; /* format byte */
  {
    uint8_t t[256];
    memcpy(t, buf, (size_t)len);
    t[dpos + 1] = 0xd9; /* str8 instead of str32 */
    CHECK_NEG(decode_both(t, len, true, &ndim, s, c, b, &dt, &f));
    CHECK(dt == NULL);
    static const uint32_t lens[] = {0x80000000u, 0xFFFFFFFFu, 4, 1000, 0x7FFFFFFFu};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
      memcpy(t, buf, (size_t)len);
      put_be(t + dpos + 2, lens[k], 4);
      CHECK_MSG(decode_both(t, len, true, &ndim, s, c, b, &dt, &f) < 0, "dtype length %u",
                lens[k]);
      CHECK(dt == NULL);
    }
  }
  /* empty, NULL */
  CHECK_NEG(decode_both(buf, 0, true, &ndim, s, c, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta(buf, -5, &ndim, s, c, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta(NULL, len, &ndim, s, c, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta(buf, len, NULL, s, c, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta(buf, len, &ndim, NULL, c, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta(buf, len, &ndim, s, NULL, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta(buf, len, &ndim, s, c, NULL, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta_inline(NULL, len, &ndim, s, c, b, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta_inline(buf, len, &ndim, s, c, NULL, &dt, &f));
  CHECK_NEG(b2nd_deserialize_meta_inline(buf, -1, &ndim, s, c, b, &dt, &f));
  CHECK(dt == NULL);
}

/* ---- frames carrying a given b2nd metalayer ---- */

/* Every way in: from_schunk (caller keeps the super-chunk), from_cframe
   (copy and no copy) and open (a file holding the frame).  Returns how
   many of them accepted the metalayer (accepted arrays are freed). */
static int try_all_paths(const uint8_t *meta, int32_t len, int32_t typesize, const char *label,
                         bool expect_refusal) {
  int accepted = 0;
  blosc2_schunk *sc = schunk_with_meta(meta, len, typesize, false);
  b2nd_array_t *a = NULL;
  int rc = b2nd_from_schunk(sc, &a);
  if (rc >= 0 && a != NULL) {
    accepted++;
    b2nd_free(a); /* the array owns the super-chunk now */
  } else {
    if (rc >= 0) CHECK_MSG(0, "%s: from_schunk succeeded without an array", label);
    CHECK_MSG(a == NULL, "%s: from_schunk failed but produced an array", label);
    blosc2_schunk_free(sc); /* refused: still the caller's */
  }
  if (expect_refusal) CHECK_MSG(rc < 0, "%s: b2nd_from_schunk accepted it", label);

  int64_t clen;
  uint8_t *frame = frame_with_meta(meta, len, typesize, &clen);
  int rcs[3];
  accepted += load_frame_everywhere(frame, clen, "test_b2nd_meta_frame.b2nd", rcs);
  if (expect_refusal) {
    for (int copy = 0; copy <= 1; copy++)
      CHECK_MSG(rcs[copy] < 0, "%s: b2nd_from_cframe(copy=%d) accepted it", label, copy);
    CHECK_MSG(rcs[2] < 0, "%s: b2nd_open accepted it", label);
  }
  free(frame);
  return accepted;
}

/* Metalayers that parse but describe impossible arrays. */
static void impossible_arrays(void) {
  struct {
    const char *label;
    int nd;
    int64_t shape[3];
    int32_t cs[3], bs[3];
    int32_t typesize;
  } cases[] = {
    {"negative shape", 2, {-1, 10}, {5, 5}, {5, 5}, 1},
    {"most negative shape", 1, {INT64_MIN}, {5}, {5}, 1},
    {"negative chunkshape", 2, {10, 10}, {5, -5}, {5, 5}, 1},
    {"negative blockshape", 2, {10, 10}, {5, 5}, {5, -1}, 1},
    {"zero blockshape in a chunk", 2, {10, 10}, {5, 5}, {5, 0}, 1},
    {"zero chunkshape, non-empty", 2, {10, 10}, {5, 0}, {5, 0}, 1},
    {"zero chunk and block in the first dim", 2, {20, 10}, {0, 5}, {0, 5}, 1},
    {"blockshape product overflows int32", 2, {65536, 65536}, {65536, 1}, {65536, 65536}, 1},
    {"chunkshape product overflows int32", 2, {65536, 65536}, {65536, 65536}, {1, 1}, 1},
    {"chunkshape product 2^32", 3, {2048, 2048, 1024}, {2048, 2048, 1024}, {1, 1, 1}, 1},
    {"chunkshape product beyond int64", 3, {INT32_MAX, INT32_MAX, INT32_MAX},
     {INT32_MAX, INT32_MAX, INT32_MAX}, {1, 1, 1}, 1},
    {"shape product overflows int64", 2, {INT64_C(1) << 62, 4}, {1, 1}, {1, 1}, 1},
    {"shape product overflows int64 (3 dims)", 3, {INT64_C(1) << 31, INT64_C(1) << 31, 4},
     {1, 1, 1}, {1, 1, 1}, 1},
    {"padded shape overflows int64", 1, {INT64_MAX}, {1000}, {10}, 1},
    {"padded shape overflows int64 (2)", 1, {INT64_MAX - 5}, {7}, {7}, 4},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    uint8_t buf[256];
    int32_t len = craft_b2nd_meta(buf, (uint8_t)cases[k].nd, cases[k].nd, cases[k].shape,
                                  cases[k].cs, cases[k].bs, 0, "|u1", NULL);
    try_all_paths(buf, len, cases[k].typesize, cases[k].label, true);
  }
  /* structural damage reaches the frame paths too */
  int64_t shape[2] = {10, 10};
  int32_t cs[2] = {5, 5}, bs[2] = {5, 5};
  uint8_t buf[256];
  int32_t len = craft_b2nd_meta(buf, 2, 2, shape, cs, bs, 0, "|u1", NULL);
  try_all_paths(buf, len - 1, 1, "truncated dtype", true);
  try_all_paths(buf, 20, 1, "truncated shapes", true);
  CHECK_EQ_INT(try_all_paths(buf, len, 1, "valid control", false), 4);
  uint8_t t[256];
  memcpy(t, buf, (size_t)len);
  t[2] = 40;
  try_all_paths(t, len, 1, "ndim 40", true);
  memcpy(t, buf, (size_t)len);
  t[2] = 5;
  try_all_paths(t, len, 1, "ndim 5 for 2", true);
  memcpy(t, buf, (size_t)len);
  put_be(t + len - 7, 0x80000001u, 4);
  try_all_paths(t, len, 1, "negative dtype length", true);
}

/* A metalayer rewritten in place (same length) on a live array's super-chunk. */
static void rewritten_in_place(void) {
  int64_t shape[2] = {20, 10};
  int32_t cs[2] = {7, 5}, bs[2] = {3, 5};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 2;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, NULL, 0, NULL, 0);
  REQUIRE(ctx != NULL);
  struct {
    const char *label;
    int offset; /* of the big-endian value inside the metalayer */
    int width;
    uint64_t value;
  } edits[] = {
    {"shape[0] = -20", 5, 8, (uint64_t)INT64_C(-20)},
    {"shape[1] = 2^62", 14, 8, UINT64_C(1) << 62},
    {"chunkshape[0] = 0", 24, 4, 0},
    {"chunkshape[1] = -5", 29, 4, 0xFFFFFFFBu},
    {"blockshape[0] = 0", 35, 4, 0},
    {"blockshape[1] = -1", 40, 4, 0xFFFFFFFFu},
    {"ndim = 17", 2, 1, 17},
    {"dtype marker", 45, 1, 0xa3},
  };
  for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
    REQUIRE(a != NULL);
    uint8_t *meta = NULL;
    int32_t len = 0;
    REQUIRE(blosc2_meta_get(a->sc, "b2nd", &meta, &len) >= 0);
    put_be(meta + edits[k].offset, edits[k].value, edits[k].width);
    CHECK(blosc2_meta_update(a->sc, "b2nd", meta, len) >= 0);
    b2nd_array_t *b = NULL;
    int rc = b2nd_from_schunk(a->sc, &b);
    CHECK_MSG(rc < 0, "%s: from_schunk rc %d", edits[k].label, rc);
    if (rc >= 0 && b != NULL) {
      b->sc = NULL;
      b2nd_free(b);
    }
    /* the frame of the damaged super-chunk is refused too */
    uint8_t *cframe = NULL;
    bool needs_free = false;
    int64_t clen = blosc2_schunk_to_buffer(a->sc, &cframe, &needs_free);
    CHECK(clen > 0);
    if (clen > 0) {
      b = NULL;
      CHECK_MSG(b2nd_from_cframe(cframe, clen, true, &b) < 0, "%s: from_cframe", edits[k].label);
    }
    if (needs_free) free(cframe);
    free(meta);
    b2nd_free(a);
  }
  b2nd_free_ctx(ctx);
}

/* Random damage: any outcome but a crash is fine, and whatever is accepted
   must be self-consistent. */
static void random_flips(void) {
  for (int trial = 0; trial < 1500; trial++) {
    int nd = (int)rnd(5);
    int64_t shape[B2ND_MAX_DIM];
    int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
    for (int i = 0; i < nd; i++) {
      shape[i] = 1 + rnd(50);
      cs[i] = (int32_t)(1 + rnd(shape[i]));
      bs[i] = (int32_t)(1 + rnd(cs[i]));
    }
    uint8_t *meta = NULL;
    int len = b2nd_serialize_meta((int8_t)nd, shape, cs, bs, "<u2", 0, &meta);
    REQUIRE(len > 0);
    int nflips = 1 + (int)rnd(3);
    for (int k = 0; k < nflips; k++) {
      int pos = (int)rnd(len);
      if (rnd(2)) meta[pos] ^= (uint8_t)(1u << rnd(8));
      else meta[pos] = (uint8_t)tc_rand(&rng);
    }
    int8_t ndim;
    int64_t s[B2ND_MAX_DIM];
    int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
    char *dt = NULL;
    int8_t f;
    int rc = decode_both(meta, len, true, &ndim, s, c, b, &dt, &f);
    if (rc >= 0) CHECK(ndim >= 0 && ndim <= B2ND_MAX_DIM && rc <= len);
    free(dt);
    if (trial % 5 == 0) {
      blosc2_schunk *sc = schunk_with_meta(meta, len, 2, trial % 2 == 0);
      b2nd_array_t *a = NULL;
      if (b2nd_from_schunk(sc, &a) >= 0 && a != NULL) {
        int64_t n = 1;
        for (int i = 0; i < a->ndim; i++) {
          CHECK(a->shape[i] >= 0 && a->chunkshape[i] >= 0 && a->blockshape[i] >= 0);
          n *= a->shape[i];
        }
        CHECK_EQ_INT(a->nitems, n);
        b2nd_free(a);
      } else {
        blosc2_schunk_free(sc);
      }
    }
    free(meta);
  }
}

int main(void) {
  blosc2_init();
  roundtrips();
  truncations();
  malformed();
  impossible_arrays();
  rewritten_in_place();
  random_flips();
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_meta");
}
