#!/usr/bin/env bash
# The test command: installs dependencies, builds, runs tests.
#   scripts/test.sh              release build (build/), every test
#   scripts/test.sh --sanitize   ASan+UBSan build (build-asan/), every test
# CI (.ci/run) splits the tests between the two builds so that none runs
# twice (tests/README.md, "CI"):
#   scripts/test.sh --ci-asan     ASan+UBSan build, every test but those
#                                 labelled release: all unit tests and the
#                                 whole corpus in every mode (conform.*)
#   scripts/test.sh --ci-release  release build, the tests labelled release
#                                 only: those ASan distorts or that need the
#                                 release build (mpi.* and the MPI tests, the
#                                 experiments' quick mode, opinfo_quick,
#                                 kernels.cuda_source)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
sanitizer_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
case "${1:-}" in
  --sanitize|--ci-asan)
    scripts/build.sh build-asan -DTSSA_SANITIZE=ON -DTSSA_WERROR=ON
    select=()
    [[ "$1" == --ci-asan ]] && select=(-LE release)
    env "${sanitizer_env[@]}" \
      ctest --test-dir build-asan --output-on-failure -j "$(nproc)" "${select[@]}"
    ;;
  --ci-release)
    scripts/build.sh build -DTSSA_WERROR=ON
    ctest --test-dir build --output-on-failure -j "$(nproc)" -L release
    ;;
  "")
    scripts/build.sh build -DTSSA_WERROR=ON
    ctest --test-dir build --output-on-failure -j "$(nproc)"
    ;;
  *)
    echo "usage: scripts/test.sh [--sanitize | --ci-asan | --ci-release]" >&2
    exit 2
    ;;
esac
