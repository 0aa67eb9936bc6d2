#!/usr/bin/env bash
# Build the b2nd metalayer mutation fuzzer (fuzz_b2nd_meta.c) with
# AddressSanitizer + UndefinedBehaviorSanitizer against a given libblosc2 and
# run it.  The library itself is not instrumented: what is checked is every
# buffer of the test program (the inline decoder from b2nd.h runs inside it,
# and the library's memcpy/memset/malloc go through the sanitizer runtime).
#
# Usage: capi-tests/asan/run.sh LIB_DIR INCLUDE_DIR [ITERATIONS] [SEED] [--leaks]
#   LIB_DIR      directory holding libblosc2.so (e.g. target/release or .ref/blosc2/lib)
#   INCLUDE_DIR  directory holding blosc2.h and b2nd.h
#   ITERATIONS   number of mutated metalayers (default 20000)
#   SEED         PRNG seed (default 1)
#   --leaks      also fail on memory leaks (LeakSanitizer; off by default because
#                the reference leaks on some refusal paths)
# Environment: CC (default cc), BUILD_DIR (default <repo>/build/asan-b2nd).
# Exit status: 0 when the run finished without any sanitizer report or crash.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

LEAKS=0
ARGS=()
for a in "$@"; do
  case "$a" in
    --leaks) LEAKS=1 ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) ARGS+=("$a") ;;
  esac
done
if (( ${#ARGS[@]} < 2 )); then
  echo "usage: $0 LIB_DIR INCLUDE_DIR [ITERATIONS] [SEED] [--leaks]" >&2
  exit 2
fi
LIB_DIR="$(cd "${ARGS[0]}" && pwd)"
INC_DIR="$(cd "${ARGS[1]}" && pwd)"
ITERATIONS="${ARGS[2]:-20000}"
SEED="${ARGS[3]:-1}"
CC="${CC:-cc}"
BUILD="${BUILD_DIR:-$ROOT/build/asan-b2nd}"

[[ -f "$LIB_DIR/libblosc2.so" ]] || { echo "no libblosc2.so in $LIB_DIR" >&2; exit 2; }
[[ -f "$INC_DIR/b2nd.h" ]] || { echo "no b2nd.h in $INC_DIR" >&2; exit 2; }

mkdir -p "$BUILD"
EXE="$BUILD/fuzz_b2nd_meta"
echo "building $EXE (lib: $LIB_DIR, include: $INC_DIR)"
"$CC" -std=c99 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=all \
  -Wall -Wno-unused-function \
  -I"$INC_DIR" "$HERE/fuzz_b2nd_meta.c" -o "$EXE" \
  -L"$LIB_DIR" -lblosc2 -lpthread -lm -Wl,-rpath,"$LIB_DIR"

export ASAN_OPTIONS="detect_leaks=$LEAKS:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

LOG="$BUILD/fuzz_b2nd_meta.log"
echo "running $ITERATIONS iterations, seed $SEED (log: $LOG)"
start=$(date +%s)
set +e
(cd "$BUILD" && "$EXE" "$ITERATIONS" "$SEED") > "$LOG" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - start ))
tail -n 3 "$LOG"
if (( status != 0 )) || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$LOG"; then
  echo "FAILED (status $status) after ${elapsed}s; log: $LOG; input (when saved): $BUILD/fuzz_b2nd_meta.last" >&2
  grep -m 40 -E "ERROR|runtime error|#[0-9]+ " "$LOG" >&2 || true
  exit 1
fi
echo "OK: no sanitizer report in ${elapsed}s"
