"""Training and counting: the C library's calls, with Python's types around them.

Every call that reads a corpus runs the library in a child process (see _bpebench.c):
the GIL is released while it works, Ctrl-C stops it at once (KeyboardInterrupt) and
leaves no file behind, and its memory goes back to the system when it ends.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import Iterable, NamedTuple, Sequence, Union

try:
    from . import _bpebench
except ImportError as missing:  # built for another Python, or not built at all
    raise ImportError(
        f"bpebench's C extension is not built for this Python ({sys.executable}, "
        f"{sys.version_info.major}.{sys.version_info.minor}): run `make python "
        f"PYTHON={sys.executable}` in the bpebench tree, or `pip install ./harness/python` "
        "with this Python (docs/python.md)") from missing

BpeError = _bpebench.BpeError
UsageError = _bpebench.UsageError

PathLike = Union[str, bytes, os.PathLike]
DEFAULT_SPECIAL_TOKENS = ("<|endoftext|>",)


class Trainer(NamedTuple):
    """One entry of the C trainer registry (impls/registry.c), as `bpebench list` shows it."""
    name: str        #: as trainer= takes it, e.g. "heap"
    idea: str        #: its one-line idea
    complexity: str  #: time and memory, in docs/algorithms.md's letters
    default: bool    #: the trainer used when none is named (the fastest)


def trainers() -> list[Trainer]:
    """Every trainer, in teaching order (naive first), from the C registry itself."""
    return [Trainer(*row) for row in _bpebench.trainers()]


@dataclass(frozen=True)
class TrainSummary:
    """What a run did: the numbers `bpebench train` prints (seconds per phase)."""
    trainer: str
    vocab_size: int
    merges: int            #: m, the merges made
    max_merges: int        #: V - 256 - S, the merges asked for
    exhausted: bool        #: stopped early: no pair occurred any more
    files: int             #: corpus files read
    bytes: int             #: n
    pretokens: int
    specials_cut: int      #: special-token occurrences cut out of the text
    invalid_runs: int      #: runs of invalid UTF-8 kept as bytes (invalid_utf8="bytes")
    unmatched_bytes: int   #: bytes a user pattern did not match
    words: int             #: W, distinct words
    symbols: int           #: M
    threads: int           #: threads that counted
    read_s: float
    pretokenize_s: float
    setup_s: float
    merge_s: float
    total_s: float


# ------------------------------------------------------------- arguments

def _paths(input_path: PathLike | Iterable[PathLike]) -> list[bytes]:
    """One path or several (files or directories), as the bytes the C library takes."""
    if isinstance(input_path, (str, bytes, os.PathLike)):
        input_path = [input_path]
    paths = [os.fsencode(p) for p in input_path]
    if not paths:
        raise UsageError("give at least one input file or directory")
    return paths


def _specials(special_tokens: Sequence[str]) -> list[str]:
    if isinstance(special_tokens, (str, bytes)):
        raise TypeError("special_tokens is a list of str, e.g. ['<|endoftext|>'], "
                        f"not {special_tokens!r}")
    tokens = list(special_tokens)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"a special token is a str, not {token!r}")
    return tokens


def _whole(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} is a whole number, not {value!r}")
    if value < low:
        raise UsageError(f"bad {name} {value}: give {low} or more")
    return value


def _vocab_sizes(vocab_size) -> int | list[int]:
    """One V (an int), or several (a list, tuple or range of ints) as a list; the C side
    sorts the list and refuses it as `--vocab-size V1,V2,...` would (run/train.h)."""
    if isinstance(vocab_size, (list, tuple, range)):
        return [_whole(v, "vocab_size", 0) for v in vocab_size]
    return _whole(vocab_size, "vocab_size", 0)


def _threads(threads: int | None) -> int:
    """0 asks the C side for every online core, as `bpebench train` does by default."""
    return 0 if threads is None else _whole(threads, "threads", 1)


def _trainer(trainer: str | None) -> str | None:
    if trainer is not None and not isinstance(trainer, str):
        raise TypeError(f"trainer is a name such as 'heap' (bpebench.trainers()), not {trainer!r}")
    return trainer


def _request(input_path, special_tokens, pattern, invalid_utf8, threads, out) -> tuple:
    """The arguments every call of the C side starts with."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern is 'gpt2', 'gpt4' or a PCRE2 pattern (a str), not {pattern!r}")
    return (_paths(input_path), _specials(special_tokens), pattern, invalid_utf8,
            _threads(threads), None if out is None else os.fsencode(out))


def _train(input_path, vocab_size, special_tokens, trainer, threads, pattern,
           invalid_utf8="error"):
    """(tokens by trainer id, merges as (left id, right id, count), summary dict)."""
    return _bpebench.train_bpe(*_request(input_path, special_tokens, pattern, invalid_utf8,
                                         threads, None),
                               _trainer(trainer), _whole(vocab_size, "vocab_size", 0))


