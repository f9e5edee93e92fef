#!/usr/bin/env bash
# Runs the project's .clang-tidy over src/ (warnings are errors), in parallel.
#   scripts/tidy.sh [BUILD_DIR]   a build folder with compile_commands.json (default: build-tidy)
#
# A file is checked again only when something that decides its result has
# changed: its own text or compile command, .clang-tidy or clang-tidy itself;
# a header whose text changed is checked through one file that includes it.
# Each clean result is remembered by a hash of those in $GPUADVISE_TIDY_CACHE
# (default ~/.cache/gpuadvise/tidy), so a run after a small change checks the
# files it touched; a change to .clang-tidy or clang-tidy checks everything.
# GPUADVISE_TIDY_ALL=1 ignores the cache.
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
# What every file's result depends on besides its own text.
common="$( {
    clang-tidy --version
    cat .clang-tidy
} | sha256sum | cut -d' ' -f1)"
mapfile -t files < <(find src -name '*.cpp' | sort)
# What changed since a clean check: a source file whose text or compile
# command changed is checked; a changed header is checked through one file
# that includes it (its own .cpp when that includes it, else the first that
# does), which is where clang-tidy reports a header's own problems. A file
# whose text did not change is not checked again because a header it
# includes did (the build's -Werror catches what such a change breaks in it).
# Keys are content hashes; the clone's own folder is left out of a compile
# command, so a fresh clone elsewhere finds the results an earlier one left.
mapfile -t plan < <(python3 - "$build/compile_commands.json" "$common" "$cache" "${GPUADVISE_TIDY_ALL:-0}" "${files[@]}" <<'PY'
import glob, hashlib, json, os, re, sys
root = os.getcwd()
commands = {e["file"]: (e.get("command") or " ".join(e.get("arguments", []))).replace(root, "<root>")
            for e in json.load(open(sys.argv[1]))}
common, cache, everything, sources = sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5:]
include = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
texts = {}
def text(path):
    if path not in texts:
        texts[path] = open(path, "rb").read()
    return texts[path]
def includes(path):
    """The project headers `path` includes, directly or through another."""
    seen, todo = set(), [path]
    while todo:
        current = todo.pop()
        for name in include.findall(text(current)):
            for base in (os.path.dirname(current), "include", "src"):
                candidate = os.path.normpath(os.path.join(base, name.decode()))
                if os.path.isfile(candidate):
                    if candidate not in seen:
                        seen.add(candidate)
                        todo.append(candidate)
                    break
    return seen
def key(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode())
        h.update(b"\0")
    return h.hexdigest()
def cached(k):
    return not everything and os.path.exists(os.path.join(cache, k))
headers = sorted(glob.glob("include/**/*.hpp", recursive=True) + glob.glob("src/**/*.hpp", recursive=True))
included_by = {s: includes(s) for s in sources}
check, keys = [], []
for s in sources:
    k = key(common, commands.get(os.path.abspath(s), ""), text(s))
    keys.append(k)
    if not cached(k):
        check.append(s)
for h in headers:
    k = key(common, h, text(h))
    keys.append(k)
    if cached(k) or any(h in included_by[s] for s in check):
        continue
    users = [s for s in sources if h in included_by[s]]
    stem = os.path.splitext(os.path.basename(h))[0]
    home = [s for s in users if os.path.splitext(os.path.basename(s))[0] == stem]
    if home or users:
        check.append((home or users)[0])
for s in check:
    print("check\t" + s)
for k in keys:
    print("key\t" + k)
PY
)
todo=()
keys=()
for line in "${plan[@]}"; do
    case "$line" in
        check$'\t'*) todo+=("${line#*$'\t'}") ;;
        key$'\t'*) keys+=("${line#*$'\t'}") ;;
    esac
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
for k in "${keys[@]}"; do : >"$cache/$k"; done
echo "clang-tidy: clean (${#todo[@]} of ${#files[@]} files checked; the rest unchanged since a clean check)"
