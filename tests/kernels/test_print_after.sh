#!/usr/bin/env bash
# --print-after=PASS and the verifier between the kernels passes, through
# the driver:
#   - every pass name, in the order listed here (kernels/passes.c's table),
#     is accepted and prints a graph that reads back (--emit=ir), exit 0;
#     static types are there after shape_infer and not before, the groups
#     after fuse and not before; after the last pass the text is exactly
#     --emit=fused's;
#   - an unknown name exits 2 and lists the names in this order; with
#     --no-fuse or another --emit it exits 2;
#   - TSSA_VERIFY_PASSES=1 (ir_verify before and after every pass) on every
#     program of tests/models and torch 2.x's seq2seq graph: no internal
#     error, exit 0 (--emit=fused), and two full runs on the cpu backend.
#   test_print_after.sh TSSA_STREAM MODELS_DIR TORCH2_DIR
set -uo pipefail
tssa=$(realpath "$1") models=$(realpath "$2") torch2=$(realpath "$3")
source "$(dirname "$0")/../case_lib.sh"
kernel_cache_in_build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
passes=(expand_rnn_layers split_loop_tuples shape_infer fold_decided decompose_cells fold_embedding_linear
        sink_sliced_products strip_mine hoist_input_products split_bias invert_whole_assigns unpack_views fuse horizontal batch_heads)

# fastrnns_lstm carries (h, c) tuples (split_loop_tuples) and fuses;
# batch_loop is a data-parallel loop (horizontal).
for name in fastrnns_lstm batch_loop; do
  dir="$models/$name"
  read -r -a bindings <"$dir/args.txt"
  for pass in "${passes[@]}"; do
    (cd "$dir" && "$tssa" --print-after="$pass" model.ir "${bindings[@]}") >"$out/$pass.ir" 2>"$out/err"
    status=$?
    if ((status != 0)) || [[ ! -s "$out/$pass.ir" || -s "$out/err" ]]; then
      echo "FAIL: $name --print-after=$pass: exit $status"; head -3 "$out/err"; fail=1
    elif ! "$tssa" --emit=ir "$out/$pass.ir" >/dev/null 2>"$out/err"; then
      echo "FAIL: $name --print-after=$pass: the printed graph does not read back"
      head -3 "$out/err"; fail=1
    fi
  done
  (cd "$dir" && "$tssa" --emit=fused model.ir "${bindings[@]}") >"$out/fused.ir"
  if ! cmp -s "$out/fused.ir" "$out/batch_heads.ir"; then
    echo "FAIL: $name: --print-after=batch_heads (the last pass) differs from --emit=fused"; fail=1
  fi
  if grep -q 'tssa::FusionGroup' "$out/unpack_views.ir" || ! grep -q 'tssa::FusionGroup' "$out/fuse.ir"; then
    echo "FAIL: $name: the groups should appear after fuse, not before"; fail=1
  fi
done
# the stop is where it says: static types appear after shape_infer, not
# before (fastrnns_lstm's, printed last by the loop above, are batch_loop's)
dir="$models/fastrnns_lstm"
read -r -a bindings <"$dir/args.txt"
for pass in split_loop_tuples shape_infer; do
  (cd "$dir" && "$tssa" --print-after="$pass" model.ir "${bindings[@]}") >"$out/$pass.ir"
done
typed_before=$(grep -o 'Float([0-9]' "$out/split_loop_tuples.ir" | wc -l)
typed_after=$(grep -o 'Float([0-9]' "$out/shape_infer.ir" | wc -l)
if ((typed_before != 0 || typed_after == 0)); then
  echo "FAIL: fastrnns_lstm: $typed_before static types after split_loop_tuples, $typed_after after shape_infer"
  fail=1
fi

# refusals
dir="$models/lstm_loop"
read -r -a bindings <"$dir/args.txt"
(cd "$dir" && "$tssa" --print-after=vertical model.ir "${bindings[@]}") >"$out/o" 2>"$out/err"
status=$?
list="expand_rnn_layers, split_loop_tuples, shape_infer, fold_decided, decompose_cells, fold_embedding_linear, sink_sliced_products, strip_mine, hoist_input_products, split_bias, invert_whole_assigns, unpack_views, fuse, horizontal, batch_heads"
if ((status != 2)) || [[ -s "$out/o" ]] || ! grep -qF "unknown pass in --print-after=vertical (the kernels passes, in order: $list)" "$out/err"; then
  echo "FAIL: --print-after=vertical: exit $status, expected 2 and the list of passes"; cat "$out/err"; fail=1
fi
for extra in --no-fuse --emit=c --emit=tssa; do
  (cd "$dir" && "$tssa" --print-after=fuse "$extra" model.ir "${bindings[@]}") >"$out/o" 2>"$out/err"
  status=$?
  if ((status != 2)) || [[ -s "$out/o" ]]; then
    echo "FAIL: --print-after=fuse $extra: exit $status, expected 2"; fail=1
  fi
done

# the verifier between passes, on the whole models corpus
export TSSA_VERIFY_PASSES=1
verified=0
for dir in "$models"/*/; do
  [[ -f "$dir/model.ir" && -f "$dir/args.txt" ]] || continue
  read -r -a bindings <"$dir/args.txt"
  (cd "$dir" && "$tssa" --emit=fused model.ir "${bindings[@]}") >/dev/null 2>"$out/err"
  status=$?
  if ((status != 0)) || grep -q 'internal error' "$out/err"; then
    echo "FAIL: TSSA_VERIFY_PASSES=1 $(basename "$dir"): exit $status"; head -3 "$out/err"; fail=1
  fi
  verified=$((verified + 1))
done
dir="$models/seq2seq_greedy"
read -r -a bindings <"$dir/args.txt"
if ! (cd "$dir" && "$tssa" --emit=fused "$torch2/seq2seq_greedy.ir" "${bindings[@]}") >/dev/null 2>"$out/err"; then
  echo "FAIL: TSSA_VERIFY_PASSES=1 torch2/seq2seq_greedy"; head -3 "$out/err"; fail=1
fi
for name in lstm_loop long_batch_map; do
  dir="$models/$name"
  read -r -a bindings <"$dir/args.txt"
  if ! (cd "$dir" && "$tssa" --backend=cpu model.ir "${bindings[@]}" -o "$out/$name") >/dev/null 2>"$out/err"; then
    echo "FAIL: TSSA_VERIFY_PASSES=1 $name on the cpu backend"; head -3 "$out/err"; fail=1
  fi
done
if ((verified < 60)); then
  echo "FAIL: only $verified programs found under $models"; fail=1
fi
((fail == 0)) && echo "print_after: ${#passes[@]} passes printed; $verified programs verified between passes"
exit $fail
