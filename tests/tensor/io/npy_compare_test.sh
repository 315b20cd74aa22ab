#!/bin/sh
# npy_compare_test.sh NPY_COMPARE — checks the comparator's verdicts and exit
# codes on files numpy wrote (tests/tensor/io/compare/, made by gen_files.py).
# Run from tests/ (ctest does).
cmp_tool=$1
dir=tensor/io/compare
failures=0

# expect STATUS WORDS ARGS...: runs the tool, checks its exit status and that
# its output contains WORDS (empty: anything).
expect() {
    want=$1 words=$2
    shift 2
    out=$("$cmp_tool" "$@" 2>&1)
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: npy_compare $*: exit $got, expected $want"
        echo "$out"
        failures=$((failures + 1))
    elif [ -n "$words" ] && ! printf '%s' "$out" | grep -qF -- "$words"; then
        echo "FAIL: npy_compare $*: output lacks '$words':"
        echo "$out"
        failures=$((failures + 1))
    fi
}

expect 0 "" $dir/base.npy $dir/base_copy.npy                 # NaN == NaN, inf == inf
expect 0 "" $dir/base.npy $dir/base_close.npy                # inside the default tolerances
expect 1 "at [0, 0]" $dir/base.npy $dir/base_close.npy --rtol 0 --atol 0
expect 0 "" $dir/base.npy $dir/base_far.npy --atol=0.02
expect 1 "at [0, 1]: expected -2, actual -2.00999999" $dir/base.npy $dir/base_far.npy
expect 1 "max abs error" $dir/base.npy $dir/base_far.npy
expect 1 "at [1, 0]: expected inf, actual -inf" $dir/base.npy $dir/base_neg_inf.npy
expect 1 "at [0, 2]: expected nan, actual 0" $dir/base.npy $dir/base_not_nan.npy
expect 1 "dtype differs: expected float32, actual float64" $dir/base.npy $dir/base_f64.npy
expect 1 "shape differs: expected (2, 3), actual (3, 2)" $dir/base.npy $dir/base_transposed.npy
expect 0 "" $dir/ints.npy $dir/ints.npy
expect 1 "at [2]: expected 3, actual 4" $dir/ints.npy $dir/ints_off_by_one.npy
expect 1 "at [2]: expected 3, actual 4" $dir/ints.npy $dir/ints_off_by_one.npy --atol 5
expect 1 "at [1]: expected 0, actual 1" $dir/bools.npy $dir/bools_flipped.npy
expect 2 "missing.npy: error: cannot open" $dir/base.npy $dir/missing.npy
expect 2 "error: bad header" $dir/base.npy tensor/io/npy/bad/missing_colon.npy
expect 2 "usage" $dir/base.npy
expect 2 "usage" $dir/base.npy $dir/base.npy $dir/base.npy
expect 2 "--rtol needs a non-negative number" $dir/base.npy $dir/base.npy --rtol abc
expect 2 "--atol needs a non-negative number" $dir/base.npy $dir/base.npy --atol -1
expect 2 "unknown option" $dir/base.npy $dir/base.npy --tolerance 1

if [ "$failures" -ne 0 ]; then
    echo "npy_compare_test: $failures failures"
    exit 1
fi
echo "npy_compare_test: all passed"
