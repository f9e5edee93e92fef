#!/usr/bin/env bash
# The test command (README, .ci/run). Stages, each timed:
#   1. dependencies: the Debian packages, installed only when one is missing.
#   2. build-check: clang 14 with AddressSanitizer, UndefinedBehaviorSanitizer
#      and libFuzzer coverage, warnings as errors: the product, its tests and
#      the fuzz harnesses (bench/ is built in stage 5). -O0 builds in half the
#      time of -O1 on CI's two cores and the suite still runs in a minute.
#   3. ctest in build-check: every unit, CLI, schema, golden, layer and script
#      test under the sanitizers, plus a replay of every committed fuzz input;
#      fails when it finds no test.
#   4. fuzzing: each harness for FUZZ_SECONDS from the committed corpus (its
#      replay was stage 3's); the long runs are scripts/fuzz.sh's, not CI's.
#   5. build-release: the binary users build (g++ 12, Release, -Werror) and
#      bench/, and the end-to-end tests run again against that binary.
#   6. clang-format over every C++ file; clang-tidy over src/ (only the files
#      whose inputs changed since a clean check: scripts/tidy.sh).
# The build folders are this script's own, so a build configured without
# tests (scripts/setup.sh) is never reused. ccache keys on paths relative to
# the clone (CCACHE_BASEDIR), so a fresh clone in another folder hits the
# cache a previous clone filled.
#
#   GPUADVISE_TEST_LINT=0   skip stage 6 (a quicker local run)
#   FUZZ_SECONDS=3          seconds per fuzz harness (0: no fuzzing stage)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="$(nproc)"
fuzz_seconds="${FUZZ_SECONDS:-3}"
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1  # debug info's working folder differs per clone; the code does not
start_all=$SECONDS
stage_names=()
stage_times=()
stage() {  # stage NAME COMMAND...: runs and times one stage
    local name=$1 t0=$SECONDS
    shift
    echo "== $name"
    "$@"
    stage_names+=("$name")
    stage_times+=($((SECONDS - t0)))
    echo "-- $name: $((SECONDS - t0)) s"
}
report() {
    echo "== stage times"
    for i in "${!stage_names[@]}"; do printf '  %-52s %5s s\n' "${stage_names[$i]}" "${stage_times[$i]}"; done
    printf '  %-52s %5s s\n' "total" "$((SECONDS - start_all))"
    if command -v ccache >/dev/null; then
        ccache --print-stats 2>/dev/null | grep -E '^(direct_cache_hit|preprocessed_cache_hit|cache_miss)\s' |
            tr '\n' ' ' | sed 's/^/  ccache: /;s/$/\n/' || true
    fi
}
trap report EXIT

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

deps() {
    # python3 with yaml: the tests read emitted configs back with real parsers.
    local extra=(clang-14 libclang-rt-14-dev python3 python3-yaml)
    [ "${GPUADVISE_TEST_LINT:-1}" != "0" ] && extra+=(clang-format clang-tidy)
    bash scripts/deps.sh "${extra[@]}"
}

build_check() {
    cmake -S . -B build-check "${generator[@]}" "${launcher[@]}" -DCMAKE_CXX_COMPILER=clang++-14 \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
        -DBUILD_TESTING=ON -DGPUADVISE_FUZZ=ON -DGPUADVISE_WERROR=ON -DGPUADVISE_BENCH=OFF \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
    cmake --build build-check -j "$jobs"
    cmake --build build-check -j "$jobs" --target gpuadvise_fuzzers
}

check_ctest() {
    # The schema tests' workloads x cards: a third of them under the
    # sanitizers (every workload and card still runs), all of them against
    # the release binary in stage 5 (tests/support/run_gpuadvise.hpp).
    GPUADVISE_TEST_SAMPLE=3 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir build-check --output-on-failure --no-tests=error -j "$jobs"
}

fuzz() {
    FUZZ_BUILD_DIR=build-check FUZZ_SECONDS="$fuzz_seconds" FUZZ_JOBS="$jobs" FUZZ_NO_BUILD=1 FUZZ_REPLAY=0 \
        bash scripts/fuzz.sh
}

release() {
    cmake -S . -B build-release "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_TESTING=OFF -DGPUADVISE_WERROR=ON >/dev/null
    cmake --build build-release -j "$jobs" --target gpuadvise gpuadvise_accuracy
    ./build-release/gpuadvise --model 8B --method qlora --top 3 >/dev/null
    GPUADVISE_TEST_BIN="$PWD/build-release/gpuadvise" ASAN_OPTIONS=detect_leaks=1 \
        ctest --test-dir build-check --output-on-failure --no-tests=error -j "$jobs" -L end-to-end
}

lint() {
    bash scripts/format.sh --check
    bash scripts/tidy.sh build-check
}

stage "dependencies" deps
stage "build (clang, ASan + UBSan + fuzz coverage, -Werror)" build_check
stage "ctest under ASan + UBSan, fuzz replays" check_ctest
if [ "$fuzz_seconds" != "0" ]; then stage "fuzz ${fuzz_seconds}s per harness" fuzz; fi
stage "release build (g++, -Werror), end-to-end tests on it" release
if [ "${GPUADVISE_TEST_LINT:-1}" != "0" ]; then stage "clang-format and clang-tidy" lint; fi
echo "all tests passed"
