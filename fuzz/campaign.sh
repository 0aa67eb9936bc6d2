#!/usr/bin/env bash
# One campaign step per target: fuzz/run.sh TARGET for SECONDS or RUNS
# executions (default 10 million), whichever comes first, at nice 10, with
# libFuzzer's final statistics; the log goes to
# fuzz/target/campaign/TARGET[-asan].log and its summary line (executions,
# cov, ft, exec/s, outcome) to stdout for RESULTS.md.  The working corpus
# fuzz/target/corpus/TARGET carries over between steps, so a later step
# continues where the last one stopped.
# Usage: fuzz/campaign.sh SECONDS [RUNS] TARGET... [-libFuzzer-flag...]
#   (FUZZ_ASAN=1: the ASan build)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ $# -ge 2 ]] || { echo "usage: fuzz/campaign.sh SECONDS [RUNS] TARGET..." >&2; exit 2; }
secs="$1"; shift
runs=10000000
if [[ "$1" =~ ^[0-9]+$ ]]; then runs="$1"; shift; fi
# Arguments starting with "-" go to libFuzzer (e.g. -fork=1 -ignore_timeouts=1).
targets=(); extra=()
for a in "$@"; do
  if [[ "$a" == -* ]]; then extra+=("$a"); else targets+=("$a"); fi
done
suffix=""; [[ "${FUZZ_ASAN:-0}" == 1 ]] && suffix="-asan"
mkdir -p fuzz/target/campaign
status=0
for t in "${targets[@]}"; do
  log="fuzz/target/campaign/$t$suffix.log"
  start=$(date -u +%FT%TZ)
  nice -n 10 fuzz/run.sh "$t" "$secs" -runs="$runs" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
  rc=$?
  [[ $rc -eq 0 ]] || status=1
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  # -fork=N mode prints no final statistics: its last "#N: cov: ..." line
  # counts the executions, and says how many OOMs/timeouts/crashes it ignored.
  [[ -n "$execs" ]] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  ignored=$(grep -oE 'oom/timeout/crash: [0-9/]+' "$log" | tail -1 || true)
  echo "$t$suffix start=$start secs=$secs execs=${execs:-?} exec/s=${rate:-?} ${last:-} ${ignored:-} rc=$rc"
done
exit $status
