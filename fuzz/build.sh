#!/usr/bin/env bash
# Builds libblosc2.a with SanitizerCoverage (stable Rust, no cargo-fuzz) and
# links each fuzz/<target>.c against it with clang's libFuzzer.
# Usage: fuzz/build.sh [--asan] [TARGET...]   (default: every target in TARGETS)
#   --asan (or FUZZ_ASAN=1): the C code the crates compile (zstd, lz4,
#   libdeflate, zfp, csrc/) gets -fsanitize=address and the harnesses are
#   linked with -fsanitize=fuzzer,address; binaries go to fuzz/target/asan/bin.
#   The Rust code stays without ASan (stable Rust cannot build it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Every target: fuzz/<name>.c, seeds in fuzz/corpus/<name>/.  Add new ones here.
TARGETS=(
  chunk
  vlchunk
  frame
  lazy
  sframe
  b2nd
  bloscpack
  diff_chunk
  diff_compress
  cli_info
  schunk_ops
  b2nd_slice
)
ASAN="${FUZZ_ASAN:-0}"
if [[ "${1:-}" == "--asan" ]]; then ASAN=1; shift; fi
if [[ "${1:-}" == "--list" ]]; then printf '%s\n' "${TARGETS[@]}"; exit 0; fi
CLANG="${CLANG:-clang-19}"
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
TD="$ROOT/fuzz/target"
OUT="$TD"
SANITIZE=fuzzer
if [[ "$ASAN" == 1 ]]; then
  # A target dir of its own: the C objects differ, the Rust ones do not.
  TD="$ROOT/fuzz/target/asan"
  OUT="$TD"
  SANITIZE=fuzzer,address
  export CC="$CLANG" CFLAGS="-fsanitize=address -fno-omit-frame-pointer -g"
fi
# --target keeps RUSTFLAGS off build scripts (they could not link the sancov hooks).
# Only the staticlib is built: a cdylib would need the hooks at link time.
# panic=abort: a panic (overflow, bounds, debug assertion) is a crash the
# fuzzer reports, instead of an error code from the C API's catch_unwind guard.
# Feature `fuzzing` adds the C entry points of parsers blosc2.h does not
# reach (src/ffi/fuzzing.rs).
SANCOV_RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
RUSTFLAGS="$SANCOV_RUSTFLAGS" CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_PANIC=abort \
  cargo rustc --release -p libblosc2 --lib --crate-type staticlib --features zfp,fuzzing \
  --target "$TRIPLE" --target-dir "$TD"
LIB="$TD/$TRIPLE/release/libblosc2.a"
mkdir -p "$OUT/bin"
targets=("$@"); [[ ${#targets[@]} -gt 0 ]] || targets=("${TARGETS[@]}")
# cli_info (the command-line tool's `info`) links the cli crate's staticlib,
# built the same way with its `fuzzing` feature; it holds the library too.
CLI_LIB="$TD/$TRIPLE/release/libblosc2_cli.a"
if [[ " ${targets[*]} " == *" cli_info "* ]]; then
  RUSTFLAGS="$SANCOV_RUSTFLAGS" CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_PANIC=abort \
    cargo rustc --release -p blosc2-cli --lib --crate-type staticlib --features fuzzing,zfp \
    --target "$TRIPLE" --target-dir "$TD"
fi
for t in "${targets[@]}"; do
  lib="$LIB"; [[ "$t" != cli_info ]] || lib="$CLI_LIB"
  "$CLANG" -g -O1 -fsanitize="$SANITIZE" -Iinclude "fuzz/$t.c" "$lib" -lstdc++ -lpthread -ldl -lm -lrt \
    -o "$OUT/bin/$t"
done
# The seed-corpus generator (fuzz/make_corpus.c); fuzz/corpus is committed,
# regenerate it with: fuzz/target/bin/make_corpus fuzz/corpus
if [[ "$ASAN" != 1 ]]; then
  RT="$(dirname "$("$CLANG" -print-libgcc-file-name --rtlib=compiler-rt)")"
  "$CLANG" -g -O1 -fsanitize=fuzzer-no-link -Iinclude fuzz/make_corpus.c "$LIB" \
    "$RT/libclang_rt.fuzzer_no_main-$(uname -m).a" -lstdc++ -lpthread -ldl -lm -lrt \
    -o "$TD/bin/make_corpus"
fi
