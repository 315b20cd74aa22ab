#!/usr/bin/env bash
# aten::embedding on the device (tests/backends/cuda/gather: a [4, 2] table
# w = [[1, 2], [3, 4], [5, 6], [7, 8]], y = 2 * w[i]):
#   i = [1, 3]  y = [[6, 8], [14, 16]] (by hand), the gather on the device
#               (--stats: no host op), the indices not brought back;
#   i = [1, 7]  7 is outside the table: exit 1, PyTorch's "index out of
#               range in self" with the index and the source line, no
#               output written (as on the cpu backend).
# On the GPU where there is one, else on the CPU shim.
#   test_gather.sh TSSA_STREAM NPY_COMPARE
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../case_lib.sh"
kernel_cache_in_build
cuda_on_gpu_or_shim
cd "$here/gather" || exit 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0

"$tssa" --backend=cuda --stats model.ir w=w.npy i=ok.npy -o "$out/ok" 2>"$out/ok.err"
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: in range: exit $rc"; cat "$out/ok.err"; status=1; }
"$compare" expected_ok.npy "$out/ok/out0.npy" || { echo "FAIL: in range: wrong rows"; status=1; }
grep -q "host_ops_per_run" "$out/ok.err" && { echo "FAIL: the gather ran on the host:"; grep host_ops "$out/ok.err"; status=1; }

"$tssa" --backend=cuda model.ir w=w.npy i=bad.npy -o "$out/bad" 2>"$out/bad.err"
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: out of range: exit $rc, expected 1"; status=1; }
grep -q "aten::embedding: index 7 out of range in self" "$out/bad.err" ||
  { echo "FAIL: out of range: the message does not name the index"; status=1; }
grep -q "lookup\.py:3" "$out/bad.err" || { echo "FAIL: out of range: no source line"; status=1; }
[[ -e "$out/bad" ]] && { echo "FAIL: out of range: outputs were written"; status=1; }
((status)) && cat "$out/bad.err"
exit $status
