/* Special-value chunks: blosc2_chunk_zeros / nans / uninit / repeatval,
 * then decompress, getitem and header inspection. */
#include "test_common.h"
#include <math.h>

static int special_of(const uint8_t *chunk) {
  return (chunk[BLOSC2_CHUNK_BLOSC2_FLAGS] >> 4) & BLOSC2_SPECIAL_MASK;
}

static void check_sizes(const uint8_t *chunk, int32_t nbytes, int32_t cbytes) {
  int32_t nb = -1, cb = -1, bs = -1;
  CHECK(blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs) >= 0);
  CHECK_EQ_INT(nb, nbytes);
  CHECK_EQ_INT(cb, cbytes);
  size_t vn = 0;
  CHECK_EQ_INT(blosc1_cbuffer_validate(chunk, (size_t)cbytes, &vn), 0);
  CHECK_EQ_INT(vn, nbytes);
}

static void zeros(int typesize, int32_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  int rc = blosc2_chunk_zeros(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ_INT(rc, BLOSC_EXTENDED_HEADER_LENGTH);
  if (rc < 0) return;
  CHECK_EQ_INT(special_of(chunk), BLOSC2_SPECIAL_ZERO);
  CHECK_EQ_INT(chunk[BLOSC2_CHUNK_TYPESIZE], typesize);
  check_sizes(chunk, nbytes, BLOSC_EXTENDED_HEADER_LENGTH);
  uint8_t *out = tc_malloc(nbytes);
  memset(out, 0x5A, nbytes);
  CHECK_EQ_INT(blosc2_decompress(chunk, rc, out, nbytes), nbytes);
  int bad = 0;
  for (int32_t i = 0; i < nbytes; i++) bad += out[i] != 0;
  CHECK_MSG(bad == 0, "zeros ts %d: %d non-zero bytes", typesize, bad);
  /* decompress with a context, multi-threaded */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  memset(out, 0x5A, nbytes);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, chunk, rc, out, nbytes), nbytes);
  bad = 0;
  for (int32_t i = 0; i < nbytes; i++) bad += out[i] != 0;
  CHECK(bad == 0);
  /* getitem */
  int nitems = nbytes / typesize;
  memset(out, 0x5A, nbytes);
  CHECK_EQ_INT(blosc2_getitem_ctx(dctx, chunk, rc, nitems / 2, nitems / 4, out, nbytes),
               (nitems / 4) * typesize);
  bad = 0;
  for (int32_t i = 0; i < (nitems / 4) * typesize; i++) bad += out[i] != 0;
  CHECK(bad == 0);
  CHECK(blosc2_getitem_ctx(dctx, chunk, rc, nitems, 1, out, nbytes) < 0);
  CHECK(blosc2_decompress_ctx(dctx, chunk, rc, out, nbytes - 1) < 0);
  blosc2_free_ctx(dctx);
  free(out);
}

