#!/usr/bin/env bash
# Whole-process scale (issue 11 targets, docs/performance.md):
#   - `gpuadvise --model 8B --method qlora --catalog FILE` with synthetic
#     catalogs of 10,000 and 100,000 entries: < 0.3 s and < 2.5 s, peak
#     resident memory < 3x the file;
#   - `gpuadvise batch` on 200,000 lines like {"model":"8B","method":"qlora"}:
#     >= 100,000 lines/s on one core, and lines with "gpu" within 2x of those
#     without.
# Medians of RUNS runs (default 3) of each, with gpuadvise_proc_timer.
#
#   bench/perf/scale_bench.sh GPUADVISE MAKE_CATALOG TIMER
set -euo pipefail
bin=$1
make_catalog=$2
timer=$3
runs="${RUNS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

median() {  # median of column $2 of the timer's lines for name $1
    awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$work/samples" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

"$make_catalog" 10000 >"$work/c10k.json"
"$make_catalog" 100000 >"$work/c100k.json"
line='{"model":"8B","method":"qlora"}'
line_gpu='{"model":"8B","method":"qlora","gpu":"rtx-4090"}'
awk -v l="$line" 'BEGIN { for (i = 0; i < 200000; ++i) print l }' >"$work/lines.jsonl"
awk -v l="$line_gpu" 'BEGIN { for (i = 0; i < 200000; ++i) print l }' >"$work/lines_gpu.jsonl"

"$timer" "$runs" c10k "$bin" --model 8B --method qlora --catalog "$work/c10k.json" \
    :: c100k "$bin" --model 8B --method qlora --catalog "$work/c100k.json" \
    :: batch "$bin" batch "$work/lines.jsonl" \
    :: batch_gpu "$bin" batch "$work/lines_gpu.jsonl" >"$work/samples"

echo "machine: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
for n in c10k c100k; do
    file="$work/${n}.json"
    size_kb=$(($(stat -c %s "$file") / 1024))
    wall=$(median "$n" 2)
    rss=$(median "$n" 4)
    awk -v n="$n" -v w="$wall" -v r="$rss" -v s="$size_kb" -v t="$([ "$n" = c10k ] && echo 0.3 || echo 2.5)" 'BEGIN {
        printf "%-6s catalog %6.1f MB: %.3f s (target < %.1f s: %s), peak RSS %.1f MB = %.2fx the file (target < 3x: %s)\n",
            n, s / 1024, w / 1e6, t, (w / 1e6 < t ? "met" : "MISSED"), r / 1024, r / s, (r / s < 3 ? "met" : "MISSED") }'
done
plain=$(median batch 3)
gpu=$(median batch_gpu 3)
awk -v p="$plain" -v g="$gpu" 'BEGIN {
    printf "batch: %.0f lines/s of CPU (target >= 100000: %s); with \"gpu\" %.0f lines/s, %.2fx slower (target < 2x: %s)\n",
        200000 / (p / 1e6), (200000 / (p / 1e6) >= 100000 ? "met" : "MISSED"), 200000 / (g / 1e6), g / p, (g / p < 2 ? "met" : "MISSED") }'
