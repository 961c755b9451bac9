"""Runs a CS336-style train_bpe under `bpebench check --external` or `bench --external`.

bpebench passes the task in environment variables (docs/security.md, harness/bench/external.h):
BPE_INPUT (corpus files, one per line), BPE_VOCAB_SIZE, BPE_SPECIAL_TOKENS (a JSON array),
BPE_PATTERN, BPE_OUT. This adapter calls train_bpe and writes $BPE_OUT/merges.txt in the
GPT-2 byte alphabet. To judge your own trainer, replace the import below with yours:

    bpebench check --external 'python3 docs/examples/adapter.py'
"""
import json
import os
import sys
import tempfile

from bpe_example import train_bpe  # <- your trainer here (found beside this file first)


def bytes_to_unicode():
    """GPT-2's byte -> printable character table (docs/spec.md section 3)."""
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def main():
    files = os.environ["BPE_INPUT"].split("\n")
    vocab_size = int(os.environ["BPE_VOCAB_SIZE"])
    specials = json.loads(os.environ["BPE_SPECIAL_TOKENS"])
    out = os.environ["BPE_OUT"]
    # train_bpe reads one file: join the files with a special token, which
    # cuts the text as a file boundary does (no word spans two files).
    if len(files) > 1 and not specials:
        sys.exit("adapter.py: several input files but no special token to join them with")
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", newline="", suffix=".txt",
                                     delete=False) as joined:
        for i, path in enumerate(files):
            with open(path, encoding="utf-8", newline="") as f:
                joined.write((specials[0] if i else "") + f.read())
    try:
        _, merges = train_bpe(joined.name, vocab_size, specials)
    finally:
        os.unlink(joined.name)
    alphabet = bytes_to_unicode()
    spell = lambda token: "".join(alphabet[b] for b in token)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for left, right in merges:
            f.write(f"{spell(left)} {spell(right)}\n")


if __name__ == "__main__":
    main()
