#!/usr/bin/env bash
# Install libblosc2-rs into PREFIX with the layout c-blosc2 users expect:
#
#   PREFIX/lib/libblosc2.so -> libblosc2.so.9 -> libblosc2.so.9.3.5  (SONAME libblosc2.so.9)
#   PREFIX/lib/libblosc2.a
#   PREFIX/include/blosc2.h  PREFIX/include/b2nd.h  PREFIX/include/blosc2/*.h
#   PREFIX/lib/pkgconfig/blosc2.pc
#   PREFIX/lib/cmake/Blosc2/Blosc2Config.cmake  (+ Blosc2ConfigVersion.cmake)
#
# Usage: scripts/install.sh PREFIX
# Builds `cargo build --release` first when the libraries are missing or older
# than the sources (honours CARGO_TARGET_DIR). Set BLOSC2_NO_BUILD=1 to skip.
set -euo pipefail

if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
PREFIX="$(cd "$1" && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
REL="$TARGET_DIR/release"

VERSION="$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)"   # 3.3.5
SOVERSION=9
SOVERSION_FULL="$SOVERSION.${VERSION#*.}"                                             # 9.3.5

needs_build() {
  [[ -f "$REL/libblosc2.so" && -f "$REL/libblosc2.a" ]] || return 0
  [[ -n "$(find "$ROOT/src" "$ROOT/Cargo.toml" "$ROOT/build.rs" -newer "$REL/libblosc2.so" -print -quit)" ]]
}
if [[ -z "${BLOSC2_NO_BUILD:-}" ]] && needs_build; then
  echo "install: building release libraries" >&2
  (cd "$ROOT" && cargo build --release -p libblosc2 --lib >&2)
fi
for f in libblosc2.so libblosc2.a; do
  [[ -f "$REL/$f" ]] || { echo "install: $REL/$f missing (build failed?)" >&2; exit 1; }
done

LIB="$PREFIX/lib"
INC="$PREFIX/include"
install -d "$LIB" "$LIB/pkgconfig" "$LIB/cmake/Blosc2" "$INC" "$INC/blosc2"

install -m 755 "$REL/libblosc2.so" "$LIB/libblosc2.so.$SOVERSION_FULL"
ln -sfn "libblosc2.so.$SOVERSION_FULL" "$LIB/libblosc2.so.$SOVERSION"
ln -sfn "libblosc2.so.$SOVERSION" "$LIB/libblosc2.so"
install -m 644 "$REL/libblosc2.a" "$LIB/libblosc2.a"

install -m 644 "$ROOT/include/blosc2.h" "$ROOT/include/b2nd.h" "$INC/"
install -m 644 "$ROOT"/include/blosc2/*.h "$INC/blosc2/"

subst() {
  sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" -e "s|@SOVERSION@|$SOVERSION|g" \
      -e "s|@SOVERSION_FULL@|$SOVERSION_FULL|g" "$1" > "$2"
  chmod 644 "$2"
}
subst "$ROOT/cmake/blosc2.pc.in" "$LIB/pkgconfig/blosc2.pc"
subst "$ROOT/cmake/Blosc2Config.cmake.in" "$LIB/cmake/Blosc2/Blosc2Config.cmake"
subst "$ROOT/cmake/Blosc2ConfigVersion.cmake.in" "$LIB/cmake/Blosc2/Blosc2ConfigVersion.cmake"

# The SONAME must be libblosc2.so.9, or programs would record the wrong name.
if command -v readelf > /dev/null; then
  soname="$(readelf -d "$LIB/libblosc2.so.$SOVERSION_FULL" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
  if [[ "$soname" != "libblosc2.so.$SOVERSION" ]]; then
    echo "install: unexpected SONAME '$soname' in libblosc2.so.$SOVERSION_FULL" >&2
    exit 1
  fi
fi
echo "installed libblosc2-rs $VERSION into $PREFIX" >&2