static void nans(int typesize, int32_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  int rc = blosc2_chunk_nans(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ_INT(rc, BLOSC_EXTENDED_HEADER_LENGTH);
  if (rc < 0) return;
  CHECK_EQ_INT(special_of(chunk), BLOSC2_SPECIAL_NAN);
  check_sizes(chunk, nbytes, BLOSC_EXTENDED_HEADER_LENGTH);
  uint8_t *out = tc_malloc(nbytes);
  CHECK_EQ_INT(blosc2_decompress(chunk, rc, out, nbytes), nbytes);
  int bad = 0;
  for (int32_t i = 0; i < nbytes / typesize; i++) {
    if (typesize == 4) {
      float f;
      memcpy(&f, out + i * 4, 4);
      bad += !isnan(f);
    } else {
      double d;
      memcpy(&d, out + i * 8, 8);
      bad += !isnan(d);
    }
  }
  CHECK_MSG(bad == 0, "nans ts %d: %d non-NaN values", typesize, bad);
  memset(out, 0, nbytes);
  CHECK_EQ_INT(blosc2_getitem(chunk, rc, 3, 10, out, nbytes), 10 * typesize);
  for (int i = 0; i < 10; i++) {
    if (typesize == 4) {
      float f;
      memcpy(&f, out + i * 4, 4);
      CHECK(isnan(f));
    } else {
      double d;
      memcpy(&d, out + i * 8, 8);
      CHECK(isnan(d));
    }
  }
  free(out);
}

static void repeatval(int typesize, int32_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  uint8_t value[64];
  for (int i = 0; i < typesize; i++) value[i] = (uint8_t)(0x11 * (i + 1) + typesize);
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH + 64];
  int rc = blosc2_chunk_repeatval(cp, nbytes, chunk, sizeof(chunk), value);
  CHECK_EQ_INT(rc, BLOSC_EXTENDED_HEADER_LENGTH + typesize);
  if (rc < 0) return;
  CHECK_EQ_INT(special_of(chunk), BLOSC2_SPECIAL_VALUE);
  check_sizes(chunk, nbytes, BLOSC_EXTENDED_HEADER_LENGTH + typesize);
  uint8_t *out = tc_malloc(nbytes);
  memset(out, 0, nbytes);
  CHECK_EQ_INT(blosc2_decompress(chunk, rc, out, nbytes), nbytes);
  int bad = 0;
  for (int32_t i = 0; i < nbytes; i++) bad += out[i] != value[i % typesize];
  CHECK_MSG(bad == 0, "repeatval ts %d: %d wrong bytes", typesize, bad);
  memset(out, 0, nbytes);
  int nitems = nbytes / typesize;
  CHECK_EQ_INT(blosc2_getitem(chunk, rc, nitems - 7, 7, out, nbytes), 7 * typesize);
  bad = 0;
  for (int32_t i = 0; i < 7 * typesize; i++) bad += out[i] != value[i % typesize];
  CHECK(bad == 0);
  /* destsize too small for header + value */
  CHECK(blosc2_chunk_repeatval(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH + typesize - 1,
                               value) < 0);
  free(out);
}

static void uninit(int32_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  int rc = blosc2_chunk_uninit(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ_INT(rc, BLOSC_EXTENDED_HEADER_LENGTH);
  if (rc < 0) return;
  CHECK_EQ_INT(special_of(chunk), BLOSC2_SPECIAL_UNINIT);
  check_sizes(chunk, nbytes, BLOSC_EXTENDED_HEADER_LENGTH);
  uint8_t *out = tc_malloc(nbytes);
  memset(out, 0, nbytes);  /* content is unspecified; only size is checked */
  CHECK_EQ_INT(blosc2_decompress(chunk, rc, out, nbytes), nbytes);
  CHECK_EQ_INT(blosc2_getitem(chunk, rc, 0, 10, out, nbytes), 40);
  free(out);
}

static void errors(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH + 16];
  cp.typesize = 4;
  /* dest smaller than an extended header */
  CHECK(blosc2_chunk_zeros(cp, 1000, chunk, BLOSC_EXTENDED_HEADER_LENGTH - 1) < 0);
  CHECK(blosc2_chunk_nans(cp, 1000, chunk, 16) < 0);
  CHECK(blosc2_chunk_uninit(cp, 1000, chunk, 16) < 0);
  /* nbytes not a multiple of typesize */
  CHECK(blosc2_chunk_zeros(cp, 1001, chunk, sizeof(chunk)) < 0);
  CHECK(blosc2_chunk_nans(cp, 1002, chunk, sizeof(chunk)) < 0);
  int v = 7;
  CHECK(blosc2_chunk_repeatval(cp, 1003, chunk, sizeof(chunk), &v) < 0);
  /* NaNs only for 4 and 8 byte types */
  cp.typesize = 2;
  {
    /* Either creating the chunk or decoding it must fail. */
    int rc = blosc2_chunk_nans(cp, 1000, chunk, sizeof(chunk));
    if (rc > 0) {
      uint8_t out[1000];
      CHECK(blosc2_decompress(chunk, rc, out, sizeof(out)) < 0);
    }
  }
  /* too large */
  cp.typesize = 1;
  CHECK(blosc2_chunk_zeros(cp, BLOSC2_MAX_BUFFERSIZE + 1, chunk, sizeof(chunk)) < 0);
}

int main(void) {
  blosc2_init();
  static const int tss[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5; i++) {
    zeros(tss[i], 4000 * tss[i]);
    zeros(tss[i], 1 << 20);
    repeatval(tss[i], 1000 * tss[i]);
    repeatval(tss[i], 1 << 19);
  }
  zeros(4, 0);
  nans(4, 40000);
  nans(8, 80000);
  nans(8, 1 << 20);
  uninit(40000);
  uninit(1 << 20);
  errors();
  blosc2_destroy();
  TEST_MAIN_END("test_special");
}
