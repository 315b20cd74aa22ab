#!/usr/bin/env bash
# The lowered stream of a corpus case, printed (--emit=stream), must read
# back as a .str file and print the same text (less the lowering's `//`
# comments, which the reader skips), and must schedule.
#   check_roundtrip.sh TSSA_STREAM CASE_DIR
set -uo pipefail
tssa="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tssa" --emit=stream model.ir "${bindings[@]}" > "$tmp/a.str" || { echo "FAIL: lowering"; exit 1; }
"$tssa" --emit=stream "$tmp/a.str" > "$tmp/b.str" || { echo "FAIL: reading the .str back"; exit 1; }
diff -u <(grep -v '^ *//' "$tmp/a.str") "$tmp/b.str" || { echo "FAIL: the text does not round-trip"; exit 1; }
"$tssa" --emit=schedule "$tmp/a.str" > /dev/null || { echo "FAIL: the stream does not schedule"; exit 1; }
