"""Runs a CS336-style train_bpe under `bpebench check --external` or `bench --external`.

    python3 docs/examples/adapter.py [MODULE:FUNCTION]

MODULE:FUNCTION names your trainer, train_bpe(input_path, vocab_size, special_tokens) ->
(vocab, merges): a module importable from the current directory or from the Python that
runs this file (`mypkg.train:train_bpe`), or a file (`src/bpe.py:train_bpe`). Without
it, the example beside this file (bpe_example:train_bpe). bpebench runs the command in
the current directory, so from your own repository, with its virtualenv:

    cd ~/my-cs336
    ~/bpebench/build/bpebench check \
        --external '.venv/bin/python ~/bpebench/docs/examples/adapter.py mypkg.train:train_bpe'

bpebench passes the task in environment variables (docs/security.md,
harness/bench/external.h): BPE_INPUT (corpus files, one per line), BPE_VOCAB_SIZE,
BPE_SPECIAL_TOKENS (a JSON array), BPE_PATTERN, BPE_OUT. This adapter calls your function
and writes $BPE_OUT/merges.txt in the GPT-2 byte alphabet. (In Python itself,
bpebench.check(train_bpe) does the same without a command: docs/python.md.)
"""
import importlib
import importlib.util
import json
import os
import sys
import tempfile

EXAMPLE = "bpe_example:train_bpe"


def load(spec):
    """The function MODULE:FUNCTION names; exits with a one-line reason when it cannot."""
    module_name, colon, function = spec.rpartition(":")
    if not colon or not module_name or not function:
        sys.exit(f"adapter.py: '{spec}': name your trainer as MODULE:FUNCTION, "
                 "e.g. mypkg.train:train_bpe or src/bpe.py:train_bpe")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            found = importlib.util.spec_from_file_location("trainer_under_check", module_name)
            if found is None:
                raise ImportError(f"{module_name}: not a Python file")
            module = importlib.util.module_from_spec(found)
            found.loader.exec_module(module)
        else:
            sys.path.insert(0, os.getcwd())  # your repository first, as `python -m` has it
            module = importlib.import_module(module_name)
    except (ImportError, OSError) as error:
        sys.exit(f"adapter.py: cannot import {module_name} from {os.getcwd()} with "
                 f"{sys.executable}: {error}")
    fn = getattr(module, function, None)
    if not callable(fn):
        sys.exit(f"adapter.py: {module_name} has no function {function}")
    return fn


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
    train_bpe = load(sys.argv[1] if len(sys.argv) > 1 else EXAMPLE)
    files = os.environ["BPE_INPUT"].split("\n")
    vocab_size = int(os.environ["BPE_VOCAB_SIZE"])
    specials = json.loads(os.environ["BPE_SPECIAL_TOKENS"])
    out = os.environ["BPE_OUT"]
    # train_bpe reads one file: join the files with a special token, which
    # cuts the text as a file boundary does (no word spans two files).
    if len(files) > 1 and not specials:
        sys.exit("adapter.py: several input files but no special token to join them with")
    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as joined:
        for i, path in enumerate(files):
            with open(path, "rb") as f:
                joined.write((specials[0].encode("utf-8") if i else b"") + f.read())
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
