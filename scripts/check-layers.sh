#!/usr/bin/env bash
# check-layers.sh — fails when a source file uses a layer above its own.
#
#   scripts/check-layers.sh [--root DIR] [--objects DIR]
#
# The order of the layers is declared once, in DIR/layers.txt (lowest first,
# each with its folders and its public headers in include/tssa/). Two kinds of
# arrows are read:
#   calls     each object file's undefined symbols (nm) are looked up among the
#             symbols the other object files define;
#   includes  each source's and public header's #include "..." lines.
# An arrow may point into its own folder or to a layer listed earlier. It may
# not point to a later layer, to a sibling folder listed on the same line
# (siblings stand alone), or to another folder's private header (one beside its
# sources: other folders use the public headers). Each violation is printed as
# FILE: WHAT, naming the symbol or the header; the status is then 1 (2 for a
# usage or setup problem). Object files are looked for under --objects
# (default DIR/build, as scripts/build.sh makes it); CMake's object names
# (CMakeFiles/T.dir/<source path>.o) give each object its source path. Files
# outside the declared folders (tests, experiments, fuzz) are clients of every
# layer and are not checked.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
objects=""
while (($#)); do
  case "$1" in
    --root) root="$(cd "$2" && pwd)"; shift 2 ;;
    --objects) objects="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-layers: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
objects="${objects:-$root/build}"
layers="$root/layers.txt"
[[ -f "$layers" ]] || { echo "check-layers: $layers: no such file" >&2; exit 2; }
[[ -d "$objects" ]] || { echo "check-layers: $objects: no build folder (build first: scripts/build.sh)" >&2; exit 2; }
objects="$(cd "$objects" && pwd)"

# Only the top-level targets' objects: their names mirror the source tree from
# the root (objects of targets in subfolders such as tests/ are named from there).
mapfile -t objs < <(find "$objects/CMakeFiles" -name '*.o' -path '*/CMakeFiles/*.dir/*' 2>/dev/null | sort)
((${#objs[@]})) || { echo "check-layers: no object files under $objects (build first: scripts/build.sh)" >&2; exit 2; }

cd "$root"
mapfile -t srcs < <(find . -path ./.git -prune -o \( -name '*.c' -o -name '*.h' \) -type f -print \
                    | sed 's|^\./||' | sort)

# Stream 1: the layer table. Stream 2: "SYM obj name type" lines from nm.
# Stream 3: "INC file line target" lines from the sources.
{
  awk '!/^[[:space:]]*(#|$)/ { print "LAYER", NR, $0 }' "$layers"
  nm -A -P "${objs[@]}" 2>/dev/null | awk '{ obj = $1; sub(/:$/, "", obj); print "SYM", obj, $2, $3 }'
  for f in "${srcs[@]}"; do
    awk -v f="$f" '/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ {
        t = $0; sub(/^[^"]*"/, "", t); sub(/".*$/, "", t); print "INC", f, FNR, t }' "$f"
  done
} | awk '
function folder_of(path,    best, f) {
    best = ""
    for (f in rank_of_folder)
        if (index(path, f "/") == 1 && length(f) > length(best))
            best = f
    return best
}
# The source path of an object file: what follows the last ".dir/", less ".o".
function source_of(obj,    s) {
    s = obj
    sub(/^.*\.dir\//, "", s)
    sub(/\.o$/, "", s)
    return s
}
function report(file, what) {
    print file ": " what
    bad++
}
$1 == "LAYER" {
    nlayers++
    name = $3
    layer_name[nlayers] = name
    for (i = 4; i <= NF; i++) {
        if ($i ~ /\.h$/) {
            header_layer["include/tssa/" $i] = nlayers
        } else {
            rank_of_folder[$i] = nlayers
        }
    }
    next
}
$1 == "SYM" {
    src = source_of($2)
    f = folder_of(src)
    if (f == "")
        next
    objfolder[$2] = f
    objsrc[$2] = src
    if ($4 == "U") {
        nuse++
        use_obj[nuse] = $2
        use_sym[nuse] = $3
    } else if ($4 ~ /^[TDBRCVWGS]$/) {
        def_src[$3] = src
        def_folder[$3] = f
    }
    next
}
$1 == "INC" {
    file = $2; line = $3; target = $4
    if (file ~ /^include\/tssa\//) {
        if (!(file in header_layer)) {
            if (!(file in unmapped)) { unmapped[file] = 1; report(file, "public header is in no layer of layers.txt") }
            next
        }
        from_rank = header_layer[file]; from_folder = file
    } else {
        from_folder = folder_of(file)
        if (from_folder == "")
            next
        from_rank = rank_of_folder[from_folder]
    }
    if (target ~ /^tssa\//) {
        h = "include/" target
        if (!(h in header_layer))
            next        # reported once for the header itself
        to_rank = header_layer[h]
        if (to_rank > from_rank)
            report(file ":" line, "includes " h " of layer " layer_name[to_rank] \
                   ", above " layer_name[from_rank])
        next
    }
    to_folder = folder_of(target)
    if (to_folder == "" || to_folder == from_folder)
        next
    to_rank = rank_of_folder[to_folder]
    if (to_rank > from_rank)
        report(file ":" line, "includes " target " of layer " layer_name[to_rank] \
               ", above " layer_name[from_rank])
    else
        report(file ":" line, "includes " target ", a private header of " to_folder \
               "/ (use a public header in include/tssa/)")
    next
}
END {
    for (k = 1; k <= nuse; k++) {
        sym = use_sym[k]
        if (!(sym in def_folder))
            continue    # a library symbol (libc, BLAS, cJSON)
        from = objfolder[use_obj[k]]; to = def_folder[sym]
        if (from == to)
            continue
        calls++
        fr = rank_of_folder[from]; tr = rank_of_folder[to]
        if (tr > fr)
            report(objsrc[use_obj[k]], "calls " sym " (" def_src[sym] ", layer " layer_name[tr] \
                   ") from layer " layer_name[fr] " below it")
        else if (tr == fr)
            report(objsrc[use_obj[k]], "calls " sym " (" def_src[sym] ") of sibling folder " \
                   to "/ in layer " layer_name[tr] " (siblings stand alone)")
    }
    if (bad) {
        printf "check-layers: %d arrow(s) run against the order in layers.txt\n", bad > "/dev/stderr"
        exit 1
    }
    printf "check-layers: %d layers, %d cross-folder calls and every include run downward\n", \
           nlayers, calls
}'
