#!/usr/bin/env bash
# Configures and builds into a build directory.
#   scripts/build.sh [BUILD_DIR] [extra cmake args...]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
