#!/bin/sh
# tests/interop/run.sh BUILD DATA — `make interop`: the files `train` writes,
# loaded by the real libraries, give the reference encoder's ids.
#   1. Node.js and npm from Debian when missing; the npm packages pinned by
#      tests/interop/package-lock.json (tokenizers, js-tiktoken) into
#      BUILD/interop/node_modules (npm ci: exact versions and checksums).
#   2. For the gpt2 and gpt4 patterns and a user pattern, each with four
#      special tokens that overlap (given shorter first: <|im, <|im_start|>,
#      <|im_start|>user), two tokenizers:
#        - trained on tests/interop/text.txt and DATA/multilingual (V = 3000);
#        - trained on text.txt alone until no pair is left, so that every
#          piece of text.txt is one token: then the ids show every piece,
#          and a library that cuts a piece otherwise than PCRE2 gives other
#          ids (with V = 3000 many such cuts would give the same ids).
#      The reference encoder (BUILD/interop/refencode) encodes text.txt whole
#      and line by line; interop.js requires the same ids and an exact decode
#      from HF tokenizers and js-tiktoken. text.txt holds every White_Space
#      character, U+180E and U+FEFF, in runs and between words.
#   3. The check can fail; each of these must be caught: js-tiktoken given
#      the gpt2 pattern for the gpt4 tokenizer, given PCRE2's own spelling
#      of gpt2 (JavaScript's \s is not PCRE2's), and given the special
#      tokens in id order (shorter first) instead of tiktoken.json's.
#   4. classes.js prints where PCRE2's \s, \p{L} and \p{N} and JavaScript's
#      differ (docs/using-the-tokenizer.md quotes it).
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

# A user pattern, its whitespace spelled as docs/using-the-tokenizer.md
# advises: the characters PCRE2's \s stands for (tab to CR, space, U+0085,
# U+00A0, U+1680, U+180E, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
# U+3000), so that every library reads it alike.
ws=$(printf '\\t\\n\\x0b\\f\\r \302\205\302\240\341\232\200\341\240\216\342\200\200-\342\200\212\342\200\250\342\200\251\342\200\257\342\201\237\343\200\200')
user_pattern="[^$ws\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,2}|[$ws]+|[^$ws\\p{L}\\p{N}]+"

# encode OUT PATTERN: the reference ids of text.txt, whole and line by line.
encode() {
    set -- "$1" "$2" '<|endoftext|>' '<|im' '<|im_start|>' '<|im_start|>user'
    "$build/interop/refencode" "$@" < "$here/text.txt"
    echo -
    while IFS= read -r line; do
        [ -z "$line" ] && continue
        printf '%s' "$line" | "$build/interop/refencode" "$@"
        echo -
    done < "$here/text.txt"
}

# train NAME PATTERN VOCAB INPUT...: train into tok-NAME, the reference ids beside.
train() {
    name=$1 pattern=$2 vocab=$3
    shift 3
    out=$work/tok-$name
    "$build/bpebench" train --trainer heap --vocab-size "$vocab" --pattern "$pattern" \
        --special-token '<|endoftext|>' --special-token '<|im' --special-token '<|im_start|>' \
        --special-token '<|im_start|>user' --out "$out" "$@" > "$out.train.log"
    encode "$out" "$pattern" > "$out.ref"
}

# run NAME PATTERN VOCAB INPUT...: train, then compare the libraries with the reference.
run() {
    train "$@"
    node "$here/interop.js" "$work/tok-$1" - "$here/text.txt" "$work/tok-$1.ref"
}

for p in gpt2 gpt4 user; do
    pattern=$p
    [ "$p" = user ] && pattern=$user_pattern
    run "$p" "$pattern" 3000 "$here/text.txt" "$data/multilingual"
    run "$p-pieces" "$pattern" 100000 "$here/text.txt"
done

# must_fail WHAT DIR JS_PATTERN [SPECIALS_ORDER]: interop.js must find mismatches.
must_fail() {
    what=$1
    shift
    if node "$here/interop.js" "$work/tok-$1" "$2" "$here/text.txt" "$work/tok-$1.ref" ${3:-} \
            2> "$work/negative.log" > /dev/null; then
        echo "interop: $what was not caught" >&2
        exit 1
    fi
    echo "interop: $what is caught (mismatching strings: tokenizers" \
        "$(grep -c '^interop: tokenizers' "$work/negative.log"), js-tiktoken" \
        "$(grep -c '^interop: js-tiktoken' "$work/negative.log"))"
}
must_fail "js-tiktoken with the gpt2 pattern for a gpt4 tokenizer" gpt4 \
    "$(node -e 'console.log(require("js-tiktoken/ranks/gpt2").pat_str)')"
must_fail "js-tiktoken with PCRE2's own spelling of gpt2 (\\s)" gpt2-pieces \
    "'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
must_fail "js-tiktoken with the special tokens in id order" gpt2-pieces - by-id
# What docs/using-the-tokenizer.md says of a user pattern that writes \s:
# it is written as given, and both libraries read \s otherwise than PCRE2.
train user-s-pieces '[^\s\p{L}\p{N}]?\p{L}+|\p{N}{1,2}|\s+|[^\s\p{L}\p{N}]+' 100000 \
    "$here/text.txt"
must_fail "a user pattern with \\s, as given," user-s-pieces -

"$build/interop/refencode" --classes > "$work/pcre2-classes.txt"
node "$here/classes.js" "$work/pcre2-classes.txt"
