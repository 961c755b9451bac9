#!/bin/sh
# pack.sh SOURCE_DIR — how the compressed corpora in datasets/ were made.
#
# A maintainer's tool, never run by `make`: it reads a checkout of the source
# corpora (SOURCE_DIR holds gutenberg-en/, tinystories/, multilingual/,
# cs336/ and a MANIFEST.tsv with columns path, bytes, sha256, source_repo,
# source_path, commit, license, ...), checks every file against that
# manifest, writes datasets/<path>.xz (xz -9, single-threaded so the output
# does not depend on the number of cores) and datasets/MANIFEST.tsv.
#
# Paths change on the way in, so that unpacking gives the layout the
# benchmark grid reads:
#   gutenberg-en/B.txt                          -> gutenberg-en/B.txt
#   tinystories/T.txt                           -> tinystories/T.txt
#   multilingual/opus_mt_testsets/LANG.txt      -> multilingual/LANG.txt
#   cs336/corpus.en                             -> cs336/corpus.en
# Provenance files (COMPONENTS.tsv, the CS336 LICENSE) are copied as they are
# and stay in datasets/, outside the unpacked tree, so that a directory given
# as INPUT holds nothing but text to train on.
#
# Run from the top of the tree: sh datasets/pack.sh /path/to/source/datasets
set -eu

[ $# -eq 1 ] || { echo "usage: sh datasets/pack.sh SOURCE_DIR" >&2; exit 2; }
src=$1
out=datasets
[ -f "$src/MANIFEST.tsv" ] || { echo "pack: $src/MANIFEST.tsv not found" >&2; exit 1; }
[ -f "$out/unpack.sh" ] || { echo "pack: run from the top of the bpebench tree" >&2; exit 1; }

# The source paths to ship, one a line, in manifest order.
selection=$(awk -F '\t' 'NR > 1 && ($1 ~ /^gutenberg-en\// || $1 ~ /^tinystories\// ||
    $1 ~ /^multilingual\/opus_mt_testsets\/(ar|de|en|hi|zh)\.txt$/ || $1 == "cs336/corpus.en") \
    { print $1 }' "$src/MANIFEST.tsv")

# Where a source path lands under $(DATA).
local_path() {
    case "$1" in
    multilingual/opus_mt_testsets/*) echo "multilingual/${1#multilingual/opus_mt_testsets/}" ;;
    *) echo "$1" ;;
    esac
}

tab=$(printf '\t')
manifest_tmp="$out/MANIFEST.tsv.tmp.$$"
printf 'path\tbytes\tsha256\tsource_repo\tsource_path\tcommit\tlicense\n' >"$manifest_tmp"
for path in $selection; do
    row=$(awk -F '\t' -v p="$path" '$1 == p' "$src/MANIFEST.tsv")
    want=$(printf '%s\n' "$row" | cut -f3)
    got=$(sha256sum "$src/$path" | cut -d' ' -f1)
    if [ "$want" != "$got" ]; then
        echo "pack: $src/$path: sha256 $got, manifest says $want; fix the source first" >&2
        rm -f "$manifest_tmp"
        exit 1
    fi
    dest=$(local_path "$path")
    mkdir -p "$out/$(dirname "$dest")"
    xz -9 -T1 -c "$src/$path" >"$out/$dest.xz.tmp"
    mv "$out/$dest.xz.tmp" "$out/$dest.xz"
    # Columns 2-7 as in the source manifest; the OPUS rows name the component
    # list where it lives in this tree.
    printf '%s\n' "$row" | awk -F '\t' -v OFS="$tab" -v d="$dest" '{
        sub(/opus_mt_testsets\/COMPONENTS\.tsv/, "datasets/multilingual/COMPONENTS.tsv", $5)
        print d, $2, $3, $4, $5, $6, $7 }' >>"$manifest_tmp"
    echo "packed $dest"
done
cp "$src/multilingual/opus_mt_testsets/COMPONENTS.tsv" "$out/multilingual/COMPONENTS.tsv"
cp "$src/cs336/LICENSE" "$out/cs336/LICENSE"
mv "$manifest_tmp" "$out/MANIFEST.tsv"
