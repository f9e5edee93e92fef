#!/usr/bin/env bash
# The test command (README, .ci/run). Stages, each timed:
#   1. build-check: clang 14 with AddressSanitizer, UndefinedBehaviorSanitizer
#      and libFuzzer coverage, warnings as errors: the whole tree, tests and
#      fuzz harnesses. -O0 builds in half the time of -O1 on CI's two cores
#      and the suite still runs in well under a minute.
#   2. ctest in build-check: every unit, CLI, schema, golden and script test
#      under the sanitizers, plus a replay of every committed fuzz input;
#      fails when it finds no test.
#   3. fuzzing: each harness for FUZZ_SECONDS, seeded by the committed corpus.
#   4. build-release: the binary users build (g++ 12, Release, -Werror), and
#      the end-to-end tests run again against it.
#   5. clang-format over every C++ file, clang-tidy over src/.
# The build folders are this script's own, so a build configured without
# tests (scripts/setup.sh) is never reused; ccache speeds up reruns.
#
#   GPUADVISE_TEST_LINT=0   skip stage 5 (a quicker local run)
#   FUZZ_SECONDS=8          seconds per fuzz harness (0: replay only)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="$(nproc)"
fuzz_seconds="${FUZZ_SECONDS:-8}"
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
}
trap report EXIT

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

deps() {
    local extra=(clang-14 libclang-rt-14-dev)
    [ "${GPUADVISE_TEST_LINT:-1}" != "0" ] && extra+=(clang-format clang-tidy)
    bash scripts/deps.sh "${extra[@]}"
}

build_check() {
    cmake -S . -B build-check "${generator[@]}" "${launcher[@]}" -DCMAKE_CXX_COMPILER=clang++-14 \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
        -DBUILD_TESTING=ON -DGPUADVISE_FUZZ=ON -DGPUADVISE_WERROR=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
    cmake --build build-check -j "$jobs"
    cmake --build build-check -j "$jobs" --target gpuadvise_fuzzers
}

check_ctest() {
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir build-check --output-on-failure --no-tests=error -j "$jobs"
}

fuzz() {
    FUZZ_BUILD_DIR=build-check FUZZ_SECONDS="$fuzz_seconds" FUZZ_JOBS="$jobs" FUZZ_NO_BUILD=1 bash scripts/fuzz.sh
}

release() {
    cmake -S . -B build-release "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_TESTING=OFF -DGPUADVISE_WERROR=ON >/dev/null
    cmake --build build-release -j "$jobs" --target gpuadvise
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
