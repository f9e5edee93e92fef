#!/usr/bin/env bash
# clang-format over every C++ file of the project (.clang-format).
#   scripts/format.sh          rewrites the files in place
#   scripts/format.sh --check  fails, listing the files, when one is not formatted
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh clang-format
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp')
if [ "${1:-}" = "--check" ]; then
    clang-format --dry-run -Werror "${files[@]}" 2>&1 | grep -E '^[^ ].*: error' | cut -d: -f1 | sort -u |
        sed 's/^/  not formatted: /' || true
    clang-format --dry-run -Werror "${files[@]}" >/dev/null 2>&1 ||
        { echo "run scripts/format.sh to format them" >&2; exit 1; }
    echo "clang-format: ${#files[@]} files formatted"
else
    clang-format -i "${files[@]}"
fi
