#!/usr/bin/env bash
# Build capi-tests/large/test_2gb_limits.c against the libblosc2 in LIB_DIR and
# run it.  Needs about 6 GiB of RAM, a few GiB free in $TMPDIR (default /tmp)
# and about a minute.
#
# Usage: capi-tests/large/run.sh LIB_DIR [INCLUDE_DIR] [CASE-SUBSTRING]
#   LIB_DIR      directory holding libblosc2.so (ours: target/release; the
#                reference: the directory printed by scripts/fetch-reference.sh)
#   INCLUDE_DIR  defaults to include/ of this repository
#   CASE         run only the cases whose name contains this string
# Compare two libraries with:
#   diff <(capi-tests/large/run.sh .ref/blosc2/lib) <(capi-tests/large/run.sh target/release)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
LIB_DIR="$(cd "${1:?usage: run.sh LIB_DIR [INCLUDE_DIR] [CASE]}" && pwd)"
INC_DIR="${2:-$ROOT/include}"
BIN="$(mktemp -d)/test_2gb_limits"
trap 'rm -rf "$(dirname "$BIN")"' EXIT
cc -O2 -std=gnu11 -I"$INC_DIR" "$HERE/test_2gb_limits.c" -L"$LIB_DIR" -lblosc2 \
  -Wl,-rpath,"$LIB_DIR" -o "$BIN"
LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$BIN" ${3:+"$3"}
