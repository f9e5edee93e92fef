#!/usr/bin/env bash
# Whole-process latency of gpuadvise against a floor program linked the same
# way (bench/perf/startup_floor.cpp): RUNS runs of each command, taking turns
# (floor, text, JSON, floor, ...) so that a change in machine load affects all
# alike, output to /dev/null. Prints median, p10 and p90 of the wall time and
# checks the target: median within 1.3x the floor's (issue 11; docs/performance.md).
#
#   bench/perf/process_bench.sh [GPUADVISE [FLOOR [RUNS [TIMER]]]]
#   defaults: build-bench/gpuadvise, build-bench/bench/perf/gpuadvise_startup_floor,
#             200 (or $RUNS), build-bench/bench/perf/gpuadvise_proc_timer
#   Missing defaults are configured and built in build-bench (Release, -O2).
#
# Timing: with the tiny C++ timer (bench/perf/proc_timer.cpp) each run's wall
# time and its CPU time (user + system, from wait4) are recorded; CPU time is
# what to compare on a busy machine. Without it (TIMER=none) the script times
# with bash's $EPOCHREALTIME (no fork per sample), or `date +%s%N` on an older
# bash, wall time only.
# If hyperfine is installed it is run as well, as a cross-check
# (PROCESS_BENCH_HYPERFINE=install apt-get installs it, =off skips it).
# PROCESS_BENCH_ENFORCE=1 exits 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin="${1:-build-bench/gpuadvise}"
floor="${2:-build-bench/bench/perf/gpuadvise_startup_floor}"
runs="${3:-${RUNS:-200}}"
timer="${4:-${TIMER:-build-bench/bench/perf/gpuadvise_proc_timer}}"
hyperfine_mode="${PROCESS_BENCH_HYPERFINE:-auto}"

if [ ! -x "$bin" ] || [ ! -x "$floor" ] || { [ "$timer" != none ] && [ ! -x "$timer" ]; }; then
  echo "== building gpuadvise, the floor and the timer in build-bench (Release, -O2)" >&2
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_TESTING=OFF >/dev/null
  cmake --build build-bench -j "$(nproc)" --target gpuadvise gpuadvise_startup_floor gpuadvise_proc_timer >/dev/null
fi

names=(floor recommend recommend_json)
run_cmd() {
  case "$1" in
    floor) "$floor" ;;
    recommend) "$bin" --model 8B --method qlora ;;
    recommend_json) "$bin" --model 8B --method qlora --json ;;
  esac
}

samples_dir="$(mktemp -d)"
trap 'rm -rf "$samples_dir"' EXIT

if [ "$timer" != none ]; then
  clock="gpuadvise_proc_timer (steady_clock around fork/exec/wait4; CPU from wait4)"
  "$timer" "$runs" floor "$floor" :: recommend "$bin" --model 8B --method qlora \
    :: recommend_json "$bin" --model 8B --method qlora --json >"$samples_dir/all"
  for name in "${names[@]}"; do
    awk -v n="$name" '$1 == n { print $2 }' "$samples_dir/all" | sort -n >"$samples_dir/$name"
    awk -v n="$name" '$1 == n { print $3 }' "$samples_dir/all" | sort -n >"$samples_dir/$name.cpu"
  done
else
  if [ -n "${EPOCHREALTIME:-}" ]; then
    clock="bash \$EPOCHREALTIME"
  else
    clock="date +%s%N (includes one fork of date per sample)"
  fi
  now_us() {
    if [ -n "${EPOCHREALTIME:-}" ]; then
      local t="${EPOCHREALTIME/[.,]/}"
      echo "$((10#$t))"
    else
      echo $(($(date +%s%N) / 1000))
    fi
  }
  for name in "${names[@]}"; do
    for ((i = 0; i < 10; i++)); do run_cmd "$name" >/dev/null 2>&1 || true; done  # warm-up
    : >"$samples_dir/$name"
  done
  for ((i = 0; i < runs; i++)); do
    for name in "${names[@]}"; do
      if [ -n "${EPOCHREALTIME:-}" ]; then  # no fork inside the timed window
        t0="$EPOCHREALTIME"
        run_cmd "$name" >/dev/null 2>&1 || { echo "$name failed" >&2; exit 1; }
        t1="$EPOCHREALTIME"
        echo $((10#${t1/[.,]/} - 10#${t0/[.,]/})) >>"$samples_dir/$name"
      else
        t0="$(now_us)"
        run_cmd "$name" >/dev/null 2>&1 || { echo "$name failed" >&2; exit 1; }
        t1="$(now_us)"
        echo $((t1 - t0)) >>"$samples_dir/$name"
      fi
    done
  done
  for name in "${names[@]}"; do sort -n -o "$samples_dir/$name" "$samples_dir/$name"; done
fi

# percentile FILE P: the P-th percentile (nearest rank) of a sorted file of µs.
percentile() {
  local n idx
  n="$(wc -l <"$1")"
  idx=$(((n * $2 + 99) / 100))
  [ "$idx" -lt 1 ] && idx=1
  sed -n "${idx}p" "$1"
}
ms() { awk -v us="$1" 'BEGIN { printf("%.2f", us / 1000) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf("%.2f", (b > 0) ? a / b : 0) }'; }

echo "whole-process latency: $runs runs each, interleaved; clock: $clock"
echo "machine: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
floor_median="$(percentile "$samples_dir/floor" 50)"
floor_cpu=""
[ -f "$samples_dir/floor.cpu" ] && floor_cpu="$(percentile "$samples_dir/floor.cpu" 50)"
printf '%-15s %10s %8s %8s %8s %12s %8s\n' command wall_median p10 p90 x_floor cpu_median x_floor
missed=0
for name in "${names[@]}"; do
  f="$samples_dir/$name"
  p50="$(percentile "$f" 50)"
  cpu="-" cpu_x="-"
  if [ -n "$floor_cpu" ]; then
    c50="$(percentile "$f.cpu" 50)"
    cpu="$(ms "$c50")"
    cpu_x="$(ratio "$c50" "$floor_cpu")"
  fi
  x="$(ratio "$p50" "$floor_median")"
  printf '%-15s %7s ms %8s %8s %8s %9s ms %8s\n' "$name" "$(ms "$p50")" "$(ms "$(percentile "$f" 10)")" \
    "$(ms "$(percentile "$f" 90)")" "$x" "$cpu" "$cpu_x"
  if [ "$name" != floor ]; then
    verdict="met"
    if awk -v r="$x" 'BEGIN { exit !(r > 1.3) }'; then
      verdict="MISSED"
      missed=1
    fi
    echo "  target: wall median within 1.3x the floor: $verdict"
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
