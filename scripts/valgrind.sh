#!/usr/bin/env bash
# Runs the corpus (tests/models, tests/ops) under valgrind: any memory error
# or definite leak fails the case. Uses the release build in build/.
#   - every case on the ref backend (the interpreter);
#   - the programs (tests/models) on the cpu backend, whose fused groups run
#     as generated C kernels compiled at run time: valgrind checks those too.
#     It does not know AVX-512, which -march=native emits on machines that
#     have it, so the kernels are built with -mno-avx512f here (a different
#     compiler flag string: their own cache entries).
#   - the programs on the cuda backend's CPU shim (TSSA_CUDA_EMULATE: the
#     CUDA kernels compiled as C++, device memory apart), where the build
#     has the cuda backend.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
TSSA_VALGRIND=1 ctest --test-dir build -R '^ref\.' -L corpus --output-on-failure -j "$(nproc)"
TSSA_VALGRIND=1 TSSA_KERNEL_CFLAGS="-Wall -Wextra -Werror -mno-avx512f" \
  ctest --test-dir build -R '^cpu\.models\.' --output-on-failure -j "$(nproc)"
if build/tssa-stream --version | grep -q " cuda"; then
  TSSA_VALGRIND=1 TSSA_KERNEL_CFLAGS="-Wall -Wextra -Werror -mno-avx512f" \
    ctest --test-dir build -R '^cuda\.models\.' --output-on-failure -j "$(nproc)"
fi
