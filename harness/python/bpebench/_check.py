"""bpebench.check: `bpebench check`'s battery on a Python train_bpe, in process.

The battery (harness/bench/check.c) writes each case's input to a temporary directory,
trains naive on it, and calls the trainer under check; for a Python trainer that call comes
back here (_run_case), and the merges go to C as merges.txt, exactly as an external trainer's
would (docs/examples/adapter.py). The lines are the command line's, explanations included.
"""
from __future__ import annotations

import os
import traceback
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from ._api import BpeError, UsageError, _bpebench

#: GPT-2's byte-to-unicode alphabet (the one table, harness/base/byteunicode.c)
_ALPHABET = _bpebench.gpt2_alphabet


def gpt2_spelling(token: bytes) -> str:
    """A token as merges.txt and vocab.json spell it: b' the' -> 'Ġthe', b'\\r\\n' -> 'čĊ'."""
    return "".join(_ALPHABET[b] for b in token)


class Merge(NamedTuple):
    """One side of a differing merge: the pair as bytes, and its count at that point
    (on the reference's segmentation; None when it could not be counted)."""
    left: bytes
    right: bytes
    count: int | None


@dataclass
class CaseResult:
    """One case of the battery."""
    name: str                    #: e.g. "spec-example-aaaaa"
    vocab_size: int              #: V
    passed: bool
    text: str                    #: what the command line prints for it (lines end with \n)
    input: str                   #: what the input was, or where it is
    index: int = -1              #: the first differing merge, or -1
    expected: Merge | None = None  #: naive's merge there (None: its list had ended)
    got: Merge | None = None     #: your merge there (None: your list had ended)
    hint: str | None = None      #: the likely mistake, when the difference looks like one


@dataclass
class CheckResult:
    """What bpebench.check found: truthy when every case passed, so a test can say
    `assert bpebench.check(train_bpe)` and see the failures in pytest's message."""
    trainer: str
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.cases) and all(c.passed for c in self.cases)

    @property
    def failed(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.passed]

    def summary(self) -> str:
        return f"{len(self.cases) - len(self.failed)} passed, {len(self.failed)} failed"

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return "".join(c.text for c in self.cases) + self.summary() + "\n"

    def __repr__(self) -> str:
        failures = "".join(c.text for c in self.failed)
        return f"<CheckResult of {self.trainer}: {self.summary()}>\n{failures}"


def _joined_input(files: list[str], specials: list[str], work_dir: str) -> str:
    """One file for a trainer that reads one: the case's files joined by the first special
    token, which cuts the text as a file boundary does (no word spans two files)."""
    if len(files) == 1:
        return files[0]
    path = os.path.join(work_dir, "joined.txt")
    with open(path, "wb") as joined:
        for i, name in enumerate(files):
            if i:
                joined.write(specials[0].encode("utf-8"))
            with open(name, "rb") as f:
                joined.write(f.read())
    return path


def _merges_problem(merges) -> str | None:
    """Why `merges` is not a list of pairs of bytes, or None."""
    if not isinstance(merges, (list, tuple)):
        return f"its merges are a {type(merges).__name__}, not a list of (bytes, bytes)"
    for i, pair in enumerate(merges):
        if not (isinstance(pair, tuple) and len(pair) == 2 and
                all(isinstance(t, bytes) and t for t in pair)):
            return f"merges[{i}] is {pair!r}: each merge is a pair of non-empty bytes"
    return None


def _vocab_problem(vocab, merges, specials: list[str]) -> str | None:
    """Why vocab does not hold exactly the bytes, the special tokens and the merged
    tokens (what CS336's test compares), or None."""
    if not isinstance(vocab, dict):
        return f"its vocab is a {type(vocab).__name__}, not a dict[int, bytes]"
    want = {bytes([b]) for b in range(256)} | {s.encode("utf-8") for s in specials}
    want |= {left + right for left, right in merges}
    have = set(vocab.values())
    size = 256 + len(specials) + len(merges)
    if len(vocab) != size:
        return (f"its vocab has {len(vocab)} entries, not 256 + {len(specials)} special "
                f"+ {len(merges)} merges = {size}")
    for missing, label in ((want - have, "lacks"), (have - want, "has an extra")):
        if missing:
            return f"its vocab {label} {sorted(missing)[0]!r} ({len(missing)} in all)"
    return None


