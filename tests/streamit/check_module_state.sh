#!/usr/bin/env bash
# Module state written in forward (prim::SetAttr; functionalize/
# module_state.c) is threaded through the graph as values, so the program
# becomes a real stream graph:
#   - --emit=tssa has no prim::SetAttr left;
#   - --emit=stream has no "one filter" line (neither the whole program nor
#     a loop; a while loop aside);
#   - state across runs: every run starts from the weights file's values
#     (README: module state). Two input sets, both the case's inputs, run
#     with --inputs on cpu must both give PyTorch's outputs (a state carried
#     from the first run into the second would change the counters and
#     caches the case returns).
# The outputs of a plain run on every backend are the corpus runs'
# (conform.*.models, mpi.models.*).
#   check_module_state.sh TSSA_STREAM NPY_COMPARE CASE_DIR
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2")
source "$(dirname "$0")/../case_lib.sh"
case_begin "$3"
fail=0
"$tssa" --emit=tssa model.ir "${bindings[@]}" >"$out/tssa" 2>"$out/err" ||
  { echo "FAIL: --emit=tssa"; cat "$out/err"; exit 1; }
if grep -n 'prim::SetAttr' "$out/tssa"; then
  echo "FAIL: a prim::SetAttr is left after TensorSSA"; fail=1
fi
"$tssa" --emit=stream model.ir "${bindings[@]}" >"$out/stream" 2>"$out/err" ||
  { echo "FAIL: --emit=stream"; cat "$out/err"; exit 1; }
# (a while loop, whose trip count the run decides, is one filter for its
# own reason: issue 30's hierarchical schedules, not module state)
if grep -n 'one filter' "$out/stream" | grep -v 'one filter: a while loop'; then
  echo "FAIL: the program (or a loop of it) is still one opaque filter"; fail=1
fi
# --inputs DIR: bindings name files inside each set (x=inputs/x.npy -> x=x.npy)
set_bindings=()
for b in "${bindings[@]}"; do set_bindings+=("${b/=inputs\//=}"); done
for set in a b; do
  mkdir -p "$out/sets/$set"
  cp inputs/* "$out/sets/$set/" 2>/dev/null || true
done
"$tssa" --backend=cpu model.ir "${set_bindings[@]}" --inputs "$out/sets" -o "$out/runs" >/dev/null 2>"$out/err" ||
  { echo "FAIL: --inputs with two sets"; cat "$out/err"; exit 1; }
for set in a b; do
  compare_outputs "$compare" "$out/runs/$set" || { echo "FAIL: input set $set (run $set)"; fail=1; }
done
exit $fail
