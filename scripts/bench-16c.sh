#!/bin/bash
# The many-core measurement of issue 21: the reference c-blosc2 against ours
# (benches/vs_reference/) at 1, 2, 4, 8 and 16 threads, 4 MiB and 64 KiB
# chunks, in one go meant to fit in 8 minutes on the 16-core Xeon (about 6.5:
# 4 MiB about 300 s, 64 KiB 100 s, in benches/results/xeon-16c/).
#
# It runs from a folder that holds the bench executable and the libraries, so
# that it can be carried to a machine without a Rust toolchain:
#
#   scripts/prepare-devrun.sh            # fills .devrun/ (see that script)
#   bash .devrun/bench-16c.sh            # results in $OUT, else .devrun/out
#
# Variables: THREADS (1,2,4,8,16), CHUNKS ("4096 64", KiB), the clevels per
# chunk size CLEVELS_4096 (1,5,9) and CLEVELS_64 (1,5: clevel 9 puts a 64 KiB
# chunk in one block, which no thread count changes, and its rows alone would
# take over 4 minutes), BUDGET (seconds per chunk size after which no
# configuration starts: 170; BUDGET_4096, 330, and BUDGET_64 for one chunk size),
# OURS (library files to compare, in this folder: "libblosc2.so"),
# EXTRA (more bench arguments, e.g. "--filter lz4/").
#
# Issue 21 item 3 (compute-bound compression scaling) alone, timed more
# closely (every compression rep timed, each over >= 20 ms; about 4 minutes):
#
#   CHUNKS=4096 THREADS=1,16 CLEVELS_4096=5,9 BUDGET_4096=300 \
#     EXTRA='--filter /zstd/|/zlib/|/lz4hc/ --once-ms 100000 --min-ms 20' bash .devrun/bench-16c.sh
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-$D/out}
mkdir -p "$O"
B=$D/vs_reference
chmod +x "$B"
export BLOSC2_REF_LIB=${BLOSC2_REF_LIB:-$D/libblosc2.so.9}
THREADS=${THREADS:-1,2,4,8,16}
CLEVELS_4096=${CLEVELS_4096:-1,5,9}
CLEVELS_64=${CLEVELS_64:-1,5}
CHUNKS=${CHUNKS:-4096 64}
BUDGET=${BUDGET:-170}
BUDGET_4096=${BUDGET_4096:-330}
OURS=${OURS:-libblosc2.so}
EXTRA=${EXTRA:-}
start=$(date +%s)
{
    date -u
    nproc
    lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L2|L3'
    uptime
} >"$O/log.txt" 2>&1
cat "$O/log.txt"
for ours in $OURS; do
    for c in $CHUNKS; do
        name=${ours%.so}-${c}K
        v=CLEVELS_$c
        clevels=${!v:-1,5}
        v=BUDGET_$c
        budget=${!v:-$BUDGET}
        echo "== $name $(date -u +%T) (+$(($(date +%s) - start)) s)" | tee -a "$O/log.txt"
        # shellcheck disable=SC2086
        BLOSC2_OURS_LIB=$D/$ours timeout $((budget + 120)) "$B" --threads "$THREADS" --clevels "$clevels" --chunks "$c" \
            --reps 3 --min-ms 2 --once-ms 50 --budget "$budget" $EXTRA \
            >"$O/$name.txt" 2>>"$O/log.txt"
        echo "rc $?, $(grep -c . "$O/$name.txt") lines" | tee -a "$O/log.txt"
        grep -E "^Overall|^  [0-9]+[MK]/t[0-9]+:|^Thread scaling|^Compression scaling|^BUDGET" "$O/$name.txt"
    done
done
echo "done in $(($(date +%s) - start)) s" | tee -a "$O/log.txt"
