#!/usr/bin/env bash
# The lowering's verdict on a loop case: `loops_parallel` in the lowering
# statistics must equal expect_parallel.txt (1 or 0: the disjointness
# prover) and, where the case has one, `loops_unrolled` must equal
# expect_unrolled.txt (1: real carried state unrolled into a pipeline of
# steps, 0: not). An unrolled loop must also run no IR node more often
# than the interpreter does (`nodes_run_more 0`). The case's results are
# checked separately (cpu.cases.NAME) against PyTorch.
#   check_loop_plan.sh LOWER_TOOL CASE_DIR
set -uo pipefail
tool="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
stats=$("$tool" --stats model.ir "${bindings[@]}") || { echo "FAIL: lowering"; exit 1; }
stat() { sed -n "s/^$1 //p" <<<"$stats"; }
want=$(cat expect_parallel.txt) || { echo "FAIL: no expect_parallel.txt"; exit 1; }
if [[ "$want" != 0 && "$want" != 1 ]]; then
  echo "FAIL: expect_parallel.txt holds '$want', not 0 or 1"; exit 1
fi
got=$(stat loops_parallel)
if [[ "$got" != "$want" ]]; then
  echo "FAIL: loops_parallel $got, expected $want"; exit 1
fi
if [[ -f expect_unrolled.txt ]]; then
  want=$(cat expect_unrolled.txt)
  got=$(stat loops_unrolled)
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: loops_unrolled $got, expected $want"; exit 1
  fi
  if [[ "$want" == 1 && "$(stat nodes_run_more)" != 0 ]]; then
    echo "FAIL: nodes_run_more $(stat nodes_run_more), expected 0"; exit 1
  fi
fi
