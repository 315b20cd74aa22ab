#!/usr/bin/env bash
# Loops whose trip count is int arithmetic on sizes that only shape
# inference knows (aten::len / aten::size of a computed tensor, then
# aten::sub, aten::add, aten::mul, aten::floordiv, aten::neg): decided by
# kernels_decide_scalar, folded by fold_decided, they lower to a feedback
# loop with static rates instead of one opaque filter. Each case must show
# no "is one filter" comment and a feedback loop in --emit=stream, and its
# cpu run must match PyTorch's expected/ (npy_compare, rtol 1e-4 atol 1e-5).
#   static_trips/trips_from_intermediate  (len(cat(linspace(0, 1, n), zeros(1))) - 1) // 2
#   models/kdiffusion_heun                k-diffusion's range(len(sigmas) - 1)
#   test_static_trips.sh TSSA_STREAM NPY_COMPARE TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2") tests=$(realpath "$3")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
for dir in "$tests/kernels/static_trips/trips_from_intermediate" "$tests/models/kdiffusion_heun"; do
  name=$(basename "$dir")
  read -r -a bindings < "$dir/args.txt" || true
  if ! (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --emit=stream) > "$out/$name.stream"; then
    echo "FAIL: $name: --emit=stream"; fail=1; continue
  fi
  if grep -n "is one filter" "$out/$name.stream"; then
    echo "FAIL: $name: a loop or the program stays one filter"; fail=1
  fi
  if ! grep -q "a feedback loop" "$out/$name.stream"; then
    echo "FAIL: $name: no feedback loop in --emit=stream:"; cat "$out/$name.stream"; fail=1
  fi
  if ! (cd "$dir" && "$tssa" model.ir "${bindings[@]}" --backend=cpu -o "$out/$name") >/dev/null; then
    echo "FAIL: $name: the cpu run"; fail=1; continue
  fi
  for want in "$dir"/expected/out*.npy; do
    "$compare" "$want" "$out/$name/$(basename "$want")" --rtol 1e-4 --atol 1e-5 ||
      { echo "FAIL: $name: $(basename "$want") differs from PyTorch's"; fail=1; }
  done
  [[ $fail == 0 ]] && echo "ok: $name lowers to a feedback loop and matches PyTorch"
done
exit $fail
