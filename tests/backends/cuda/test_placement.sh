#!/usr/bin/env bash
# The placement of every node, decided when the plan is built and executed
# as decided (backends/placement.c, cuda_iface.c supports_node):
#   - --emit=placement of two programs (tests/models) on --backend=cuda is
#     the golden tests/backends/cuda/placement/MODEL.txt: node, op, source
#     line, device, and why a node stays on the host. Each line was checked
#     by hand against the rules in cuda_iface.c: products (aten::linear) of
#     float32 on the device (GEMM), a fused group with a CUDA kernel on the
#     device and its body "(kernel)", module attributes and constants at
#     compile time ("-"), loop and if on the host stepping their blocks,
#     integer arithmetic on the host.
#   - a run executes it: llama_swiglu runs with no host node and no
#     fallback (every node the plan put on the device ran there: 3 GEMMs, 1
#     launch); runtime_index_assign's first group, whose kernel its
#     run-time index does not fit (kernels_args_fit), is the one fallback,
#     counted in --stats, and the outputs still match PyTorch's.
#   - the cpu backend places everything on the host.
#   test_placement.sh TSSA_STREAM NPY_COMPARE TESTS_DIR
set -uo pipefail
tssa="$1" compare="$2" tests="$3"
source "$tests/case_lib.sh"
kernel_cache_in_build
cuda_on_gpu_or_shim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

run_model() {   # MODEL OPTIONS...: runs in the model's folder
  local model="$1"; shift
  (cd "$tests/models/$model" && read -r -a bindings < args.txt && "$tssa" "$@" model.ir "${bindings[@]}")
}

for model in llama_swiglu runtime_index_assign; do
  run_model "$model" --backend=cuda --emit=placement >"$out/$model.txt" 2>"$out/err" ||
    fail "$model: --emit=placement: $(cat "$out/err")"
  diff -u "$tests/backends/cuda/placement/$model.txt" "$out/$model.txt" || fail "$model: not the golden placement"
done

run_model llama_swiglu --backend=cuda --stats -o "$out/llama" 2>"$out/stats" >/dev/null ||
  fail "llama_swiglu run: $(cat "$out/stats")"
for line in "host_nodes_per_run 0" "host_fallbacks_per_run 0" "gemms_per_run 3" "launches_per_run 1"; do
  grep -q "stats: $line$" "$out/stats" || fail "llama_swiglu: not '$line': $(grep -E 'host|gemms|launches' "$out/stats")"
done
"$compare" "$out/llama/out0.npy" "$tests/models/llama_swiglu/expected/out0.npy" || fail "llama_swiglu differs from PyTorch"

run_model runtime_index_assign --backend=cuda --stats -o "$out/ria" 2>"$out/stats" >/dev/null ||
  fail "runtime_index_assign run: $(cat "$out/stats")"
grep -q "stats: host_fallbacks_per_run 1$" "$out/stats" ||
  fail "runtime_index_assign: the group's fallback is not counted once: $(grep fallbacks "$out/stats")"
"$compare" "$out/ria/out0.npy" "$tests/models/runtime_index_assign/expected/out0.npy" ||
  fail "runtime_index_assign differs from PyTorch"

run_model llama_swiglu --backend=cpu --emit=placement >"$out/cpu.txt" 2>"$out/err" || fail "cpu: $(cat "$out/err")"
grep -q "^placement of [0-9]* nodes on the host$" "$out/cpu.txt" || fail "cpu: not on the host: $(head -1 "$out/cpu.txt")"
grep -Eq " cuda +" "$out/cpu.txt" && fail "cpu: a node on cuda"
exit $status
