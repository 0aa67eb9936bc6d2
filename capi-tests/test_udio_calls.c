/* A user I/O backend sees each operation open its stream, read or write it,
 * and close it: opens and closes balance while the super-chunk lives, and a
 * backend that keeps the file in memory and writes it back only on close
 * works (another handle, on the plain file backend, reads what was written
 * as soon as the call returns). Every append ends with a truncate call to
 * the frame's new end, as in c-blosc2 (a backend may count on it to learn
 * the file's length). Contiguous and sparse frames. */
#include "test_common.h"
#include <stdbool.h>

static int n_open, n_close, n_truncate;

/* a stream: the whole file in memory, written back on close when changed */
typedef struct {
  char *path;
  uint8_t *data;
  int64_t len;
  bool dirty;
} wb_file;

static void *wb_open(const char *urlpath, const char *mode, void *params) {
  (void)params;
  FILE *f = fopen(urlpath, mode[0] == 'w' ? "wb+" : mode);
  if (f == NULL) return NULL;
  wb_file *s = calloc(1, sizeof *s);
  s->path = strdup(urlpath);
  fseek(f, 0, SEEK_END);
  s->len = ftell(f);
  fseek(f, 0, SEEK_SET);
  s->data = malloc(s->len > 0 ? s->len : 1);
  if (s->len > 0 && fread(s->data, 1, s->len, f) != (size_t)s->len) s->len = 0;
  fclose(f);
  n_open++;
  return s;
}

static int wb_close(void *stream) {
  wb_file *s = stream;
  int rc = 0;
  if (s->dirty) {
    FILE *f = fopen(s->path, "wb");
    if (f == NULL || fwrite(s->data, 1, s->len, f) != (size_t)s->len) rc = -1;
    if (f != NULL) fclose(f);
  }
  free(s->data);
  free(s->path);
  free(s);
  n_close++;
  return rc;
}

static int64_t wb_size(void *stream) { return ((wb_file *)stream)->len; }

static int wb_truncate(void *stream, int64_t size) {
  wb_file *s = stream;
  uint8_t *d = realloc(s->data, size > 0 ? size : 1);
  if (d == NULL) return -1;
  if (size > s->len) memset(d + s->len, 0, size - s->len);
  s->data = d;
  s->len = size;
  s->dirty = true;
  return 0;
}

/* the truncate callback the library calls (wb_write grows files itself) */
static int wb_truncate_cb(void *stream, int64_t size) {
  n_truncate++;
  return wb_truncate(stream, size);
}

static int64_t wb_write(const void *ptr, int64_t size, int64_t nitems, int64_t pos, void *stream) {
  wb_file *s = stream;
  int64_t n = size * nitems;
  if (pos + n > s->len && wb_truncate(s, pos + n) < 0) return 0;
  memcpy(s->data + pos, ptr, n);
  s->dirty = true;
  return nitems;
}

static int64_t wb_read(void **ptr, int64_t size, int64_t nitems, int64_t pos, void *stream) {
  wb_file *s = stream;
  int64_t n = size * nitems;
  if (pos < 0 || pos + n > s->len) return 0;
  memcpy(*ptr, s->data + pos, n);
  return nitems;
}

static int wb_destroy(void *params) { (void)params; return 0; }

#define N 2000

static void fill(int32_t *b, int c) {
  for (int i = 0; i < N; i++) b[i] = i + 7 * c;
}

static void check_file(const char *path, int nchunks) {
  /* the plain file backend reads what the write-back backend wrote */
  blosc2_schunk *p = blosc2_schunk_open(path);
  REQUIRE(p != NULL);
  CHECK_EQ_INT(p->nchunks, nchunks);
  int32_t buf[N], exp[N];
  for (int c = 0; c < nchunks; c++) {
    fill(exp, c);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(p, c, buf, sizeof buf), (int)sizeof buf);
    CHECK_MEM(buf, exp, sizeof buf);
  }
  blosc2_schunk_free(p);
}

static void run(bool contiguous, const char *path) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_io io = {.id = 210, .name = "writeback", .params = NULL};
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                       .io = &io};
  n_open = n_close = 0;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK(n_open > 0);
  CHECK_EQ_INT(n_open, n_close);
  int32_t buf[N], exp[N];
  for (int c = 0; c < 3; c++) {
    fill(buf, c);
    int truncated = n_truncate;
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), c + 1);
    CHECK_EQ_INT(n_open, n_close);
    CHECK_MSG(n_truncate > truncated, "append %d made no truncate call", c);
  }
  check_file(path, 3);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, buf, sizeof buf), (int)sizeof buf);
  fill(exp, 1);
  CHECK_MEM(buf, exp, sizeof buf);
  CHECK_EQ_INT(n_open, n_close);
  blosc2_schunk_free(sc);
  CHECK_EQ_INT(n_open, n_close);

  /* opened through the backend: reads and an append */
  int before = n_open;
  sc = blosc2_schunk_open_udio(path, &io);
  REQUIRE(sc != NULL);
  CHECK(n_open > before);
  CHECK_EQ_INT(n_open, n_close);
  CHECK_EQ_INT(sc->nchunks, 3);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 2, buf, sizeof buf), (int)sizeof buf);
  fill(exp, 2);
  CHECK_MEM(buf, exp, sizeof buf);
  CHECK_EQ_INT(n_open, n_close);
  fill(buf, 3);
  int truncated = n_truncate;
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof buf), 4);
  CHECK(n_truncate > truncated);
  CHECK_EQ_INT(n_open, n_close);
  check_file(path, 4);
  blosc2_schunk_free(sc);
  CHECK_EQ_INT(n_open, n_close);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  blosc2_io_cb cb = {.id = 210, .name = "writeback", .is_allocation_necessary = true,
                     .open = wb_open, .close = wb_close, .size = wb_size, .write = wb_write,
                     .read = wb_read, .truncate = wb_truncate_cb, .destroy = wb_destroy};
  CHECK_EQ_INT(blosc2_register_io_cb(&cb), 0);
  run(true, "test_udio_calls.b2frame");
  run(false, "test_udio_calls_s.b2frame");
  blosc2_destroy();
  TEST_MAIN_END("test_udio_calls");
}
