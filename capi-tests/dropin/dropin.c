/* Binary drop-in check: this program is compiled against the REFERENCE
 * c-blosc2 headers and linked with -lblosc2.  scripts/check-dropin.sh runs the
 * same binary once with the reference libblosc2.so.9 and once with ours and
 * compares what it prints.  Everything printed must be identical between two
 * correct implementations: return codes, header fields, compressed sizes of
 * codecs whose encoders are deterministic across builds, and checksums. */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fnv(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

static void fill(uint8_t *buf, size_t n, int kind) {
  uint32_t s = 12345u + (uint32_t)kind;
  for (size_t i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    switch (kind) {
      case 0: buf[i] = 0; break;
      case 1: buf[i] = (uint8_t)(i / 4096); break;
      case 2: buf[i] = (uint8_t)((i % 8) == 0 ? (i / 8) & 0xff : 0); break;
      default: buf[i] = (uint8_t)(s >> 24); break;
    }
  }
}

int main(void) {
  blosc2_init();
  printf("version %s\n", blosc2_get_version_string());
  printf("compressors %s\n", blosc2_list_compressors());
  for (int rc = 0; rc >= -36; rc--) printf("err %d %s\n", rc, blosc2_error_string(rc));
  static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  static const int sizes[] = {0, 7, 31, 32, 1000, 65536, 200003, 1 << 20};
  static const int typesizes[] = {1, 2, 4, 8, 16};
  size_t cap = (1 << 20) + BLOSC2_MAX_OVERHEAD;
  uint8_t *src = malloc(cap), *dst = malloc(cap), *back = malloc(cap);
  for (size_t c = 0; c < 5; c++) {
    const char *name = NULL;
    blosc2_compcode_to_compname(codecs[c], &name);
    for (int shuffle = 0; shuffle <= 2; shuffle++) {
      for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t t = 0; t < 5; t++) {
          for (int kind = 0; kind < 4; kind++) {
            int n = sizes[s];
            fill(src, (size_t)n, kind);
            blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
            cp.compcode = (uint8_t)codecs[c];
            cp.typesize = typesizes[t];
            cp.clevel = (uint8_t)(1 + (s + t + kind) % 9);
            cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)shuffle;
            blosc2_context *cctx = blosc2_create_cctx(cp);
            int csize = blosc2_compress_ctx(cctx, src, n, dst, (int32_t)cap);
            blosc2_free_ctx(cctx);
            int32_t nb = 0, cb = 0, bs = 0;
            blosc2_cbuffer_sizes(dst, &nb, &cb, &bs);
            blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
            blosc2_context *dctx = blosc2_create_dctx(dp);
            int dsize = blosc2_decompress_ctx(dctx, dst, csize, back, (int32_t)cap);
            int gi = n >= 64 ? blosc2_getitem_ctx(dctx, dst, csize, 1, 8 / typesizes[t] + 1, back + n, 64) : 0;
            blosc2_free_ctx(dctx);
            int ok = dsize == n && memcmp(back, src, (size_t)n) == 0;
            /* zlib output depends on the zlib implementation; report only that it worked */
            int show_csize = codecs[c] != BLOSC_ZLIB;
            printf("%s sh%d n%d ts%d k%d cl%d: csize %d nbytes %d bs %d flags %02x ok %d gi %d\n", name, shuffle, n,
                   typesizes[t], kind, cp.clevel, show_csize ? csize : (csize > 0), nb, bs,
                   csize >= 16 ? dst[2] : 0, ok, gi);
          }
        }
      }
    }
  }
  /* blosc1 API and global setters */
  fill(src, 100000, 1);
  blosc1_set_compressor("lz4");
  printf("compressor %s\n", blosc1_get_compressor());
  int cs = blosc1_compress(5, BLOSC_SHUFFLE, 4, 100000, src, dst, cap);
  size_t nbytes = 0, cbytes = 0, blocksize = 0;
  blosc1_cbuffer_sizes(dst, &nbytes, &cbytes, &blocksize);
  printf("blosc1 %d %zu %zu %zu valid %d\n", cs, nbytes, cbytes, blocksize, blosc1_cbuffer_validate(dst, cbytes, &nbytes));
  int ds = blosc1_decompress(dst, back, cap);
  printf("blosc1 back %d %u\n", ds, fnv(back, (size_t)ds));
  /* special chunks */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  printf("zeros %d\n", blosc2_chunk_zeros(cp, 80000, dst, (int32_t)cap));
  printf("zeros back %d %u\n", blosc2_decompress(dst, (int32_t)cap, back, (int32_t)cap), fnv(back, 80000));
  double v = 3.25;
  printf("repeat %d\n", blosc2_chunk_repeatval(cp, 80000, dst, (int32_t)cap, &v));
  printf("repeat back %d %u\n", blosc2_decompress(dst, (int32_t)cap, back, (int32_t)cap), fnv(back, 80000));
  free(src);
  free(dst);
  free(back);
  blosc2_destroy();
  return 0;
}
