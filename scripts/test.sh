#!/usr/bin/env bash
# The test command: installs dependencies, builds, runs every test.
#   scripts/test.sh              release build (build/) and ctest
#   scripts/test.sh --sanitize   ASan+UBSan build (build-asan/) and ctest
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [[ "${1:-}" == "--sanitize" ]]; then
  scripts/build.sh build-asan -DTSSA_SANITIZE=ON -DTSSA_WERROR=ON
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
else
  scripts/build.sh build -DTSSA_WERROR=ON
  ctest --test-dir build --output-on-failure -j "$(nproc)"
fi
