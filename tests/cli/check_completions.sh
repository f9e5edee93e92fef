#!/usr/bin/env bash
# Each completion script must parse in its shell (bash always; zsh and fish
# when installed) and offer subcommands, GPU ids, presets and enum values.
set -euo pipefail
bin="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for shell in bash zsh fish; do "$bin" completion "$shell" > "$tmp/$shell"; done
bash -n "$tmp/bash"
command -v zsh >/dev/null && zsh -n "$tmp/zsh"
command -v fish >/dev/null && fish -n "$tmp/fish"
for word in estimate check compare nvidia-rtx-4090 llama-3.1-8b qlora paged-adamw-32bit serve-70b; do
  grep -q -- "$word" "$tmp/bash" || { echo "bash completion lacks $word"; exit 1; }
  grep -q -- "$word" "$tmp/fish" || { echo "fish completion lacks $word"; exit 1; }
done
# bash: completing "--method q" offers qlora
source "$tmp/bash"
COMP_WORDS=(gpuadvise --method q); COMP_CWORD=2; _gpuadvise
[ "${COMPREPLY[*]}" = "qlora" ] || { echo "bash completion of --method q gave '${COMPREPLY[*]}'"; exit 1; }
echo "completions ok"
