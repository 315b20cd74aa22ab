#!/usr/bin/env bash
# A lowering golden: NAME.expected holds the reviewed --emit=stream text of
# the program named on its first line,
#   // lower: CASE_DIR (relative to tests/)
# followed by the expected text (NAME.dot.expected: the --emit=dot picture).
# The program is lowered with the case's bindings and compared.
#   check_golden.sh TSSA_STREAM NAME.expected
set -uo pipefail
tool="$1" expected="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"   # absolute: the script cd-s
tests_dir=$(cd "$(dirname "$expected")/../.." && pwd)
case_rel=$(sed -n '1s|^// lower: ||p' "$expected")
[[ -n "$case_rel" ]] || { echo "FAIL: $expected lacks its '// lower: CASE_DIR' line"; exit 2; }
cd "$tests_dir/$case_rel" || { echo "FAIL: no case $case_rel"; exit 2; }
read -r -a bindings < args.txt || true
got=$(mktemp)
trap 'rm -f "$got"' EXIT
# The tool's status counts too: a failed lowering must not pass as a diff.
emit=stream
[[ "$expected" == *.dot.expected ]] && emit=dot
# The goldens show the lowering itself (--no-fuse); NAME.fused.expected
# shows the stream graph after fusion (the default).
fuse=(--no-fuse)
[[ "$expected" == *.fused.expected || "$expected" == *.fused.dot.expected ]] && fuse=()
"$tool" --emit=$emit "${fuse[@]}" model.ir "${bindings[@]}" >"$got" ||
  { echo "FAIL: lowering of $case_rel exited with $?"; exit 1; }
diff -u <(tail -n +2 "$expected") "$got" ||
  { echo "FAIL: lowering of $case_rel changed"; exit 1; }
