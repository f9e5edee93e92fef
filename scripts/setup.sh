#!/usr/bin/env bash
# Quick start: install dependencies, build, and answer the main question.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j "$(nproc)" --target gpuadvise
./build/gpuadvise --model 8B --method qlora
