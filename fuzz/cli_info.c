/* libFuzzer target: `blosc2 info FILE` (the command-line tool's info on a
   file of arbitrary contents).  The input is written to a private temporary
   file, and the cli crate's entry point blosc2_cli_fuzz_info (built with its
   `fuzzing` feature) describes it as text and, when that works, as JSON.
   Linked with libblosc2_cli.a, which holds the library too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int blosc2_cli_fuzz_info(const char *path, int as_json);

static char input_path[512];

static void remove_input(void) { unlink(input_path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
  /* one file per process: parallel jobs (-jobs=N) do not share it */
  snprintf(input_path, sizeof input_path, "%s/blosc2-fuzz-cli-info-%ld", tmp, (long)getpid());
  atexit(remove_input);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(input_path, "wb");
  if (f == NULL) abort();
  if (size > 0 && fwrite(data, 1, size, f) != size) abort();
  if (fclose(f) != 0) abort();
  if (blosc2_cli_fuzz_info(input_path, 0) == 0) (void)blosc2_cli_fuzz_info(input_path, 1);
  return 0;
}
