#!/usr/bin/env bash
# --backend=cuda where the driver sees no GPU: exit 2 with one message that
# says why and what to do instead, before any work and without outputs;
# --emit=cuda needs no device; the default backend is then cpu.
#   test_no_device.sh TSSA_STREAM CASE_DIR
# exit 77 (skipped) on a machine with a GPU.
set -uo pipefail
tssa="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
unset TSSA_CUDA_EMULATE
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: this machine has a GPU"
  exit 77
fi
status=0
"$tssa" --backend=cuda model.ir "${bindings[@]}" -o "$out/result" 2>"$out/err"
rc=$?
if [[ $rc != 2 ]]; then echo "FAIL: exit $rc, expected 2"; cat "$out/err"; status=1; fi
if ! grep -q "no CUDA device" "$out/err"; then echo "FAIL: no 'no CUDA device' message:"; cat "$out/err"; status=1; fi
if [[ -e "$out/result" ]]; then echo "FAIL: outputs were written"; status=1; fi
if ! "$tssa" --backend=cuda model.ir "${bindings[@]}" --emit=cuda >"$out/cu" 2>"$out/err2" || ! grep -q __global__ "$out/cu"; then
  echo "FAIL: --emit=cuda needs no device:"; cat "$out/err2"; status=1
fi
if ! "$tssa" model.ir "${bindings[@]}" --stats >/dev/null 2>"$out/stats" || ! grep -q "stats: backend cpu" "$out/stats"; then
  echo "FAIL: the default backend without a GPU is not cpu:"; cat "$out/stats"; status=1
fi
exit $status
