#!/usr/bin/env bash
# Runs the project's .clang-tidy over src/ (warnings are errors), in parallel.
#   scripts/tidy.sh [BUILD_DIR]   a build folder with compile_commands.json (default: build-tidy)
#
# A file is checked again only when something that decides its result has
# changed: its own text, any project header, .clang-tidy, its compile command
# or clang-tidy itself. Each clean result is remembered by the hash of all of
# those in $GPUADVISE_TIDY_CACHE (default ~/.cache/gpuadvise/tidy), so a run
# after a small change checks the files it touches; a change to a header or
# to .clang-tidy checks everything. GPUADVISE_TIDY_ALL=1 ignores the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh clang-tidy
build="${1:-build-tidy}"
if [ ! -f "$build/compile_commands.json" ]; then
    cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DBUILD_TESTING=OFF >/dev/null
fi
cmake --build "$build" --target gpuadvise_core >/dev/null  # the generated sources must exist
cache="${GPUADVISE_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuadvise/tidy}"
mkdir -p "$cache"
# What every file's result depends on besides itself.
common="$( {
    clang-tidy --version
    cat .clang-tidy
    find include src -name '*.hpp' -print0 | sort -z | xargs -0 cat
} | sha256sum | cut -d' ' -f1)"
mapfile -t files < <(find src -name '*.cpp' | sort)
# One key per file: the common hash, its compile command and its text.
declare -A key_of
while IFS=$'\t' read -r f key; do key_of[$f]=$key; done < <(python3 - "$build/compile_commands.json" "$common" "${files[@]}" <<'PY'
import hashlib, json, os, sys
commands = {e["file"]: e.get("command") or " ".join(e.get("arguments", []))
            for e in json.load(open(sys.argv[1]))}
for f in sys.argv[3:]:
    h = hashlib.sha256()
    h.update(sys.argv[2].encode())
    h.update(commands.get(os.path.abspath(f), "").encode())
    h.update(open(f, "rb").read())
    print(f + "\t" + h.hexdigest())
PY
)
todo=()
for f in "${files[@]}"; do
    if [ "${GPUADVISE_TIDY_ALL:-0}" = "1" ] || [ ! -f "$cache/${key_of[$f]}" ]; then todo+=("$f"); fi
done
if [ ${#todo[@]} -eq 0 ]; then
    echo "clang-tidy: clean (${#files[@]} files, all unchanged since a clean check)"
    exit 0
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! printf '%s\0' "${todo[@]}" | xargs -0 -n 2 -P "$(nproc)" clang-tidy -p "$build" --quiet \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
    grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter' "$log" >&2 || true
    echo "clang-tidy found problems (above)" >&2
    exit 1
fi
for f in "${todo[@]}"; do : >"$cache/${key_of[$f]}"; done
echo "clang-tidy: clean (${#todo[@]} of ${#files[@]} files checked; the rest unchanged since a clean check)"
