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
# 3. functional.ir runs on the ref backend with the same bindings, and every
#    expected/out*.npy (PyTorch's) matches; a case with expect_error.txt must
#    fail with the same status and message (where the message names the op
#    that failed, the op that replaced it in the functional graph counts).
# Exit 77 (skipped) when this tssa-stream does not offer --emit=tssa yet.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/case_lib.sh"
tssa="$1" compare="$2" case_dir="$3" model="${4:-model.ir}"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$tssa" --emit=tssa "$model" "${bindings[@]}" >"$out/functional.ir" 2>"$out/emit.err"
status=$?
if [[ $status == 2 ]] && grep -q "not available yet" "$out/emit.err"; then
  echo "SKIP: $tssa has no --emit=tssa yet"; exit 77
fi
if [[ $status != 0 ]]; then
  echo "FAIL: --emit=tssa exited with $status"; cat "$out/emit.err"; exit 1
fi

# In-place aten ops are named like aten::add_ (dunder names such as
# aten::__and__ are not in-place).
bad=$(grep -nE '= (aten::[A-Za-z0-9_]*[A-Za-z0-9]_|tssa::[A-Za-z0-9_]*)[(]' "$out/functional.ir" |
      grep -v 'tssa: kept imperative:' || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: mutation left without a documented reason:"; echo "$bad"
  cat "$out/functional.ir"; exit 1
fi

"$tssa" --backend=ref "$out/functional.ir" "${bindings[@]}" -o "$out/result" 2>"$out/run.err"
status=$?

if [[ -f expect_error.txt ]]; then
  want_status=$(sed -n 1p expect_error.txt)
  want_text=$(sed -n 2p expect_error.txt)
  # An empty message line would match any output.
  if [[ -z "$want_status" || -z "$want_text" ]]; then
    echo "FAIL: expect_error.txt needs a status line and a message line"; exit 1
  fi
  if [[ "$status" != "$want_status" ]]; then
    echo "FAIL: exit status $status, expected $want_status"; cat "$out/run.err"; exit 1
  fi
  # A failing write fails in the op that replaced it: the out-of-place twin
  # (aten::add for aten::add_) or an immut:: access or assign.
  accepted=("$want_text")
  if [[ $want_text =~ ^aten::([A-Za-z0-9_]+)$ ]]; then
    accepted+=("aten::${BASH_REMATCH[1]%_}(" "aten::${BASH_REMATCH[1]%_}:" "immut::")
  fi
  found=0
  for text in "${accepted[@]}"; do
    grep -qF -- "$text" "$out/run.err" && found=1
  done
  if [[ $found == 0 ]]; then
    echo "FAIL: message lacks '$want_text':"; cat "$out/run.err"; exit 1
  fi
  if [[ -d "$out/result" ]] && compgen -G "$out/result/*" >/dev/null; then
    echo "FAIL: a failing run left output files"; exit 1
  fi
  exit 0
fi
if [[ "$status" != 0 ]]; then
  echo "FAIL: the functionalized graph failed on ref (exit $status)"; cat "$out/run.err"
  cat "$out/functional.ir"; exit 1
fi
if ! compare_outputs "$compare" "$out/result"; then
  cat "$out/functional.ir"; exit 1
fi
