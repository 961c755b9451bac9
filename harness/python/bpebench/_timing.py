"""bpebench.time: a Python train_bpe timed beside bpebench's trainers, on one slice.

Every trainer gets the same file: a word-safe prefix of the corpus (`bpebench slice`).
Ours run as `bpebench train` runs them (a child process each, read + pretokenize + count
+ setup + merge loop, timed inside); yours is timed around the call, in this process,
reading included. The verdict is a factor against the fastest: "N× slower than the
fastest", as `bpebench bench --external` reports an external trainer.
"""
from __future__ import annotations

import os
import statistics
import tempfile
import time as clock
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ._api import DEFAULT_SPECIAL_TOKENS, UsageError, _bpebench, _cs336, _specials, _train, _whole
from ._api import trainers as registry
from ._check import default_data_dir


def slower_than(seconds: float, fastest: float) -> str:
    """"94.2× slower than the fastest", the one wording of the report and of time()."""
    if seconds <= fastest:
        return "the fastest"
    return f"{seconds / fastest:.3g}× slower than the fastest"


@dataclass
class TimeRow:
    """One trainer's runs."""
    name: str                   #: a built-in trainer, or your function's name
    seconds: list[float]        #: every repetition's total, in seconds
    yours: bool = False         #: the function under test

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


@dataclass
class TimeResult:
    """What bpebench.time measured. str() is the table it prints."""
    corpus: str                 #: the slice, e.g. "tinystories@1M"
    bytes: int                  #: its length
    vocab_size: int
    merges: int                 #: merges made (by ours)
    rows: list[TimeRow] = field(default_factory=list)  #: fastest first
    verified: bool = False      #: your merges equal ours

    @property
    def yours(self) -> TimeRow:
        return next(r for r in self.rows if r.yours)

    @property
    def fastest(self) -> TimeRow:
        return self.rows[0]

    @property
    def slower(self) -> float:
        """Your median time over the fastest's: 94.2 for "94.2× slower than the fastest"."""
        return self.yours.median / self.fastest.median

    def __str__(self) -> str:
        runs = len(self.rows[0].seconds)
        lines = [f"{self.corpus} ({self.bytes} bytes), V = {self.vocab_size}, {self.merges} "
                 f"merges; median total of {runs} run{'s' * (runs != 1)} each"]
        width = max(len(r.name) for r in self.rows)
        for r in self.rows:
            verdict = slower_than(r.median, self.fastest.median)
            if r.yours:
                verdict += "; its merges equal ours" if self.verified else \
                    "; ITS MERGES DIFFER from ours (bpebench.check says where)"
            lines.append(f"  {r.name:<{width}}  {r.median:9.3f} s  {verdict}")
        return "\n".join(lines) + "\n"


def _corpus_path(corpus: str | os.PathLike, data_dir) -> str:
    """A path as given, else a corpus of `make data` by name."""
    if os.path.exists(corpus):
        return os.fspath(corpus)
    directory = os.fspath(data_dir) if data_dir is not None else default_data_dir()
    path = os.path.join(directory, os.fspath(corpus))
    if not os.path.exists(path):
        names = ", ".join(sorted(os.listdir(directory))) if os.path.isdir(directory) else \
            "none: run make data"
        raise UsageError(f"corpus {corpus!r}: no such file, and no such corpus in {directory} "
                         f"(there: {names})")
    return path


def time(train_bpe: Callable, corpus: str | os.PathLike = "tinystories", size: str | int = "1M",
         vocab_size: int = 1000, special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS, *,
         trainers: Sequence[str] | None = None, threads: int = 1, repeats: int = 1,
         data_dir: str | os.PathLike | None = None, quiet: bool = False) -> TimeResult:
    """Times train_bpe (CS336's signature) beside bpebench's trainers on one slice.

    corpus: a corpus of `make data` (tinystories, gutenberg-en, multilingual, cs336) or a
    path. size: the slice, as `bpebench bench --sizes` reads it ("100K", "1M", "all") or
    bytes. trainers: ours to run (default: all, naive included; naive is slow on large
    slices). threads: threads our trainers count with (1: as a single Python process).
    repeats: runs of each; the median counts.
    Prints (unless quiet) and returns a TimeResult whose verdict for yours is
    "N× slower than the fastest", with whether your merges equal ours.
    """
    specials = _specials(special_tokens)
    repeats = _whole(repeats, "repeats", 1)
    names = list(trainers) if trainers is not None else [t.name for t in registry()]
    if not names:
        raise UsageError("trainers is empty: name at least one (bpebench.trainers())")
    path = _corpus_path(corpus, data_dir)
    limit, label = (size, f"{size}B") if isinstance(size, int) else _bpebench.parse_size(size)
    base = os.path.basename(os.path.normpath(os.fspath(corpus)))
    with tempfile.TemporaryDirectory(prefix="bpebench-time-") as tmp:
        sliced = os.path.join(tmp, "slice.txt")
        length = _bpebench.slice([os.fsencode(path)], limit or 2**63, specials,
                                 os.fsencode(sliced))
        result = TimeResult(corpus=f"{base}@{label}", bytes=length, vocab_size=vocab_size,
                            merges=0)
        ours = None
        for name in names:
            row = TimeRow(name=name, seconds=[])
            for _ in range(repeats):
                tokens, merges, summary = _train(sliced, vocab_size, specials, name, threads,
                                                 "gpt2")
                row.seconds.append(summary["total_s"])
            ours = ours or _cs336(tokens, merges, specials)[1]
            result.rows.append(row)
        result.merges = len(ours)
        row = TimeRow(name=getattr(train_bpe, "__qualname__", "yours"), seconds=[], yours=True)
        for _ in range(repeats):
            start = clock.perf_counter()
            _, theirs = train_bpe(sliced, vocab_size, list(specials))
            row.seconds.append(clock.perf_counter() - start)
        result.rows.append(row)
    result.verified = list(theirs) == ours
    result.rows.sort(key=lambda r: r.median)
    if not quiet:
        print(result, end="", flush=True)
    return result
