#!/bin/sh
# Where the time of one configuration goes in ours, next to both libraries'
# speeds: runs benches/profile/one_config.c once per library (reference
# first), then once more for ours under `perf record -e cpu-clock` (a
# software clock, so it works in VMs without hardware counters), and sorts
# the samples inside the library into the codec's own C functions (zstd,
# LZ4, LZ4HC: the same C as in the reference), the shuffle kernels, libc's
# memcpy/memset, the kernel, and the rest (Blosc's own code: framing,
# BloscLZ, bookkeeping).  For a group slower than the reference, this tells
# whether the codec or the code around it takes the time.  (The reference
# exports few of its symbols, so its own samples cannot be sorted this way.)
#
#   scripts/profile-pair.sh CODEC CLEVEL FILTER CHUNK_KIB DATASET [ITERS]
#
# Arguments as one_config's (codec 0 blosclz, 1 lz4, 2 lz4hc, 4 zlib,
# 5 zstd; filter 0 none, 1 shuffle, 2 bitshuffle); DREP, TYPESIZE and
# TOTAL_MIB pass through.  Needs perf (Debian: linux-perf), gcc, the
# reference in .ref/ (scripts/fetch-reference.sh) and a release build.
set -eu
[ $# -ge 5 ] || { sed -n 2,18p "$0"; exit 2; }
cd "$(dirname "$0")/.."
ITERS=${6:-3}
ref=$PWD/.ref/blosc2/lib/libblosc2.so.9
ours=$PWD/target/release/libblosc2.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -I.ref/blosc2/include -Ibenches/profile benches/profile/one_config.c -o "$tmp/one_config" -ldl

printf '%-5s %s\n' ref "$("$tmp/one_config" "$ref" "$1" "$2" "$3" "$4" "$5" "$ITERS" | sed 's/.*: comp/comp/')"
perf record -q -e cpu-clock -o "$tmp/ours.data" "$tmp/one_config" "$ours" "$1" "$2" "$3" "$4" "$5" "$ITERS" \
  > "$tmp/ours.out" 2> /dev/null
printf '%-5s %s\n' ours "$(sed 's/.*: comp/comp/' "$tmp/ours.out")"
perf report -q -i "$tmp/ours.data" --stdio --sort dso,sym 2> /dev/null | awk '
  {
    pct = $1; sub(/%/, "", pct); dso = $2; sym = "";
    for (i = 4; i <= NF; i++) sym = sym (i > 4 ? " " : "") $i;
    if (dso ~ /one_config/) next;              # the driver: data set-up, checks
    total += pct;
    if (sym ~ /^(ZSTD_|HUF_|FSE_|HIST_|LZ4_|LZ4HC_|b2rs_lz4v3_)/) cls = "codec";
    else if (sym ~ /shuffle|bitshuf|unshuf/) cls = "shuffle";
    else if (sym ~ /mem(cpy|move|set)|memcmp/) cls = "libc-mem";
    else if (dso ~ /kernel/) cls = "kernel";
    else cls = "rest";
    share[cls] += pct;
    if (!(cls in top) || pct > topp[cls]) { top[cls] = sym; topp[cls] = pct }
  }
  END {
    for (c in share)
      printf "      %-8s %5.1f%% of the samples outside the driver (largest: %.1f%% %s)\n", c, 100 * share[c] / total, 100 * topp[c] / total, substr(top[c], 1, 60)
  }' | sort -k2 -rn