def _cs336(tokens: list[bytes], merges: list[tuple], special_tokens: Sequence[str]):
    """CS336's (vocab, merges) from the trainer's tokens: ids as `bpebench train` writes
    them (docs/spec.md section 2.5): 0-255 the bytes, then the special tokens in the order
    given, then one id per merge."""
    shift = len(special_tokens)
    vocab = {i: tokens[i] for i in range(256)}
    vocab.update({256 + k: token.encode("utf-8") for k, token in enumerate(special_tokens)})
    vocab.update({i + shift: tokens[i] for i in range(256, len(tokens))})
    return vocab, [(tokens[left], tokens[right]) for left, right, _ in merges]


# ------------------------------------------------------------- the API

def train_bpe(input_path: PathLike | Iterable[PathLike], vocab_size: int,
              special_tokens: Sequence[str], *, trainer: str | None = None,
              threads: int | None = None, pattern: str = "gpt2"
              ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Trains a byte-level BPE tokenizer, with the signature of Stanford CS336's assignment 1.

    input_path: a text file (or several, or directories: every regular file in them).
    vocab_size: V = 256 byte tokens + len(special_tokens) + the merges.
    special_tokens: cut out of the text before pretokenization, never merged.
    trainer: one of bpebench.trainers() (default: the fastest); all give the same merges.
    threads: threads counting words (default: every core); the merges are the same.
    pattern: "gpt2" (CS336's), "gpt4", or a PCRE2 pattern.

    Returns (vocab, merges): vocab maps every id to its bytes (0-255 the single bytes,
    256.. the special tokens, then one id per merge, as `bpebench train` writes them) and
    merges lists the merged pairs in order, as bytes. Raises BpeError with the command
    line's one-line message (UsageError, also a ValueError, for a bad argument).
    """
    if isinstance(vocab_size, (list, tuple, range)):
        raise UsageError(
            "train_bpe takes one vocab_size (CS336's signature): train once to the largest "
            "and keep merges[:V - 256 - len(special_tokens)] for each smaller V (the merges "
            "for V are a prefix), or call bpebench.train(..., vocab_size=[...], out_dir=...) "
            "for a tokenizer set per size")
    specials = _specials(special_tokens)
    tokens, merges, _ = _train(input_path, vocab_size, specials, trainer, threads, pattern)
    return _cs336(tokens, merges, specials)


def train(input_path: PathLike | Iterable[PathLike], vocab_size: int | Sequence[int],
          out_dir: PathLike, special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS, *,
          trainer: str | None = None, threads: int | None = None, pattern: str = "gpt2",
          invalid_utf8: str = "error") -> TrainSummary | dict[int, TrainSummary]:
    """`bpebench train`: trains and writes out_dir/vocab.json, merges.txt, tokenizer.json,
    tokenizer.tiktoken and tiktoken.json (docs/using-the-tokenizer.md), all of them or none.

    out_dir is created if missing; no file written may replace an input. invalid_utf8:
    "error" (stop at the first invalid byte, naming its offset) or "bytes" (keep each run
    of invalid bytes as a word of its own). Returns what the run did (TrainSummary).

    vocab_size may be a list of sizes (`--vocab-size 1000,8000,32000`): one run to the
    largest writes a set per size in out_dir/<V>/, each the files a run to V alone writes.
    Returns then {V: TrainSummary}, smallest V first: each the summary a run to V alone
    gives (vocab_size, merges, max_merges, exhausted), with the one run's counts and times.
    """
    if not isinstance(out_dir, (str, bytes, os.PathLike)):
        raise TypeError(f"out_dir is a path, not {out_dir!r}")
    sizes = _vocab_sizes(vocab_size)
    summary = TrainSummary(**_bpebench.train(*_request(input_path, special_tokens, pattern,
                                                       invalid_utf8, threads, out_dir),
                                             _trainer(trainer), sizes))
    return summary if isinstance(sizes, int) else _per_size(summary, sorted(sizes))


def _per_size(largest: TrainSummary, sizes: list[int]) -> dict[int, TrainSummary]:
    """The summary of each size's set from the run to the largest: its merges are the
    first V - 256 - S of that run's (docs/spec.md section 2.9)."""
    specials = largest.vocab_size - 256 - largest.max_merges
    per_size = {}
    for size in sizes:
        max_merges = size - 256 - specials
        per_size[size] = replace(largest, vocab_size=size, max_merges=max_merges,
                                 merges=min(largest.merges, max_merges),
                                 exhausted=largest.merges < max_merges)
    return per_size


def count_words(input_path: PathLike | Iterable[PathLike],
                special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS, *, pattern: str = "gpt2",
                threads: int | None = None, invalid_utf8: str = "error",
                out: PathLike | None = None) -> dict[bytes, int]:
    """The pretokenization step on its own (`bpebench count`): every distinct pretoken
    ("word") of the text, as bytes, with how often it occurs, in first-seen order.

    With out, the counts also go to that word-count file (docs/wordcount.md), which
    `bpebench train --counts` trains on: count shards apart, train on their sum.
    """
    words, _ = _bpebench.count_words(*_request(input_path, special_tokens, pattern,
                                               invalid_utf8, threads, out))
    return dict(words)
