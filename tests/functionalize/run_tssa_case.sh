#!/usr/bin/env bash
# Runs one corpus case through TensorSSA and back:
#   run_tssa_case.sh TSSA_STREAM NPY_COMPARE CASE_DIR [MODEL]
# 1. tssa-stream --emit=tssa MODEL <args.txt>  > functional.ir
#    (MODEL defaults to the case's model.ir)
#    (args.txt's bindings and --weights, so the compiler knows the inputs
#    it specializes on, as it does for a run)
# 2. functional.ir must hold no in-place aten op and no tssa:: op, except
#    in-place ops whose line carries the "tssa: kept imperative:" comment
#    (a documented may-alias reason)
#    (a case whose expect_error.txt says exit 2 may be refused here, with
#    its message)
# 3. functional.ir runs on the ref backend with the same bindings, and every
#    expected/out*.npy (PyTorch's) matches; a case with expect_error.txt must
#    fail with the same status and message (where the message names the op
#    that failed, the op that replaced it in the functional graph counts:
#    --replaced in tests/case_lib.sh; an unlisted op that the run reaches may
#    be refused, exit 2, in functional.ir, which its bindings specialize).
# Exit 77 (skipped) when this tssa-stream does not offer --emit=tssa yet.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../case_lib.sh"
tssa="$1" compare="$2" model="${4:-model.ir}"
case_begin "$3"

"$tssa" --emit=tssa "$model" "${bindings[@]}" >"$out/functional.ir" 2>"$out/emit.err"
status=$?
if [[ $status == 2 ]] && grep -q "not available yet" "$out/emit.err"; then
  echo "SKIP: $tssa has no --emit=tssa yet"; exit 77
fi
if [[ $status == 2 && -f expect_error.txt && $(sed -n 1p expect_error.txt) == 2 ]]; then
  # a case that must be refused before it runs (an unlisted op on the
  # straight-line path): --emit=tssa refuses it as a run would
  case_verdict "$compare" $status "$out/emit.err"; exit
fi
if [[ $status != 0 ]]; then
  echo "FAIL: --emit=tssa exited with $status"; cat "$out/emit.err"; exit 1
fi

# In-place aten ops are named like aten::add_ (dunder names such as
# aten::__and__ are not in-place). A list's `+=` (aten::add_ with a list
# result) mutates a list, not a tensor, and stays as it is, like append.
# tssa::update marks a write not yet renamed; tssa::inplace_check is a pure
# check that stays.
bad=$(grep -nE '= (aten::[A-Za-z0-9_]*[A-Za-z0-9]_|tssa::update)[(]' "$out/functional.ir" |
      grep -vE ' : [^=]*\[\] = aten::' | grep -v 'tssa: kept imperative:' || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: mutation left without a documented reason:"; echo "$bad"
  cat "$out/functional.ir"; exit 1
fi

"$tssa" --backend=ref "$out/functional.ir" "${bindings[@]}" -o "$out/result" 2>"$out/run.err"
status=$?
# functional.ir is specialized on the bindings: an unlisted op that the run
# reaches (exit 1) may stand on its straight-line path, refused (exit 2)
# with the same message
if [[ $status == 2 && -f expect_error.txt && $(sed -n 1p expect_error.txt) == 1 ]] &&
   grep -q "unknown op '" "$out/run.err"; then
  status=1
fi
if ! case_verdict "$compare" $status "$out/run.err" --replaced; then
  echo "(the functionalized graph, run on ref:)"; cat "$out/functional.ir"; exit 1
fi
