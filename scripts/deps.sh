#!/usr/bin/env bash
# Installs the Debian 12 packages gpuadvise builds and tests with, if any is
# missing. Uses sudo when not run as root. Extra package names may be passed.
set -euo pipefail
packages=(g++ make cmake ninja-build ccache libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev catch2 "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
