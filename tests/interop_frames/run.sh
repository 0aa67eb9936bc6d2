#!/usr/bin/env bash
# C-level frame interop: frame_tool.c built against the reference c-blosc2
# (.ref, from scripts/fetch-reference.sh) and against ours (target/release).
# Checks that (1) both write byte-identical frames for the same calls and
# (2) each library reads the other's frames to the same digest. Frames of zlib
# chunks are left out of (1): many of our zlib streams come from
# libdeflate (src/codec/zlib.rs), valid zlib but not zlib-ng's bytes; (2)
# still reads them both ways.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REF_LIB="$("$ROOT/scripts/fetch-reference.sh")"
REF_INC="$(dirname "$REF_LIB")/include"
OUR_LIB="${BLOSC2_LIB_DIR:-$ROOT/target/release}"
W="${WORK:-$(mktemp -d)}"
mkdir -p "$W/ref" "$W/ours"
CC="${CC:-cc}"
$CC -O1 -I"$REF_INC" "$ROOT/tests/interop_frames/frame_tool.c" -L"$REF_LIB" -l:libblosc2.so.9 -o "$W/tool_ref"
$CC -O1 -I"$ROOT/include" "$ROOT/tests/interop_frames/frame_tool.c" -L"$OUR_LIB" -lblosc2 -o "$W/tool_ours"
LD_LIBRARY_PATH="$REF_LIB" "$W/tool_ref" write "$W/ref" > "$W/ref.write.txt"
LD_LIBRARY_PATH="$OUR_LIB" "$W/tool_ours" write "$W/ours" > "$W/ours.write.txt"
status=0
ndiff=0
nzlib=0
for f in "$W"/ref/*; do
  b="$(basename "$f")"
  if [[ $b == *_zlib_* ]]; then nzlib=$((nzlib+1)); continue; fi
  if [[ -d "$f" ]]; then
    # a sparse frame: the same chunk files and index, byte for byte
    if ! diff -r -q "$f" "$W/ours/$b" >/dev/null; then echo "bytes differ: $b/"; ndiff=$((ndiff+1)); fi
  elif ! cmp -s "$f" "$W/ours/$b"; then echo "bytes differ: $b"; ndiff=$((ndiff+1)); fi
done
echo "files written: $(ls "$W/ref" | wc -l), zlib (not compared): $nzlib, byte-identical: $(( $(ls "$W/ref" | wc -l) - nzlib - ndiff ))"
[[ $ndiff -eq 0 ]] || status=1
for reader in ref ours; do
  lib="$REF_LIB"; [[ $reader == ours ]] && lib="$OUR_LIB"
  for writer in ref ours; do
    LD_LIBRARY_PATH="$lib" "$W/tool_$reader" read "$W/$writer" > "$W/read_${reader}_${writer}.txt"
  done
done
for p in "ref_ours" "ours_ref" "ours_ours"; do
  if cmp -s "$W/read_ref_ref.txt" "$W/read_$p.txt"; then echo "digest ok: reader_writer=$p"
  else echo "digest MISMATCH: reader_writer=$p"; diff "$W/read_ref_ref.txt" "$W/read_$p.txt" | head -20; status=1; fi
done
exit $status
