/* BLOSC_INFO (cause C6 of the python-blosc2 issue): while the variable is set,
 * opening a memory-mapped frame prints the reference's informational line
 * with the file, the mode and the mapping size on stderr; without it nothing
 * is printed. stderr is redirected to a file and read back. */
#include "test_common.h"
#include <unistd.h>
#include <fcntl.h>

static char captured[65536];

/* Run `fn` with stderr going to a temporary file; return what it printed. */
static const char *capture_stderr(void (*fn)(void)) {
  fflush(stderr);
  int saved = dup(2);
  FILE *tmp = tmpfile();
  REQUIRE(saved >= 0 && tmp != NULL);
  dup2(fileno(tmp), 2);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t n = fread(captured, 1, sizeof(captured) - 1, tmp);
  captured[n] = '\0';
  fclose(tmp);
  return captured;
}

static const char *path = "test_info_messages.b2frame";

static void write_mmap_frame(void) {
  blosc2_remove_urlpath(path);
  int64_t data[10];
  for (int i = 0; i < 10; i++) data[i] = i;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 1000;
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .io = &io};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 2);
  blosc2_schunk_free(sc);
}

static void read_mmap_frame(void) {
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "r";
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_schunk *sc = blosc2_schunk_open_udio(path, &io);
  REQUIRE(sc != NULL);
  int64_t back[10];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, back, sizeof(back)), sizeof(back));
  CHECK_EQ_INT(back[9], 9);
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  blosc2_remove_urlpath(path);

  unsetenv("BLOSC_INFO");
  const char *out = capture_stderr(write_mmap_frame);
  CHECK_MSG(strstr(out, "[INFO]") == NULL, "printed without BLOSC_INFO: %s", out);

  setenv("BLOSC_INFO", "true", 1);
  out = capture_stderr(write_mmap_frame);
  CHECK_MSG(strstr(out, "Opened memory-mapped file test_info_messages.b2frame in mode w+ "
                        "with an mapping size of 1000 bytes") != NULL,
            "stderr was: %s", out);

  char expected[256];
  FILE *f = fopen(path, "rb");
  REQUIRE(f != NULL);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fclose(f);
  snprintf(expected, sizeof(expected),
           "Opened memory-mapped file test_info_messages.b2frame in mode r with an "
           "mapping size of %ld bytes", size);
  out = capture_stderr(read_mmap_frame);
  CHECK_MSG(strstr(out, expected) != NULL, "expected '%s'; stderr was: %s", expected, out);
  unsetenv("BLOSC_INFO");

  blosc2_remove_urlpath(path);
  blosc2_destroy();
  TEST_MAIN_END("test_info_messages");
}
