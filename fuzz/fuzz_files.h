/* Helpers of the fuzz targets that hand their input to the library as files:
   one private temporary directory per process (in /dev/shm when there is
   one, to keep the per-input cost low) and whole-file writes. */
#ifndef FUZZ_FILES_H
#define FUZZ_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The process's private directory, created on first use; aborts when it
   cannot be made (the target cannot run without it). */
static const char *fuzz_private_dir(void) {
  static char dir[256];
  if (dir[0] != '\0') return dir;
  const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/blosc2-fuzz-XXXXXX", base);
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    abort();
  }
  return dir;
}

/* Write `len` bytes to `path` (replacing it); aborts on failure. */
static void fuzz_write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || (len > 0 && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
    perror(path);
    abort();
  }
}

#endif
