#!/usr/bin/env bash
# Build (fuzz/build.sh) and run one libFuzzer target on its seed corpus.
# Usage: fuzz/run.sh TARGET SECONDS [extra libFuzzer args...]
#   TARGET: one of `fuzz/build.sh --list`.  FUZZ_ASAN=1 runs the build whose
#   C code has AddressSanitizer (fuzz/target/asan/bin).
# New inputs go to fuzz/target/corpus/TARGET (git-ignored); the committed
# seeds in fuzz/corpus/TARGET and fuzz/regressions/TARGET are only read.
# Crashes land in fuzz/target/artifacts/TARGET.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ $# -ge 2 ]] || { echo "usage: fuzz/run.sh TARGET SECONDS [libFuzzer args...]" >&2; exit 2; }
t="$1"; secs="$2"; shift 2
# (The list is read whole first: grep -q would stop reading early and, under
# pipefail, the writer's SIGPIPE would fail the test.)
targets="$(fuzz/build.sh --list)"
grep -qx "$t" <<<"$targets" || { echo "no such target: $t (see fuzz/build.sh --list)" >&2; exit 2; }
TD="$ROOT/fuzz/target"
BIN="$TD/bin"
if [[ "${FUZZ_ASAN:-0}" == 1 ]]; then
  fuzz/build.sh --asan "$t"
  BIN="$TD/asan/bin"
else
  fuzz/build.sh "$t"
fi
mkdir -p "$TD/corpus/$t" "$TD/artifacts/$t"
dirs=("$TD/corpus/$t" "fuzz/corpus/$t")
[[ -d "fuzz/regressions/$t" ]] && dirs+=("fuzz/regressions/$t")
exec "$BIN/$t" -rss_limit_mb=2048 -timeout=10 -max_total_time="$secs" \
  -artifact_prefix="$TD/artifacts/$t/" "$@" "${dirs[@]}"
