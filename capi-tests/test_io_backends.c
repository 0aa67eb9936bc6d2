/* I/O backends: the registry (blosc2_register_io_cb / blosc2_get_io_cb), a
 * user backend wrapping the stdio functions and counting calls, the
 * blosc2_stdio_* functions used directly, and memory-mapped frames in the
 * modes w+, r, r+ and c (blosc2_schunk_open_udio). */
#include "test_common.h"
#include <stdbool.h>

static int n_open, n_close, n_write, n_read;

static void *u_open(const char *urlpath, const char *mode, void *params) {
  n_open++;
  CHECK(params == (void *)&n_open);
  return blosc2_stdio_open(urlpath, mode, NULL);
}
static int u_close(void *s) { n_close++; return blosc2_stdio_close(s); }
static int64_t u_size(void *s) { return blosc2_stdio_size(s); }
static int64_t u_write(const void *p, int64_t size, int64_t n, int64_t pos, void *s) {
  n_write++;
  return blosc2_stdio_write(p, size, n, pos, s);
}
static int64_t u_read(void **p, int64_t size, int64_t n, int64_t pos, void *s) {
  n_read++;
  return blosc2_stdio_read(p, size, n, pos, s);
}
static int u_truncate(void *s, int64_t size) { return blosc2_stdio_truncate(s, size); }
static int u_destroy(void *params) { (void)params; return 0; }

#define NCH 5
#define N 2000

static void fill(int32_t *buf, int c) {
  for (int i = 0; i < N; i++) buf[i] = i * (c + 3) + c;
}

static blosc2_schunk *make(blosc2_storage *st) {
  blosc2_schunk *sc = blosc2_schunk_new(st);
  if (sc == NULL) return NULL;
  int32_t buf[N];
  for (int c = 0; c < NCH; c++) {
    fill(buf, c);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), c + 1);
  }
  return sc;
}

static void check_content(blosc2_schunk *sc, int nchunks) {
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, nchunks);
  int32_t buf[N], exp[N];
  for (int c = 0; c < nchunks; c++) {
    fill(exp, c);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, c, buf, sizeof buf), (int)sizeof buf);
    CHECK_MEM(buf, exp, sizeof buf);
  }
}

static long file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

