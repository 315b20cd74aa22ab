#!/usr/bin/env bash
# The disjointness prover's verdict on a loop case: `loops_parallel` in the
# lowering statistics must equal expect_parallel.txt (1 or 0). The case's
# results are checked separately (cpu.cases.NAME) against PyTorch.
#   check_loop_plan.sh LOWER_TOOL CASE_DIR
set -uo pipefail
tool="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
want=$(cat expect_parallel.txt)
got=$("$tool" --stats model.ir "${bindings[@]}" | sed -n 's/^loops_parallel //p')
if [[ "$got" != "$want" ]]; then
  echo "FAIL: loops_parallel $got, expected $want"; exit 1
fi
