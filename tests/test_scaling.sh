#!/bin/sh
# test_scaling.sh — docs/scaling.md's map/reduce, end to end: the corpus
# gutenberg-en sharded by file into 8 lists, `bpebench count` on each shard
# in parallel (GNU parallel, Debian's `parallel`; make test installs it),
# `bpebench train --counts` on the 8 word-count files; the merges must
# equal, byte for byte, those of one `train` over the whole corpus (and so
# must vocab.json). Run by make test-run with BPEBENCH and BPE_DATA set.
set -eu
bpebench=${BPEBENCH:-build/bpebench}
data=${BPE_DATA:-build/data}
case $bpebench in /*) ;; *) bpebench=$PWD/$bpebench ;; esac
case $data in /*) ;; *) data=$PWD/$data ;; esac
command -v parallel > /dev/null ||
    { echo "test_scaling: GNU parallel is missing; make test installs Debian's parallel" >&2; exit 1; }
[ -d "$data/gutenberg-en" ] ||
    { echo "test_scaling: $data/gutenberg-en is missing; run make data" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bpebench-scaling-XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
cd "$work"

ls "$data"/gutenberg-en/*.txt > files
split -n r/8 -d files shard.                       # 8 lists of files, round robin
[ "$(ls shard.?? | wc -l)" -eq 8 ] || { echo "test_scaling: not 8 shards" >&2; exit 1; }
parallel --will-cite --halt now,fail=1 \
    "xargs -d '\n' '$bpebench' count --out {}.counts < {} > {}.log" ::: shard.??
"$bpebench" train --counts --trainer heap --vocab-size 1000 --out sharded shard.??.counts > reduce.log
xargs -d '\n' "$bpebench" train --trainer heap --vocab-size 1000 --out whole < files > whole.log
cmp sharded/merges.txt whole/merges.txt ||
    { echo "test_scaling: the 8 shards' merges differ from one train over the corpus" >&2; exit 1; }
cmp sharded/vocab.json whole/vocab.json ||
    { echo "test_scaling: the 8 shards' vocab.json differs" >&2; exit 1; }
[ "$(wc -l < sharded/merges.txt)" -gt 700 ] ||
    { echo "test_scaling: too few merges to mean anything" >&2; exit 1; }
echo "test_scaling: 8 shards counted in parallel give the merges of the whole corpus ($(wc -l < files) files)"
