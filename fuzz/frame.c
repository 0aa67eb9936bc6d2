/* libFuzzer target: the input is a contiguous frame (cframe) in memory.
   Opens it as a super-chunk (copying), then reads every chunk, metalayer and
   vlmetalayer (read_schunk.h). */
#include <stdint.h>
#include <blosc2.h>
#include "read_schunk.h"
#include "fuzz_init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > INT32_MAX) return 0;
  /* from_buffer takes a non-const pointer; with copy it must not write. */
  blosc2_schunk *sc = blosc2_schunk_from_buffer((uint8_t *)data, (int64_t)size, true);
  if (sc == NULL) return 0;
  fuzz_read_schunk(sc);
  blosc2_schunk_free(sc);
  return 0;
}
