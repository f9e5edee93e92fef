#!/usr/bin/env bash
# Whole-process latency of gpuadvise against a floor program linked the same
# way (bench/perf/startup_floor.cpp): N runs of each command, one at a time,
# output to /dev/null; prints median, p10 and p90 and checks the targets
# (median < 5 ms and < 2x the floor's median).
#
#   bench/perf/process_bench.sh [GPUADVISE [FLOOR [RUNS]]]
#   defaults: build-bench/gpuadvise, build-bench/bench/perf/gpuadvise_startup_floor, 200
#   (configured and built in Release, -O2, when missing)
#
# Timing uses bash's $EPOCHREALTIME (no fork per sample), or `date +%s%N` on
# an older bash. If hyperfine is installed it is run as well, as a cross-check
# (PROCESS_BENCH_HYPERFINE=install apt-get installs it, =off skips it).
# PROCESS_BENCH_ENFORCE=1 exits 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin="${1:-build-bench/gpuadvise}"
floor="${2:-build-bench/bench/perf/gpuadvise_startup_floor}"
runs="${3:-${RUNS:-200}}"
hyperfine_mode="${PROCESS_BENCH_HYPERFINE:-auto}"

if [ ! -x "$bin" ] || [ ! -x "$floor" ]; then
  echo "== building $bin and $floor (build-bench, Release -O2)" >&2
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_TESTING=OFF >/dev/null
  cmake --build build-bench -j "$(nproc)" --target gpuadvise gpuadvise_startup_floor >/dev/null
fi

if [ -n "${EPOCHREALTIME:-}" ]; then
  now_us() { local t="${EPOCHREALTIME/[.,]/}"; echo "$((10#$t))"; }
  clock="bash \$EPOCHREALTIME"
else
  now_us() { echo $(($(date +%s%N) / 1000)); }
  clock="date +%s%N (includes one fork of date per sample)"
fi

samples_dir="$(mktemp -d)"
trap 'rm -rf "$samples_dir"' EXIT

# measure NAME CMD...: RUNS timed runs after 10 warm-up runs; samples in µs.
measure() {
  local name="$1"
  shift
  local i t0 t1
  for ((i = 0; i < 10; i++)); do "$@" >/dev/null 2>&1 || true; done
  : >"$samples_dir/$name"
  for ((i = 0; i < runs; i++)); do
    t0="${EPOCHREALTIME:-}"
    if [ -n "$t0" ]; then
      "$@" >/dev/null 2>&1 || { echo "$name: '$*' failed" >&2; exit 1; }
      t1="$EPOCHREALTIME"
      echo $((10#${t1/[.,]/} - 10#${t0/[.,]/})) >>"$samples_dir/$name"
    else
      t0="$(now_us)"
      "$@" >/dev/null 2>&1 || { echo "$name: '$*' failed" >&2; exit 1; }
      t1="$(now_us)"
      echo $((t1 - t0)) >>"$samples_dir/$name"
    fi
  done
  sort -n -o "$samples_dir/$name" "$samples_dir/$name"
}

# percentile NAME P: the P-th percentile (nearest rank) in µs.
percentile() {
  local n idx
  n="$(wc -l <"$samples_dir/$1")"
  idx=$(((n * $2 + 99) / 100))
  [ "$idx" -lt 1 ] && idx=1
  sed -n "${idx}p" "$samples_dir/$1"
}

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }

echo "whole-process latency, $runs runs each, clock: $clock"
echo "machine: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
measure floor "$floor"
measure recommend "$bin" --model 8B --method qlora
measure recommend_json "$bin" --model 8B --method qlora --json

floor_median="$(percentile floor 50)"
printf '%-16s %9s %9s %9s %9s\n' command median_ms p10_ms p90_ms x_floor
missed=0
for name in floor recommend recommend_json; do
  p50="$(percentile "$name" 50)"
  ratio="$(awk -v a="$p50" -v b="$floor_median" 'BEGIN { printf "%.2f", b > 0 ? a / b : 0 }')"
  printf '%-16s %9s %9s %9s %9s\n' "$name" "$(ms "$p50")" "$(ms "$(percentile "$name" 10)")" \
    "$(ms "$(percentile "$name" 90)")" "$ratio"
  if [ "$name" != floor ]; then
    verdict="met"
    if [ "$p50" -ge 5000 ] || awk -v r="$ratio" 'BEGIN { exit !(r >= 2) }'; then
      verdict="MISSED"
      missed=1
    fi
    echo "  target median < 5 ms and < 2x floor: $verdict"
  fi
done

if [ "$hyperfine_mode" = install ] && ! command -v hyperfine >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get install -y -qq hyperfine >/dev/null || echo "could not install hyperfine; skipping it" >&2
fi
if [ "$hyperfine_mode" != off ] && command -v hyperfine >/dev/null; then
  echo "== hyperfine cross-check"
  hyperfine -N --warmup 10 --runs "$runs" "$floor" "$bin --model 8B --method qlora" \
    "$bin --model 8B --method qlora --json"
fi

if [ "${PROCESS_BENCH_ENFORCE:-0}" = 1 ] && [ "$missed" -ne 0 ]; then
  exit 1
fi
