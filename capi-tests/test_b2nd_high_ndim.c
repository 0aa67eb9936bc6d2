/* Arrays of 9 to 16 dimensions (B2ND_MAX_DIM is 16): create, fill from a
 * buffer, read whole and by slices, write a slice, save to a frame on disk
 * and open it again, and count the chunks a slice touches through
 * blosc2_get_slice_nchunks (a 10-dimensional array of 2^10 one-item chunks
 * gives 1024, as with the reference). */
#include "b2nd_common.h"

/* The item at C-order position `lin` of the starting content. */
static int32_t value_at(int64_t lin) { return (int32_t)(lin * 7 + 3); }

/* Read the box [start, stop) of `a` and compare it with `full` (the whole
   array content, shape `shape`, int32 items). */
static void check_box(b2nd_array_t *a, int nd, const int64_t *shape, const int32_t *full,
                      const int64_t *start, const int64_t *stop, const char *label) {
  int64_t ext[B2ND_MAX_DIM], bshape[B2ND_MAX_DIM];
  for (int i = 0; i < nd; i++) ext[i] = bshape[i] = stop[i] - start[i];
  int64_t n = prod(nd, ext);
  int32_t *got = tc_malloc((size_t)n * 4 + 4);
  int rc = b2nd_get_slice_cbuffer(a, start, stop, got, bshape, n * 4);
  CHECK_MSG(rc == 0, "%s: get_slice_cbuffer rc %d", label, rc);
  int64_t st[B2ND_MAX_DIM], idx[B2ND_MAX_DIM] = {0};
  strides_of(nd, shape, st);
  int64_t k = 0;
  int bad = 0;
  do {
    int64_t lin = 0;
    for (int i = 0; i < nd; i++) lin += (start[i] + idx[i]) * st[i];
    if (got[k] != full[lin]) bad++;
    k++;
  } while (next_index(nd, idx, ext));
  CHECK_MSG(bad == 0, "%s: %d items of the slice differ", label, bad);
  free(got);
}

