#!/usr/bin/env bash
# Runs the project's .clang-tidy over src/ (warnings are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh clang-tidy
cmake -S . -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cmake --build build --target gpuadvise >/dev/null  # generated sources must exist
find src -name '*.cpp' -print0 | xargs -0 -n 4 -P "$(nproc)" clang-tidy -p build --quiet
echo "clang-tidy: clean"
