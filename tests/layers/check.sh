#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check.sh [ROOT]: reads every #include "..." line under ROOT/src and
# ROOT/bindings against the table of allowed edges in ROOT/src/layers.txt
# and fails, naming file, line and edge, on an include of a layer the
# table does not allow (an upward edge, or a cycle). Bindings (faces built
# on the library) may include only the public headers.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
table=$root/src/layers.txt
[ -f "$table" ] || { echo "check.sh: no $table" >&2; exit 2; }

declare -A allowed
layers=()
while read -r layer deps; do
    case "$layer" in "" | "#"*) continue ;; esac
    layers+=("$layer")
    allowed[$layer]=" $layer $deps "
done <"$table"

bad=0
checked=0
public=" ump.h ump_coll.h "
while IFS= read -r -d '' f; do
    rel=${f#"$root"/}
    case "$rel" in
    src/*)
        layer=${rel#src/}
        layer=${layer%%/*}
        if [ -z "${allowed[$layer]+x}" ]; then
            echo "check.sh: $rel: folder src/$layer is not in src/layers.txt"
            bad=1
            continue
        fi
        ;;
    *) layer="" ;;
    esac
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        case "$line" in *'#'*include*) ;; *) continue ;; esac
        inc=$(printf '%s\n' "$line" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
        # <mpi.h> counts too; other <...> headers are the system's.
        [ -n "$inc" ] || inc=$(printf '%s\n' "$line" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(mpi\.h\)>.*/\1/p')
        [ -n "$inc" ] || continue
        checked=$((checked + 1))
        if [ "$inc" = mpi.h ]; then
            [ "$layer" = mpi ] || [ -z "$layer" ] && continue
            echo "$rel:$n: layer $layer includes mpi.h (only src/mpi may)"
            bad=1
            continue
        fi
        case "$public" in *" $inc "*) continue ;; esac
        case "$inc" in
        ../* | */../*)
            echo "$rel:$n: include \"$inc\" climbs out of its folder; name the layer instead"
            bad=1
            continue
            ;;
        esac
        target=${inc%%/*}
        if [ "$target" = "$inc" ]; then
            # A header beside the file ("foo.h"): inside its own folder.
            continue
        fi
        if [ -z "$layer" ]; then
            echo "$rel:$n: a binding includes the library's internal header \"$inc\" (only public headers)"
            bad=1
        elif [ -z "${allowed[$target]+x}" ]; then
            echo "$rel:$n: include \"$inc\": $target is not a layer in src/layers.txt"
            bad=1
        elif [[ "${allowed[$layer]}" != *" $target "* ]]; then
            echo "$rel:$n: layer $layer includes \"$inc\" of layer $target, which src/layers.txt does not allow"
            bad=1
        fi
    done <"$f"
done < <(find "$root/src" "$root/bindings" \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null)

if [ $bad -ne 0 ]; then
    echo "check.sh: layer violations found (table: src/layers.txt)"
    exit 1
fi
echo "check.sh: $checked include lines in ${#layers[@]} layers follow src/layers.txt"
