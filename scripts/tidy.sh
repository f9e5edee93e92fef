#!/usr/bin/env bash
# Runs the project's .clang-tidy over src/ (warnings are errors), in parallel.
#   scripts/tidy.sh [BUILD_DIR]   a build folder with compile_commands.json (default: build-tidy)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh clang-tidy
build="${1:-build-tidy}"
if [ ! -f "$build/compile_commands.json" ]; then
    cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DBUILD_TESTING=OFF >/dev/null
fi
cmake --build "$build" --target gpuadvise_core >/dev/null  # the generated sources must exist
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! find src -name '*.cpp' -print0 | xargs -0 -n 2 -P "$(nproc)" clang-tidy -p "$build" --quiet \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
    grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter' "$log" >&2 || true
    echo "clang-tidy found problems (above)" >&2
    exit 1
fi
echo "clang-tidy: clean ($(find src -name '*.cpp' | wc -l) files)"
