/* A handle on a frame file that another program replaces under its name
 * (writes the new frame beside it and renames it over the old one, as
 * python-blosc2's DictStore does to swap a value in): the handle's next call
 * reads the new file, as with the reference, which reopens the file by its
 * name for each operation. */
#include "test_common.h"
#include <stdio.h>

#define N 1000

static void write_frame(const char *path, int32_t base, int nchunks) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t data[N];
  for (int c = 0; c < nchunks; c++) {
    for (int i = 0; i < N; i++) data[i] = base + c * N + i;
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), c + 1);
  }
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  const char *path = "test_handles_replaced.b2frame";
  const char *tmp = "test_handles_replaced.b2frame.tmp";
  write_frame(path, 0, 2);
  blosc2_schunk *h = blosc2_schunk_open(path);
  REQUIRE(h != NULL);
  int32_t back[N];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(h, 1, back, sizeof(back)), sizeof(back));
  CHECK_EQ_INT(back[0], N);

  /* A new value with three chunks, swapped in by a rename. */
  write_frame(tmp, 100000, 3);
  REQUIRE(rename(tmp, path) == 0);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(h, 1, back, sizeof(back)), sizeof(back));
  CHECK_EQ_INT(back[0], 100000 + N);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(h, 2, back, sizeof(back)), sizeof(back));
  CHECK_EQ_INT(back[N - 1], 100000 + 3 * N - 1);
  CHECK_EQ_INT(h->nchunks, 3);
  blosc2_schunk_free(h);

  blosc2_remove_urlpath(path);
  blosc2_destroy();
  TEST_MAIN_END("test_handles_replaced");
}
