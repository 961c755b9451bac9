"""A byte-level BPE trainer with the Stanford CS336 (assignment 1) signature.

    train_bpe(input_path, vocab_size, special_tokens) -> (vocab, merges)

written by the bpebench authors as an example of a trainer that
`bpebench check --external 'python3 docs/examples/adapter.py'` can judge.
It follows docs/spec.md section 2: cut at special tokens (longest first),
pretokenize with the GPT-2 pattern, count words, then merge the most frequent
pair, ties to the greater (bytes(a), bytes(b)). It keeps pair counts and,
for every pair, the words that contain it, so a merge only revisits those
words (the `inverted-index` idea of impls/). Needs Python 3 and `regex`.
"""
import collections
import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def tie_break(pair):
    """The order among pairs of equal count: the greater (bytes(a), bytes(b)) wins."""
    return pair


def count_words(text, special_tokens):
    """Word (a tuple of single-byte tokens) -> count, pieces between special tokens apart."""
    counts = collections.Counter()
    specials = sorted(special_tokens, key=len, reverse=True)  # longest match wins
    pieces = regex.split("|".join(map(regex.escape, specials)), text) if specials else [text]
    for piece in pieces:
        for match in regex.finditer(GPT2_PATTERN, piece):
            counts[match.group().encode("utf-8")] += 1
    return {tuple(bytes([b]) for b in word): n for word, n in counts.items()}


def pairs_of(word):
    return zip(word, word[1:])


def merge_word(word, pair, new):
    """word with every non-overlapping occurrence of pair, left to right, replaced by new."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def train_bpe(input_path, vocab_size, special_tokens):
    # newline="": keep \r\n as it is (Python would turn it into \n, and the merges would differ)
    with open(input_path, encoding="utf-8", newline="") as f:
        words = count_words(f.read(), special_tokens)
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    pair_count = collections.Counter()
    pair_words = collections.defaultdict(set)  # pair -> words that contain it
    for word, n in words.items():
        for pair in pairs_of(word):
            pair_count[pair] += n
            pair_words[pair].add(word)
    merges = []
    while len(vocab) < vocab_size and pair_count:
        best = max(pair_count, key=lambda p: (pair_count[p], tie_break(p)))
        if pair_count[best] < 1:
            break
        new = best[0] + best[1]
        merges.append(best)
        vocab[len(vocab)] = new
        for word in list(pair_words[best]):
            if word not in words:
                continue
            n = words.pop(word)
            merged = merge_word(word, best, new)
            for pair in pairs_of(word):
                pair_count[pair] -= n
                pair_words[pair].discard(word)
                if pair_count[pair] == 0:
                    del pair_count[pair]
            for pair in pairs_of(merged):
                pair_count[pair] += n
                pair_words[pair].add(merged)
            words[merged] = words.get(merged, 0) + n
    return vocab, merges
