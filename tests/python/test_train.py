"""bpebench.train_bpe, train, count_words and trainers against the command line:
  - train_bpe's (vocab, merges) equal `bpebench train`'s files on a slice of every shipped
    corpus (each multilingual language apart), for every trainer;
  - the CS336 reference merges and vocabulary for corpus.en at V = 500 (the fixtures of
    stanford-cs336/assignment1-basics, tests/fixtures/) come back through the Python API,
    exactly as CS336's test_train_bpe compares them;
  - train writes the CLI's files byte for byte, and with a list of sizes a set per size,
    each the files of a CLI run of that size alone; count_words equals the example trainer's
    counting (regex.finditer) and its word-count file trains as `train --counts`;
  - trainers() is the registry `bpebench list` prints.
"""
import json
import os
import subprocess
from dataclasses import replace

import pytest

import bpebench
from conftest import TOP, cli_train, run_cli, spell, unspell

FIXTURES = os.path.join(TOP, "tests", "fixtures")
TRAINERS = [t.name for t in bpebench.trainers()]

# (name, corpus under the data dir): every shipped corpus; the multilingual set one
# language at a time, since each script gives other words
CORPORA = [("cs336", "cs336/corpus.en"),
           ("tinystories", "tinystories"),
           ("gutenberg", "gutenberg-en")] + \
          [(f"multilingual-{lang}", f"multilingual/{lang}.txt")
           for lang in ("ar", "de", "en", "hi", "zh")]
SLICE_BYTES = 100_000
VOCAB = 500


@pytest.fixture(scope="module")
def slices(tmp_path_factory, bpebench_cli, data_dir) -> dict[str, str]:
    """A word-safe 100 KB slice of every corpus, cut by `bpebench slice`."""
    made = {}
    for name, rel in CORPORA:
        path = str(tmp_path_factory.mktemp("slices") / f"{name}.txt")
        done = run_cli(bpebench_cli, "slice", "--bytes", str(SLICE_BYTES), "--out", path,
                       os.path.join(data_dir, rel))
        assert done.returncode == 0, done.stderr
        made[name] = path
    return made


def expected_vocab_json(vocab: dict[int, bytes]) -> dict[str, int]:
    """vocab.json as train writes it from CS336's vocab: every token by its GPT-2 spelling,
    a twin (a later id with the bytes of an earlier one) keeping the first id."""
    out: dict[str, int] = {}
    for i in sorted(vocab):
        out.setdefault(spell(vocab[i]), i)
    return out


@pytest.mark.parametrize("trainer", TRAINERS)
@pytest.mark.parametrize("corpus", [name for name, _ in CORPORA])
def test_train_bpe_equals_the_cli_files(corpus, trainer, slices, bpebench_cli, tmp_path):
    specials = ["<|endoftext|>"]
    vocab, merges = bpebench.train_bpe(slices[corpus], VOCAB, specials, trainer=trainer)
    assert isinstance(vocab, dict) and isinstance(merges, list)
    assert all(type(i) is int and type(b) is bytes for i, b in vocab.items())
    assert all(type(m) is tuple and len(m) == 2 and all(type(t) is bytes for t in m)
               for m in merges)
    lines, vocab_json = cli_train(bpebench_cli, str(tmp_path / "out"), [slices[corpus]], VOCAB,
                                  trainer)
    assert [f"{spell(a)} {spell(b)}" for a, b in merges] == lines
    assert expected_vocab_json(vocab) == vocab_json
    assert sorted(vocab) == list(range(256 + len(specials) + len(merges)))


def cs336_reference():
    """CS336's test_train_bpe, as it reads its fixtures."""
    with open(os.path.join(FIXTURES, "cs336-train-bpe-reference-merges.txt"),
              encoding="utf-8") as f:
        merges = [tuple(unspell(t) for t in line.rstrip().split(" ")) for line in f]
    with open(os.path.join(FIXTURES, "cs336-train-bpe-reference-vocab.json"),
              encoding="utf-8") as f:
        vocab = {index: unspell(item) for item, index in json.load(f).items()}
    return vocab, merges


@pytest.mark.parametrize("trainer", TRAINERS)
def test_the_cs336_reference_comes_back(trainer, data_dir):
    reference_vocab, reference_merges = cs336_reference()
    assert len(reference_merges) == 243
    vocab, merges = bpebench.train_bpe(os.path.join(data_dir, "cs336", "corpus.en"), 500,
                                       ["<|endoftext|>"], trainer=trainer)
    assert merges == reference_merges
    assert set(vocab.keys()) == set(reference_vocab.keys())
    assert set(vocab.values()) == set(reference_vocab.values())


def test_ids_are_those_train_writes(data_dir):
    """0-255 the bytes, then the special tokens in the order given, then the merges."""
    specials = ["<|endoftext|>", "<s>"]
    vocab, merges = bpebench.train_bpe(os.path.join(data_dir, "cs336", "corpus.en"), 300,
                                       specials)
    assert [vocab[i] for i in range(256)] == [bytes([b]) for b in range(256)]
    assert vocab[256] == b"<|endoftext|>" and vocab[257] == b"<s>"
    assert [vocab[258 + i] for i in range(len(merges))] == [a + b for a, b in merges]
    assert len(merges) == 300 - 256 - 2


