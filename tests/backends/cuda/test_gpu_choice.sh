#!/usr/bin/env bash
# Each rank takes the GPU closest to its cores (cuda_gpu_choice.c), seen in
# --stats' gpu_choice line, through the CPU shim with a made-up machine:
# TSSA_CUDA_EMULATE_PCI lists three GPUs (bus ids as the driver writes
# them: upper case), TSSA_SYSFS_ROOT a sysfs tree saying
#   GPU 0  0000:01:00.0  NUMA node 1
#   GPU 1  0000:81:00.0  NUMA node 0
#   GPU 2  0000:C1:00.0  NUMA node 0
# and which CPUs each node has. Expected, by hand:
#   every CPU on node 0            GPU 1 (the first of node 0's two)
#   every CPU on node 1            GPU 0 (node 1's only one)
#   no node lists                  GPU 0 (local rank 0 mod 3)
#   2 ranks under mpirun, node 0   local ranks 0 and 1: GPUs 1 and 2
# and --emit=topology lists the GPUs with their nodes and the choice.
#   test_gpu_choice.sh TSSA_STREAM TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") tests=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../case_lib.sh"
kernel_cache_in_build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
export TSSA_CUDA_EMULATE=1 TSSA_CUDA_EMULATE_PCI="0000:01:00.0,0000:81:00.0,0000:C1:00.0"

# sysfs DIR NODE0_CPUS NODE1_CPUS (an empty list: no such node folder)
sysfs() {
  local root=$1
  mkdir -p "$root"
  for dev in 0000:01:00.0=1 0000:81:00.0=0 0000:c1:00.0=0; do
    mkdir -p "$root/bus/pci/devices/${dev%=*}"
    echo "${dev#*=}" >"$root/bus/pci/devices/${dev%=*}/numa_node"
  done
  if [[ -n $2 ]]; then mkdir -p "$root/devices/system/node/node0"; echo "$2" >"$root/devices/system/node/node0/cpulist"; fi
  if [[ -n $3 ]]; then mkdir -p "$root/devices/system/node/node1"; echo "$3" >"$root/devices/system/node/node1/cpulist"; fi
}

cd "$tests/models/batch_loop" || exit 2
read -r -a bindings <args.txt
check() {  # check LABEL SYSFS EXPECTED-GPU-TEXT
  TSSA_SYSFS_ROOT=$2 "$tssa" --backend=cuda --stats model.ir "${bindings[@]}" -o "$out/o" 2>"$out/$1.err" >/dev/null
  if ! grep -q "gpu_choice $3" "$out/$1.err"; then
    echo "FAIL: $1: expected gpu_choice $3, got: $(grep gpu_choice "$out/$1.err")"
    status=1
  fi
}
sysfs "$out/node0" 0-4095 "" && check node0 "$out/node0" "GPU 1 of 3 (0000:81:00.0, NUMA node 0): on the rank's NUMA node 0"
sysfs "$out/node1" 4096-4097 0-4095 && check node1 "$out/node1" "GPU 0 of 3 (0000:01:00.0, NUMA node 1): on the rank's NUMA node 1"
sysfs "$out/none" "" "" && check none "$out/none" "GPU 0 of 3 (0000:01:00.0, NUMA node 1): the rank's NUMA node is unknown: local rank 0 mod 3"

# --emit=topology shows the GPUs and the choice
TSSA_SYSFS_ROOT="$out/node0" "$tssa" --backend=cuda --emit=topology >"$out/topology.txt" 2>&1
for want in "GPU 2: 0000:C1:00.0, NUMA node 0" "local rank 0 takes GPU 1 of 3 (0000:81:00.0, NUMA node 0)"; do
  grep -qF "$want" "$out/topology.txt" || { echo "FAIL: --emit=topology: no '$want'"; cat "$out/topology.txt"; status=1; }
done

if command -v mpirun >/dev/null; then
  TSSA_SYSFS_ROOT="$out/node0" mpirun --oversubscribe --allow-run-as-root -np 2 \
    -x TSSA_CUDA_EMULATE -x TSSA_CUDA_EMULATE_PCI -x TSSA_SYSFS_ROOT -x TSSA_CACHE_DIR \
    "$tssa" --backend=cuda --stats model.ir "${bindings[@]}" -o "$out/mpi" >/dev/null 2>"$out/mpi.err"
  for want in "rank0.gpu_choice GPU 1 of 3" "rank1.gpu_choice GPU 2 of 3"; do
    grep -q "$want" "$out/mpi.err" || { echo "FAIL: mpirun -np 2: no '$want'"; grep gpu_choice "$out/mpi.err"; status=1; }
  done
fi
exit $status
