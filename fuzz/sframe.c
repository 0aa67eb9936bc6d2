/* libFuzzer target: a sparse frame, i.e. a directory holding the index
   frame chunks.b2frame and one file per chunk (%08X.chunk).  The input is
   split at each SEPARATOR: the first part is the index, part i (i >= 1)
   becomes chunk file i - 1.  The directory is opened with
   blosc2_schunk_open and every chunk, metalayer and vlmetalayer is read. */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <blosc2.h>
#include "fuzz_files.h"
#include "read_schunk.h"

#define SEPARATOR "#B2CHUNK#"
#define MAX_CHUNK_FILES 8

static char sframe_dir[512];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  blosc2_init();
  snprintf(sframe_dir, sizeof sframe_dir, "%s/sframe.b2frame", fuzz_private_dir());
  return 0;
}

static void part_path(char *path, size_t len, int part) {
  if (part == 0)
    snprintf(path, len, "%s/chunks.b2frame", sframe_dir);
  else
    snprintf(path, len, "%s/%08X.chunk", sframe_dir, (unsigned)(part - 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > INT32_MAX) return 0;
  if (mkdir(sframe_dir, 0700) != 0 && access(sframe_dir, W_OK) != 0) abort();
  size_t seplen = strlen(SEPARATOR);
  const uint8_t *part = data, *end = data + size;
  int nparts = 0;
  char path[600];
  while (nparts <= MAX_CHUNK_FILES) {
    const uint8_t *sep = memmem(part, (size_t)(end - part), SEPARATOR, seplen);
    const uint8_t *stop = sep != NULL ? sep : end;
    part_path(path, sizeof path, nparts);
    fuzz_write_file(path, part, (size_t)(stop - part));
    nparts++;
    if (sep == NULL) break;
    part = sep + seplen;
  }
  blosc2_schunk *sc = blosc2_schunk_open(sframe_dir);
  if (sc != NULL) {
    fuzz_read_schunk(sc);
    blosc2_schunk_free(sc);
  }
  for (int i = 0; i < nparts; i++) {
    part_path(path, sizeof path, i);
    unlink(path);
  }
  return 0;
}
