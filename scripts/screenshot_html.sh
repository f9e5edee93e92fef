#!/usr/bin/env bash
# docs/images/html-report.png: the --format html page of docs/output.md, taken
# with headless Chromium (Debian's chromium package, installed when missing).
#   scripts/screenshot_html.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh chromium
build="${1:-build}"
page="$(mktemp --suffix=.html)"
trap 'rm -f "$page"' EXIT
"$build/gpuadvise" --model llama-3.1-70b --quant awq-int4 --top 8 --format html >"$page"
mkdir -p docs/images
# No sandbox: it needs user namespaces that containers and CI runners lack;
# the page is our own and has no script.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1700 \
    --screenshot="$PWD/docs/images/html-report.png" "file://$page" 2>/dev/null
echo "wrote docs/images/html-report.png"
