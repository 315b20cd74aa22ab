#!/usr/bin/env bash
# Horizontal fusion (kernels/horizontal.c) on long_batch_map, whose loop
# writes row i of its result from one fused group over row i of x (and of
# the hoisted product x @ w):
#   1. on the cuda backend (one device) the loop becomes one group over
#      10000 iterations (--emit=fused shows tssa::FusionGroup[iterations=10000]
#      and no prim::Loop);
#   2. that fused text, run by the ref backend (which interprets the group:
#      its block once per iteration, the rows stacked), gives PyTorch's
#      outputs;
#   3. run (CPU shim where there is no GPU) it is one launch and one GEMM per
#      run with no node left to the host, and gives PyTorch's outputs;
#   4. with --devices 2 it stays a loop (its firings split over the devices).
#   test_horizontal.sh TSSA_STREAM NPY_COMPARE CASE_DIR
set -uo pipefail
tssa="$1" compare="$2" case_dir="$3"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$tssa" --backend=cuda model.ir "${bindings[@]}" --emit=fused >"$out/fused.ir" 2>"$out/err" || fail "--emit=fused: $(cat "$out/err")"
grep -q "tssa::FusionGroup\[iterations=10000\]" "$out/fused.ir" || fail "no group over 10000 iterations"
grep -q "prim::Loop" "$out/fused.ir" && fail "a prim::Loop is left"
"$tssa" --backend=ref "$out/fused.ir" "${bindings[@]}" -o "$out/ref" 2>"$out/err" || fail "ref on the fused text: $(cat "$out/err")"
"$compare" "$out/ref/out0.npy" expected/out0.npy || fail "ref on the fused text differs from PyTorch"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  export TSSA_CUDA_EMULATE=1
fi
"$tssa" --backend=cuda model.ir "${bindings[@]}" --stats -o "$out/cuda" 2>"$out/stats" || fail "cuda run: $(cat "$out/stats")"
grep -q "stats: launches_per_run 1$" "$out/stats" || fail "not one launch per run: $(grep launches "$out/stats")"
grep -q "stats: gemms_per_run 1$" "$out/stats" || fail "not one GEMM per run"
grep -q "stats: host_nodes_per_run 0$" "$out/stats" || fail "nodes left to the host: $(grep host_nodes "$out/stats")"
"$compare" "$out/cuda/out0.npy" expected/out0.npy || fail "the cuda run differs from PyTorch"
"$tssa" --backend=cuda --devices 2 model.ir "${bindings[@]}" --emit=schedule >"$out/schedule" 2>&1
grep -Eq "Body_L14_1 .* cuda:1 " "$out/schedule" || fail "--devices 2: the loop's body is not split over the devices"
exit $status
