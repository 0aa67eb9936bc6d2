/* blosc2_get_complib_info() with a compressor name that does not exist must
 * return a negative value (documented: -1) and not crash.
 * Known reference bug: c-blosc2 3.3.5 strdup()s a NULL library name and
 * segfaults (see KNOWN_REFERENCE_FAILURES.txt). */
#include "test_common.h"

int main(void) {
  blosc2_init();
  char *complib = NULL, *version = NULL;
  int rc = blosc2_get_complib_info("no-such-codec", &complib, &version);
  CHECK_NEG(rc);
  free(complib);
  free(version);
  blosc2_destroy();
  TEST_MAIN_END("test_complib_info_unknown");
}
