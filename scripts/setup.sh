#!/usr/bin/env bash
# Installs what tssa-stream needs to build and test on Debian. Idempotent and
# quick when everything is present: it asks apt only for what is missing.
#   scripts/setup.sh          build and test dependencies
#   scripts/setup.sh --dev    also python3-torch, to regenerate the test corpus
set -euo pipefail

packages=(build-essential cmake pkg-config libcjson-dev libopenblas-dev liblapacke-dev
          valgrind clang libclang-rt-dev)
if [[ "${1:-}" == "--dev" ]]; then
  packages+=(python3-torch python3-numpy)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
