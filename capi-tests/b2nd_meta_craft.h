/*
 * The "b2nd" metalayer encoded by hand (msgpack), for the C API tests that
 * need exact bytes, including malformed ones:
 *   [fixarray 7 (6 without dtype), version 0, ndim,
 *    fixarray of int64 shape, fixarray of int32 chunkshape,
 *    fixarray of int32 blockshape, dtype format, str32 dtype]
 * Needs only the C library (no b2nd.h), so the plugin tests can use it.
 */
#ifndef BLOSC2_CAPI_B2ND_META_CRAFT_H
#define BLOSC2_CAPI_B2ND_META_CRAFT_H

#include <stdint.h>
#include <string.h>

/* Store the low `n` bytes of v big-endian at p. */
static void put_be(uint8_t *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--) {
    p[i] = (uint8_t)v;
    v >>= 8;
  }
}

/* Encode a metalayer.  `ndim_byte` and `nentries` may disagree (lying ndim);
   markers[k] overrides the fixarray marker of shape (0), chunkshape (1) and
   blockshape (2) when markers is not NULL and markers[k] >= 0.  dtype NULL:
   no dtype part (a 6-entry array).  Returns the length written to out. */
static int32_t craft_b2nd_meta(uint8_t *out, uint8_t ndim_byte, int nentries,
                               const int64_t *shape, const int32_t *cs, const int32_t *bs,
                               int fmt, const char *dtype, const int *markers) {
  uint8_t *p = out;
  *p++ = dtype ? 0x97 : 0x96;
  *p++ = 0; /* version */
  *p++ = ndim_byte;
  for (int part = 0; part < 3; part++) {
    *p++ = (uint8_t)((markers && markers[part] >= 0) ? markers[part] : 0x90 + nentries);
    for (int i = 0; i < nentries; i++) {
      if (part == 0) {
        *p++ = 0xd3;
        put_be(p, (uint64_t)shape[i], 8);
        p += 8;
      } else {
        *p++ = 0xd2;
        put_be(p, (uint32_t)(part == 1 ? cs[i] : bs[i]), 4);
        p += 4;
      }
    }
  }
  if (dtype) {
    *p++ = (uint8_t)fmt;
    *p++ = 0xdb;
    size_t n = strlen(dtype);
    put_be(p, n, 4);
    p += 4;
    memcpy(p, dtype, n);
    p += n;
  }
  return (int32_t)(p - out);
}

#endif /* BLOSC2_CAPI_B2ND_META_CRAFT_H */
