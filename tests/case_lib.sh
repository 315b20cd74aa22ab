# case_lib.sh — shell functions shared by the shell-driven corpus tests
# (backends/mpi/run_mpi_case.sh, and the kernel cache and CUDA choice of
# kernels/ and backends/cuda/ scripts). Source it; it runs nothing by itself.
# The corpus on ref, cpu, cuda, TensorSSA and the stream round trip is the
# conformance runner's (tests/conformance: case_run.c makes the same checks
# as case_verdict below, in C).
# A case directory (from tests/models/, tests/ops/ or a layer's cases/) holds
# model.ir, args.txt (the bindings, one line, paths relative to the case),
# inputs/, expected/out*.npy from PyTorch eager, and optionally
# expect_error.txt (line 1: exit status, line 2: a substring of the message)
# for cases that must fail. The functions after case_begin run in the case
# directory.

# kernel_cache_in_build
# Generated kernels must compile warning-free; their cache lives in the
# build tree (beside $tssa, tssa-stream's build), never in the user's
# ~/.cache.
kernel_cache_in_build() {
  export TSSA_KERNEL_CFLAGS="${TSSA_KERNEL_CFLAGS:--Wall -Wextra -Werror}"
  if [[ -z "${TSSA_CACHE_DIR:-}" && -n "${tssa:-}" ]]; then
    TSSA_CACHE_DIR="$(cd "$(dirname "$tssa")" && pwd)/kernel-cache"
    export TSSA_CACHE_DIR
  fi
}

# cuda_on_gpu_or_shim
# --backend=cuda runs on the GPU where nvidia-smi lists one, else through
# the backend's CPU shim (TSSA_CUDA_EMULATE=1: the generated CUDA compiled
# as C++, device memory a separate host buffer). TSSA_CUDA_EMULATE set in
# the environment decides instead.
cuda_on_gpu_or_shim() {
  if [[ -z "${TSSA_CUDA_EMULATE+set}" ]]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
      export TSSA_CUDA_EMULATE=0
    else
      export TSSA_CUDA_EMULATE=1
    fi
  fi
}

# case_begin CASE_DIR
# Enters CASE_DIR (exit 2 if it cannot), reads its bindings into the array
# `bindings` and makes a temporary directory `out` (removed on exit); with
# $tssa set, the kernel cache goes beside it (TSSA_CACHE_DIR).
case_begin() {
  kernel_cache_in_build
  cd "$1" || exit 2
  read -r -a bindings < args.txt || true
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
}

# case_verdict NPY_COMPARE STATUS ERR_FILE [--replaced]
# The verdict on a run of the case that exited with STATUS, wrote its
# messages to ERR_FILE and its outputs under $out/result. A case with
# expect_error.txt must have failed as it says (check_expected_error); any
# other must have exited 0 with outputs that match expected/
# (compare_outputs). Prints a FAIL line per problem; returns 0 when the case
# passes, else 1.
case_verdict() {
  local compare="$1" status="$2" err="$3" replaced="${4:-}"
  if [[ -f expect_error.txt ]]; then
    check_expected_error "$status" "$err" "$replaced"
    return
  fi
  if [[ "$status" != 0 ]]; then
    echo "FAIL: exit status $status"; cat "$err"; return 1
  fi
  compare_outputs "$compare" "$out/result"
}

# check_expected_error STATUS ERR_FILE [--replaced]
# Checks a run of a case that must fail: STATUS must be expect_error.txt's
# line 1, ERR_FILE must contain its line 2, and $out/result must hold no
# file. With --replaced the run was of the functionalized graph, where a
# failing write fails in the op that replaced it: for a message naming an op
# (aten::add_), its out-of-place twin ("aten::add(" or "aten::add:") or an
# immut:: access or assign counts too. Returns 0 when all holds, else 1.
check_expected_error() {
  local status="$1" err="$2" replaced="${3:-}"
  local want_status want_text text found=0
  want_status=$(sed -n 1p expect_error.txt)
  want_text=$(sed -n 2p expect_error.txt)
  # An empty message line would match any output.
  if [[ -z "$want_status" || -z "$want_text" ]]; then
    echo "FAIL: expect_error.txt needs a status line and a message line"; return 1
  fi
  if [[ "$status" != "$want_status" ]]; then
    echo "FAIL: exit status $status, expected $want_status"; cat "$err"; return 1
  fi
  local accepted=("$want_text")
  if [[ "$replaced" == --replaced && $want_text =~ ^aten::([A-Za-z0-9_]+)$ ]]; then
    accepted+=("aten::${BASH_REMATCH[1]%_}(" "aten::${BASH_REMATCH[1]%_}:" "immut::")
  fi
  for text in "${accepted[@]}"; do
    grep -qF -- "$text" "$err" && found=1
  done
  if [[ $found == 0 ]]; then
    echo "FAIL: message lacks '$want_text':"; cat "$err"; return 1
  fi
  if [[ -d "$out/result" ]] && compgen -G "$out/result/*" >/dev/null; then
    echo "FAIL: a failing run left output files"; return 1
  fi
  return 0
}

# compare_outputs NPY_COMPARE RESULT_DIR
# Compares every expected/outN.npy with RESULT_DIR/outN.npy (NPY_COMPARE
# applies the tolerances) and checks that RESULT_DIR holds no other out*.npy.
# Prints a FAIL line per problem; returns 0 when everything matches, else 1.
compare_outputs() {
  local compare="$1" result="$2"
  local failed=0 n_expected=0 expected name n_actual
  # An unmatched glob would stay the literal pattern: say so plainly.
  if ! compgen -G 'expected/out*.npy' >/dev/null; then
    echo "FAIL: no expected/out*.npy in $(pwd)"; return 1
  fi
  for expected in expected/out*.npy; do
    n_expected=$((n_expected + 1))
    name=$(basename "$expected")
    if [[ ! -f "$result/$name" ]]; then
      echo "FAIL: missing output $name"; failed=1; continue
    fi
    "$compare" "$expected" "$result/$name" || { echo "FAIL: $name differs"; failed=1; }
  done
  n_actual=$(find "$result" -name 'out*.npy' | wc -l)
  if [[ "$n_actual" != "$n_expected" ]]; then
    echo "FAIL: $n_actual outputs written, PyTorch returned $n_expected"; failed=1
  fi
  return $failed
}
