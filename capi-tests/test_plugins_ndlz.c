/* The ndlz codec plugin (BLOSC_CODEC_NDLZ, id 32), registered at start: a
 * Lempel-Ziv codec for 2-D blocks of bytes (cells of 4x4 or 8x8, the codec
 * meta) that reads the block shape from the "b2nd" metalayer of the
 * super-chunk.  Its name and id as the library reports them, lossless round
 * trips through super-chunks and frames with shapes, chunk shapes and block
 * shapes that do not divide each other, and the refusals (bad cell size, not
 * 2-D, no "b2nd", no super-chunk). */
#include "plugin_common.h"

/* BLOSC_CODEC_NDLZ of blosc2/codecs-registry.h (only blosc2.h is used). */
#define CODEC_NDLZ 32

/* Padded chunk size in bytes (typesize 1). */
static int32_t chunk_bytes(const geo_t *g) { return (int32_t)(nblocks(g) * block_items(g)); }

/* An image with flat areas, repeated cells, repeated rows and noise, laid
 * out as b2nd gives chunk `nc` to the super-chunk: block after block, each
 * in C order, 0 outside the chunk or the image. */
static void fill_chunk(const geo_t *g, int64_t nc, uint8_t *out) {
  uint64_t st = 99 + (uint64_t)nc;
  size_t o = 0;
  for (int64_t b = 0; b < nblocks(g); b++)
    for (int64_t k = 0; k < block_items(g); k++) {
      int64_t gl[MAXD] = {0};
      bool inside = chunk_item(g, nc, b, k, gl);
      int64_t r = gl[0], c = gl[1];
      uint8_t noise = (uint8_t)tc_rand(&st);
      uint8_t v;
      if (!inside) {
        v = 0;
      } else {
        switch ((r / 8 + c / 8) % 5) {
          case 0: v = 9; break;
          case 1: v = (uint8_t)((r % 4) * 5 + c % 4); break;
          case 2: v = (uint8_t)((c % 8) * 13); break;
          case 3: v = noise & 3; break;
          default: v = noise; break;
        }
      }
      out[o++] = v;
    }
}

static blosc2_schunk *new_schunk(const geo_t *g, int meta, bool with_b2nd) {
  blosc2_cparams cp = plugin_cparams(1, CODEC_NDLZ, 2);
  cp.compcode_meta = (uint8_t)meta;
  cp.blocksize = (int32_t)block_items(g);
  blosc2_schunk *sc = plugin_schunk(&cp, true);
  if (with_b2nd) add_b2nd_meta(sc, g, "|u1");
  return sc;
}

static const geo_t geos[] = {
  {2, {100, 77}, {40, 30}, {16, 16}},
  {2, {100, 77}, {40, 30}, {13, 27}},
  {2, {64, 64}, {64, 64}, {32, 32}},
  {2, {50, 61}, {25, 40}, {7, 9}},
  {2, {200, 90}, {100, 90}, {64, 45}},
};

static void round_trips(void) {
  int through_ndlz = 0;
  for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
    const geo_t *g = &geos[gi];
    for (int meta = 4; meta <= 8; meta += 4) {
      int32_t nbytes = chunk_bytes(g);
      uint8_t *src = tc_malloc((size_t)nbytes), *back = tc_malloc((size_t)nbytes);
      blosc2_schunk *sc = new_schunk(g, meta, true);
      int64_t n = nchunks(g);
      for (int64_t c = 0; c < n; c++) {
        fill_chunk(g, c, src);
        CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, nbytes), c + 1);
      }
      for (int64_t c = 0; c < n; c++) {
        fill_chunk(g, c, src);
        CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, back, nbytes), nbytes);
        CHECK_MSG(memcmp(back, src, (size_t)nbytes) == 0, "geometry %d meta %d chunk %d",
                  (int)gi, meta, (int)c);
        int cb;
        uint8_t *chunk = chunk_copy(sc, c, &cb);
        REQUIRE(cb >= 32);
        if (cb > 32 && !(chunk[2] & 0x02)) {
          /* A user-codec chunk: format 6 in the flags, id and meta after. */
          CHECK_EQ_INT(chunk[2] >> 5, BLOSC_UDCODEC_FORMAT);
          CHECK_EQ_INT(chunk[22], CODEC_NDLZ);
          CHECK_EQ_INT(chunk[23], meta);
          through_ndlz++;
        }
        free(chunk);
      }
      blosc2_schunk *copy = frame_copy(sc);
      if (copy != NULL) {
        fill_chunk(g, n - 1, src);
        CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, n - 1, back, nbytes), nbytes);
        CHECK_MEM(back, src, nbytes);
        blosc2_schunk_free(copy);
      }
      blosc2_schunk_free(sc);
      free(src);
      free(back);
    }
  }
  CHECK(through_ndlz > 20);
}

