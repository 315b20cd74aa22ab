#!/usr/bin/env bash
# The kernel cache is used only when it can be trusted, and repairs itself
# (util/cache_trust.c, kernels/cc_jit.c), run through tssa-stream on the
# linear_sin model (one fused kernel) with expected outputs from PyTorch:
#   trust   (root only: it chowns to uid 65534; else exit 77)
#           - a cache folder of another user, mode 1777, holding a planted
#             KEY.so (the real kernel plus a constructor that writes a marker
#             file) under the exact key the run uses, with a matching sum;
#           - a planted KEY.so of ours but mode 0666, in our own cache;
#           - KEY.so a symbolic link to a planted file outside the cache.
#           Each run must succeed with PyTorch's outputs, never run the
#           planted constructor (no marker), warn once naming the path and
#           why, leave no temporary folder behind, and (for entries in our
#           own cache) leave a repaired entry that the next run hits.
#   repair  a cached KEY.so cut short (dlopen would die of SIGBUS), replaced
#           by another program's valid kernel object, or without its sum:
#           the next run succeeds (outputs as PyTorch's), compiles again,
#           and the run after it is a cache hit.
#   cc      CC with arguments: "cc -O0" runs (a separate cache entry from
#           plain cc), a quoted path with a space works, a CC naming a
#           missing program is the clear "not found" error (exit 1).
#   full    (root only: it mounts tmpfs; else exit 77) a cache on a file
#           system with no room for the object (12 KiB tmpfs: the linker
#           fails "No space left on device") and one mounted noexec (the
#           object compiled there does not dlopen): each run succeeds with
#           PyTorch's outputs, compiling in a temporary folder after a
#           warning that names the cache and why (before: exit 1).
#   test_cache_trust.sh MODE TSSA_STREAM NPY_COMPARE MODELS_DIR
set -uo pipefail
mode="$1" tssa=$(realpath "$2") compare=$(realpath "$3") models=$(realpath "$4")
case_dir="$models/linear_sin"
other_case="$models/llama_rmsnorm"
if [[ ( "$mode" == trust || "$mode" == full ) && "$(id -u)" != 0 ]]; then
  echo "skipped: the $mode cases chown files or mount file systems (needs root)"
  exit 77
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir "$work/tmp"
export TMPDIR="$work/tmp"
export TSSA_KERNEL_CFLAGS="-Wall -Wextra -Werror"
unset CC CXX XDG_CACHE_HOME
fail=0
marker="$work/marker"

# run CACHE NAME [VAR=VALUE...]: the case with TSSA_CACHE_DIR=CACHE (--stats),
# outputs in $work/NAME, messages in $work/NAME.err, exit status in $status.
run() {
  local cache="$1" name="$2"
  shift 2
  (cd "$case_dir" && env TSSA_CACHE_DIR="$cache" "$@" "$tssa" --backend=cpu --stats model.ir \
     x=inputs/x.npy --weights weights.safetensors -o "$work/$name") 2>"$work/$name.err"
  status=$?
}

# expect_ok NAME: the run succeeded with PyTorch's outputs.
expect_ok() {
  local name="$1"
  if ((status != 0)); then
    echo "FAIL: $name: exit status $status"; cat "$work/$name.err"; fail=1; return
  fi
  "$compare" "$case_dir/expected/out0.npy" "$work/$name/out0.npy" || { echo "FAIL: $name: out0.npy differs"; fail=1; }
}

# expect_stat NAME "cache hit|cache miss"
expect_stat() {
  grep -q "stats: $2\$" "$work/$1.err" || { echo "FAIL: $1: not a $2:"; cat "$work/$1.err"; fail=1; }
}

# expect_warning NAME PART...: exactly one cache warning, holding each PART.
expect_warning() {
  local name="$1" n
  shift
  n=$(grep -c "warning: not using the cache" "$work/$name.err")
  if [[ "$n" != 1 ]]; then
    echo "FAIL: $name: $n cache warnings, expected 1:"; cat "$work/$name.err"; fail=1; return
  fi
  for part in "$@"; do
    grep "warning: not using the cache" "$work/$name.err" | grep -qF -- "$part" ||
      { echo "FAIL: $name: the warning lacks '$part':"; cat "$work/$name.err"; fail=1; }
  done
}

expect_no_marker() {
  if [[ -e "$marker" ]]; then
    echo "FAIL: $1: the planted object's constructor ran"; fail=1; rm -f "$marker"
  fi
}

