"""bpebench.time: a Python trainer timed beside ours on one slice, judged against the
fastest ("N× slower than the fastest"), its merges verified. Nothing here compares a
measured time: only the table's shape, the verdict's words and the verification."""
import pytest

import bpebench
from bpebench._timing import slower_than


def test_the_verdict_is_a_factor():
    assert slower_than(2.0, 0.5) == "4× slower than the fastest"
    assert slower_than(94.2, 1.0) == "94.2× slower than the fastest"
    assert slower_than(0.5, 0.5) == "the fastest"


def test_the_example_beside_two_trainers(example, data_dir, capsys):
    result = bpebench.time(example.train_bpe, "cs336", "50K", 300,
                           trainers=["heap", "cache-aware"], repeats=2, data_dir=data_dir)
    printed = capsys.readouterr().out
    assert printed == str(result)
    assert result.verified and result.corpus == "cs336@50K" and result.merges == 300 - 257
    assert 49_000 < result.bytes <= 50_000
    assert sorted(r.name for r in result.rows) == ["cache-aware", "heap", "train_bpe"]
    assert all(len(r.seconds) == 2 for r in result.rows)
    assert [r.median for r in result.rows] == sorted(r.median for r in result.rows)
    lines = printed.splitlines()
    assert lines[0] == (f"cs336@50K ({result.bytes} bytes), V = 300, 43 merges; median total "
                        "of 2 runs each")
    assert lines[1].endswith("s  the fastest")
    yours = next(line for line in lines if line.lstrip().startswith("train_bpe"))
    assert yours.endswith(slower_than(result.yours.median, result.fastest.median) +
                          "; its merges equal ours")
    assert result.slower == result.yours.median / result.fastest.median


def test_a_wrong_trainer_is_timed_but_flagged(example, data_dir):
    def reversed_ties(input_path, vocab_size, special_tokens):
        vocab, merges = example.train_bpe(input_path, vocab_size, special_tokens)
        return vocab, merges[::-1]

    result = bpebench.time(reversed_ties, "cs336", "20K", 300, trainers=["heap"],
                           data_dir=data_dir, quiet=True)
    assert not result.verified and "ITS MERGES DIFFER from ours" in str(result)


def test_bad_corpora_and_sizes_are_usage_errors(example, data_dir):
    with pytest.raises(bpebench.UsageError, match=r"no such corpus in .*cs336"):
        bpebench.time(example.train_bpe, "wikipedia", data_dir=data_dir, quiet=True)
    with pytest.raises(bpebench.UsageError, match="expected a positive number with an optional suffix K, M, G"):
        bpebench.time(example.train_bpe, "cs336", "lots", data_dir=data_dir, quiet=True)