static void refusals(void) {
  const geo_t *g = &geos[0];
  int32_t nbytes = chunk_bytes(g);
  uint8_t *src = tc_malloc((size_t)nbytes);
  fill_chunk(g, 0, src);
  /* Cell sizes other than 4 and 8. */
  static const int bad_meta[] = {0, 5, 16};
  for (int i = 0; i < 3; i++) {
    blosc2_schunk *sc = new_schunk(g, bad_meta[i], true);
    CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
    blosc2_schunk_free(sc);
  }
  /* No "b2nd" metalayer. */
  blosc2_schunk *sc = new_schunk(g, 4, false);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
  blosc2_schunk_free(sc);
  /* Not 2-D: the same blocks described as 3-D. */
  geo_t g3 = {3, {100, 77, 1}, {40, 30, 1}, {16, 16, 1}};
  sc = new_schunk(&g3, 4, true);
  CHECK_NEG(blosc2_schunk_append_buffer(sc, src, nbytes));
  blosc2_schunk_free(sc);
  /* No super-chunk at all. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = CODEC_NDLZ;
  cp.compcode_meta = 4;
  cp.blocksize = 256;
  uint8_t *out = tc_malloc((size_t)nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK_NEG(compress_with(&cp, src, nbytes, out, nbytes + BLOSC2_MAX_OVERHEAD));
  free(out);
  free(src);
}

static int dummy_encoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len,
                         uint8_t meta, blosc2_cparams *cparams, const void *chunk) {
  (void)in; (void)in_len; (void)out; (void)out_len; (void)meta; (void)cparams; (void)chunk;
  return 0;
}

static int dummy_decoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len,
                         uint8_t meta, blosc2_dparams *dparams, const void *chunk) {
  (void)in; (void)in_len; (void)out; (void)out_len; (void)meta; (void)dparams; (void)chunk;
  return BLOSC2_ERROR_FAILURE;
}

int main(void) {
  blosc2_init();
  /* Name and id as the library reports them. */
  const char *name = NULL;
  CHECK_EQ_INT(blosc2_compcode_to_compname(CODEC_NDLZ, &name), CODEC_NDLZ);
  CHECK_STR(name, "ndlz");
  CHECK_EQ_INT(blosc2_compname_to_compcode("ndlz"), CODEC_NDLZ);
  /* The id is taken by the built-in plugin: users cannot register it. */
  blosc2_codec c = {0};
  c.compcode = CODEC_NDLZ;
  c.compname = "ndlz";
  c.complib = CODEC_NDLZ;
  c.version = 1;
  c.encoder = dummy_encoder;
  c.decoder = dummy_decoder;
  CHECK_NEG(blosc2_register_codec(&c));
  round_trips();
  refusals();
  /* Still the same after use. */
  name = NULL;
  CHECK_EQ_INT(blosc2_compcode_to_compname(CODEC_NDLZ, &name), CODEC_NDLZ);
  CHECK_STR(name, "ndlz");
  blosc2_destroy();
  TEST_MAIN_END("test_plugins_ndlz");
}
