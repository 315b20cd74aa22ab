#!/usr/bin/env bash
# Whole recurrent layers (aten::gru / lstm / rnn_tanh / rnn_relu, from
# nn.GRU / nn.LSTM / nn.RNN) are lowered to what they are
# (kernels/expand_rnn_layers.c), not run as one opaque filter. For each
# rnn_* case of tests/models (their results against PyTorch are the corpus
# runs conform.ref.models, conform.cpu.models.*, ...):
#   - --emit=stream has one feedback loop per layer and direction, a
#     bidirectional layer's two loops side by side in one stage of the
#     top-level pipeline (a split-join), and no filter that runs the layer
#     op;
#   - --emit=fused has no layer op or cell left, one input projection per
#     loop at the top level (the product of all T steps, hoisted), and
#     fused gates inside every loop;
# and a GRU of two layers in training mode with dropout, and the
# PackedSequence overload (aten::gru.data, with batch_sizes; the graph and
# zero inputs in rnn_packed/), are refused at run time (exit 1) naming
# aten::gru, on ref and cpu alike.
#   test_rnn_layers.sh TSSA_STREAM MODELS_DIR
set -uo pipefail
tssa=$(realpath "$1") models=$(realpath "$2")
source "$(dirname "$0")/../case_lib.sh"
kernel_cache_in_build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

# case  loops (layers x directions)  stages holding both directions' loops
while read -r name loops pairs; do
  dir="$models/$name"
  read -r -a bindings <"$dir/args.txt"
  if ! (cd "$dir" && "$tssa" --emit=stream model.ir "${bindings[@]}") >"$out/stream" 2>"$out/err"; then
    echo "FAIL: $name --emit=stream"; head -3 "$out/err"; fail=1; continue
  fi
  got=$(grep -c 'feedbackloop' "$out/stream")
  if [[ "$got" != "$loops" ]]; then
    echo "FAIL: $name: $got feedback loops, expected $loops (one per layer and direction)"; fail=1
  fi
  got=$(awk '/^  [a-z]/ { if (n == 2) pairs++; n = 0 } /feedbackloop/ { n++ }
             END { if (n == 2) pairs++; print pairs + 0 }' "$out/stream")
  if [[ "$got" != "$pairs" ]]; then
    echo "FAIL: $name: $got stages run a layer's two directions side by side, expected $pairs"; fail=1
  fi
  if grep -Eq 'filter (gru|lstm|rnn_tanh|rnn_relu)_[0-9]' "$out/stream"; then
    echo "FAIL: $name: the layer op is still one opaque filter"; fail=1
  fi
  (cd "$dir" && "$tssa" --emit=fused model.ir "${bindings[@]}") >"$out/fused" 2>"$out/err" ||
    { echo "FAIL: $name --emit=fused"; head -3 "$out/err"; fail=1; continue; }
  if grep -Eq '= aten::(gru|lstm|rnn_tanh|rnn_relu|gru_cell|lstm_cell|rnn_tanh_cell)\(' "$out/fused"; then
    echo "FAIL: $name: a layer op or cell is left after the kernels passes"; fail=1
  fi
  hoisted=$(grep -Ec '^  %[^ ]+ : Float\([0-9]+, [0-9]+, [0-9]+\) = aten::linear\(' "$out/fused")
  if [[ "$hoisted" != "$loops" ]]; then
    echo "FAIL: $name: $hoisted input projections over all steps before the loops, expected $loops"; fail=1
  fi
  groups=$(awk '/prim::Loop/ { inloop = 1 } inloop && /tssa::FusionGroup/ { n++; inloop = 0 } END { print n + 0 }' "$out/fused")
  if [[ "$groups" != "$loops" ]]; then
    echo "FAIL: $name: $groups loops with fused gates, expected $loops"; fail=1
  fi
done <<'CASES'
rnn_gru_layers 4 2
rnn_lstm_proj 4 2
rnn_lstm_unbatched 1 0
rnn_tanh_nobias 1 0
rnn_relu_nobias 4 2
CASES

# train=True with dropout between layers: refused, not run without dropout
dir="$models/rnn_gru_layers"
read -r -a bindings <"$dir/args.txt"
mkdir -p "$out/train"
cp "$dir/weights.safetensors" "$out/train/"
cp -r "$dir/inputs" "$out/train/"
sed 's/^\(  %training : bool = \)prim::GetAttr\[name="training"\](%gru)/\1prim::Constant[value=1]()/' \
  "$dir/model.ir" >"$out/train/model.ir"
if ! grep -q '%training : bool = prim::Constant\[value=1\]' "$out/train/model.ir"; then
  echo "FAIL: rnn_gru_layers/model.ir no longer reads %training from the module"; fail=1
fi
for backend in ref cpu; do
  (cd "$out/train" && "$tssa" --backend=$backend model.ir "${bindings[@]}" -o "$out/train/o") \
    >/dev/null 2>"$out/err"
  status=$?
  if ((status != 1)) || ! grep -q 'aten::gru' "$out/err" || ! grep -q 'dropout=0.25' "$out/err"; then
    echo "FAIL: GRU in training mode with dropout on $backend: exit $status, expected 1 naming aten::gru and dropout"
    cat "$out/err"; fail=1
  fi
done

# the PackedSequence overload
packed="$(dirname "$(realpath "$0")")/rnn_packed"
for backend in ref cpu; do
  (cd "$packed" && "$tssa" --backend=$backend model.ir data=data.npy batch_sizes=batch_sizes.npy \
     hx=hx.npy w_ih=w_ih.npy w_hh=w_hh.npy -o "$out/packed") >/dev/null 2>"$out/err"
  status=$?
  if ((status != 1)) || ! grep -q 'aten::gru: the PackedSequence form' "$out/err" || [[ -e "$out/packed" ]]; then
    echo "FAIL: aten::gru.data on $backend: exit $status, expected 1 and the PackedSequence message"
    cat "$out/err"; fail=1
  fi
done
exit $fail
