#!/usr/bin/env bash
# Installs what tssa-stream needs to build and test on Debian. Idempotent and
# quick when everything is present: it asks apt only for what is missing.
#   scripts/setup.sh          build and test dependencies
#   scripts/setup.sh --dev    also python3-torch (to regenerate the test corpus,
#                             and scripts/demo.sh's export and check),
#                             python3-matplotlib (experiments/run.py's plots),
#                             graphviz (the demo's stream graph as SVG)
#                             and expecttest from PyPI (PyTorch's OpInfo
#                             database imports it: tests/opinfo/run_opinfo.py)
set -euo pipefail

packages=(build-essential cmake pkg-config libcjson-dev libopenblas-dev liblapacke-dev
          libfftw3-dev valgrind clang libclang-rt-dev libopenmpi-dev openmpi-bin
          libhwloc-dev libgomp1)
if [[ "${1:-}" == "--dev" ]]; then
  packages+=(python3-torch python3-numpy python3-matplotlib python3-pip graphviz)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
dev_python() {
  # expecttest is not packaged by Debian; PyPI has it.
  if [[ "${1:-}" == "--dev" ]] && ! /usr/bin/python3 -c "import expecttest" 2>/dev/null; then
    /usr/bin/python3 -m pip install --quiet --break-system-packages expecttest
  fi
}
if ((${#missing[@]} == 0)); then
  dev_python "${1:-}"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
dev_python "${1:-}"
