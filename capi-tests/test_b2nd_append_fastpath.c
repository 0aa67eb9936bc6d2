/* b2nd_append with a buffer of exactly one chunk (listed in
 * KNOWN_REFERENCE_FAILURES.txt).
 *
 * The reference appends such a buffer as a new super-chunk chunk whenever
 * axis is 0 and chunkshape == blockshape in the other dimensions, without
 * checking that the array ends on a chunk boundary along axis 0 or that one
 * chunk spans the other dimensions.  Appending must give the same result as
 * for any other buffer size: the rows land right after the existing ones. */
#include "test_common.h"
#include <stdbool.h>

#include "b2nd.h"

static void one_case(int ndim, const int64_t *shape, const int32_t *cs, const int32_t *bs,
                     const char *label) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, (int8_t)ndim, shape, cs, bs, NULL, 0, NULL, 0);
  REQUIRE(ctx != NULL);
  int64_t n = 1, row = 1, chunkitems = 1;
  for (int i = 0; i < ndim; i++) {
    n *= shape[i];
    chunkitems *= cs[i];
    if (i > 0) row *= shape[i];
  }
  int32_t *data = tc_malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) data[i] = (int32_t)i;
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, data, n * 4), 0);
  REQUIRE(a != NULL);
  CHECK_EQ_INT(a->sc->chunksize, chunkitems * 4);
  /* one chunk worth of items, a whole number of rows */
  int64_t add = chunkitems;
  REQUIRE(add % row == 0);
  int32_t *extra = tc_malloc((size_t)add * 4);
  for (int64_t i = 0; i < add; i++) extra[i] = (int32_t)(100000 + i);
  int rc = b2nd_append(a, extra, add * 4, 0);
  CHECK_MSG(rc == 0, "%s: append rc %d", label, rc);
  if (rc == 0) {
    CHECK_MSG(a->shape[0] == shape[0] + add / row, "%s: %lld rows after appending %lld",
              label, (long long)a->shape[0], (long long)(add / row));
    int32_t *out = tc_malloc((size_t)(n + add) * 4);
    memset(out, 0, (size_t)(n + add) * 4);
    rc = b2nd_to_cbuffer(a, out, (n + add) * 4);
    CHECK_MSG(rc == 0, "%s: to_cbuffer rc %d", label, rc);
    long d1 = tc_first_diff(out, data, (size_t)n * 4);
    long d2 = tc_first_diff(out + n, extra, (size_t)add * 4);
    CHECK_MSG(d1 < 0 && d2 < 0, "%s: old rows differ at byte %ld, new rows at byte %ld", label,
              d1, d2);
    free(out);
  }
  free(extra);
  free(data);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

int main(void) {
  blosc2_init();
  {
    /* rows end inside a chunk: 5 rows, chunks of 4 */
    int64_t s[2] = {5, 6};
    int32_t c[2] = {4, 6}, b[2] = {2, 6};
    one_case(2, s, c, b, "5 rows, chunks of 4 rows");
  }
  {
    /* two chunks across axis 1: one chunk of items is 2 rows, not 4 */
    int64_t s[2] = {8, 12};
    int32_t c[2] = {4, 6}, b[2] = {2, 6};
    one_case(2, s, c, b, "two chunks per row band");
  }
  {
    /* 1-D array ending inside a chunk */
    int64_t s[1] = {25};
    int32_t c[1] = {10}, b[1] = {5};
    one_case(1, s, c, b, "1-d, 25 items, chunks of 10");
  }
  {
    /* control: aligned, one chunk across: the fast path is right here */
    int64_t s[2] = {8, 6};
    int32_t c[2] = {4, 6}, b[2] = {2, 6};
    one_case(2, s, c, b, "aligned control");
  }
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_append_fastpath");
}
