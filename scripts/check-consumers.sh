#!/usr/bin/env bash
# Install libblosc2-rs into a fresh temporary PREFIX and build and run every
# consumer against it:
#   1. C via `pkg-config --cflags --libs blosc2`     (examples/consumers/c-pkgconfig)
#   2. C++17 via CMake find_package(Blosc2)          (examples/consumers/cpp-cmake)
#   3. C linked statically against libblosc2.a       (examples/consumers/c-static)
#   4. Python via ctypes                             (examples/python/blosc2_ctypes.py)
#   5. Go via cgo (skipped with a note when `go` is missing; Debian: golang-go)
#   6. the safe Rust API                             (examples/rust_api.rs)
# Needs: cc, c++, cmake, pkg-config, python3, (go). Honours CARGO_TARGET_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/blosc2-consumers.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
step() { printf '\n---- %s\n' "$*"; }

step "install into $PREFIX"
scripts/install.sh "$PREFIX"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
expected="include/b2nd.h
include/blosc2.h
include/blosc2/blosc2-common.h
include/blosc2/blosc2-export.h
include/blosc2/blosc2-stdio.h
include/blosc2/codecs-registry.h
include/blosc2/filters-registry.h
include/blosc2/tuners-registry.h
lib/cmake/Blosc2/Blosc2Config.cmake
lib/cmake/Blosc2/Blosc2ConfigVersion.cmake
lib/libblosc2.a
lib/libblosc2.so
lib/libblosc2.so.9
lib/libblosc2.so.9.3.5
lib/pkgconfig/blosc2.pc"
got="$(cd "$PREFIX" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)"
if [[ "$got" != "$expected" ]]; then
  echo "unexpected install layout:"; diff <(echo "$expected") <(echo "$got") || true; exit 1
fi
[[ "$(readlink "$PREFIX/lib/libblosc2.so")" == libblosc2.so.9 ]]
[[ "$(readlink "$PREFIX/lib/libblosc2.so.9")" == libblosc2.so.9.3.5 ]]
readelf -d "$PREFIX/lib/libblosc2.so.9.3.5" | grep 'Library soname: \[libblosc2.so.9\]' > /dev/null
echo "layout ok: $(echo "$got" | wc -l) files, SONAME libblosc2.so.9"
[[ "$(pkg-config --modversion blosc2)" == 3.3.5 ]]

step "C via pkg-config: cc main.c \$(pkg-config --cflags --libs blosc2)"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror examples/consumers/c-pkgconfig/main.c \
  $(pkg-config --cflags --libs blosc2) -Wl,-rpath,"$PREFIX/lib" -o "$WORK/c-pkgconfig"
"$WORK/c-pkgconfig"
ldd "$WORK/c-pkgconfig" | grep "$PREFIX/lib/libblosc2.so.9" > /dev/null

step "C++17 via CMake find_package(Blosc2)"
cmake -S examples/consumers/cpp-cmake -B "$WORK/cpp" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_BUILD_TYPE=Release > "$WORK/cmake.log" || { cat "$WORK/cmake.log"; exit 1; }
grep 'Blosc2 .* found' "$WORK/cmake.log"
cmake --build "$WORK/cpp" > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
(cd "$WORK" && "$WORK/cpp/consumer_shared" && "$WORK/cpp/consumer_static")
ldd "$WORK/cpp/consumer_shared" | grep "$PREFIX/lib/libblosc2.so.9" > /dev/null
if ldd "$WORK/cpp/consumer_static" | grep blosc2 > /dev/null; then echo "consumer_static is not static"; exit 1; fi

step "C linked statically against libblosc2.a"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror examples/consumers/c-static/main.c $(pkg-config --cflags blosc2) \
  "$PREFIX/lib/libblosc2.a" $(pkg-config --libs-only-l --static blosc2 | sed 's/-lblosc2//') \
  -o "$WORK/c-static"
"$WORK/c-static"
if ldd "$WORK/c-static" | grep blosc2 > /dev/null; then echo "c-static links libblosc2.so"; exit 1; fi

step "Python via ctypes"
python3 examples/python/blosc2_ctypes.py "$PREFIX/lib/libblosc2.so.9"

step "Go via cgo"
if command -v go > /dev/null; then
  export GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$WORK/gocache" GOPATH="$WORK/gopath"
  (cd examples/go && CGO_LDFLAGS="-Wl,-rpath,$PREFIX/lib" go build -o "$WORK/go-consumer" .)
  "$WORK/go-consumer"
else
  echo "SKIPPED: go not installed (apt-get install -y golang-go)"
  [[ -z "${BLOSC2_REQUIRE_GO:-}" ]] || exit 1
fi

step "safe Rust API (cargo example rust_api)"
cargo run --quiet --release --example rust_api

step "all consumers passed"