class _PythonTrainer:
    """A train_bpe as the battery calls it: once per case (call), then the case's verdict
    comes back (take_vocab_problem reads what the call noted about the vocab)."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self.vocab_problem: str | None = None

    def __call__(self, files: list[str], vocab_size: int, specials: list[str],
                 out_dir: str) -> str | None:
        """Calls fn as CS336's test does and writes out_dir/merges.txt (GPT-2 alphabet).
        Returns why the case failed, or None; a vocab that disagrees with the merges is
        noted for the verdict (the merges are compared first). Exceptions other than
        Exception (KeyboardInterrupt) go through and stop the battery."""
        self.vocab_problem = None
        path = _joined_input(files, specials, os.path.dirname(out_dir))
        try:
            result = self.fn(path, vocab_size, list(specials))
        except Exception as error:  # the trainer's bug: the case fails, saying where
            where = traceback.extract_tb(error.__traceback__)[-1]
            return (f"raised {type(error).__name__}: {error} "
                    f"({os.path.basename(where.filename)}:{where.lineno})")
        if not (isinstance(result, tuple) and len(result) == 2):
            return f"returned {type(result).__name__}, not (vocab, merges)"
        vocab, merges = result
        problem = _merges_problem(merges)
        if problem:
            return problem
        with open(os.path.join(out_dir, "merges.txt"), "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n")
            f.writelines(f"{gpt2_spelling(a)} {gpt2_spelling(b)}\n" for a, b in merges)
        self.vocab_problem = _vocab_problem(vocab, merges, specials)
        return None

    def take_vocab_problem(self) -> str | None:
        problem, self.vocab_problem = self.vocab_problem, None
        return problem


def _case(v: dict, problem: str | None) -> CaseResult:
    """A verdict of the C battery as a CaseResult; a passing case whose vocab disagrees
    with its merges fails here, on a line of the command line's shape."""
    case = CaseResult(name=v["name"], vocab_size=v["vocab_size"], passed=v["passed"],
                      text=v["text"], input=v["input"], index=v["index"], hint=v["hint"],
                      expected=Merge(*v["expected"]) if v["expected"] else None,
                      got=Merge(*v["got"]) if v["got"] else None)
    if case.passed and problem:
        label = f"{case.name} V={case.vocab_size}"
        case.passed = False
        case.text = f"FAIL  {label:<34} {problem}\n      {'input':<9}{case.input}\n"
    return case


def default_data_dir() -> str:
    """Where `make data` unpacked the corpora for this build."""
    return os.path.join(_bpebench.source_dir, "build", "data")


def check(train_bpe: Callable | str, *, data_dir: str | os.PathLike | None = None,
          quiet: bool = False, failfast: bool = False) -> CheckResult:
    """Runs `bpebench check`'s battery on train_bpe, in this process.

    train_bpe: a function with CS336's signature, train_bpe(input_path, vocab_size,
    special_tokens) -> (vocab, merges), or the name of a built-in trainer.
    Each case (docs/spec.md's worked examples, overlapping runs, ties between prefixes,
    special tokens, a multilingual and a Gutenberg slice) compares its merges with
    naive's. Prints one line per case as `bpebench check` does (unless quiet) and, under a
    failure, both pairs as bytes literals beside their merges.txt spelling with their
    counts, a hint when the difference looks like a known mistake, and the input.
    data_dir: the unpacked corpora (default: where `make data` put them for this build).
    failfast: stop at the first failing case (as pytest -x).
    Returns a CheckResult: true when every case passed.
    """
    if isinstance(train_bpe, str):
        name, trainer, python = train_bpe, train_bpe, None
    elif callable(train_bpe):
        name = getattr(train_bpe, "__qualname__", repr(train_bpe))
        trainer = python = _PythonTrainer(train_bpe)
    else:
        raise TypeError(f"check takes a train_bpe function or a trainer's name, not "
                        f"{train_bpe!r}")
    result = CheckResult(trainer=name)
    directory = os.fspath(data_dir if data_dir is not None else default_data_dir())
    if not os.path.isdir(directory):
        raise (UsageError if data_dir is not None else BpeError)(
            f"check: no corpora at {directory}: run make data in {_bpebench.source_dir}, or "
            "give data_dir= the directory make data unpacked them into")

    def on_case(verdict: dict) -> bool:
        case = _case(verdict, python.take_vocab_problem() if python else None)
        result.cases.append(case)
        if not quiet:
            print(case.text, end="", flush=True)
        return case.passed or not failfast

    if not quiet and python:
        print(f"checking   {name}, in process", flush=True)
    _bpebench.check(trainer, os.fsencode(directory), on_case)
    if not quiet:
        print(result.summary(), flush=True)
    return result
