#!/usr/bin/env bash
# The Rust extern "C" signatures against the hand-written C headers:
#  1. cbindgen (cbindgen.toml) generates a header declaring every function the
#     library's Rust sources export;
#  2. capi-tests/cbindgen_check.c includes include/blosc2.h, include/b2nd.h and
#     that header and is compiled with -Werror: a Rust signature that disagrees
#     with its prototype is a "conflicting types" error;
#  3. every function libblosc2.so exports must be declared by the generated
#     header (the list UNCOVERED below names those that cannot be, with why).
# Needs cbindgen (Debian's 0.24.3 works) and a C compiler; run after
# `cargo build --release` (BLOSC2_LIB_DIR names another build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LIB="${BLOSC2_LIB_DIR:-$ROOT/target/release}/libblosc2.so"
CC="${CC:-cc}"
# Exports the generated header cannot declare (none today): "name: why".
UNCOVERED=()

command -v cbindgen > /dev/null || { echo "cbindgen not found (apt-get install cbindgen)" >&2; exit 1; }
[[ -f "$LIB" ]] || { echo "$LIB missing: run cargo build --release first" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# cbindgen 0.24 parses with syn 1, which predates C-string literals (c"...");
# it reads a copy of src/ where they are plain string literals (they appear
# only in function bodies, never in a signature), with a manifest that has no
# dependencies (cbindgen does not read them: parse_deps = false).
mkdir -p "$WORK/crate"
cp -r src "$WORK/crate/src"
find "$WORK/crate/src" -name '*.rs' -exec sed -i -E 's/\bc"/"/g' {} +
cat > "$WORK/crate/Cargo.toml" << 'TOML'
[package]
name = "libblosc2"
version = "0.0.0"
edition = "2021"

[lib]
name = "blosc2"
path = "src/lib.rs"
TOML
HEADER="$WORK/blosc2_rs_exports.h"
if ! cbindgen --quiet --config cbindgen.toml --crate libblosc2 --output "$HEADER" "$WORK/crate" \
  2> "$WORK/cbindgen.log"; then
  cat "$WORK/cbindgen.log" >&2
  echo "cbindgen failed" >&2
  exit 1
fi

"$CC" -std=gnu11 -Wall -Wextra -Werror -Iinclude -I"$WORK" \
  -c capi-tests/cbindgen_check.c -o "$WORK/cbindgen_check.o"

# One declaration per line (cbindgen.toml: args = "horizontal"); the name is
# the identifier before the first parenthesis.
grep -E '\);$' "$HEADER" | sed -E 's/^[^(]*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/' \
  | sort -u > "$WORK/declared"
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u > "$WORK/exported"
printf '%s\n' "${UNCOVERED[@]%%:*}" | sed '/^$/d' | sort -u > "$WORK/uncovered"
missing="$(comm -23 "$WORK/exported" "$WORK/declared" | comm -23 - "$WORK/uncovered")"
if [[ -n "$missing" ]]; then
  echo "exported by $LIB but not declared by the cbindgen header:" >&2
  echo "$missing" >&2
  exit 1
fi
extra="$(comm -13 "$WORK/exported" "$WORK/declared")"
if [[ -n "$extra" ]]; then
  # extern "C" functions behind a cargo feature this build does not have
  echo "declared but not exported by this build (feature-gated):" $extra
fi
echo "cbindgen: $(wc -l < "$WORK/declared") Rust signatures agree with include/blosc2.h and include/b2nd.h;" \
  "all $(wc -l < "$WORK/exported") exports of $(basename "$LIB") covered"