expect_no_temp() {
  if [[ -n "$(ls -A "$TMPDIR")" ]]; then
    echo "FAIL: $1: left in \$TMPDIR:"; ls -la "$TMPDIR"; fail=1; rm -rf "${TMPDIR:?}"/*
  fi
}

# sum_of FILE: the sidecar text for FILE, computed here independently: the
# 128-bit FNV-1a (offset basis 0x6c62272e07bb014262b821756295c58d, prime
# 2^88 + 0x13b) of the 8-byte little-endian length, then the bytes.
sum_of() {
  /usr/bin/python3 - "$1" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
h, prime, mask = 0x6c62272e07bb014262b821756295c58d, (1 << 88) + 0x13B, (1 << 128) - 1
for b in struct.pack("<Q", len(data)) + data:
    h = ((h ^ b) * prime) & mask
print("tssa-stream-sum 1 %d %032x" % (len(data), h))
EOF
}

# The entry a run makes in a trusted cache: its key's files.
good="$work/good"
run "$good" first
expect_ok first
expect_stat first "cache miss"
so=$(ls "$good"/*.so 2>/dev/null | head -1)
if [[ -z "$so" ]]; then
  echo "FAIL: no kernel object in $good"; ls -la "$good"; exit 1
fi
key=$(basename "$so" .so)
cp "$so" "$work/legit.so"

# $work/evil.so: the real kernel's source plus a constructor that creates
# $marker.
cat >"$work/ctor.c" <<EOF
#include <stdio.h>
__attribute__((constructor)) static void planted(void)
{
    FILE *f = fopen("$marker", "w");
    if (f)
        fclose(f);
}
EOF
cc -O2 -fopenmp -fno-math-errno -std=c11 -shared -fPIC -o "$work/evil.so" "$good/$key.c" "$work/ctor.c" -lm ||
  { echo "FAIL: cannot build the planted object"; exit 1; }

# plant CACHE OWNER MODE: KEY.c (the real source), KEY.so (evil.so) and a
# sum that matches it, owned by OWNER, KEY.so with MODE.
plant() {
  local cache="$1" owner="$2" mode="$3"
  cp "$good/$key.c" "$cache/$key.c"
  cp "$work/evil.so" "$cache/$key.so"
  sum_of "$cache/$key.so" >"$cache/$key.so.sum"
  chown "$owner" "$cache/$key.c" "$cache/$key.so" "$cache/$key.so.sum"
  chmod "$mode" "$cache/$key.so"
}

case "$mode" in
trust)
  # The planted object does run when loaded (the test can fail).
  cc -O2 -std=c11 -o "$work/dlopen_it" -x c - -ldl <<'EOF' || { echo "FAIL: cannot build dlopen_it"; exit 1; }
#include <dlfcn.h>
int main(int argc, char **argv) { return argc == 2 && dlopen(argv[1], RTLD_NOW) ? 0 : 1; }
EOF
  "$work/dlopen_it" "$work/evil.so" && [[ -e "$marker" ]] || { echo "FAIL: the planted object does not mark"; fail=1; }
  rm -f "$marker"

  # 1. another user's world-writable cache folder
  shared="$work/shared"
  mkdir "$shared"
  chown 65534:65534 "$shared"
  chmod 1777 "$shared"
  plant "$shared" 65534:65534 0755
  run "$shared" planted_dir
  expect_ok planted_dir
  expect_no_marker planted_dir
  expect_warning planted_dir "$shared" "uid 65534" "mode 1777"
  expect_no_temp planted_dir
  cmp -s "$shared/$key.so" "$work/evil.so" || { echo "FAIL: planted_dir: the foreign cache was written"; fail=1; }

  # 2. an entry of ours that others may write
  mine="$work/mine"
  cp -a "$good" "$mine"
  plant "$mine" 0:0 0666
  run "$mine" writable_entry
  expect_ok writable_entry
  expect_no_marker writable_entry
  expect_warning writable_entry "$mine/$key.so" "mode 0666"
  expect_no_temp writable_entry
  run "$mine" writable_entry_again
  expect_ok writable_entry_again
  expect_stat writable_entry_again "cache hit"
  expect_no_marker writable_entry_again
  grep -q "warning" "$work/writable_entry_again.err" && { echo "FAIL: the repaired entry still warns"; fail=1; }

  # 3. an entry that is a symbolic link to a file outside the cache
  link="$work/link"
  cp -a "$good" "$link"
  mkdir "$work/outside"
  plant "$work/outside" 0:0 0755
  rm "$link/$key.so"
  ln -s "$work/outside/$key.so" "$link/$key.so"
  cp "$work/outside/$key.so.sum" "$link/$key.so.sum"
  run "$link" symlink_entry
  expect_ok symlink_entry
  expect_no_marker symlink_entry
  expect_warning symlink_entry "$link/$key.so" "symbolic link"
  [[ -L "$link/$key.so" ]] && { echo "FAIL: symlink_entry: the link was left in place"; fail=1; }
  cmp -s "$work/outside/$key.so" "$work/evil.so" || { echo "FAIL: symlink_entry: the link's target was written"; fail=1; }
  run "$link" symlink_entry_again
  expect_ok symlink_entry_again
  expect_stat symlink_entry_again "cache hit"
  ;;
repair)
  # 1. cut short
  cache="$work/repair"
  cp -a "$good" "$cache"
  truncate -s 4096 "$cache/$key.so"
  run "$cache" truncated
  expect_ok truncated
  expect_stat truncated "cache miss"
  run "$cache" truncated_again
  expect_ok truncated_again
  expect_stat truncated_again "cache hit"

  # 2. another program's kernel object (valid ELF, other symbols)
  (cd "$other_case" && read -r -a b <args.txt && TSSA_CACHE_DIR="$work/other" "$tssa" --backend=cpu model.ir \
     "${b[@]}" -o "$work/other_out") 2>"$work/other.err" || { echo "FAIL: other program:"; cat "$work/other.err"; fail=1; }
  other_so=$(ls "$work/other"/*.so 2>/dev/null | head -1)
  [[ -n "$other_so" && "$other_so" != */$key.so ]] || { echo "FAIL: no other kernel object"; exit 1; }
  cp "$other_so" "$cache/$key.so"
  run "$cache" wrong_kernel
  expect_ok wrong_kernel
  expect_stat wrong_kernel "cache miss"
  run "$cache" wrong_kernel_again
  expect_ok wrong_kernel_again
  expect_stat wrong_kernel_again "cache hit"

  # 3. the wrong kernel with its own sum beside it (a copied pair): its
  #    symbols give it away
  cp "$other_so" "$cache/$key.so"
  cp "$other_so.sum" "$cache/$key.so.sum" 2>/dev/null || sum_of "$other_so" >"$cache/$key.so.sum"
  run "$cache" wrong_pair
  expect_ok wrong_pair
  expect_stat wrong_pair "cache miss"

  # 4. no sum
  rm -f "$cache/$key.so.sum"
  run "$cache" no_sum
  expect_ok no_sum
  expect_stat no_sum "cache miss"
  [[ -f "$cache/$key.so.sum" ]] || { echo "FAIL: no_sum: the sum was not written again"; fail=1; }
  grep -q "warning" "$work"/{truncated,wrong_kernel,wrong_pair,no_sum}*.err &&
    { echo "FAIL: a repair warned"; grep warning "$work"/*.err; fail=1; }
  ;;
cc)
  cache="$work/cc"
  run "$cache" plain_cc CC=cc
  expect_ok plain_cc
  run "$cache" cc_o0 "CC=cc -O0"
  expect_ok cc_o0
  expect_stat cc_o0 "cache miss"     # another compiler command, another entry
  run "$cache" cc_o0_again "CC=  cc   -O0 "
  expect_ok cc_o0_again
  mkdir "$work/my cc"
  ln -s "$(command -v cc)" "$work/my cc/cc"
  run "$cache" quoted "CC=\"$work/my cc/cc\" -O1"
  expect_ok quoted
  run "$cache" missing "CC=no-such-compiler-tssa -O0"
  if ((status != 1)); then
    echo "FAIL: missing: exit status $status, expected 1"; cat "$work/missing.err"; fail=1
  fi
  grep -qF "the kernel compiler 'no-such-compiler-tssa -O0' was not found" "$work/missing.err" ||
    { echo "FAIL: missing: no clear message:"; cat "$work/missing.err"; fail=1; }
  ;;
full)
  mounted=()
  trap 'for m in "${mounted[@]}"; do umount "$m"; done; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
  mkdir "$work/full" "$work/noexec"
  if ! mount -t tmpfs -o size=12k,mode=0700 tmpfs "$work/full" 2>/dev/null; then
    echo "skipped: cannot mount a tmpfs here"; exit 77
  fi
  mounted+=("$work/full")
  mount -t tmpfs -o size=1m,mode=0700,noexec tmpfs "$work/noexec" && mounted+=("$work/noexec")
  run "$work/full" full_cache
  expect_ok full_cache
  grep -qF "warning: the kernel cache '$work/full' is not usable (no room left there" "$work/full_cache.err" ||
    { echo "FAIL: full_cache: no warning naming the cache:"; cat "$work/full_cache.err"; fail=1; }
  expect_no_temp full_cache
  run "$work/noexec" noexec_cache
  expect_ok noexec_cache
  grep -qF "warning: the kernel cache '$work/noexec' is not usable (the kernels compiled there do not load" \
    "$work/noexec_cache.err" || { echo "FAIL: noexec_cache: no warning naming the cache:"; cat "$work/noexec_cache.err"; fail=1; }
  expect_no_temp noexec_cache
  ;;
*)
  echo "usage: test_cache_trust.sh trust|repair|cc|full TSSA_STREAM NPY_COMPARE MODELS_DIR"; exit 2
  ;;
esac
if ((fail == 0)); then echo "ok: $mode"; fi
exit $fail
