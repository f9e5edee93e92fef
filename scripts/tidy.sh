#!/usr/bin/env bash
# Runs the project's .clang-tidy over src/ (warnings are errors), in parallel.
#   scripts/tidy.sh [BUILD_DIR]   a build folder with compile_commands.json (default: build-tidy)
#
# A file is checked again only when something that decides its result has
# changed: its own text, a project header it includes (directly or not),
# .clang-tidy, its compile command or clang-tidy itself. Each clean result is
# remembered by the hash of all of those in $GPUADVISE_TIDY_CACHE (default
# ~/.cache/gpuadvise/tidy), so a run after a small change checks the files it
# touches and those that include what it touched; a change to .clang-tidy
# checks everything. GPUADVISE_TIDY_ALL=1 ignores the cache.
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
# What every file's result depends on besides its own text and headers.
common="$( {
    clang-tidy --version
    cat .clang-tidy
} | sha256sum | cut -d' ' -f1)"
mapfile -t files < <(find src -name '*.cpp' | sort)
# One key per file: the common hash, its compile command, its text and the
# text of every project header it includes, directly or through another. A
# header's change so rechecks only the files that include it. (System headers
# change with packages, which change clang-tidy's version or the flags.)
declare -A key_of
while IFS=$'\t' read -r f key; do key_of[$f]=$key; done < <(python3 - "$build/compile_commands.json" "$common" "${files[@]}" <<'PY'
import hashlib, json, os, re, sys
# The clone's own folder is left out of a command, so a fresh clone elsewhere
# finds the results an earlier clone remembered.
root = os.getcwd()
commands = {e["file"]: (e.get("command") or " ".join(e.get("arguments", []))).replace(root, "<root>")
            for e in json.load(open(sys.argv[1]))}
include = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
roots = ["include", "src"]
texts = {}
def text(path):
    if path not in texts:
        texts[path] = open(path, "rb").read()
    return texts[path]
def headers(path):
    """The project headers `path` includes, transitively, sorted."""
    seen, todo = set(), [path]
    while todo:
        current = todo.pop()
        for name in include.findall(text(current)):
            name = name.decode()
            for base in [os.path.dirname(current)] + roots:
                candidate = os.path.normpath(os.path.join(base, name))
                if os.path.isfile(candidate):
                    if candidate not in seen:
                        seen.add(candidate)
                        todo.append(candidate)
                    break
    return sorted(seen)
for f in sys.argv[3:]:
    h = hashlib.sha256()
    h.update(sys.argv[2].encode())
    h.update(commands.get(os.path.abspath(f), "").encode())
    h.update(text(f))
    for header in headers(f):
        h.update(header.encode() + b"\0" + text(header))
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
