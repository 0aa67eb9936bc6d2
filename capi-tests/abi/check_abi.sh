#!/bin/sh
# check_abi.sh REF_INCLUDE_DIR OUR_INCLUDE_DIR
#
# Builds layout.c against the reference c-blosc2 headers and against ours,
# runs both programs and compares their output (struct sizes/offsets,
# constant values, default initializers, inline helper behaviour).
# Exit status: 0 identical, 1 different, 2 usage or build error.
# Environment: CC (default: cc), CFLAGS (extra flags).
set -u

if [ "$#" -ne 2 ]; then
  echo "usage: $0 REF_INCLUDE_DIR OUR_INCLUDE_DIR" >&2
  exit 2
fi
ref_inc=$1
our_inc=$2
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/blosc2-abi.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

for side in ref our; do
  if [ "$side" = ref ]; then inc=$ref_inc; else inc=$our_inc; fi
  # BLOSC_SHARED_LIBRARY makes the reference BLOSC_EXPORT non-empty so that
  # its expansion can be compared too; BLOSC1_COMPAT is set by layout.c.
  if ! $cc -std=c11 -Wall -Werror -DBLOSC_SHARED_LIBRARY ${CFLAGS:-} \
        -I"$inc" "$here/layout.c" -o "$work/layout_$side"; then
    echo "check_abi: cannot build layout.c against $inc" >&2
    exit 2
  fi
  if ! "$work/layout_$side" > "$work/$side.txt"; then
    echo "check_abi: layout program failed for $inc" >&2
    exit 2
  fi
done

if diff -u "$work/ref.txt" "$work/our.txt"; then
  echo "check_abi: OK ($(wc -l < "$work/ref.txt" | tr -d ' ') facts identical)"
  exit 0
fi
echo "check_abi: FAILED: layout differs from the reference (diff above)" >&2
exit 1
