#!/usr/bin/env bash
# The loop programs of the corpus stay on the device on --backend=cuda (the
# GPU where there is one, else the CPU shim): their outputs match PyTorch's;
# over a run and 2 timed runs (--repeat 2) the only copies back to the host
# are the first run's outputs, and the only copies to the device the
# inputs, once a run (loop results made and zeroed there, aten::zeros
# included). The columns, derived by hand from each program: copies back
# per run at most (its outputs over 3 runs), copies to the device per run
# at most (its input files; '-': not checked).
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

# case                   back  to device
cases=(
  "nasrnn                0.67 5"    # 2 outputs; the chunked gates fuse (ix[k] as views)
  "rnn_loop              0.67 5"    # out[t] = h written on the device (immut::select_rev)
  "lstm_loop             1    7"
  "long_rnn              0.67 5"
  "gru_loop              0.34 6"    # aten::addmm on cuBLAS with its bias
  "attention_heads       0.34 4"    # heads written into the output with immut::slice_rev
  "fastrnns_lstm         1.67 -"    # 5 outputs; layer 2 reads torch.stack of layer 1's
                                    # appended outputs, stacked on the device
  "seq2seq_greedy        0.67 -"    # each step's token embedded on the device (its first
  "seq2seq_greedy@seq2seq_greedy.ir 0.67 -"   # token, aten::full, is made on the host)
)
for row in "${cases[@]}"; do
  read -r spec most up <<<"$row"
  name=${spec%@*} model=model.ir
  [[ "$spec" == *@* ]] && model="$torch2/${spec#*@}"
  dir="$models/$name"
  mapfile -t bindings < <(tr ' ' '\n' <"$dir/args.txt" | sed '/^$/d')
  rm -rf "$out/result"
  (cd "$dir" && "$tssa" --backend=cuda --stats --repeat 2 "$model" "${bindings[@]}" -o "$out/result") \
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
  uploads=$(sed -n 's/.*stats: copies_to_device_per_run //p' "$out/stderr")
  host=$(sed -n 's/.*stats: host_ops_per_run //p' "$out/stderr")
  if [[ -z "$copies" ]] || awk -v c="$copies" -v m="$most" 'BEGIN { exit !(c > m) }'; then
    echo "FAIL: $spec: ${copies:-no} copies back to the host per run, expected at most $most" \
         "(host ops: ${host:-none})"
    fail=1
  elif [[ "$up" != - ]] && { [[ -z "$uploads" ]] ||
                             awk -v c="$uploads" -v m="$up" 'BEGIN { exit !(c > m) }'; }; then
    echo "FAIL: $spec: ${uploads:-no} copies to the device per run, expected at most $up" \
         "(host ops: ${host:-none})"
    fail=1
  else
    echo "ok: $spec: $copies copies back, $uploads to the device per run (host ops: ${host:-none})"
  fi
done
exit $fail
