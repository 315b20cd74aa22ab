#!/usr/bin/env bash
# Runs one corpus case (a directory from tests/models/ or tests/ops/) on the
# cpu backend (--backend=cpu) and checks it against PyTorch's outputs.
#   run_cpu_case.sh TSSA_STREAM NPY_COMPARE CASE_DIR [extra tssa-stream options...]
# A case directory holds model.ir, args.txt (the bindings, one line, paths
# relative to the case), inputs/, expected/out*.npy from PyTorch eager, and
# optionally expect_error.txt (line 1: exit status, line 2: a substring of
# the message) for cases that must fail.
# TSSA_VALGRIND=1 runs tssa-stream under valgrind (errors or leaks fail).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/case_lib.sh"
tssa="$1" compare="$2" case_dir="$3"
shift 3
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

runner=()
if [[ "${TSSA_VALGRIND:-0}" == 1 ]]; then
  runner=(valgrind -q --error-exitcode=99 --leak-check=full
          --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
fi

"${runner[@]}" "$tssa" --backend=cpu "$@" model.ir "${bindings[@]}" -o "$out/result" 2>"$out/stderr"
status=$?

if [[ -f expect_error.txt ]]; then
  want_status=$(sed -n 1p expect_error.txt)
  want_text=$(sed -n 2p expect_error.txt)
  # An empty message line would match any output.
  if [[ -z "$want_status" || -z "$want_text" ]]; then
    echo "FAIL: expect_error.txt needs a status line and a message line"; exit 1
  fi
  if [[ "$status" != "$want_status" ]]; then
    echo "FAIL: exit status $status, expected $want_status"; cat "$out/stderr"; exit 1
  fi
  # The cpu backend runs the functionalized graph: a failing write fails in
  # the op that replaced it, the out-of-place twin (aten::add for aten::add_)
  # or an immut:: access or assign (as tests/run_tssa_case.sh accepts).
  accepted=("$want_text")
  if [[ $want_text =~ ^aten::([A-Za-z0-9_]+)$ ]]; then
    accepted+=("aten::${BASH_REMATCH[1]%_}(" "aten::${BASH_REMATCH[1]%_}:" "immut::")
  fi
  found=0
  for text in "${accepted[@]}"; do
    grep -qF -- "$text" "$out/stderr" && found=1
  done
  if [[ $found == 0 ]]; then
    echo "FAIL: message lacks '$want_text':"; cat "$out/stderr"; exit 1
  fi
  if [[ -d "$out/result" ]] && compgen -G "$out/result/*" >/dev/null; then
    echo "FAIL: a failing run left output files"; exit 1
  fi
  exit 0
fi

if [[ "$status" != 0 ]]; then
  echo "FAIL: exit status $status"; cat "$out/stderr"; exit 1
fi
compare_outputs "$compare" "$out/result"