def test_threads_and_patterns_give_the_cli_merges(slices, bpebench_cli, tmp_path):
    text = slices["multilingual-de"]
    one = bpebench.train_bpe(text, 400, ["<|endoftext|>"], threads=1, pattern="gpt4")
    two = bpebench.train_bpe(text, 400, ["<|endoftext|>"], threads=2, pattern="gpt4")
    assert one == two
    lines, _ = cli_train(bpebench_cli, str(tmp_path / "out"), [text], 400, "heap",
                         ["--pattern", "gpt4"])
    assert [f"{spell(a)} {spell(b)}" for a, b in one[1]] == lines


def test_train_writes_the_cli_files(slices, bpebench_cli, tmp_path):
    text = slices["tinystories"]
    summary = bpebench.train(text, 700, tmp_path / "py", trainer="bucket", threads=1)
    cli_train(bpebench_cli, str(tmp_path / "cli"), [text], 700, "bucket", ["--threads", "1"])
    names = sorted(os.listdir(tmp_path / "cli"))
    assert sorted(os.listdir(tmp_path / "py")) == names
    for name in names:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert summary.trainer == "bucket" and summary.merges == summary.max_merges == 700 - 257
    assert summary.bytes == os.path.getsize(text) and summary.files == 1
    assert summary.words > 0 and summary.total_s >= summary.merge_s >= 0


SIZES_TRAINERS = [TRAINERS[0], bpebench.trainers()[[t.default for t in
                                                    bpebench.trainers()].index(True)].name]


@pytest.mark.parametrize("trainer", SIZES_TRAINERS)
def test_several_sizes_are_the_cli_runs_of_each(trainer, slices, bpebench_cli, tmp_path):
    """train(vocab_size=[...]) trains once and writes out/<V>/ per size: each the files of
    `bpebench train --vocab-size V` alone, and each summary that run's."""
    text = slices["tinystories"]
    sizes = [700, 300, 500]  # any order, as --vocab-size 700,300,500
    summaries = bpebench.train(text, sizes, tmp_path / "py", trainer=trainer, threads=1)
    assert list(summaries) == [300, 500, 700]
    assert sorted(os.listdir(tmp_path / "py")) == ["300", "500", "700"]
    for size, summary in summaries.items():
        alone = tmp_path / "cli" / str(size)
        cli_train(bpebench_cli, str(alone), [text], size, trainer, ["--threads", "1"])
        names = sorted(os.listdir(alone))
        assert sorted(os.listdir(tmp_path / "py" / str(size))) == names
        for name in names:
            assert (tmp_path / "py" / str(size) / name).read_bytes() == \
                (alone / name).read_bytes(), (size, name)
        assert (summary.vocab_size, summary.merges, summary.max_merges, summary.exhausted) == \
            (size, size - 257, size - 257, False)


def test_sizes_past_the_last_pair_are_exhausted_as_alone(tmp_path):
    """A size the text runs out of pairs for reports it as a run of that size alone."""
    text = tmp_path / "tiny.txt"
    text.write_text("low lower lowest newer wider\n")
    summaries = bpebench.train(text, (258, 300, 280), tmp_path / "sets", special_tokens=[],
                               threads=1)
    untimed = {name: 0.0 for name in ("read_s", "pretokenize_s", "setup_s", "merge_s",
                                      "total_s")}
    for size, summary in summaries.items():
        alone = bpebench.train(text, size, tmp_path / str(size), special_tokens=[], threads=1)
        assert replace(summary, **untimed) == replace(alone, **untimed)
        assert (tmp_path / "sets" / str(size) / "merges.txt").read_bytes() == \
            (tmp_path / str(size) / "merges.txt").read_bytes()
    assert [s.exhausted for s in summaries.values()] == [False, True, True]


def test_count_words_counts_as_regex_does(data_dir, example):
    path = os.path.join(data_dir, "cs336", "corpus.en")
    words = bpebench.count_words(path, ["<|endoftext|>"])
    with open(path, encoding="utf-8", newline="") as f:
        theirs = example.count_words(f.read(), ["<|endoftext|>"])
    assert words == {b"".join(w): n for w, n in theirs.items()}
    assert all(type(w) is bytes and type(n) is int for w, n in words.items())


def test_a_count_file_trains_as_the_corpus(data_dir, bpebench_cli, tmp_path):
    corpus = os.path.join(data_dir, "tinystories")
    counts = tmp_path / "ts.counts"
    words = bpebench.count_words(corpus, out=counts)
    assert counts.read_text(encoding="utf-8").endswith(f"#end {len(words)} "
                                                       f"{sum(words.values())}\n")
    lines, _ = cli_train(bpebench_cli, str(tmp_path / "out"), [str(counts)], 600, "heap",
                         ["--counts"])
    _, merges = bpebench.train_bpe(corpus, 600, ["<|endoftext|>"])
    assert [f"{spell(a)} {spell(b)}" for a, b in merges] == lines


def test_trainers_are_the_registry(bpebench_cli):
    listed = run_cli(bpebench_cli, "list").stdout
    names = [t.name for t in bpebench.trainers()]
    assert names[0] == "naive" and sum(t.default for t in bpebench.trainers()) == 1
    for t in bpebench.trainers():
        assert f"{t.name:<15} {t.idea}\n" in listed
        assert t.complexity in listed


def test_the_extension_is_this_tree_s(bpebench_cli):
    """The package and the binary are built from the same sources (a stale build/python
    would test old code)."""
    from bpebench import _bpebench
    assert os.path.samefile(_bpebench.source_dir, TOP)
    assert subprocess.run([bpebench_cli, "list"], capture_output=True).returncode == 0
