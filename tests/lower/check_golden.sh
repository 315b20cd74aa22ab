#!/usr/bin/env bash
# A lowering golden: NAME.expected holds the reviewed --emit=stream text of
# the program named on its first line,
#   // lower: CASE_DIR (relative to tests/)
# followed by the expected text. The program is lowered with the case's
# bindings and compared.
#   check_golden.sh LOWER_TOOL NAME.expected
set -uo pipefail
tool="$1" expected="$2"
tests_dir=$(cd "$(dirname "$expected")/../.." && pwd)
case_rel=$(sed -n '1s|^// lower: ||p' "$expected")
cd "$tests_dir/$case_rel" || { echo "FAIL: no case $case_rel"; exit 2; }
read -r -a bindings < args.txt || true
diff -u <(tail -n +2 "$expected") <("$tool" --emit=stream model.ir "${bindings[@]}") ||
  { echo "FAIL: lowering of $case_rel changed"; exit 1; }
