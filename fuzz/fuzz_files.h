/* Helpers of the fuzz targets that hand their input to the library as files:
   one private temporary directory per process (in /dev/shm when there is
   one, to keep the per-input cost low), removed with what it holds when the
   process exits, and whole-file writes. */
#ifndef FUZZ_FILES_H
#define FUZZ_FILES_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[256];

static int fuzz_remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  (void)remove(path); /* what cannot go is left; the walk goes on */
  return 0;
}

static void fuzz_remove_private_dir(void) {
  if (fuzz_dir[0] != '\0') nftw(fuzz_dir, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The process's private directory, created on first use and removed at
   exit; aborts when it cannot be made (the target cannot run without it). */
static const char *fuzz_private_dir(void) {
  char *dir = fuzz_dir;
  if (dir[0] != '\0') return dir;
  const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof fuzz_dir, "%s/blosc2-fuzz-XXXXXX", base);
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    abort();
  }
  atexit(fuzz_remove_private_dir);
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
