/* The libFuzzer start-up hook of the targets that need nothing but the
   library's own initialization. */
#ifndef FUZZ_INIT_H
#define FUZZ_INIT_H

#include <blosc2.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  blosc2_init();
  return 0;
}

#endif
