#!/usr/bin/env bash
# Prints and warnings inside a program's blocks no longer make it one
# opaque filter: --emit=stream of the case must not say "the whole program
# is one filter", and the cpu backend's messages (stdout and stderr, in
# order, as often, same text) must equal the ref interpreter's. Where
# mpirun is there, so must those of a run on 2 ranks with rates that favour
# spreading (only rank 0's output is shown: the printing filter stays there).
#   check_print_order.sh TSSA CASE_DIR
set -uo pipefail
tssa="$1" case_dir="$2"
tests_dir="$(cd "$(dirname "$0")/.." && pwd)"
source "$tests_dir/case_lib.sh"
kernel_cache_in_build
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$tssa" --emit=stream model.ir "${bindings[@]}" > "$tmp/stream" || { echo "FAIL: --emit=stream"; exit 1; }
if grep -n "whole program is one filter" "$tmp/stream"; then
  echo "FAIL: the program is still one filter"; exit 1
fi
for backend in ref cpu; do
  "$tssa" --backend=$backend model.ir "${bindings[@]}" > "$tmp/$backend.out" 2> "$tmp/$backend.err" ||
    { echo "FAIL: --backend=$backend"; cat "$tmp/$backend.err"; exit 1; }
done
if ! grep -q . "$tmp/ref.err" && ! grep -q . "$tmp/ref.out"; then
  echo "FAIL: ref printed no message"; exit 1
fi
for stream in out err; do
  if ! diff "$tmp/ref.$stream" "$tmp/cpu.$stream"; then
    echo "FAIL: cpu's std$stream differs from ref's"; exit 1
  fi
done
if command -v mpirun >/dev/null && [[ "$("$tssa" --version)" == *" mpi"* ]]; then
  # (sanitizer builds: Open MPI's own allocations are not leak-checked, as
  # in tests/backends/mpi/run_mpi_case.sh)
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 mpirun --oversubscribe --allow-run-as-root --bind-to none -np 2 "$tssa" \
    --rates "$tests_dir/backends/mpi/spread.json" model.ir "${bindings[@]}" > "$tmp/mpi.out" 2> "$tmp/mpi.err" ||
    { echo "FAIL: mpirun -np 2"; cat "$tmp/mpi.err"; exit 1; }
  for stream in out err; do
    if ! diff "$tmp/ref.$stream" "$tmp/mpi.$stream"; then
      echo "FAIL: std$stream on 2 ranks differs from ref's"; exit 1
    fi
  done
fi
echo "ok: $(grep -c . "$tmp/ref.err") stderr and $(grep -c . "$tmp/ref.out") stdout lines as ref"
