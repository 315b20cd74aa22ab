#!/usr/bin/env bash
# One case of the hostile-input corpus (tests/driver/hostile/NAME/):
#   args     the command line after tssa-stream (shell words; $TMP is a
#            fresh scratch directory), run from the hostile/ folder
#   expect   line 1: the exit status; line 2: the first line of stderr,
#            exactly, with the scratch directory written as $TMP (empty
#            when nothing may be printed on stderr)
#   setup    optional: shell lines run first, to make inputs in $TMP
#   stdin    optional: a command whose output is piped to tssa-stream
#   check    optional: shell lines that must succeed afterwards (what a
#            failed run must not leave behind); $TMP/stdout holds stdout
# A sanitizer report on stderr fails the case whatever the status.
#   run_hostile_case.sh TSSA_STREAM CASE_DIR
set -uo pipefail
tssa="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" case_dir="$(cd "$2" && pwd)"
cd "$case_dir/.." || exit 2
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $(basename "$case_dir"): $*"; exit 1; }

[[ -f "$case_dir/expect" ]] || fail "no expect file"
want_status=$(sed -n 1p "$case_dir/expect")
want_first=$(sed -n 2p "$case_dir/expect")
[[ -n "$want_status" ]] || fail "the expect file has no status"
if [[ -f "$case_dir/setup" ]]; then
  bash -e "$case_dir/setup" || fail "setup failed"
fi
eval "args=($(cat "$case_dir/args"))"
if [[ -f "$case_dir/stdin" ]]; then
  bash -c "$(cat "$case_dir/stdin")" 2>/dev/null | timeout 300 "$tssa" "${args[@]}" >"$TMP/stdout" 2>"$TMP/stderr"
  status=${PIPESTATUS[1]}
else
  timeout 300 "$tssa" "${args[@]}" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
  status=$?
fi
got_first=$(head -n 1 "$TMP/stderr" | sed "s|$TMP|\$TMP|g")
if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|internal error' "$TMP/stderr"; then
  sed 's/^/  /' "$TMP/stderr" | head -40
  fail "a sanitizer or internal error report"
fi
[[ "$status" == "$want_status" ]] || { sed 's/^/  /' "$TMP/stderr" | head -20; fail "exit status $status, want $want_status"; }
[[ "$got_first" == "$want_first" ]] || fail "stderr begins
  got:  $got_first
  want: $want_first"
if [[ -f "$case_dir/check" ]]; then
  bash -e "$case_dir/check" || fail "the check after the run failed: $(cat "$case_dir/check" | grep -v '^#')"
fi
echo "ok: $(basename "$case_dir") (status $status)"
