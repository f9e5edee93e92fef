#!/usr/bin/env bash
# Runs every test: the suite once in a normal build, then once more under
# AddressSanitizer + UndefinedBehaviorSanitizer with warnings as errors.
# GPUADVISE_TEST_SANITIZE=0 skips the sanitizer pass (faster local runs).
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
