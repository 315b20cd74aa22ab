#!/usr/bin/env bash
# What static shapes decide at the top level, and writes into self, keep
# the shapes after them static (kernels/shape_infer.c), and isinstance of a
# value cast to a Union folds from the cast's input (functionalize/
# constant_fold.c). Each case must show, in --print-after=shape_infer, no
# tensor value of unknown shape (typed plain `Tensor`) from the first line
# matching its pattern on, and its cpu run must match PyTorch's expected/
# (npy_compare, rtol 1e-4 atol 1e-5).
#   shape_decided/masked_write_then_grid  from aten::index_put on: x[mask] = v
#                                         with v of data-dependent shape
#   shape_decided/size_list_reshape       everywhere: x.size(), its items, a
#                                         rank test, reshape to the list
#   shape_decided/carried_list_reads      everywhere, and no loop left in
#                                         --emit=stream: short loops that read
#                                         a carried list by index unrolled,
#                                         the lists' items followed
#   shape_decided/dict_cache_loop         everywhere, and no loop left: a
#                                         dict cache's keys followed (`in`,
#                                         reads, len fold), a scalar while
#                                         loop run at compile time
#   models/isinstance_union               everywhere, and no isinstance filter
#                                         is left in --emit=stream (each is
#                                         decided at compile time)
#   test_shape_decided.sh TSSA_STREAM NPY_COMPARE TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2") tests=$(realpath "$3")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
check() {   # DIR PATTERN [no-loop]
  local dir=$1 pattern=$2 no_loop=${3:-} name
  name=$(basename "$dir")
  read -r -a bindings < "$dir/args.txt" || true
  if ! (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --print-after=shape_infer) > "$out/$name.ir"; then
    echo "FAIL: $name: --print-after=shape_infer"; fail=1; return
  fi
  if ! grep -q -e "$pattern" "$out/$name.ir"; then
    echo "FAIL: $name: no line matches '$pattern'"; fail=1; return
  fi
  local unknown
  # (prim::Uninitialized stands for a value on raising paths only)
  unknown=$(sed -n "/$pattern/,\$p" "$out/$name.ir" | grep -E ' : Tensor = ' | grep -v 'prim::Uninitialized')
  if [[ -n $unknown ]]; then
    echo "FAIL: $name: values of unknown shape from '$pattern' on:"; echo "$unknown"; fail=1
  fi
  if [[ -n $no_loop ]] &&
     (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --emit=stream) | grep -n -i -E 'loop|feedback'; then
    echo "FAIL: $name: a loop is left in the stream graph"; fail=1
  fi
  if ! (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --backend=cpu -o "$out/$name") >/dev/null; then
    echo "FAIL: $name: the cpu run"; fail=1; return
  fi
  for want in "$dir"/expected/out*.npy; do
    "$compare" "$want" "$out/$name/$(basename "$want")" --rtol 1e-4 --atol 1e-5 ||
      { echo "FAIL: $name: $(basename "$want") differs from PyTorch's"; fail=1; }
  done
  echo "checked: $name"
}
check "$tests/kernels/shape_decided/masked_write_then_grid" "aten::index_put"
check "$tests/kernels/shape_decided/size_list_reshape" "^graph"
check "$tests/kernels/shape_decided/carried_list_reads" "^graph" no-loop
check "$tests/kernels/shape_decided/dict_cache_loop" "^graph" no-loop
check "$tests/models/isinstance_union" "^graph"
dir="$tests/models/isinstance_union"
read -r -a bindings < "$dir/args.txt" || true
if (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --emit=stream) | grep -n "isinstance"; then
  echo "FAIL: isinstance_union: an isinstance runs at run time"; fail=1
fi
[[ $fail == 0 ]] && echo "ok: static shapes after index_put, size lists, unrolled container loops and isinstance"
exit $fail
