#!/usr/bin/env bash
# CI smoke test of the fuzz targets: builds them (fuzz/build.sh) and runs
# each for FUZZ_SMOKE_SECONDS (default 30) with -rss_limit_mb=2048
# -timeout=10, starting from the committed seeds (fuzz/corpus/TARGET) and
# replaying every input that once failed (fuzz/regressions/TARGET).  Fails
# when any target crashes, times out or runs out of memory (libFuzzer then
# exits non-zero); the input is left in fuzz/target/smoke/artifacts/TARGET
# and printed in base64 (its first 64 KiB).
# Needs clang-19 (CLANG=... picks another) and, for diff_chunk, the
# reference library (BLOSC2_REF_LIB, default .ref/blosc2/lib/libblosc2.so.9).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECS="${FUZZ_SMOKE_SECONDS:-30}"
fuzz/build.sh
SM="$ROOT/fuzz/target/smoke"
failed=()
for t in $(fuzz/build.sh --list); do
  # A fresh corpus each time: what the run finds is not kept.
  rm -rf "$SM/corpus/$t"
  mkdir -p "$SM/corpus/$t" "$SM/artifacts/$t"
  dirs=("$SM/corpus/$t" "fuzz/corpus/$t")
  [[ -d "fuzz/regressions/$t" ]] && dirs+=("fuzz/regressions/$t")
  echo "== fuzz smoke: $t (${SECS}s)"
  if ! nice -n 10 "fuzz/target/bin/$t" -rss_limit_mb=2048 -timeout=10 -max_total_time="$SECS" \
      -print_final_stats=1 -artifact_prefix="$SM/artifacts/$t/" "${dirs[@]}" \
      >"$SM/$t.log" 2>&1; then
    tail -n 40 "$SM/$t.log"
    # The input is printed too: a CI log is all that is left of a run on a
    # fresh checkout (decode it with `base64 -d > input`, replay it with
    # `fuzz/target/bin/TARGET input`).
    for a in "$SM/artifacts/$t"/*; do
      [[ -f "$a" ]] || continue
      echo "== input $(basename "$a") ($(stat -c %s "$a") bytes), base64:"
      head -c 65536 "$a" | base64 -w 0
      echo
    done
    failed+=("$t")
  else
    grep -E '^(stat::number_of_executed_units|Done)' "$SM/$t.log" || true
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  # Repeated last, short: a CI report may keep only the end of the output.
  # Each failing input as gzip+base64 (`base64 -d | gunzip > input`).
  for t in "${failed[@]}"; do
    for a in "$SM/artifacts/$t"/*; do
      [[ -f "$a" ]] || continue
      echo "$t input, gzip+base64: $(head -c 65536 "$a" | gzip -9 | base64 -w 0)"
    done
    grep -m 4 -E '^(INFO: Seed:|diff_chunk:|==[0-9]+== ERROR|SUMMARY|thread .* panicked)' "$SM/$t.log" || true
  done
  echo "fuzz smoke FAILED: ${failed[*]} (logs in fuzz/target/smoke/)" >&2
  exit 1
fi
echo "fuzz smoke: every target ran ${SECS}s clean"
