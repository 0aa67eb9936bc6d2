/* A chunksize the client writes into the super-chunk (cause C4 of the
 * python-blosc2 issue; its EmbedStore and SChunk.__setitem__ rely on it):
 * appending a smaller first chunk, adding or updating metalayers and
 * vlmetalayers keep the value the client set. */
#include "test_common.h"

int main(void) {
  blosc2_init();
  int32_t data[2048];
  for (int i = 0; i < 2048; i++) data[i] = i;

  for (int kind = 0; kind < 3; kind++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = {.contiguous = kind > 0, .cparams = &cp};
    if (kind == 2) {
      blosc2_remove_urlpath("client_chunksize.b2frame");
      st.urlpath = "client_chunksize.b2frame";
    }
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    REQUIRE(sc != NULL);
    CHECK_EQ_INT(sc->chunksize, -1);

    sc->chunksize = 8192;
    uint8_t meta[4] = {1, 2, 3, 4};
    CHECK(blosc2_meta_add(sc, "m", meta, 4) >= 0);
    CHECK_EQ_INT(sc->chunksize, 8192);
    CHECK(blosc2_vlmeta_add(sc, "v", meta, 4, NULL) >= 0);
    CHECK_EQ_INT(sc->chunksize, 8192);
    CHECK(blosc2_vlmeta_update(sc, "v", meta, 2, NULL) >= 0);
    CHECK_EQ_INT(sc->chunksize, 8192);

    /* A first chunk of 1200 bytes does not change a chunksize of 4000. */
    sc->chunksize = 4000;
    uint8_t chunk[1200 + BLOSC2_MAX_OVERHEAD];
    int cbytes = blosc2_compress_ctx(sc->cctx, data, 1200, chunk, sizeof(chunk));
    REQUIRE(cbytes > 0);
    CHECK_EQ_INT(blosc2_schunk_append_chunk(sc, chunk, true), 1);
    CHECK_EQ_INT(sc->chunksize, 4000);
    CHECK_EQ_INT(sc->nbytes, 1200);
    int32_t back[300];
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, sizeof(back)), 1200);
    CHECK_MEM(back, data, 1200);
    CHECK(blosc2_vlmeta_update(sc, "v", meta, 4, NULL) >= 0);
    CHECK_EQ_INT(sc->chunksize, 4000);
    blosc2_schunk_free(sc);
    if (kind == 2) {
      /* The frame on disk records it too. */
      sc = blosc2_schunk_open("client_chunksize.b2frame");
      REQUIRE(sc != NULL);
      CHECK_EQ_INT(sc->chunksize, 4000);
      CHECK_EQ_INT(sc->nchunks, 1);
      blosc2_schunk_free(sc);
      blosc2_remove_urlpath("client_chunksize.b2frame");
    }
  }
  blosc2_destroy();
  TEST_MAIN_END("test_schunk_client_chunksize");
}
