#!/usr/bin/env bash
# Cross-compile the library's filter tests for aarch64 and run them under
# qemu-user: once with the default kernel (which must be NEON) and once with
# BLOSC2_RS_SIMD=scalar.  The kernel tests compare every supported kernel
# with the scalar code, so both runs check NEON; the second one also runs the
# top-level filter functions on the scalar kernel.
#
# Installs what is missing: the Rust target (rustup), and with apt-get the
# cross gcc, the arm64 libc and qemu-user.  If the Rust target or a tool
# cannot be had, prints "SKIP: ..." and exits 0, or 1 when
# BLOSC2_REQUIRE_AARCH64=1.
#
# Builds in its own target directory, target/aarch64-cross, or in
# $BLOSC2_AARCH64_TARGET_DIR when set.  qemu timings mean nothing: this only
# checks correctness.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TARGET=aarch64-unknown-linux-gnu
SYSROOT=/usr/aarch64-linux-gnu

skip() {
  echo "SKIP: $*"
  if [ "${BLOSC2_REQUIRE_AARCH64:-0}" = 1 ]; then
    echo "BLOSC2_REQUIRE_AARCH64=1: failing instead" >&2
    exit 1
  fi
  exit 0
}

# Run as root, or through sudo when that works without a password.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}

if ! command -v rustup > /dev/null; then
  skip "rustup not found, cannot add the Rust target $TARGET"
fi
if ! rustup target list --installed | grep -x "$TARGET" > /dev/null; then
  echo "adding the Rust target $TARGET"
  rustup target add "$TARGET" || skip "could not install the Rust target $TARGET"
fi

if ! command -v aarch64-linux-gnu-gcc > /dev/null || ! command -v qemu-aarch64 > /dev/null \
  || [ ! -e "$SYSROOT/lib/crt1.o" ]; then
  if command -v apt-get > /dev/null; then
    echo "installing gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user"
    as_root apt-get update -q || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user || true
  fi
fi
command -v aarch64-linux-gnu-gcc > /dev/null || skip "aarch64-linux-gnu-gcc not found"
command -v qemu-aarch64 > /dev/null || skip "qemu-aarch64 not found"
[ -e "$SYSROOT/lib/crt1.o" ] || skip "no aarch64 C library in $SYSROOT (libc6-dev-arm64-cross)"

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $SYSROOT"
export CARGO_TARGET_DIR="${BLOSC2_AARCH64_TARGET_DIR:-$ROOT/target/aarch64-cross}"
unset BLOSC2_RS_SIMD

# `expect` is the kernel the run must report; the rest goes to cargo test.
run_filter_tests() {
  local expect="$1"
  shift
  echo "-- aarch64 filter tests, kernel $expect"
  local out
  if ! out="$(BLOSC2_RS_EXPECT_SIMD="$expect" "$@" cargo test --release -p libblosc2 --target "$TARGET" \
    --lib filter::dispatch::tests::active_kernel_is_expected -- --exact --nocapture)"; then
    echo "$out"
    exit 1
  fi
  echo "$out" | grep -E '^simd kernel:'
  BLOSC2_RS_EXPECT_SIMD="$expect" "$@" cargo test --release -p libblosc2 --target "$TARGET" --lib filter::
}

run_filter_tests neon env
run_filter_tests scalar env BLOSC2_RS_SIMD=scalar
echo "aarch64 (qemu): filter tests passed with the neon and scalar kernels"
