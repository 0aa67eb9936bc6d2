/* libFuzzer target: the input is a contiguous frame written to a file and
   opened from disk (blosc2_schunk_open), so that its chunks come out as lazy
   chunks (header, block starts and a trailer locating the rest in the file)
   that the reads resolve through the super-chunk. */
#define _GNU_SOURCE /* nftw, in fuzz_files.h */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <blosc2.h>
#include "fuzz_files.h"
#include "read_schunk.h"

static char frame_path[512];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  blosc2_init();
  snprintf(frame_path, sizeof frame_path, "%s/frame.b2frame", fuzz_private_dir());
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > INT32_MAX) return 0;
  fuzz_write_file(frame_path, data, size);
  blosc2_schunk *sc = blosc2_schunk_open(frame_path);
  if (sc != NULL) {
    fuzz_read_schunk(sc);
    blosc2_schunk_free(sc);
  }
  unlink(frame_path);
  return 0;
}
