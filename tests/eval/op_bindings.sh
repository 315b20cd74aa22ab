#!/usr/bin/env bash
# op_bindings.sh — the evaluator's bindings against the op table.
#   op_bindings.sh TEST_OP_BINDINGS LIBTSSA
# Runs test_op_bindings (every row names a binding or has a reason not to),
# then compares the bindings the rows name (test_op_bindings --list) with
# the eval_op_* functions libtssa defines: a function no row names is a
# binding the dispatch table cannot reach (its op's row lacks it, or the op
# is gone) and fails here naming it.
set -euo pipefail
checker="$1" lib="$2"
"$checker"
rows="$(mktemp)" defined="$(mktemp)"
trap 'rm -f "$rows" "$defined"' EXIT
"$checker" --list | sort -u >"$rows"
nm -g --defined-only "$lib" | awk '$3 ~ /^eval_op_/ { print $3 }' | sort -u >"$defined"
if [[ ! -s "$defined" ]]; then
  echo "FAIL: no eval_op_* symbols in $lib" >&2
  exit 1
fi
unnamed="$(comm -13 "$rows" "$defined")"
missing="$(comm -23 "$rows" "$defined")"
status=0
if [[ -n "$unnamed" ]]; then
  echo "FAIL: eval_op_* functions that no row of include/tssa/ops.h names:" >&2
  echo "$unnamed" >&2
  status=1
fi
if [[ -n "$missing" ]]; then
  echo "FAIL: bindings named in include/tssa/ops.h that libtssa does not define:" >&2
  echo "$missing" >&2
  status=1
fi
echo "$(wc -l <"$rows") bindings named by rows, $(wc -l <"$defined") defined"
exit $status
