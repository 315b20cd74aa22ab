#!/usr/bin/env bash
# Horizontal fusion (kernels/horizontal.c) on a program whose loop writes
# row i of its result from fused groups and products over row i of its
# inputs (long_batch_map: one group over row i of x and of the hoisted
# x @ w; batch_loop: a group, a product by a weight, a group):
#   1. on the cuda backend (one device) the loop becomes groups over its N
#      iterations (--emit=fused shows tssa::FusionGroup[iterations=N]) and
#      stacked products, and no prim::Loop;
#   2. that fused text, run by the ref backend (which interprets the group:
#      its block once per iteration, the rows stacked), gives PyTorch's
#      outputs;
#   3. run (CPU shim where there is no GPU) it is LAUNCHES kernel launches and
#      GEMMS products per run with no node left to the host, and gives
#      PyTorch's outputs;
#   4. with --devices 2 it stays a loop (BODY's firings split over the devices).
#   test_horizontal.sh TSSA_STREAM NPY_COMPARE CASE_DIR N LAUNCHES GEMMS BODY
set -uo pipefail
tssa="$1" compare="$2" case_dir="$3" trips="$4" launches="$5" gemms="$6" body="$7"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$tssa" --backend=cuda model.ir "${bindings[@]}" --emit=fused >"$out/fused.ir" 2>"$out/err" || fail "--emit=fused: $(cat "$out/err")"
grep -q "tssa::FusionGroup\[iterations=$trips\]" "$out/fused.ir" || fail "no group over $trips iterations"
grep -q "prim::Loop" "$out/fused.ir" && fail "a prim::Loop is left"
"$tssa" --backend=ref "$out/fused.ir" "${bindings[@]}" -o "$out/ref" 2>"$out/err" || fail "ref on the fused text: $(cat "$out/err")"
"$compare" "$out/ref/out0.npy" expected/out0.npy || fail "ref on the fused text differs from PyTorch"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  export TSSA_CUDA_EMULATE=1
fi
"$tssa" --backend=cuda model.ir "${bindings[@]}" --stats -o "$out/cuda" 2>"$out/stats" || fail "cuda run: $(cat "$out/stats")"
grep -q "stats: launches_per_run $launches$" "$out/stats" || fail "not $launches launches per run: $(grep launches "$out/stats")"
grep -q "stats: gemms_per_run $gemms$" "$out/stats" || fail "not $gemms GEMMs per run: $(grep gemms "$out/stats")"
grep -q "stats: host_nodes_per_run 0$" "$out/stats" || fail "nodes left to the host: $(grep host_nodes "$out/stats")"
"$compare" "$out/cuda/out0.npy" expected/out0.npy || fail "the cuda run differs from PyTorch"
"$tssa" --backend=cuda --devices 2 model.ir "${bindings[@]}" --emit=schedule >"$out/schedule" 2>&1
grep -Eq "${body}_1 .* cuda:1 " "$out/schedule" || fail "--devices 2: the loop's body is not split over the devices"
exit $status
