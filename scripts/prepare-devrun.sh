#!/bin/bash
# Fills .devrun/ (git-ignored) with what the many-core checks of issue 21 run
# on a machine without a Rust toolchain: the stripped vs_reference bench
# executable, our library and the reference's, scripts/bench-16c.sh, the
# one_block_threads probe of the split decoder and the ab_decode one of a
# chunk's decoding (benches/profile/).  Then one
# device call runs, from the repository root, for example:
#
#   bash .devrun/bench-16c.sh                          # the whole measurement
#   .devrun/one_block_threads .devrun/libblosc2.so 5 1 # split decoder, ours
#   .devrun/one_block_threads .devrun/libblosc2.so.9 5 1
#   .devrun/ab_decode .devrun/libblosc2.so.9 .devrun/libblosc2.so 2 5 0 4096
#
# (the device tool carries .devrun when asked: carry [".devrun"]).  Needs a
# release build's toolchain, gcc and the reference in .ref/
# (scripts/fetch-reference.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
D=.devrun
rm -rf "$D"
mkdir -p "$D"
cargo build --release --features zfp
# The executable cargo just built is the one its JSON messages name.
exe=$(cargo bench --bench vs_reference --no-run --message-format=json 2> /dev/null |
  sed -n 's/.*"executable":"\([^"]*vs_reference[^"]*\)".*/\1/p' | tail -n 1)
[ -n "$exe" ] || { echo "prepare-devrun: no vs_reference executable" >&2; exit 1; }
strip -o "$D/vs_reference" "$exe"
strip -o "$D/libblosc2.so" target/release/libblosc2.so
cp .ref/blosc2/lib/libblosc2.so.9 scripts/bench-16c.sh "$D/"
gcc -O2 -I.ref/blosc2/include benches/profile/one_block_threads.c -o "$D/one_block_threads" -ldl
gcc -O2 -I.ref/blosc2/include -Ibenches/profile benches/profile/ab_decode.c -o "$D/ab_decode" -ldl
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')" > "$D/COMMIT"
du -sh "$D"
ls -l "$D"
