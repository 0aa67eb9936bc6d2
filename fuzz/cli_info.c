/* libFuzzer target: `blosc2 info FILE` (the command-line tool's info on a
   file of arbitrary contents).  The input is written to a file in the
   process's private directory (fuzz_files.h: in /dev/shm when there is one),
   and the cli crate's entry point blosc2_cli_fuzz_info (built with its
   `fuzzing` feature) describes it as text and, when that works, as JSON.
   Linked with libblosc2_cli.a, which holds the library too. */
#define _GNU_SOURCE /* nftw, in fuzz_files.h */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_files.h"

int blosc2_cli_fuzz_info(const char *path, int as_json);

static char input_path[512];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(input_path, sizeof input_path, "%s/input", fuzz_private_dir());
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_write_file(input_path, data, size);
  if (blosc2_cli_fuzz_info(input_path, 0) == 0) (void)blosc2_cli_fuzz_info(input_path, 1);
  return 0;
}
