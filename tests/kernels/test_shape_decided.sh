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
#                                         loop run at compile time; no filter
#                                         that pops nothing (arange of
#                                         compile-time sizes runs once)
#   models/ta_melscale                    from index_put on; no filter that
#                                         pops nothing (the filter bank, from
#                                         linspace, is computed at compile time)
#   models/module_state_dict_cache        everywhere, no loop, no such filter
#                                         (the anchor grids: arange, repeat)
#   models/mmdet_fpn_inplace              everywhere, no loop (the top-down
#                                         path unrolled), and no assign filter
#                                         (`laterals[i - 1] += up`: an
#                                         immut::assign of one shape and dtype
#                                         is its value, kernels/fold_decided.c)
#   models/isinstance_union               everywhere, and no isinstance filter
#                                         is left in --emit=stream (each is
#                                         decided at compile time)
#   test_shape_decided.sh TSSA_STREAM NPY_COMPARE TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2") tests=$(realpath "$3")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
check() {   # DIR PATTERN [no-loop] [no-source] [no-assign]
  local dir=$1 pattern=$2 flags=" ${*:3} " name
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
  (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --emit=stream) > "$out/$name.str"
  if [[ $flags == *" no-loop "* ]] && grep -n -i -E 'loop|feedback' "$out/$name.str"; then
    echo "FAIL: $name: a loop is left in the stream graph"; fail=1
  fi
  # a filter that pops nothing computes from compile-time values only
  if [[ $flags == *" no-source "* ]] && grep -n -E '^ *filter [A-Za-z0-9_]+ push' "$out/$name.str"; then
    echo "FAIL: $name: a filter computes from constants at run time"; fail=1
  fi
  if [[ $flags == *" no-assign "* ]] && grep -n -E '^ *filter assign_' "$out/$name.str"; then
    echo "FAIL: $name: a whole-tensor immut::assign runs as a copy"; fail=1
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
check "$tests/kernels/shape_decided/dict_cache_loop" "^graph" no-loop no-source
check "$tests/models/isinstance_union" "^graph"
check "$tests/models/ta_melscale" "aten::index_put" no-source
check "$tests/models/module_state_dict_cache" "^graph" no-loop no-source
check "$tests/models/mmdet_fpn_inplace" "^graph" no-loop no-assign
dir="$tests/models/isinstance_union"
read -r -a bindings < "$dir/args.txt" || true
if (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --emit=stream) | grep -n "isinstance"; then
  echo "FAIL: isinstance_union: an isinstance runs at run time"; fail=1
fi
[[ $fail == 0 ]] && echo "ok: static shapes after index_put, size lists, unrolled container loops, isinstance, constant tensors"
exit $fail