int main(void) {
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;

  /* registry */
  blosc2_io_cb *fs = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  REQUIRE(fs != NULL);
  CHECK_EQ_INT(fs->id, BLOSC2_IO_FILESYSTEM);
  CHECK_STR(fs->name, "filesystem");
  CHECK(fs->is_allocation_necessary);
  blosc2_io_cb *mm = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM_MMAP);
  REQUIRE(mm != NULL);
  CHECK(!mm->is_allocation_necessary);
  CHECK(blosc2_get_io_cb(201) == NULL);

  blosc2_io_cb user = {.id = 200, .name = "counting", .is_allocation_necessary = true,
                       .open = u_open, .close = u_close, .size = u_size, .write = u_write,
                       .read = u_read, .truncate = u_truncate, .destroy = u_destroy};
  CHECK_NEG(blosc2_register_io_cb(NULL));
  blosc2_io_cb low = user;
  low.id = 100;
  CHECK_NEG(blosc2_register_io_cb(&low));
  CHECK_EQ_INT(blosc2_register_io_cb(&user), 0);
  CHECK_EQ_INT(blosc2_register_io_cb(&user), 0);
  blosc2_io_cb other = user;
  other.name = "another";
  CHECK_NEG(blosc2_register_io_cb(&other));
  blosc2_io_cb *got = blosc2_get_io_cb(200);
  REQUIRE(got != NULL);
  CHECK_STR(got->name, "counting");
  CHECK(got->write == u_write);

  /* a contiguous frame written and read through the user backend */
  const char *path = "test_io_user.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_io uio = {.id = 200, .name = "counting", .params = &n_open};
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .io = &uio};
  blosc2_schunk *sc = make(&st);
  REQUIRE(sc != NULL);
  CHECK(n_open > 0);
  CHECK(n_write > 0);
  check_content(sc, NCH);
  blosc2_schunk_free(sc);
  CHECK(n_close > 0);
  int reads_before = n_read;
  sc = blosc2_schunk_open_udio(path, &uio);
  check_content(sc, NCH);
  CHECK(n_read > reads_before);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  check_content(sc, NCH);
  blosc2_schunk_free(sc);
  blosc2_io bad = {.id = 222, .name = "nope", .params = NULL};
  CHECK(blosc2_schunk_open_udio(path, &bad) == NULL);
  sc = blosc2_schunk_open_offset_udio(path, 0, &uio);
  check_content(sc, NCH);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);

  /* the stdio functions on their own */
  const char *raw = "test_io_raw.bin";
  void *s = blosc2_stdio_open(raw, "wb+", NULL);
  REQUIRE(s != NULL);
  CHECK_EQ_INT(blosc2_stdio_write("abcdefgh", 1, 8, 4, s), 8);
  CHECK_EQ_INT(blosc2_stdio_size(s), 12);
  char rb[8] = {0};
  void *rp = rb;
  CHECK_EQ_INT(blosc2_stdio_read(&rp, 2, 4, 4, s), 4);
  CHECK(memcmp(rb, "abcdefgh", 8) == 0);
  CHECK_EQ_INT(blosc2_stdio_read(&rp, 1, 8, 8, s), 4); /* short read at the end */
  CHECK_EQ_INT(blosc2_stdio_truncate(s, 6), 0);
  CHECK_EQ_INT(blosc2_stdio_size(s), 6);
  CHECK_EQ_INT(blosc2_stdio_close(s), 0);
  CHECK(blosc2_stdio_open("no/such/dir/file", "rb", NULL) == NULL);
  CHECK_EQ_INT(blosc2_stdio_destroy(NULL), 0);
  blosc2_remove_urlpath(raw);

  /* memory-mapped frames */
  const char *mpath = "test_io_mmap.b2frame";
  blosc2_remove_urlpath(mpath);
  blosc2_stdio_mmap mw = BLOSC2_STDIO_MMAP_DEFAULTS;
  mw.mode = "w+";
  mw.initial_mapping_size = 1 << 12; /* small, so that it has to grow */
  blosc2_io mio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mw};
  blosc2_storage mst = {.contiguous = true, .urlpath = (char *)mpath, .cparams = &cp, .io = &mio};
  sc = make(&mst);
  REQUIRE(sc != NULL);
  CHECK(mw.addr != NULL);
  CHECK(mw.mapping_size >= mw.file_size);
  CHECK_EQ_INT((int64_t)mw.file_size, blosc2_schunk_frame_len(sc));
  check_content(sc, NCH);
  int64_t flen = blosc2_schunk_frame_len(sc);
  blosc2_schunk_free(sc);
  CHECK(mw.addr == NULL);
  CHECK_EQ_INT(file_size(mpath), flen);
  sc = blosc2_schunk_open(mpath);
  check_content(sc, NCH);
  blosc2_schunk_free(sc);

  blosc2_stdio_mmap mr = BLOSC2_STDIO_MMAP_DEFAULTS;
  mr.mode = "r";
  blosc2_io rio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mr};
  sc = blosc2_schunk_open_udio(mpath, &rio);
  check_content(sc, NCH);
  CHECK(!mr.is_memory_only);
  blosc2_schunk_free(sc);

  /* copy-on-write: changes stay in memory */
  blosc2_stdio_mmap mc = BLOSC2_STDIO_MMAP_DEFAULTS;
  mc.mode = "c";
  blosc2_io cio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mc};
  sc = blosc2_schunk_open_udio(mpath, &cio);
  REQUIRE(sc != NULL);
  CHECK(mc.is_memory_only);
  int32_t buf[N];
  fill(buf, NCH);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), NCH + 1);
  check_content(sc, NCH + 1);
  blosc2_schunk_free(sc);
  CHECK_EQ_INT(file_size(mpath), flen);
  sc = blosc2_schunk_open(mpath);
  check_content(sc, NCH);
  blosc2_schunk_free(sc);

  /* r+: changes reach the file */
  blosc2_stdio_mmap mp = BLOSC2_STDIO_MMAP_DEFAULTS;
  mp.mode = "r+";
  mp.initial_mapping_size = 1 << 12;
  blosc2_io pio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mp};
  sc = blosc2_schunk_open_udio(mpath, &pio);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), NCH + 1);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(mpath);
  check_content(sc, NCH + 1);
  blosc2_schunk_free(sc);

  /* a heap-allocated mmap struct freed by destroy (needs_free) */
  blosc2_stdio_mmap *heap = malloc(sizeof *heap);
  *heap = BLOSC2_STDIO_MMAP_DEFAULTS;
  heap->mode = "r";
  heap->needs_free = true;
  blosc2_io hio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = heap};
  sc = blosc2_schunk_open_udio(mpath, &hio);
  check_content(sc, NCH + 1);
  blosc2_schunk_free(sc);

  /* a bad mode fails cleanly */
  blosc2_stdio_mmap mx = BLOSC2_STDIO_MMAP_DEFAULTS;
  mx.mode = "x";
  blosc2_io xio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mx};
  CHECK(blosc2_schunk_open_udio(mpath, &xio) == NULL);
  blosc2_remove_urlpath(mpath);

  blosc2_destroy();
  TEST_MAIN_END("test_io_backends");
}
