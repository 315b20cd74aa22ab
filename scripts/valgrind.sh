#!/usr/bin/env bash
# Runs the corpus (tests/models, tests/ops) under valgrind: any memory error
# or definite leak fails the case. Uses the release build in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
TSSA_VALGRIND=1 ctest --test-dir build -R '^ref\.' -L corpus --output-on-failure -j "$(nproc)"