static void one_ndim(int nd) {
  char label[64];
  snprintf(label, sizeof label, "ndim %d", nd);
  const char *path = "test_b2nd_high_ndim.b2nd";
  blosc2_remove_urlpath(path);
  int64_t shape[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
  for (int i = 0; i < nd; i++) {
    shape[i] = (i % 4 == 0) ? 3 : 2;
    cs[i] = (i < 3) ? 1 : 2; /* partial chunks along the axes of 3 */
    bs[i] = (i < nd - 2) ? 1 : cs[i];
  }
  int64_t n = prod(nd, shape);
  int32_t *full = tc_malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) full[i] = value_at(i);

  for (int disk = 0; disk <= 1; disk++) {
    ctx_opts_t o = {.contiguous = true, .urlpath = disk ? path : NULL};
    b2nd_context_t *ctx = new_ctx((int8_t)nd, shape, cs, bs, 4, o);
    CHECK_MSG(ctx != NULL, "%s: create_ctx", label);
    if (ctx == NULL) continue;
    b2nd_array_t *a = NULL;
    int rc = b2nd_from_cbuffer(ctx, &a, full, n * 4);
    CHECK_MSG(rc == 0, "%s: from_cbuffer rc %d", label, rc);
    if (rc == 0 && a != NULL) {
      CHECK_EQ_INT(a->ndim, nd);
      check_content(a, (const uint8_t *)full, n * 4, label, false);

      /* a box away from the origin */
      int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM];
      for (int i = 0; i < nd; i++) {
        start[i] = (i % 2) ? 1 : 0;
        stop[i] = shape[i];
      }
      check_box(a, nd, shape, full, start, stop, label);

      /* write a box of new values, then read everything back */
      int64_t ext[B2ND_MAX_DIM];
      for (int i = 0; i < nd; i++) {
        start[i] = (i % 3 == 1) ? 1 : 0;
        stop[i] = start[i] + 1;
        ext[i] = 1;
      }
      stop[nd - 1] = shape[nd - 1];
      ext[nd - 1] = shape[nd - 1] - start[nd - 1];
      int32_t box[3] = {-1, -2, -3};
      rc = b2nd_set_slice_cbuffer(box, ext, ext[nd - 1] * 4, start, stop, a);
      CHECK_MSG(rc == 0, "%s: set_slice_cbuffer rc %d", label, rc);
      int64_t st[B2ND_MAX_DIM], lin = 0;
      strides_of(nd, shape, st);
      for (int i = 0; i < nd; i++) lin += start[i] * st[i];
      for (int64_t j = 0; j < ext[nd - 1]; j++) full[lin + j] = box[j];
      check_content(a, (const uint8_t *)full, n * 4, label, false);

      /* the chunks the whole array and a one-item slice touch */
      int64_t zero[B2ND_MAX_DIM] = {0}, *idx = NULL;
      int64_t nchunks = 1;
      for (int i = 0; i < nd; i++) nchunks *= (shape[i] + cs[i] - 1) / cs[i];
      CHECK_EQ_INT(blosc2_get_slice_nchunks(a->sc, zero, shape, &idx), nchunks);
      free(idx);
      idx = NULL;
      int64_t one[B2ND_MAX_DIM];
      for (int i = 0; i < nd; i++) one[i] = start[i] + 1;
      CHECK_EQ_INT(blosc2_get_slice_nchunks(a->sc, start, one, &idx), 1);
      free(idx);

      /* a frame in memory and on disk */
      uint8_t *cframe = NULL;
      int64_t clen = 0;
      bool needs_free = false;
      rc = b2nd_to_cframe(a, &cframe, &clen, &needs_free);
      CHECK_MSG(rc == 0, "%s: to_cframe rc %d", label, rc);
      if (rc == 0) {
        b2nd_array_t *b = NULL;
        CHECK_EQ_INT(b2nd_from_cframe(cframe, clen, true, &b), 0);
        if (b != NULL) {
          CHECK_EQ_INT(b->ndim, nd);
          check_content(b, (const uint8_t *)full, n * 4, label, false);
          b2nd_free(b);
        }
        if (needs_free) free(cframe);
      }
      if (disk) {
        b2nd_array_t *b = NULL;
        CHECK_EQ_INT(b2nd_open(path, &b), 0);
        if (b != NULL) {
          CHECK_EQ_INT(b->ndim, nd);
          for (int i = 0; i < nd; i++) CHECK_EQ_INT(b->shape[i], shape[i]);
          check_content(b, (const uint8_t *)full, n * 4, label, false);
          check_box(b, nd, shape, full, start, stop, label);
          b2nd_free(b);
        }
      }
      b2nd_free(a);
    }
    b2nd_free_ctx(ctx);
    /* back to the starting content for the next round */
    for (int64_t i = 0; i < n; i++) full[i] = value_at(i);
  }
  blosc2_remove_urlpath(path);
  free(full);
}

/* The brief's case: 10 dimensions of 2, chunks and blocks of 1. */
static void slice_nchunks_10d(void) {
  int64_t shape[10];
  int32_t cs[10], bs[10];
  for (int i = 0; i < 10; i++) {
    shape[i] = 2;
    cs[i] = bs[i] = 1;
  }
  ctx_opts_t o = {.contiguous = true};
  b2nd_context_t *ctx = new_ctx(10, shape, cs, bs, 1, o);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
  if (a != NULL) {
    int64_t start[10] = {0}, *idx = NULL;
    CHECK_EQ_INT(blosc2_get_slice_nchunks(a->sc, start, shape, &idx), 1024);
    if (idx != NULL) {
      CHECK_EQ_INT(idx[0], 0);
      CHECK_EQ_INT(idx[1023], 1023);
    }
    free(idx);
    b2nd_free(a);
  }
  b2nd_free_ctx(ctx);
}

int main(void) {
  blosc2_init();
  slice_nchunks_10d();
  int dims[] = {9, 10, 12, 16};
  for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) one_ndim(dims[k]);
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_high_ndim");
}
