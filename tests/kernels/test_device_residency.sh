#!/usr/bin/env bash
# The loop programs of the corpus stay on the device on --backend=cuda (the
# CPU shim, TSSA_CUDA_EMULATE=1, where there is no GPU): their outputs match
# PyTorch's, and the only copies back to the host are the outputs, one each
# (the last column: each program's number of outputs, derived by hand).
#   test_device_residency.sh TSSA_STREAM NPY_COMPARE MODELS_DIR TORCH2_DIR
# A NAME@FILE row runs FILE (the graph text torch 2.11 exports for the same
# program; torch2/seq2seq_greedy.ir is experiments/bench_gpu.py's export at
# hidden 256, its one size constant set to the corpus case's 6) on the
# corpus case NAME's inputs and expected outputs.
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2") models=$(realpath "$3") torch2=$(realpath "$4")
source "$(dirname "${BASH_SOURCE[0]}")/../case_lib.sh"
kernel_cache_in_build
cuda_on_gpu_or_shim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

# case                   copies back per run (at most)
cases=(
  "nasrnn                2"    # out, (c, m): the chunked gates fuse (aten::__getitem__ as views)
  "rnn_loop              2"    # out[t] = h written on the device (immut::select_rev)
  "lstm_loop             3"
  "long_rnn              2"
  "gru_loop              1"    # aten::addmm on cuBLAS with its bias
  "attention_heads       1"    # heads written into the output with immut::slice_rev
  "seq2seq_greedy        2"    # the embedding of each step's token gathered on the device
  "seq2seq_greedy@seq2seq_greedy.ir 2"    # torch 2.x: GRUCell's Optional hx and its raise
)
for row in "${cases[@]}"; do
  read -r spec most <<<"$row"
  name=${spec%@*} model=model.ir
  [[ "$spec" == *@* ]] && model="$torch2/${spec#*@}"
  dir="$models/$name"
  mapfile -t bindings < <(tr ' ' '\n' <"$dir/args.txt" | sed '/^$/d')
  rm -rf "$out/result"
  (cd "$dir" && "$tssa" --backend=cuda --stats "$model" "${bindings[@]}" -o "$out/result") \
    2>"$out/stderr"
  status=$?
  if ((status != 0)); then
    echo "FAIL: $spec: exit status $status: $(grep -m1 error "$out/stderr")"
    fail=1
    continue
  fi
  for e in "$dir"/expected/*.npy; do
    if ! "$compare" "$e" "$out/result/$(basename "$e")" --rtol 1e-4 --atol 1e-5 >"$out/cmp" 2>&1; then
      echo "FAIL: $spec: $(basename "$e"): $(head -1 "$out/cmp")"
      fail=1
    fi
  done
  copies=$(sed -n 's/.*stats: copies_to_host_per_run //p' "$out/stderr")
  host=$(sed -n 's/.*stats: host_ops_per_run //p' "$out/stderr")
  if [[ -z "$copies" ]] || awk -v c="$copies" -v m="$most" 'BEGIN { exit !(c > m) }'; then
    echo "FAIL: $spec: ${copies:-no} copies back to the host per run, expected at most $most" \
         "(host ops: ${host:-none})"
    fail=1
  else
    echo "ok: $spec: $copies copies back per run (host ops: ${host:-none})"
  fi
done
exit $fail
