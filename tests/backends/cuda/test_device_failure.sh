#!/usr/bin/env bash
# A device failure (a launch that fails, injected by the CPU shim:
# TSSA_CUDA_EMULATE=fail-launch) ends the run with status 1 and one message
# naming the CUDA call and its error, the kernel, the node and its source
# line; no output is written.
#   test_device_failure.sh TSSA_STREAM CASE_DIR
set -uo pipefail
tssa="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
TSSA_CUDA_EMULATE=fail-launch "$tssa" --backend=cuda model.ir "${bindings[@]}" -o "$out/result" 2>"$out/err"
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: exit $rc, expected 1"; status=1; }
grep -Eq "^model\.ir:[0-9]+(:[0-9]+)?: error: tssa::FusionGroup: cuda \(.*\): .*cuLaunchKernel\(k[0-9_L]+_out[0-9]+\): CUDA_ERROR_LAUNCH_FAILED" "$out/err" ||
  { echo "FAIL: the message does not name the place, the call and the kernel"; status=1; }
grep -q "\.py:[0-9]" "$out/err" || { echo "FAIL: the message does not name the source line"; status=1; }
[[ -e "$out/result" ]] && { echo "FAIL: outputs were written"; status=1; }
((status)) && cat "$out/err"
exit $status
