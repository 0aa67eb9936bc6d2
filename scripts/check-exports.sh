#!/usr/bin/env bash
# Compare the dynamic symbols of our libblosc2.so with the reference's:
#  - nothing that is not a blosc*/b2nd* C function may be exported by ours;
#  - every reference export must be exported by ours.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REF_LIB="$("$ROOT/scripts/fetch-reference.sh")/libblosc2.so.9"
OURS="${BLOSC2_LIB_DIR:-$ROOT/target/release}/libblosc2.so"
syms() { nm -D --defined-only "$1" | awk '$2 ~ /^[TtWDdBbRr]$/ {print $3}' | sort -u; }
syms "$REF_LIB" | grep -E '^(blosc|b2nd)' > /tmp/ref-syms.$$
syms "$OURS" > /tmp/our-syms.$$
status=0
extra="$(grep -vE '^(blosc|b2nd)' /tmp/our-syms.$$ || true)"
if [ -n "$extra" ]; then
  echo "exported symbols that are not part of the C API:"; echo "$extra"; status=1
fi
missing="$(comm -23 /tmp/ref-syms.$$ /tmp/our-syms.$$ || true)"
if [ -n "$missing" ]; then
  echo "reference exports missing from ours:"; echo "$missing"; status=1
fi
added="$(comm -13 /tmp/ref-syms.$$ /tmp/our-syms.$$ || true)"
if [ -n "$added" ]; then
  echo "exported by ours only (must be documented additions):"; echo "$added"; status=1
fi
rm -f /tmp/ref-syms.$$ /tmp/our-syms.$$
[ $status = 0 ] && echo "exports: $(wc -l < <(syms "$OURS")) C functions, none extra, none missing"
exit $status
