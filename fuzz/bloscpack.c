/* libFuzzer target: the input is a Bloscpack file (.blp).  Reads it the way
   `blosc2 unpack` does: header, metadata, offsets, every chunk with its
   checksum.  The reader is Rust-only; blosc2_fuzz_bloscpack_read is its C
   entry point in the `fuzzing` build (src/ffi/fuzzing.rs). */
#include <stddef.h>
#include <stdint.h>
#include <blosc2.h>
#include "fuzz_init.h"

int blosc2_fuzz_bloscpack_read(const uint8_t *data, size_t size, int64_t max_chunk_nbytes,
                               int64_t max_total_nbytes);

/* Chunks claiming more than 1 MiB, or past 4 MiB over the file, are read
   but not decompressed (as read_schunk.h bounds the frame targets). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)blosc2_fuzz_bloscpack_read(data, size, 1024 * 1024, 4 * 1024 * 1024);
  return 0;
}
