#!/usr/bin/env bash
# `cmake --install` into a temporary prefix places everything a tool needs.
set -euo pipefail
build="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/gpuadvise share/gpuadvise/gpus.json share/gpuadvise/models.json share/man/man1/gpuadvise.1 \
         share/bash-completion/completions/gpuadvise share/zsh/vendor-completions/_gpuadvise \
         share/fish/vendor_completions.d/gpuadvise.fish; do
  [ -s "$prefix/$f" ] || { echo "missing $f"; exit 1; }
done
"$prefix/bin/gpuadvise" --version | grep -q "^gpuadvise " || { echo "installed binary does not run"; exit 1; }
echo "install ok"
