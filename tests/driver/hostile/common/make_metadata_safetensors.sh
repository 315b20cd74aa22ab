#!/usr/bin/env bash
# make_metadata_safetensors.sh JSON OUT: a safetensors file with no tensors
# whose __metadata__ map is JSON (an object of strings), for hostile cases
# that lie in the metadata: the 8-byte little-endian header length, then
# the header, padded with spaces to a multiple of 8 bytes.
set -eu
header="{\"__metadata__\": $1}"
while (( ${#header} % 8 )); do header+=" "; done
n=${#header}
(( n < 65536 )) || { echo "header too long" >&2; exit 1; }
printf "$(printf '\\x%02x\\x%02x\\x00\\x00\\x00\\x00\\x00\\x00' $((n & 255)) $((n >> 8)))" >"$2"
printf '%s' "$header" >>"$2"
