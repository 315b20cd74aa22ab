#!/usr/bin/env bash
# Runs one corpus case (a directory from tests/models/ or tests/ops/) on the
# cpu backend (--backend=cpu) and checks it against PyTorch's outputs
# (tests/case_lib.sh: the case layout, expect_error.txt, the comparison).
#   run_cpu_case.sh TSSA_STREAM NPY_COMPARE CASE_DIR [extra tssa-stream options...]
# The cpu backend runs the functionalized graph: a failing write may fail in
# the op that replaced it (--replaced, as tests/functionalize/run_tssa_case.sh
# accepts).
# TSSA_VALGRIND=1 runs tssa-stream under valgrind (errors or leaks fail).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../case_lib.sh"
tssa="$1" compare="$2"
case_begin "$3"
shift 3

"${runner[@]}" "$tssa" --backend=cpu "$@" model.ir "${bindings[@]}" -o "$out/result" 2>"$out/stderr"
case_verdict "$compare" $? "$out/stderr" --replaced
