#!/usr/bin/env bash
# check-layers.sh [BUILD_DIR]: checks the layering rules of docs/architecture.md.
#
#  1. includes: a file under src/LAYER/ (and a public header of LAYER) includes only headers
#     of its own layer or of a lower one; every public header is placed in a layer below.
#  2. calls (when BUILD_DIR holds the built library's objects): no object calls a function
#     defined in a higher layer, and no two files of one folder call each other both ways.
#
# Prints each breach and exits 1 if there is one; prints a one-line summary otherwise.
# A new public header, or a new folder under src/, must be placed in the tables below.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}

# ---- the layers, lowest first (docs/architecture.md) ----
layers="base nn data models cluster train report cli capi"
# ---- the public headers, by layer (include/dgnn/NAME.h) ----
header_layers='
base:base outfile prof vec par
nn:nn spmm cuda
data:events binfmt readers npy infile gen tcsr sampler snapshot snapshot_graph split negative edgeset eval_neg
models:params tgnn tgnn_cuda state snapmodel snapmodel_cuda node_head node_mlp edgebank
cluster:comm comm_dev partition sched costmodel simulate
train:adam metrics checkpoint event_train event_node snap_train
report:svg
cli:
capi:capi
all:dgnn
'

rank_of_layer() { # layer name -> its rank (0 = lowest), or nothing
    local i=0
    for l in $layers; do
        [ "$l" = "$1" ] && { echo "$i"; return; }
        i=$((i + 1))
    done
    case $1 in
    all) echo 99 ;;
    esac
    return 0
}
declare -A hdr_rank
while IFS=: read -r layer names; do
    [ -z "$layer" ] && continue
    r=$(rank_of_layer "$layer")
    for h in $names; do hdr_rank[$h]=$r; done
done <<< "$header_layers"

fail=0
breach() { echo "layer breach: $*"; fail=1; }

# ---- 1. includes ----
nfiles=0
check_includes() { # file rank label
    local f=$1 rank=$2 label=$3 inc r
    while read -r inc; do
        case $inc in
        dgnn/*.h)
            inc=${inc#dgnn/}; inc=${inc%.h}
            if [ -z "${hdr_rank[$inc]+x}" ]; then
                breach "$f includes dgnn/$inc.h, which scripts/check-layers.sh does not place in a layer"
            elif [ "${hdr_rank[$inc]}" -gt "$rank" ]; then
                breach "$f ($label) includes dgnn/$inc.h of a higher layer"
            fi ;;
        ../*/*)
            local up=${inc#../}; up=${up%%/*}
            r=$(rank_of_layer "$up")
            if [ -z "$r" ] || [ "$r" -gt "$rank" ]; then breach "$f ($label) includes $inc of a higher layer"; fi ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
}
for dir in "$root"/src/*/ "$root"/src/*/*/; do
    [ -d "$dir" ] || continue
    layer=${dir#"$root"/src/}; layer=${layer%%/*} # src/nn/cuda/ is in nn
    rank=$(rank_of_layer "$layer")
    if [ -z "$rank" ]; then breach "src/$layer/ is not placed in a layer (scripts/check-layers.sh)"; continue; fi
    for f in "$dir"*.c "$dir"*.h "$dir"*.cu "$dir"*.cuh; do
        [ -e "$f" ] || continue
        check_includes "${f#"$root"/}" "$rank" "$layer"
        nfiles=$((nfiles + 1))
    done
done
for f in "$root"/include/dgnn/*.h; do
    h=$(basename "$f" .h)
    if [ -z "${hdr_rank[$h]+x}" ]; then breach "include/dgnn/$h.h is not placed in a layer (scripts/check-layers.sh)"; continue; fi
    check_includes "include/dgnn/$h.h" "${hdr_rank[$h]}" "public header"
    nfiles=$((nfiles + 1))
done

# ---- dgnn.h includes every public header (cuda.h: only in a CUDA build) ----
for f in "$root"/include/dgnn/*.h; do
    h=$(basename "$f")
    case $h in dgnn.h | cuda.h) continue ;; esac
    grep -q "^#include \"dgnn/$h\"" "$root/include/dgnn/dgnn.h" || breach "include/dgnn/dgnn.h does not include dgnn/$h"
done

# ---- 2. calls, from the objects' symbol tables ----
ncalls=0
if [ -n "$build" ]; then
    objdir="$build/CMakeFiles/dgnn_core.dir/src"
    [ -d "$objdir" ] || { echo "check-layers: no objects under $objdir (build the library first)"; exit 2; }
    syms=$(mktemp); trap 'rm -f "$syms"' EXIT
    # the library's layers, then the command's (src/cli, in the dgnn target) and the C API's
    # (src/capi, in libdgnn.so), which the library's objects do not hold
    for dir in "$objdir" "$build/CMakeFiles/dgnn.dir/src" "$build/CMakeFiles/dgnn_shared.dir/src"; do
        [ -d "$dir" ] || continue
        (cd "$dir" && for o in */*.o; do
            [ -e "$o" ] && [ -e "$root/src/${o%.o}" ] || continue # none, or a stale object of a moved file
            case $dir in "$objdir") ;; *) case $o in cli/* | capi/*) ;; *) continue ;; esac ;; esac
            nm -g --defined-only "$o" | awk -v f="${o%.o}" 'NF == 3 && $2 ~ /[TDBRCV]/ { print "D", f, $3 }'
            nm -u "$o" | awk -v f="${o%.o}" '{ print "U", f, $NF }'
        done)
    done > "$syms"
    ranks=""
    for l in $layers; do ranks="$ranks $l=$(rank_of_layer "$l")"; done
    out=$(awk -v ranks="$ranks" '
        BEGIN { n = split(ranks, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); rk[kv[1]] = kv[2] } }
        $1 == "D" { def[$3] = $2; next }
        { use[NR] = $2 " " $3 }
        END {
            for (i in use) {
                split(use[i], u, " "); if (!(u[2] in def)) continue
                from = u[1]; to = def[u[2]]; if (from == to) continue
                split(from, fa, "/"); split(to, ta, "/")
                if (!(fa[1] in rk) || !(ta[1] in rk)) continue
                calls++
                if (rk[ta[1]] > rk[fa[1]]) up[from " " to] = u[2]
                if (fa[1] == ta[1]) edge[from " " to] = u[2]
            }
            for (e in edge) { split(e, p, " "); r = p[2] " " p[1]
                if ((r in edge) && p[1] < p[2])
                    print "BREACH src/" p[1] " and src/" p[2] " call each other (" edge[e] ", " edge[r] ")" }
            for (e in up) { split(e, p, " "); print "BREACH src/" p[1] " calls " up[e] " (and maybe more) of src/" p[2] ", a higher layer" }
            print "CALLS", calls + 0
        }' "$syms")
    while read -r line; do
        case $line in
        BREACH*) breach "${line#BREACH }" ;;
        CALLS*) ncalls=${line#CALLS } ;;
        esac
    done <<< "$out"
fi

if [ "$fail" -ne 0 ]; then exit 1; fi
if [ -n "$build" ]; then
    echo "layers ok: $nfiles files' includes, $ncalls calls between files"
else
    echo "layers ok: $nfiles files' includes (calls not checked: no build dir given)"
fi
