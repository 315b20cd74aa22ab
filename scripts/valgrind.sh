#!/usr/bin/env bash
# Runs the corpus (tests/models, tests/ops) under valgrind: any memory error
# or definite or indirect leak fails the case. Uses the release build in
# build/, configured as scripts/test.sh configures it, so that CI's release
# pass (scripts/test.sh --ci-release) reuses it instead of building again.
#   - every case on the ref backend (the interpreter);
#   - the programs (tests/models) on the cpu backend, whose fused groups run
#     as generated C kernels compiled at run time: valgrind checks those too.
#     It does not know AVX-512, which -march=native emits on machines that
#     have it, so the kernels are built with -mno-avx512f here (a different
#     compiler flag string: their own cache entries).
#   - the programs on the cuda backend's CPU shim (TSSA_CUDA_EMULATE: the
#     CUDA kernels compiled as C++, device memory apart), where the build
#     has the cuda backend.
# One valgrind process per command: the conformance runner (tssa-conform)
# forks a process per case and each tssa-stream run (no exec), and valgrind
# follows each fork, checking that run's memory and its leaks at its exit
# (--error-exitcode fails that run, hence the case). Valgrind's start-up
# (about a second) is paid once, not per case. --jobs: a case per core.
# Valgrind writes its messages to the standard error it started with (this
# script's), not to the run's: each line carries the process number
# (==PID==) that the runner's FAIL line names ("exit status 99 (process
# PID)").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The same configuration as scripts/test.sh's release build (-DTSSA_WERROR=ON):
# CI's release pass after this one then builds nothing again.
scripts/build.sh build -DTSSA_WERROR=ON
valgrind=(valgrind -q --error-exitcode=99 --leak-check=full
          --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
conform=(build/tests/tssa-conform --jobs="$(nproc)")
"${valgrind[@]}" "${conform[@]}" --mode=ref tests/models tests/ops
modes=cpu
build/tssa-stream --version | grep -q " cuda" && modes=cpu,cuda
TSSA_KERNEL_CFLAGS="-Wall -Wextra -Werror -mno-avx512f" \
  "${valgrind[@]}" "${conform[@]}" --mode="$modes" tests/models
