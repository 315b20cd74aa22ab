#!/usr/bin/env bash
# How far fusion reaches into the corpus's recurrent programs (cpu backend,
# --stats): each row's fused groups at least, tensors of unknown shape at
# most ('-': not checked). The numbers are read off the programs by hand:
#   nasrnn          1 0   the eight gates of `(x @ w).chunk(8, 1)` read as
#                         ix[k] (aten::__getitem__ as slices): one kernel a step
#   lstm_loop       1 0   the cell's gates, the biases of both products added
#                         in the gate kernel (split_bias)
#   fastrnns_lstm   2 1   each layer's state carried as a (h, c) tuple, split
#                         into its tensors, and x.unbind(0)[i] as a select:
#                         both layers' gates fuse (layer 2 reads the stack of
#                         layer 1's appended outputs: 5 steps of [2, 4])
#   seq2seq (torch 2.x graph) 3 0   GRUCell's Optional hx and raising branch
#                         typed; the cell, the log_softmax and its argmax
#   diffusers_ddim  4 0   the sampling loop's carried image keeps its shape:
#                         the denoiser's torch.full((n,), t) of the loop's
#                         timestep (a run-time fill value) has a static
#                         shape, so the timestep embedding, the SiLU and the
#                         scheduler step fuse (before: 1 group, 23 unknown)
#   diffusers_ddpm  4 0   the same denoiser in the DDPM loop
#   kdiffusion_heun 10 0  k-diffusion's Heun loop: randn_like(x) (drawn every
#                         step, unused when gamma is 0) has x's shape and
#                         dtype, so the If that may add it keeps x typed
#   test_fusion_reach.sh TSSA_STREAM MODELS_DIR TORCH2_DIR
set -uo pipefail
tssa=$(realpath "$1") models=$(realpath "$2") torch2=$(realpath "$3")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
rows=(
  "nasrnn model.ir 1 0"
  "lstm_loop model.ir 1 0"
  "fastrnns_lstm model.ir 2 1"
  "seq2seq_greedy $torch2/seq2seq_greedy.ir 3 0"
  "diffusers_ddim model.ir 4 0"
  "diffusers_ddpm model.ir 4 0"
  "kdiffusion_heun model.ir 10 0"
)
for row in "${rows[@]}"; do
  read -r name model groups unknown <<<"$row"
  dir="$models/$name"
  mapfile -t bindings < <(tr ' ' '\n' <"$dir/args.txt" | sed '/^$/d')
  (cd "$dir" && "$tssa" --backend=cpu --stats "$model" "${bindings[@]}" -o "$out/r") 2>"$out/err"
  status=$?
  got_groups=$(sed -n 's/.*stats: fused_groups //p' "$out/err")
  got_unknown=$(sed -n 's/.*stats: tensors_of_unknown_shape //p' "$out/err")
  if ((status != 0)) || [[ -z "$got_groups" ]]; then
    echo "FAIL: $name ($model): exit status $status"; head -3 "$out/err"; fail=1
  elif ((got_groups < groups)); then
    echo "FAIL: $name ($model): $got_groups fused groups, expected at least $groups"; fail=1
  elif [[ "$unknown" != - ]] && ((got_unknown > unknown)); then
    echo "FAIL: $name ($model): $got_unknown tensors of unknown shape, expected at most $unknown"; fail=1
  else
    echo "ok: $name ($model): $got_groups fused groups, $got_unknown tensors of unknown shape"
  fi
done
exit $fail
