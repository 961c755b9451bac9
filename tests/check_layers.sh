#!/bin/sh
# check_layers.sh — the include rule of harness/README.md, checked.
#
# The layers, bottom to top: impls, base, input, run, tools, bench, report,
# trace, then cli and python side by side (two doors to the same library:
# python may include every layer but cli). A file in harness/LAYER/
# includes headers of its own folder or of a layer below, always as
# "folder/name.h" (impls/ headers by their bare name); impls/ includes only
# impls/. Prints every include that breaks the rule, as FILE:LINE: what and
# why, and exits 1 if there is any.
#
# Usage: sh tests/check_layers.sh [TOP]   (TOP: the tree, default .)
top=${1:-.}
cd "$top" || exit 2
layers="impls base input run tools bench report trace cli python"

# The rank of a layer (0 for impls), or nothing for an unknown folder.
rank() {
    i=0
    for l in $layers; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
}

status=0
for file in impls/*.[ch] harness/*/*.[ch]; do
    case $file in
        impls/*) own=impls ;;
        *) own=${file#harness/}; own=${own%%/*} ;;
    esac
    own_rank=$(rank "$own")
    if [ -z "$own_rank" ]; then
        echo "$file: folder '$own' is not a layer of harness/README.md"
        status=1
        continue
    fi
    # Each quoted include as LINE NAME.
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' > "${TMPDIR:-/tmp}/layers.$$"
    while read -r line name; do
        case $name in
            */*) target=${name%%/*} ;;
            *) target=impls ;;
        esac
        where="$file:$line: #include \"$name\""
        if [ "$target" = impls ] && [ ! -f "impls/$name" ]; then
            echo "$where: no such impls/ header (harness/ headers are named with their folder)"
            status=1
            continue
        fi
        if [ "$target" != impls ] && [ ! -f "harness/$name" ]; then
            echo "$where: no such header under harness/"
            status=1
            continue
        fi
        target_rank=$(rank "$target")
        if [ "$own" = python ] && [ "$target" = cli ]; then
            echo "$where: python/ may not include cli/ (a door beside it, not below)"
            status=1
        elif [ -z "$target_rank" ] || [ "$target_rank" -gt "$own_rank" ]; then
            echo "$where: $own/ may not include $target/ (a layer above it)"
            status=1
        fi
    done < "${TMPDIR:-/tmp}/layers.$$"
    rm -f "${TMPDIR:-/tmp}/layers.$$"
done
[ $status -eq 0 ] && echo "check_layers: every include points downward"
exit $status
