#!/usr/bin/env bash
# check_golden.sh TSSA_STREAM MODEL.ir GOLDEN: the --emit=tssa output of
# MODEL.ir (no bindings) must equal GOLDEN byte for byte (shown as a diff).
set -uo pipefail
tool="$1" model="$2" golden="$3"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$tool" --emit=tssa "$model" >"$out" || { echo "FAIL: --emit=tssa exited with $?"; exit 1; }
diff -u "$golden" "$out"
