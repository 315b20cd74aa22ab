#!/usr/bin/env bash
# Runs one corpus case on the cuda backend and checks it against PyTorch's
# outputs (tests/case_lib.sh): on the GPU where the machine has one
# (nvidia-smi lists it), else through the backend's CPU shim
# (TSSA_CUDA_EMULATE=1: the generated CUDA compiled as C++, device memory a
# separate host buffer, so a missing copy between device and host shows).
# TSSA_CUDA_EMULATE set in the environment decides instead.
#   run_cuda_case.sh TSSA_STREAM NPY_COMPARE CASE_DIR [extra tssa-stream options...]
# TSSA_VALGRIND=1 runs tssa-stream under valgrind (errors or leaks fail).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../case_lib.sh"
tssa="$1" compare="$2"
case_begin "$3"
shift 3

cuda_on_gpu_or_shim
"${runner[@]}" "$tssa" --backend=cuda "$@" model.ir "${bindings[@]}" -o "$out/result" 2>"$out/stderr"
case_verdict "$compare" $? "$out/stderr" --replaced
