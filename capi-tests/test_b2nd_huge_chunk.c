/* An array whose chunk is larger than the 2 GiB a buffer can hold (shape
 * and chunk shape {1073741952} of 4-byte items, blocks of 128): it opens,
 * from a super-chunk, a frame in memory and a file, as with the reference;
 * only the calls that would need a whole chunk in one buffer fail, and
 * nothing allocates such a chunk along the way (peak memory stays small). */
#include "test_common.h"
#include <b2nd.h>
#include <stdbool.h>
#include <sys/resource.h>

#define BIG 1073741952LL

static long peak_kib(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss : -1;
}

static void check_array(b2nd_array_t *a, const char *label) {
  CHECK_MSG(a->ndim == 1, "%s: ndim %d", label, (int)a->ndim);
  CHECK_EQ_INT(a->shape[0], BIG);
  CHECK_EQ_INT(a->chunkshape[0], BIG);
  CHECK_EQ_INT(a->blockshape[0], 128);
  CHECK_EQ_INT(a->nitems, BIG);
  CHECK_EQ_INT(a->chunknitems, BIG);
  CHECK_EQ_INT(a->blocknitems, 128);
  CHECK_EQ_INT(a->extchunknitems, BIG);
  CHECK_EQ_INT(a->sc->typesize, 4);
  /* a slice needs the whole chunk decompressed: refused */
  int64_t start[1] = {0}, stop[1] = {4}, bshape[1] = {4};
  int32_t got[4];
  CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, got, bshape, sizeof got),
               BLOSC2_ERROR_INVALID_PARAM);
}

int main(void) {
  blosc2_init();
  const char *path = "test_b2nd_huge_chunk.b2nd";
  blosc2_remove_urlpath(path);
  long before = peak_kib();

  int64_t shape[1] = {BIG};
  int32_t cs[1] = {(int32_t)BIG}, bs[1] = {128};
  uint8_t *meta = NULL;
  int32_t mlen = b2nd_serialize_meta(1, shape, cs, bs, "<i4", 0, &meta);
  REQUIRE(mlen > 0);

  for (int disk = 0; disk <= 1; disk++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = {.contiguous = true, .urlpath = disk ? (char *)path : NULL,
                         .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    REQUIRE(sc != NULL);
    REQUIRE(blosc2_meta_add(sc, "b2nd", meta, mlen) >= 0);
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_from_schunk(sc, &a), 0);
    if (a != NULL) {
      check_array(a, disk ? "from_schunk on disk" : "from_schunk");
      if (!disk) {
        uint8_t *cframe = NULL;
        int64_t clen = 0;
        bool needs_free = false;
        CHECK_EQ_INT(b2nd_to_cframe(a, &cframe, &clen, &needs_free), 0);
        b2nd_array_t *b = NULL;
        CHECK_EQ_INT(b2nd_from_cframe(cframe, clen, true, &b), 0);
        if (b != NULL) {
          check_array(b, "from_cframe");
          b2nd_free(b);
        }
        if (needs_free) free(cframe);
      }
      b2nd_free(a); /* frees sc too */
    } else {
      blosc2_schunk_free(sc);
    }
  }
  b2nd_array_t *c = NULL;
  CHECK_EQ_INT(b2nd_open(path, &c), 0);
  if (c != NULL) {
    check_array(c, "open");
    b2nd_free(c);
  }
  free(meta);
  blosc2_remove_urlpath(path);

  /* nothing near a chunk (4 GiB) was allocated */
  long after = peak_kib();
  CHECK_MSG(after - before < 256 * 1024, "peak memory grew by %ld KiB", after - before);
  blosc2_destroy();
  TEST_MAIN_END("test_b2nd_huge_chunk");
}
