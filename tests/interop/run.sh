#!/bin/sh
# tests/interop/run.sh BUILD DATA — `make interop`: the files `train` writes,
# loaded by the real libraries, give the reference encoder's ids.
#   1. Node.js and npm from Debian when missing; the npm packages pinned by
#      tests/interop/package-lock.json (tokenizers, js-tiktoken) into
#      BUILD/interop/node_modules (npm ci: exact versions and checksums).
#   2. For the gpt2 and gpt4 patterns and a user pattern: train on
#      tests/interop/text.txt and DATA/multilingual with two special tokens;
#      the reference encoder (BUILD/interop/refencode) encodes text.txt whole
#      and line by line; interop.js requires the same ids and an exact decode
#      from HF tokenizers and js-tiktoken.
#   3. The check can fail: js-tiktoken given the gpt2 pattern for the gpt4
#      tokenizer must be caught.
# Any failure stops with a message; nothing is skipped.
set -eu
build=$1 data=$2
here=tests/interop
work=$build/interop
sh harness/deps.sh cmd:node=nodejs cmd:npm=npm
mkdir -p "$work"
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules" ]; then
    cp "$here/package.json" "$here/package-lock.json" "$work/"
    (cd "$work" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi
export NODE_PATH="$work/node_modules"

gpt4_js=$(node -e 'console.log(require("js-tiktoken/ranks/cl100k_base").pat_str)')
user_pattern='[^\s\p{L}\p{N}]?\p{L}+|\p{N}{1,2}|\s+|[^\s\p{L}\p{N}]+'

# run NAME PATTERN JS_PATTERN: train, encode with the reference, compare.
run() {
    name=$1 pattern=$2 js_pattern=$3
    out=$work/tok-$name
    "$build/bpebench" train --trainer heap --vocab-size 3000 --pattern "$pattern" \
        --special-token '<|endoftext|>' --special-token '<|im_start|>' \
        --out "$out" "$here/text.txt" "$data/multilingual" > "$out.train.log"
    {
        "$build/interop/refencode" "$out" "$pattern" '<|endoftext|>' '<|im_start|>' < "$here/text.txt"
        echo -
        while IFS= read -r line; do
            [ -z "$line" ] && continue
            printf '%s' "$line" |
                "$build/interop/refencode" "$out" "$pattern" '<|endoftext|>' '<|im_start|>'
            echo -
        done < "$here/text.txt"
    } > "$out.ref"
    node "$here/interop.js" "$out" "$js_pattern" "$here/text.txt" "$out.ref"
}

run gpt2 gpt2 -
run gpt4 gpt4 "$gpt4_js"
run user "$user_pattern" -

if node "$here/interop.js" "$work/tok-gpt4" "$(node -e 'console.log(require("js-tiktoken/ranks/gpt2").pat_str)')" \
        "$here/text.txt" "$work/tok-gpt4.ref" 2> "$work/negative.log" > /dev/null; then
    echo "interop: js-tiktoken with the wrong pattern (gpt2 for a gpt4 tokenizer) was not caught" >&2
    exit 1
fi
echo "interop: the wrong pattern is caught ($(grep -c 'ids part' "$work/negative.log") mismatching strings)"
