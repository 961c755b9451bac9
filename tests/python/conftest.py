"""Shared fixtures of the Python package's tests (tests/python/, run by `make test-python`).

They run from the top of the tree with the package built by `make python`
(PYTHONPATH=build/python), BPEBENCH naming the command line binary and BPE_DATA the
unpacked corpora, as `make test-run` runs the C tests.
"""
import json
import os
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(TOP, "docs", "examples")


def path_from_env(name: str, default: str) -> str:
    return os.path.abspath(os.environ.get(name) or os.path.join(TOP, default))


@pytest.fixture(scope="session")
def bpebench_cli() -> str:
    """The command line binary, for comparing the package with it."""
    return path_from_env("BPEBENCH", "build/bpebench")


@pytest.fixture(scope="session")
def data_dir() -> str:
    return path_from_env("BPE_DATA", "build/data")


@pytest.fixture(scope="session")
def example():
    """docs/examples/bpe_example.py, the example CS336 trainer (needs python3-regex)."""
    sys.path.insert(0, EXAMPLES)
    try:
        import bpe_example
    finally:
        sys.path.remove(EXAMPLES)
    return bpe_example


def gpt2_alphabet() -> dict[int, str]:
    """GPT-2's bytes_to_unicode as docs/examples/adapter.py writes it out, in Python, so
    that the package's own table (the C one) is checked against an independent one."""
    sys.path.insert(0, EXAMPLES)
    try:
        from adapter import bytes_to_unicode
    finally:
        sys.path.remove(EXAMPLES)
    return bytes_to_unicode()


def spell(token: bytes) -> str:
    alphabet = gpt2_alphabet()
    return "".join(alphabet[b] for b in token)


def unspell(text: str) -> bytes:
    back = {c: b for b, c in gpt2_alphabet().items()}
    return bytes(back[c] for c in text)


def run_cli(binary: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([binary, *args], capture_output=True, text=True)


def cli_train(binary: str, out_dir: str, inputs, vocab_size: int, trainer: str,
              extra=()) -> tuple[list[str], dict[str, int]]:
    """`bpebench train` into out_dir: (the merges.txt lines after the header, vocab.json)."""
    done = run_cli(binary, "train", "--quiet", "--trainer", trainer, "--vocab-size",
                   str(vocab_size), "--out", out_dir, *extra, *inputs)
    assert done.returncode == 0, done.stderr
    with open(os.path.join(out_dir, "merges.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert lines[0] == "#version: 0.2" and lines[-1] == ""
    with open(os.path.join(out_dir, "vocab.json"), encoding="utf-8") as f:
        return lines[1:-1], json.load(f)
