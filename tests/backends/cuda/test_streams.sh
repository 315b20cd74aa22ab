#!/usr/bin/env bash
# One stream per device and the copies between devices, through the CPU
# shim (backends/cuda/cuda_emulated.c), whose streams run lazily: queued
# work runs only when the host or an ordered stream waits for it, so a
# value read on one device before the stream that makes it is waited for
# is read stale. For tests/models long_batch_map and batch_loop, against
# their expected outputs (PyTorch's):
#   --devices 2, 2 GPUs        right; every value crossing devices peer to
#                              peer (copies_peer > 0, none staged)
#   --devices 2, 1 GPU         right; nothing split: devices sharing one GPU
#                              share its time, so the plan keeps one device
#                              (no value crosses: no copy of any kind)
#   --devices 2, no peer       right; the same crossings staged through
#                              pinned memory (copies_staged = the peer count)
#   --devices 3, 3 GPUs        right; peer copies
#   --devices 3, 2 GPUs, no    right; the values crossing between the two
#     peer                     GPUs staged (staged > 0, no peer copy)
#   (and long_batch_map's output, 160,000 bytes, comes back through a pinned
#   buffer: copies_to_host_pinned; the shim fills it only when the host waits)
#   drop-waits, --devices 2/3  TSSA_CUDA_EMULATE=drop-waits makes the shim
#                              ignore every wait between streams: the output
#                              must then be WRONG (long_batch_map), so a
#                              missing wait in the backend fails this test.
#   test_streams.sh TSSA_STREAM NPY_COMPARE TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2") tests=$(realpath "$3")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../case_lib.sh"
kernel_cache_in_build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0

# stat NAME FILE: the value of "stats: NAME_per_run V" in FILE (0 when absent)
stat() {
  local v
  v=$(sed -n "s/^tssa-stream: stats: $1_per_run \([0-9.e+]*\)$/\1/p" "$2" | head -1)
  echo "${v:-0}"
}

# run LABEL DEVICES GPUS PEER MODE: runs the case in $PWD; sets $err, $right
run() {
  local label=$1 devices=$2 gpus=$3 peer=$4 mode=$5
  err="$out/$case.$label.err"
  rm -rf "$out/o"
  read -r -a bindings <args.txt
  TSSA_CUDA_EMULATE=$mode TSSA_CUDA_EMULATE_GPUS=$gpus TSSA_CUDA_EMULATE_PEER=$peer \
    "$tssa" --backend=cuda --devices "$devices" --stats model.ir "${bindings[@]}" -o "$out/o" 2>"$err"
  local rc=$?
  right=1
  [[ $rc == 0 ]] || { right=0; echo "$case $label: exit $rc"; cat "$err"; return; }
  for f in expected/*.npy; do
    "$compare" "$f" "$out/o/$(basename "$f")" >/dev/null 2>&1 || right=0
  done
}

expect() {  # expect CONDITION MESSAGE
  if ! (( $1 )); then echo "FAIL: $case: $2"; status=1; fi
}

for case in long_batch_map batch_loop; do
  cd "$tests/models/$case" || exit 2
  run two 2 2 1 1
  expect "right" "--devices 2 on 2 GPUs: wrong output"
  peer2=$(stat copies_peer "$err")
  expect "peer2 > 0 && $(stat copies_staged "$err") == 0 && $(stat copies_none_needed "$err") == 0" \
    "--devices 2 on 2 GPUs: expected peer copies only ($(grep -E 'copies_(peer|staged|none)' "$err" | tr '\n' ' '))"
  grep -q "streams 2 (one per device) on 2 GPUs" "$err" || { echo "FAIL: $case: no streams line"; status=1; }
  # the output (long_batch_map's 160,000 bytes) comes back through a pinned buffer
  [[ $case == long_batch_map ]] && expect "$(stat copies_to_host_pinned "$err") >= 1" "the output was not downloaded through pinned memory"

  run shared 2 1 1 1
  expect "right" "--devices 2 on 1 GPU: wrong output"
  expect "$(stat copies_none_needed "$err") == 0 && $(stat copies_peer "$err") == 0 && $(stat copies_staged "$err") == 0" \
    "--devices 2 on 1 GPU: the plan split over devices that share one GPU ($(grep -E 'copies_(peer|staged|none)' "$err" | tr '\n' ' '))"

  run staged 2 0 0 1
  expect "right" "--devices 2 without peer access: wrong output"
  expect "$(stat copies_staged "$err") == peer2 && $(stat copies_peer "$err") == 0" \
    "--devices 2 without peer access: expected $peer2 staged copies ($(grep -E 'copies_(peer|staged|none)' "$err" | tr '\n' ' '))"

  run three 3 0 1 1
  expect "right" "--devices 3 on 3 GPUs: wrong output"
  peer3=$(stat copies_peer "$err")
  expect "peer3 > 0" "--devices 3 on 3 GPUs: no peer copies"

  run mixed 3 2 0 1
  expect "right" "--devices 3 on 2 GPUs without peer access: wrong output"
  staged=$(stat copies_staged "$err") none=$(stat copies_none_needed "$err")
  expect "staged > 0 && $(stat copies_peer "$err") == 0" \
    "--devices 3 on 2 GPUs: staged $staged, none needed $none (expected staged copies and no peer copy)"
  echo "$case: --devices 2: $peer2 values cross devices (peer on 2 GPUs, staged without peer access," \
       "no copy on 1 GPU); --devices 3: $peer3 peer (3 GPUs), $staged staged + $none none needed (2 GPUs)"
done

# The shim must catch a missing wait: without them the output is wrong.
case=long_batch_map
cd "$tests/models/$case" || exit 2
for devices in 2 3; do
  run "drop$devices" "$devices" 0 1 drop-waits
  expect "!right" "--devices $devices with the shim ignoring waits: the output is still right, so a missing wait would go unseen"
done
exit $status
