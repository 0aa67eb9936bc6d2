#!/usr/bin/env bash
# Build (fuzz/build.sh) and run one libFuzzer target on its seed corpus.
# Usage: fuzz/run.sh TARGET SECONDS [extra libFuzzer args...]
#   TARGET: chunk | frame | b2nd | cli_info
# New inputs go to fuzz/target/corpus/TARGET (git-ignored); the committed
# seeds in fuzz/corpus/TARGET are only read.  Crashes land in fuzz/target/artifacts/TARGET.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ $# -ge 2 ]] || { echo "usage: fuzz/run.sh TARGET SECONDS [libFuzzer args...]" >&2; exit 2; }
t="$1"; secs="$2"; shift 2
[[ -f "fuzz/$t.c" ]] || { echo "no such target: $t" >&2; exit 2; }
fuzz/build.sh "$t"
TD="$ROOT/fuzz/target"
mkdir -p "$TD/corpus/$t" "$TD/artifacts/$t"
exec "$TD/bin/$t" -rss_limit_mb=2048 -timeout=10 -max_total_time="$secs" \
  -artifact_prefix="$TD/artifacts/$t/" "$@" "$TD/corpus/$t" "fuzz/corpus/$t"
