#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang 14 (coverage
# instrumentation + ASan + UBSan), replays the committed seeds and regression
# inputs, then fuzzes each harness for a bounded time. Fails on any finding:
# a crash, sanitizer report, unexpected exception, broken invariant, leak,
# timeout or out-of-memory.
#
#   scripts/fuzz.sh                          # 30 s per harness
#   FUZZ_SECONDS=600 scripts/fuzz.sh         # longer
#   FUZZ_TARGETS="cli catalog" scripts/fuzz.sh
#   FUZZ_JOBS=1 scripts/fuzz.sh              # one harness at a time (default: nproc at once)
#   FUZZ_TIMEOUT=10                          # seconds one input may take before it is a finding
#   FUZZ_BUILD_DIR=build-fuzz                # the fuzz build folder
#   FUZZ_NO_BUILD=1                          # use the folder as built (scripts/test.sh builds it)
#   FUZZ_REPLAY=0                            # skip the replay of committed inputs (ctest's
#                                            # fuzz_*_replay tests already ran them)
#
# What the fuzzer learns is kept in <build>/fuzz/<name>/corpus (not committed).
# A finding is saved as <build>/fuzz/<name>/artifacts/crash-* (or timeout-*,
# leak-*, oom-*); replay it with the harness binary and that file as its only
# argument, and once it is understood commit it under
# tests/fuzz/regressions/<name>/ so every later run replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
build="${FUZZ_BUILD_DIR:-build-fuzz}"
per_input_timeout="${FUZZ_TIMEOUT:-10}"
read -r -a targets <<<"${FUZZ_TARGETS:-units cli hf_config catalog presets gguf safetensors batch json settings detect render calibration emit}"
jobs="${FUZZ_JOBS:-$(nproc)}"

if [ "${FUZZ_NO_BUILD:-0}" != "1" ]; then
  bash scripts/deps.sh clang-14 libclang-rt-14-dev
  echo "== configure and build the fuzz harnesses ($build, clang++-14)"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGPUADVISE_FUZZ=ON -DGPUADVISE_WERROR=ON -DBUILD_TESTING=OFF \
    "${launcher[@]}" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target gpuadvise_fuzzers
fi

max_len() {
  case "$1" in
    units) echo 64 ;;
    cli) echo 4096 ;;
    hf_config) echo 8192 ;;
    *) echo 16384 ;;
  esac
}

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

# Runs one harness: replay, then fuzz. Output goes to <build>/fuzz/<name>/log.
fuzz_one() {
  local name="$1"
  local bin work
  bin="$(find "$build" -type f -name "gpuadvise_fuzz_$name" -perm -u+x | head -n 1)"
  work="$build/fuzz/$name"
  mkdir -p "$work/corpus" "$work/artifacts"
  : >"$work/log"
  if [ -z "$bin" ]; then
    echo "no binary gpuadvise_fuzz_$name in $build" >"$work/log"
    return 1
  fi
  local seeds=("tests/fuzz/corpus/$name")
  [ -d "tests/fuzz/regressions/$name" ] && seeds+=("tests/fuzz/regressions/$name")
  local files=()
  mapfile -t files < <(find "${seeds[@]}" -type f ! -name 'README*' ! -name '.*' | sort)
  if [ ${#files[@]} -gt 0 ] && [ "${FUZZ_REPLAY:-1}" != "0" ]; then
    echo "== replaying ${#files[@]} committed inputs" >>"$work/log"
    "$bin" -timeout="$per_input_timeout" -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" \
      "${files[@]}" >>"$work/log" 2>&1 || return 1
  fi
  echo "== fuzzing for ${seconds}s" >>"$work/log"
  "$bin" -max_total_time="$seconds" -max_len="$(max_len "$name")" -timeout="$per_input_timeout" -rss_limit_mb=2048 \
    -dict="tests/fuzz/dict/$name.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" "${seeds[@]}" >>"$work/log" 2>&1
}

echo "== fuzzing ${targets[*]} for ${seconds}s each, $jobs at a time"
declare -A pid_of status_of
running=()
for name in "${targets[@]}"; do
  if [ ${#running[@]} -ge "$jobs" ]; then
    wait "${pid_of[${running[0]}]}" && status_of[${running[0]}]=0 || status_of[${running[0]}]=$?
    running=("${running[@]:1}")
  fi
  fuzz_one "$name" &
  pid_of[$name]=$!
  running+=("$name")
done
for name in "${running[@]}"; do
  wait "${pid_of[$name]}" && status_of[$name]=0 || status_of[$name]=$?
done

failed=0
for name in "${targets[@]}"; do
  log="$build/fuzz/$name/log"
  stats="$(grep -Eo 'stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb): *[0-9]+' "$log" |
    sed 's/stat:://' | tr '\n' ' ' || true)"
  cov="$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+' "$log" | tail -n 1 || true)"
  if [ "${status_of[$name]}" -eq 0 ]; then
    printf '%-10s ok      %s %s\n' "$name" "$cov" "$stats"
  else
    failed=1
    printf '%-10s FAILED  (exit %s) log: %s\n' "$name" "${status_of[$name]}" "$log"
    grep -E 'FINDING|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
    if ! grep -q '^== fuzzing' "$log"; then  # failed while replaying a committed input
      grep -E '^Running: ' "$log" | tail -n 1 | sed 's/^Running: /    committed input: /'
    fi
    ls "$build/fuzz/$name/artifacts/" 2>/dev/null | sed "s|^|    artifact: $build/fuzz/$name/artifacts/|"
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "fuzzing found problems; each log has the stack, each artifact is the input that triggers it" >&2
  exit 1
fi
echo "no findings"
