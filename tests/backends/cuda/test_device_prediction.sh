#!/usr/bin/env bash
# --devices N: --emit=schedule prints, under the placement line, the cost
# model's predicted speedup of N devices over one (scheduler/device_speedup.c)
# with the GPU rates the cuda backend knows (on the shim: an H100 SXM's), and
# says plainly when the devices are logical ones sharing fewer GPUs:
#   long_batch_map --devices 2, 2 GPUs   "devices: 2, predicted ...x" "on 2 GPUs"
#   long_batch_map --devices 2, 1 GPU    "logical devices sharing 1 GPU" and
#                                        predicted 1.00x or less (one GPU's
#                                        time is shared, never added to)
#   --devices 4 on 2 GPUs                "the 4 devices are logical devices
#                                        sharing 2 GPUs"
#   --emit=schedule --json               the same text as "device_note"
#   --devices 1                          no such line
#   test_device_prediction.sh TSSA_STREAM TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") tests=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../case_lib.sh"
kernel_cache_in_build
export TSSA_CUDA_EMULATE=1
status=0
cd "$tests/models/long_batch_map" || exit 2
read -r -a bindings <args.txt
emit() { TSSA_CUDA_EMULATE_GPUS=$1 "$tssa" --backend=cuda --devices "$2" --emit=schedule "${@:3}" model.ir "${bindings[@]}"; }
fail() { echo "FAIL: $*"; status=1; }

line=$(emit 0 2 | grep '^devices: ')
[[ $line =~ ^devices:\ 2,\ predicted\ [0-9.]+x\ the\ steady\ state\ of\ one\ device.*\ on\ 2\ GPUs\;\ GPU\ rates:\ 33.5\ TFLOP/s ]] ||
  fail "--devices 2 on 2 GPUs: '$line'"
line=$(emit 1 2 | grep '^devices: ')
[[ $line == *"the 2 devices are logical devices sharing 1 GPU"* ]] || fail "--devices 2 on 1 GPU: '$line'"
x=$(sed -n 's/^devices: 2, predicted \([0-9.]*\)x.*/\1/p' <<<"$line")
awk -v x="${x:-9}" 'BEGIN { exit !(x <= 1.0) }' || fail "--devices 2 on 1 GPU: predicted ${x}x, more than one GPU gives"
line=$(emit 2 4 | grep '^devices: ')
[[ $line == *"the 4 devices are logical devices sharing 2 GPUs"* ]] || fail "--devices 4 on 2 GPUs: '$line'"
emit 0 2 --json | grep -qE '"device_note":[[:space:]]+"devices: 2, predicted' || fail "--json: no device_note"
emit 0 1 | grep -q '^devices: ' && fail "--devices 1 printed a prediction"
exit $status
