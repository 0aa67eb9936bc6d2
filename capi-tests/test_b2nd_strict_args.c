/*
 * Arguments of b2nd calls that the reference accepts although they are out
 * of range, where ours refuses them:
 *  - an orthogonal selection index equal to the dimension's length (the
 *    reference reads it from the chunk padding);
 *  - b2nd_expand_dims with an axis list that keeps fewer dimensions than the
 *    array has (the reference drops the remaining ones without a word);
 *  - b2nd_get_slice and b2nd_get_slice_cbuffer of a box reaching past the
 *    array's shape (the reference succeeds, and b2nd_get_slice makes an
 *    array of the box's shape, zeros where the source has no item:
 *    c-blosc2's own test_b2nd_squeeze_index slices [4:5, 4:5, 0:10, 4:5] of
 *    an array of shape (10, 7, 6, 4)).
 * All must give a negative code and leave the outputs untouched.
 */
#include "b2nd_common.h"

static b2nd_array_t *make_array(int8_t ndim, const int64_t *shape, const int32_t *cs,
                                const int32_t *bs) {
  b2nd_context_t *ctx = new_ctx(ndim, shape, cs, bs, 4, (ctx_opts_t){.dtype = "<i4"});
  if (ctx == NULL) return NULL;
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  int32_t *data = malloc((size_t)n * sizeof(int32_t));
  for (int64_t i = 0; i < n; i++) data[i] = (int32_t)(i + 1);
  b2nd_array_t *a = NULL;
  if (b2nd_from_cbuffer(ctx, &a, data, n * (int64_t)sizeof(int32_t)) < 0) a = NULL;
  free(data);
  b2nd_free_ctx(ctx);
  return a;
}

static void selection_index_at_the_end(void) {
  int64_t shape[1] = {5};
  int32_t cs[1] = {4}, bs[1] = {2};
  b2nd_array_t *a = make_array(1, shape, cs, bs);
  REQUIRE(a != NULL);
  int64_t idx_ok[2] = {4, 0}, idx_bad[2] = {5, 0};
  int64_t *sel_ok[1] = {idx_ok}, *sel_bad[1] = {idx_bad};
  int64_t sizes[1] = {2}, bshape[1] = {2};
  int32_t out[2] = {-7, -7};
  CHECK_EQ_INT(b2nd_get_orthogonal_selection(a, sel_ok, sizes, out, bshape, sizeof out), 0);
  CHECK_EQ_INT(out[0], 5);
  CHECK_EQ_INT(out[1], 1);
  out[0] = out[1] = -7;
  CHECK_NEG(b2nd_get_orthogonal_selection(a, sel_bad, sizes, out, bshape, sizeof out));
  int32_t in[2] = {100, 200};
  CHECK_NEG(b2nd_set_orthogonal_selection(a, sel_bad, sizes, in, bshape, sizeof in));
  int32_t all[5];
  CHECK_EQ_INT(b2nd_to_cbuffer(a, all, sizeof all), 0);
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(all[i], i + 1);
  b2nd_free(a);
}

static void expand_dims_keeping_too_few(void) {
  int64_t shape[3] = {3, 4, 5};
  int32_t cs[3] = {2, 4, 5}, bs[3] = {1, 2, 5};
  b2nd_array_t *a = make_array(3, shape, cs, bs);
  REQUIRE(a != NULL);
  bool axis[3] = {true, false, false}; /* keeps 2 of the 3 dimensions */
  b2nd_array_t *v = NULL;
  CHECK_NEG(b2nd_expand_dims(a, &v, axis, 3));
  CHECK(v == NULL);
  if (v != NULL) b2nd_free(v);
  bool axis4[4] = {true, false, false, false};
  CHECK_EQ_INT(b2nd_expand_dims(a, &v, axis4, 4), 0);
  if (v != NULL) {
    CHECK_EQ_INT(v->ndim, 4);
    CHECK_EQ_INT(v->shape[0], 1);
    CHECK_EQ_INT(v->shape[3], 5);
    b2nd_free(v);
  }
  b2nd_free(a);
}

static void slice_past_the_end(void) {
  int64_t shape[4] = {10, 7, 6, 4};
  int32_t cs[4] = {7, 5, 1, 4}, bs[4] = {2, 2, 1, 2};
  b2nd_array_t *a = make_array(4, shape, cs, bs);
  REQUIRE(a != NULL);
  int32_t cs2[4] = {1, 1, 5, 1}, bs2[4] = {1, 1, 2, 1};
  b2nd_context_t *ctx = new_ctx(4, shape, cs2, bs2, 4, (ctx_opts_t){.dtype = "<i4"});
  REQUIRE(ctx != NULL);
  /* items [4, 4, 0..6, 1] exist; [4, 4, 6..10, 1] do not */
  int64_t start[4] = {4, 4, 0, 1}, stop_in[4] = {5, 5, 6, 2}, stop_out[4] = {5, 5, 10, 2};
  b2nd_array_t *s = NULL;
  CHECK_NEG(b2nd_get_slice(ctx, &s, a, start, stop_out));
  CHECK(s == NULL);
  if (s != NULL) b2nd_free(s);
  s = NULL;
  int32_t got[10];
  int64_t bshape[4] = {1, 1, 10, 1};
  CHECK_NEG(b2nd_get_slice_cbuffer(a, start, stop_out, got, bshape, sizeof got));
  CHECK_EQ_INT(b2nd_get_slice(ctx, &s, a, start, stop_in), 0);
  if (s != NULL) {
    CHECK_EQ_INT(s->shape[2], 6);
    CHECK_EQ_INT(b2nd_to_cbuffer(s, got, 6 * sizeof(int32_t)), 0);
    for (int k = 0; k < 6; k++) CHECK_EQ_INT(got[k], ((4 * 7 + 4) * 6 + k) * 4 + 1 + 1);
    b2nd_free(s);
  }
  b2nd_free_ctx(ctx);
  b2nd_free(a);
}

int main(void) {
  blosc2_init();
  selection_index_at_the_end();
  expand_dims_keeping_too_few();
  slice_past_the_end();
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_strict_args");
}
