/* Compile-only check (scripts/check-cbindgen.sh): the hand-written headers,
   then the header cbindgen generates from the Rust exports.  C allows a
   function to be declared twice only with compatible types, so any Rust
   extern "C" signature that disagrees with its prototype in blosc2.h or
   b2nd.h (an argument or return type, constness, the number of arguments)
   stops the compile with "conflicting types". */
#include "blosc2.h"
#include "b2nd.h"
#include "blosc2_rs_exports.h"

int main(void) { return 0; }
