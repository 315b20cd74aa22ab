#!/usr/bin/env bash
# The CUDA printer on the whole program corpus: every case of tests/models
# whose program fuses is printed with --emit=cuda and compiled by NVRTC
# (tests/tools/nvrtc_check.c: PTX for compute_90, no GPU needed) and, where
# nvcc is installed (PATH or /usr/local/cuda/bin), by nvcc for sm_90 with
# every warning an error.
#   run_cuda_source.sh TSSA_STREAM NVRTC_CHECK MODELS_DIR
# exit 77 (skipped) when NVRTC is not installed; 1 when a source does not
# compile or when no case fused at all (the check would test nothing).
set -uo pipefail
tssa="$1" check="$2" models="$3"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sources=()
for dir in "$models"/*/; do
  [[ -f "$dir/args.txt" && ! -f "$dir/expect_error.txt" ]] || continue
  name=$(basename "$dir")
  read -r -a bindings < "$dir/args.txt" || true
  if (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --emit=cuda) > "$out/$name.cu" 2>"$out/$name.err"; then
    grep -q "__global__" "$out/$name.cu" && sources+=("$out/$name.cu")
  fi
done
if ((${#sources[@]} == 0)); then
  echo "FAIL: no program of $models fused into a kernel"
  exit 1
fi
echo "${#sources[@]} programs with kernels"
"$check" "${sources[@]}" || exit 1
nvcc=$(command -v nvcc || true)
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z "$nvcc" ]]; then
  echo "nvcc not found: NVRTC's check only"
  exit 0
fi
printf '%s\0' "${sources[@]}" |
  xargs -0 -P "$(nproc)" -I{} sh -c '"$0" -arch=sm_90 --ptx -Werror all-warnings -o /dev/null "$1" >"$1.nvcc" 2>&1 || { echo "FAIL: nvcc on $1:"; cat "$1.nvcc"; exit 1; }' "$nvcc" {} ||
  exit 1
echo "nvcc (sm_90) compiled all ${#sources[@]} without a warning"
