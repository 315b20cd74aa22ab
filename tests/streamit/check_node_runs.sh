#!/usr/bin/env bash
# IR node runs of a lowered program against the interpreter's: the lowering
# statistics must show `loops_feedback`, `node_runs`, `node_runs_original`
# and `nodes_run_more` as given (derived by hand next to the ctest entry in
# tests/streamit/tests.cmake).
#   check_node_runs.sh LOWER_TOOL CASE_DIR FEEDBACK RUNS RUNS_ORIGINAL RUN_MORE
set -uo pipefail
tool="$1" case_dir="$2"
shift 2
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
stats=$("$tool" --stats model.ir "${bindings[@]}") || { echo "FAIL: lowering"; exit 1; }
status=0
for pair in "loops_feedback=$1" "node_runs=$2" "node_runs_original=$3" "nodes_run_more=$4"; do
  key=${pair%%=*} want=${pair#*=}
  got=$(sed -n "s/^$key //p" <<<"$stats")
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: $key $got, expected $want"; status=1
  fi
done
exit $status
