#!/usr/bin/env bash
# Every test of the project, in order: Rust (unit, integration, interop with the
# reference, mutation; the library and the CLI in cli/), the C suite via ctest
# (plain and under valgrind), the cbindgen signature check, the fuzz smoke runs,
# the ABI and header checks, and the binary drop-in check.
# Needs: Rust, gcc, cmake, valgrind, cbindgen, python3 with pip (for the reference wheel),
# clang-19 with libFuzzer (the fuzz smoke step), and libclang (libclang-dev) for the zfp codecs, which are built with the
# `zfp` feature here (BLOSC2_FEATURES="" tests a build without them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="${JOBS:-2}"
FEATURES="${BLOSC2_FEATURES---features zfp}"

step() { printf '\n==== %s\n' "$*"; }

step "reference c-blosc2 (python-blosc2 4.14.1 wheel)"
REF_LIB="$(scripts/fetch-reference.sh)"
export BLOSC2_REF_LIB="$REF_LIB/libblosc2.so.9"
REF_INC="$(dirname "$REF_LIB")/include"

step "format and lints"
cargo fmt --check
cargo clippy --all-targets $FEATURES -- -D warnings

step "build (release)"
cargo build --release $FEATURES

step "the main job (README's first command)"
target/release/blosc2 demo --dir build/demo
target/release/blosc2 bench --repeat 1 > /dev/null

step "Rust tests (unit, doc, integration, interop, mutation)"
cargo test --release $FEATURES

step "aarch64: NEON and scalar filter tests, cross-compiled and run under qemu-user"
scripts/cross-aarch64.sh

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet $FEATURES

step "C test suite (ctest)"
cmake -S capi-tests -B build/capi -DBLOSC2_LIB_DIR="$ROOT/target/release" \
  -DBLOSC2_REF_INCLUDE_DIR="$REF_INC" > /dev/null
cmake --build build/capi -j "$JOBS" > /dev/null
ctest --test-dir build/capi -j "$JOBS" --output-on-failure

step "Rust extern \"C\" signatures against include/blosc2.h and b2nd.h (cbindgen)"
scripts/check-cbindgen.sh

step "b2nd metalayer mutation fuzzer, C path under AddressSanitizer"
capi-tests/asan/run.sh "$ROOT/target/release" "$ROOT/include" 100000 20261122

step "C test suite under valgrind memcheck"
cmake -S capi-tests -B build/capi-valgrind -DBLOSC2_LIB_DIR="$ROOT/target/release" \
  -DBLOSC2_VALGRIND=ON > /dev/null
cmake --build build/capi-valgrind -j "$JOBS" > /dev/null
ctest --test-dir build/capi-valgrind -j "$JOBS" --output-on-failure

step "c-blosc 1.x chunks (python-blosc 1.11.4) decode with ours"
PYBLOSC1="$ROOT/.ref/py-blosc1"
if [ ! -d "$PYBLOSC1/blosc" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$PYBLOSC1" blosc==1.11.4
fi
PYTHONPATH="$PYBLOSC1" python3 tests/python/interop_blosc1.py "$ROOT/target/release/libblosc2.so"

step "frames: C programs on the reference and on ours write identical bytes and read each other's"
tests/interop_frames/run.sh

step "frames: python-blosc2 4.14.1 reads ours and ours reads python-blosc2's"
PYBLOSC2="$ROOT/.ref/py-blosc2"
if [ ! -d "$PYBLOSC2/blosc2" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$PYBLOSC2" blosc2==4.14.1
fi
PYTHONPATH="$PYBLOSC2" python3 tests/python/interop_frames.py

step "n-dimensional arrays: python-blosc2 4.14.1 reads ours and ours reads python-blosc2's"
PYTHONPATH="$PYBLOSC2" python3 tests/python/interop_b2nd.py

step "exported symbols versus the reference"
scripts/check-exports.sh

step "binary drop-in (program built against the reference, run with both libraries)"
scripts/check-dropin.sh

step "install layout and consumers (C/pkg-config, C++17/CMake, static C, Python ctypes, Go cgo, Rust)"
scripts/check-consumers.sh

step "Bloscpack: bloscpack 0.16.0 (python-blosc 1.11.4) reads ours and ours reads its"
python3 tests/python/interop_bloscpack.py "$ROOT/target/release/blosc2"

step "fuzz targets: every libFuzzer target for a short smoke run, regressions replayed"
scripts/fuzz-smoke.sh

step "all tests passed"
