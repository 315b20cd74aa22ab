#!/usr/bin/env bash
# Batched heads (kernels/batch_heads.c) on a corpus case with a loop over
# heads (expected outputs from PyTorch):
#   batched: on the cuda and cpu backends --emit=fused has no prim::Loop
#            (on cpu the heads' projections are products by the weights'
#            columns: sink_sliced_products); the cuda backend's fused
#            text run by the ref backend gives PyTorch's outputs; run (CPU
#            shim where there is no GPU) it is LAUNCHES launches and GEMMS
#            GEMMs per run and gives PyTorch's outputs; with --keep-loops the
#            loop stays (and the outputs are PyTorch's).
#   loop:    a loop the pass must refuse (an iteration reads another's
#            result, overlapping bands): the prim::Loop stays, and the cuda
#            and cpu runs give PyTorch's outputs.
#   test_batch_heads.sh TSSA_STREAM NPY_COMPARE CASE_DIR batched LAUNCHES GEMMS
#   test_batch_heads.sh TSSA_STREAM NPY_COMPARE CASE_DIR loop
set -uo pipefail
tssa="$1" compare="$2" case_dir="$3" mode="$4"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  export TSSA_CUDA_EMULATE=1
fi

"$tssa" --backend=cuda model.ir "${bindings[@]}" --emit=fused >"$out/fused.ir" 2>"$out/err" || fail "--emit=fused: $(cat "$out/err")"
"$tssa" --backend=cuda model.ir "${bindings[@]}" --stats -o "$out/cuda" 2>"$out/stats" || fail "cuda run: $(cat "$out/stats")"
"$compare" "$out/cuda/out0.npy" expected/out0.npy || fail "the cuda run differs from PyTorch"
"$tssa" --backend=cpu model.ir "${bindings[@]}" -o "$out/cpu" 2>"$out/err" || fail "cpu run: $(cat "$out/err")"
"$compare" "$out/cpu/out0.npy" expected/out0.npy || fail "the cpu run differs from PyTorch"
if [ "$mode" = loop ]; then
  grep -q "prim::Loop" "$out/fused.ir" || fail "the loop was batched, though it must not be"
  exit $status
fi
launches="$5" gemms="$6"
grep -q "prim::Loop" "$out/fused.ir" && fail "a prim::Loop is left"
"$tssa" --backend=cpu model.ir "${bindings[@]}" --emit=fused >"$out/cpu_fused.ir" 2>&1
grep -q "prim::Loop" "$out/cpu_fused.ir" && fail "a prim::Loop is left on the cpu backend"
"$tssa" --backend=ref "$out/fused.ir" "${bindings[@]}" -o "$out/ref" 2>"$out/err" || fail "ref on the fused text: $(cat "$out/err")"
"$compare" "$out/ref/out0.npy" expected/out0.npy || fail "ref on the fused text differs from PyTorch"
grep -q "stats: launches_per_run $launches$" "$out/stats" || fail "not $launches launches per run: $(grep launches "$out/stats")"
grep -q "stats: gemms_per_run $gemms$" "$out/stats" || fail "not $gemms GEMMs per run: $(grep gemms "$out/stats")"
"$tssa" --backend=cuda --keep-loops model.ir "${bindings[@]}" --emit=fused >"$out/kept.ir" 2>&1
grep -q "prim::Loop" "$out/kept.ir" || fail "--keep-loops: the loop was batched"
"$tssa" --backend=cuda --keep-loops model.ir "${bindings[@]}" -o "$out/kept" 2>"$out/err" || fail "--keep-loops run: $(cat "$out/err")"
"$compare" "$out/kept/out0.npy" expected/out0.npy || fail "the --keep-loops run differs from PyTorch"
exit $status
