"""bpebench from Python: train byte-level BPE tokenizers with bpebench's C trainers, check
your own train_bpe (Stanford CS336's signature) against them, and time it beside them.

    import bpebench
    vocab, merges = bpebench.train_bpe("corpus.txt", 10000, ["<|endoftext|>"])
    assert bpebench.check(my_train_bpe)
    bpebench.time(my_train_bpe, corpus="tinystories", size="1M", vocab_size=1000)

docs/python.md is the guide; harness/python/README.md says how the package is built.
"""
from ._api import (BpeError, TrainSummary, Trainer, UsageError, count_words, train, train_bpe,
                   trainers)
from ._check import CaseResult, CheckResult, Merge, check, gpt2_spelling
from ._timing import TimeResult, time

__all__ = ["BpeError", "UsageError", "Trainer", "TrainSummary", "CaseResult", "CheckResult",
           "Merge", "TimeResult", "train_bpe", "train", "count_words", "trainers", "check",
           "time", "gpt2_spelling"]
