#!/bin/sh
# unpack.sh — the corpora of the benchmark grid, unpacked and checked.
#
#   sh datasets/unpack.sh PACKED_DIR DATA_DIR
#       For every row of PACKED_DIR/MANIFEST.tsv, decompresses
#       PACKED_DIR/<path>.xz to DATA_DIR/<path> (via a temporary name, so a
#       file is there whole or not at all), checks its sha256 against the
#       manifest, and when every file matches writes DATA_DIR/.unpacked, the
#       stamp `make data` keys on. Used by `make data`.
#   sh datasets/unpack.sh --verify MANIFEST DIR
#       Only checks that DIR/<path> exists and has the manifest's sha256 for
#       every row of MANIFEST (used by the tests, and handy after editing).
#
# Both modes also refuse a regular file in a corpus directory that the
# manifest does not list: a directory given as INPUT reads every file in it,
# so a stray file would silently change the corpus.
#
# MANIFEST.tsv: a header line, then one tab-separated row per file: path
# (relative to DATA_DIR), bytes, sha256 of the uncompressed file, then
# provenance columns this script does not read.
#
# Exit status: 0 when everything matches; 1 with one line on stderr naming the
# file, both digests and the fix; 2 on bad usage. On any failure the stamp is
# removed first, so the next `make data` checks again. POSIX sh, xz and
# sha256sum (or shasum -a 256) only.
set -eu

usage() {
    echo "usage: sh datasets/unpack.sh PACKED_DIR DATA_DIR | --verify MANIFEST DIR" >&2
    exit 2
}

fail() {
    echo "data: $*" >&2
    [ -z "${stamp:-}" ] || rm -f "$stamp"
    exit 1
}

# The sha256 of file $1, in lowercase hex.
sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

# Refuses paths that would land outside the data directory.
check_path() {
    case "$1" in
    '' | /* | .. | ../* | */../* | *'/..') fail "$manifest: bad path '$1'; paths are relative and stay inside the data directory" ;;
    esac
}

# digest_matches FILE WANT: true when FILE's sha256 is WANT; leaves it in $got.
digest_matches() {
    got=$(sha256_of "$1")
    [ "$got" = "$2" ]
}

# Fails on a regular file in any directory the manifest uses that the
# manifest does not list. O(files · rows), a few thousand comparisons here.
check_no_strays() {
    dirs=$(awk -F '\t' 'NR > 1 { n = split($1, part, "/"); d = part[1]
        for (i = 2; i < n; i++) d = d "/" part[i]; print (n > 1 ? d : ".") }' "$manifest" | sort -u)
    for d in $dirs; do
        [ -d "$1/$d" ] || continue
        for f in "$1/$d"/* "$1/$d"/.[!.]*; do
            [ -f "$f" ] || continue
            rel=${f#"$1"/}
            rel=${rel#./}
            [ "$rel" = .unpacked ] && continue
            awk -F '\t' -v p="$rel" 'NR > 1 && $1 == p { found = 1 } END { exit !found }' \
                "$manifest" ||
                fail "$f: not in $manifest, so a directory INPUT would read it; remove it or choose another DATA"
        done
    done
}

# Reads the manifest rows (path, bytes, sha256, ...), skipping the header,
# and calls "$1" PATH SHA256. A last line without a newline counts too.
each_row() {
    header=1
    while IFS=$(printf '\t') read -r path _ sha _ || [ -n "$path" ]; do
        if [ "$header" = 1 ]; then
            header=0
            continue
        fi
        check_path "$path"
        "$1" "$path" "$sha"
    done <"$manifest"
}

verify_row() {
    [ -f "$dir/$1" ] || fail "$dir/$1: missing; it is listed in $manifest"
    digest_matches "$dir/$1" "$2" ||
        fail "$dir/$1: sha256 mismatch: expected $2 ($manifest), got $got; the file was changed or damaged, run make data to unpack it again"
}

unpack_row() {
    src="$packed/$1.xz"
    dest="$dir/$1"
    [ -f "$src" ] || fail "$src: missing; restore it with git checkout -- $src"
    mkdir -p "$(dirname "$dest")"
    xz -dc "$src" >"$dest.tmp" || {
        rm -f "$dest.tmp"
        fail "$src: xz cannot decompress it; restore it with git checkout -- $src"
    }
    if ! digest_matches "$dest.tmp" "$2"; then
        rm -f "$dest.tmp"
        fail "$dest: sha256 mismatch: expected $2 ($manifest), got $got; $src is damaged, restore it with git checkout -- $src"
    fi
    mv "$dest.tmp" "$dest"
}

case "${1:-}" in
--verify)
    [ $# -eq 3 ] || usage
    manifest=$2
    dir=$3
    stamp=$dir/.unpacked
    [ -f "$manifest" ] || fail "$manifest: not found"
    each_row verify_row
    check_no_strays "$dir"
    ;;
-* | '')
    usage
    ;;
*)
    [ $# -eq 2 ] || usage
    packed=$1
    dir=$2
    manifest=$packed/MANIFEST.tsv
    stamp=$dir/.unpacked
    [ -f "$manifest" ] || fail "$manifest: not found; run from the top of the bpebench tree"
    mkdir -p "$dir"
    rm -f "$stamp"
    each_row unpack_row
    check_no_strays "$dir"
    : >"$stamp"
    echo "data: $(($(wc -l <"$manifest") - 1)) files unpacked into $dir and checked against $manifest"
    ;;
esac
