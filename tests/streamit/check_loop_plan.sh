#!/usr/bin/env bash
# The lowering's verdict on a loop case: `loops_parallel` in the lowering
# statistics must equal expect_parallel.txt (1: one data-parallel body
# filter with repetitions, 0: not) and `loops_feedback` expect_feedback.txt
# (1: carried state, a feedback loop; 0: not). A loop that is neither is a
# hierarchical filter whose body is a stream (a while loop, a data-dependent
# trip count; check_nested_loops.sh checks that structure on the corpus). Either way no node
# with tensor work may run more often than in the interpreter
# (`tensor_nodes_run_more 0`: hoisting only ever runs work less often).
# The case's results are checked separately (cpu.cases.NAME) against
# PyTorch.
#   check_loop_plan.sh LOWER_TOOL CASE_DIR
set -uo pipefail
tool="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
stats=$("$tool" --stats model.ir "${bindings[@]}") || { echo "FAIL: lowering"; exit 1; }
stat() { sed -n "s/^$1 //p" <<<"$stats"; }
for kind in parallel feedback; do
  want=$(cat "expect_$kind.txt") || { echo "FAIL: no expect_$kind.txt"; exit 1; }
  if [[ "$want" != 0 && "$want" != 1 ]]; then
    echo "FAIL: expect_$kind.txt holds '$want', not 0 or 1"; exit 1
  fi
  got=$(stat "loops_$kind")
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: loops_$kind $got, expected $want"; exit 1
  fi
done
if [[ "$(stat tensor_nodes_run_more)" != 0 ]]; then
  echo "FAIL: tensor_nodes_run_more $(stat tensor_nodes_run_more), expected 0"; exit 1
fi
