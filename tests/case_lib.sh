# case_lib.sh — shell functions shared by the corpus case runners
# (run_case.sh, run_tssa_case.sh). Source it; it runs nothing by itself.
# The functions run in the case directory (expected/out*.npy are PyTorch's
# outputs there).

# compare_outputs NPY_COMPARE RESULT_DIR
# Compares every expected/outN.npy with RESULT_DIR/outN.npy (NPY_COMPARE
# applies the tolerances) and checks that RESULT_DIR holds no other out*.npy.
# Prints a FAIL line per problem; returns 0 when everything matches, else 1.
compare_outputs() {
  local compare="$1" result="$2"
  local failed=0 n_expected=0 expected name n_actual
  # An unmatched glob would stay the literal pattern: say so plainly.
  if ! compgen -G 'expected/out*.npy' >/dev/null; then
    echo "FAIL: no expected/out*.npy in $(pwd)"; return 1
  fi
  for expected in expected/out*.npy; do
    n_expected=$((n_expected + 1))
    name=$(basename "$expected")
    if [[ ! -f "$result/$name" ]]; then
      echo "FAIL: missing output $name"; failed=1; continue
    fi
    "$compare" "$expected" "$result/$name" || { echo "FAIL: $name differs"; failed=1; }
  done
  n_actual=$(find "$result" -name 'out*.npy' | wc -l)
  if [[ "$n_actual" != "$n_expected" ]]; then
    echo "FAIL: $n_actual outputs written, PyTorch returned $n_expected"; failed=1
  fi
  return $failed
}
