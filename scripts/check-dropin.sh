#!/usr/bin/env bash
# Build capi-tests/dropin/dropin.c against the REFERENCE headers and library, then
# run the very same binary with the reference libblosc2.so.9 and with ours
# (LD_LIBRARY_PATH) and require identical output.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REF_LIB="$("$ROOT/scripts/fetch-reference.sh")"
REF_INC="$(dirname "$REF_LIB")/include"
OUR_LIB="${BLOSC2_LIB_DIR:-$ROOT/target/release}"
WORK="${TMPDIR:-/tmp}/blosc2-dropin.$$"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
gcc -O1 -std=c11 -I"$REF_INC" "$ROOT/capi-tests/dropin/dropin.c" -L"$REF_LIB" -lblosc2 -o "$WORK/dropin"
LD_LIBRARY_PATH="$REF_LIB" "$WORK/dropin" > "$WORK/ref.txt"
LD_LIBRARY_PATH="$OUR_LIB" "$WORK/dropin" > "$WORK/ours.txt"
if ! diff -u "$WORK/ref.txt" "$WORK/ours.txt" > "$WORK/diff.txt"; then
  echo "drop-in check: outputs differ ($(grep -c '^[-+][^-+]' "$WORK/diff.txt") lines):"
  head -40 "$WORK/diff.txt"
  exit 1
fi
echo "drop-in check: identical output ($(wc -l < "$WORK/ref.txt") lines) with the reference and with ours"
