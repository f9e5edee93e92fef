#!/usr/bin/env bash
# Runs every test: the suite once in a normal build, then once more under
# AddressSanitizer + UndefinedBehaviorSanitizer with warnings as errors.
# Then the fuzzers (bounded time) and clang-tidy. GPUADVISE_TEST_SANITIZE=0,
# GPUADVISE_TEST_FUZZ=0 and GPUADVISE_TEST_TIDY=0 skip those passes locally.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs="$(nproc)"

echo "== build and test (RelWithDebInfo)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUADVISE_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "${GPUADVISE_TEST_SANITIZE:-1}" != "0" ]; then
  echo "== build and test under ASan + UBSan"
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DGPUADVISE_SANITIZE=ON -DGPUADVISE_WERROR=ON >/dev/null
  cmake --build build-sanitize -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j "$jobs"
fi

if [ "${GPUADVISE_TEST_FUZZ:-1}" != "0" ]; then
  echo "== fuzz: replay the committed inputs, then ${FUZZ_SECONDS:-20}s per harness (clang 14 + libFuzzer, ASan + UBSan)"
  FUZZ_SECONDS="${FUZZ_SECONDS:-20}" bash scripts/fuzz.sh
fi

if [ "${GPUADVISE_TEST_TIDY:-1}" != "0" ]; then
  echo "== clang-tidy over src/"
  bash scripts/tidy.sh
fi
