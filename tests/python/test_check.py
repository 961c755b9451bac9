"""bpebench.check on Python functions:
  - docs/examples' trainer passes, with the very lines `bpebench check --external` prints
    for it through adapter.py, and so does a built-in trainer by name;
  - three planted bugs fail, each at its first failing case with both pairs (bytes, and
    their counts there) and the right hint: CR LF read as LF (universal newlines), ties
    broken the other way, overlapping pairs counted once;
  - a trainer that raises, returns the wrong types or a vocab that disagrees with its
    merges fails its cases with a reason; KeyboardInterrupt stops the battery and leaves
    no temporary directory.
"""
import builtins
import os
import subprocess
import sys
import textwrap

import pytest

import bpebench
from conftest import EXAMPLES, TOP, spell


@pytest.fixture
def fresh_example():
    """A fresh copy of docs/examples/bpe_example.py's module, to plant a bug into."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("planted",
                                                  os.path.join(EXAMPLES, "bpe_example.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def first_failure(result: bpebench.CheckResult) -> bpebench.CaseResult:
    assert not result and result.failed, str(result)
    return result.failed[0]


def cli_check_lines(bpebench_cli, data_dir, command, cwd=TOP) -> list[str]:
    """`bpebench check --external COMMAND`'s lines, without its "running" line."""
    done = subprocess.run([bpebench_cli, "check", "--data-dir", data_dir, "--external", command],
                          capture_output=True, text=True, cwd=cwd)
    lines = done.stdout.splitlines(keepends=True)
    assert lines[0].startswith("running    sh -c "), done.stdout + done.stderr
    return lines[1:]


def test_the_example_passes_with_the_cli_lines(example, bpebench_cli, data_dir, capsys):
    result = bpebench.check(example.train_bpe, data_dir=data_dir)
    printed = capsys.readouterr().out.splitlines(keepends=True)
    assert result and len(result.cases) == 12 and result.summary() == "12 passed, 0 failed"
    assert printed[0] == "checking   train_bpe, in process\n"
    cli = cli_check_lines(bpebench_cli, data_dir, f"{sys.executable} docs/examples/adapter.py")
    assert printed[1:] == cli
    assert str(result).splitlines(keepends=True) == cli


def test_a_builtin_trainer_by_name(data_dir):
    assert bpebench.check("heap", data_dir=data_dir, quiet=True)
    with pytest.raises(bpebench.UsageError, match="unknown trainer 'fastest'"):
        bpebench.check("fastest", data_dir=data_dir, quiet=True)


# ------------------------------------------------------------- planted bugs

def test_universal_newlines_get_the_cr_lf_hint(fresh_example, data_dir):
    """open() without newline="": Python reads the Gutenberg slices' \\r\\n as \\n."""
    fresh_example.open = lambda path, encoding=None, newline=None: builtins.open(
        path, encoding=encoding)
    case = first_failure(bpebench.check(fresh_example.train_bpe, data_dir=data_dir, quiet=True))
    assert case.name == "gutenberg-slice"
    assert case.expected.left == b"\r" and case.expected.right == b"\n"
    assert case.got.count < case.expected.count
    assert "CR LF" in case.hint and 'newline=""' in case.hint
    assert f"expected b'\\r' + b'\\n'  (č Ċ)  count {case.expected.count}\n" in case.text
    assert "the first 30000 bytes of each of the first 2 files of" in case.input
    assert os.path.join(data_dir, "gutenberg-en") in case.input


def test_a_reversed_tie_break_gets_the_tie_hint(fresh_example, data_dir):
    fresh_example.tie_break = lambda pair: tuple(bytes(255 - b for b in t) + b"\xff"
                                                 for t in pair)
    result = bpebench.check(fresh_example.train_bpe, data_dir=data_dir, quiet=True,
                            failfast=True)
    case = first_failure(result)
    assert len(result.cases) == 1  # failfast: the battery stopped there
    assert (case.name, case.vocab_size, case.index) == ("spec-example-low-lower", 263, 0)
    assert case.expected == bpebench.Merge(b"s", b"t", 9)
    assert case.got == bpebench.Merge(b"e", b"s", 9)
    assert case.hint.startswith("a tie")
    assert case.text.startswith(
        "FAIL  spec-example-low-lower V=263       first differing merge 0: expected (s, t) "
        "count 9, got (e, s) count 9\n"
        "      expected b's' + b't'  (s t)  count 9\n"
        "      got      b'e' + b's'  (e s)  count 9\n"
        "      hint     a tie")
    assert case.input.startswith("the words low:5 lower:2 widest:3 newest:6")
    assert "FAIL  spec-example-low-lower" in repr(result)  # what pytest shows on `assert`


def test_overlaps_counted_once_get_the_overlap_hint(fresh_example, data_dir):
    def pairs_without_overlaps(word):  # aaa counts (a, a) once: the scan skips a position
        i = 0
        while i + 1 < len(word):
            yield word[i], word[i + 1]
            i += 2 if word[i] == word[i + 1] else 1

    fresh_example.pairs_of = pairs_without_overlaps
    case = first_failure(bpebench.check(fresh_example.train_bpe, data_dir=data_dir, quiet=True,
                                        failfast=True))
    assert (case.name, case.index) == ("spec-example-aaabdaaabac", 0)
    assert case.expected == bpebench.Merge(b"a", b"a", 4)
    assert case.got.count < 4
    assert "one token twice" in case.hint and "overlapping" in case.hint


def test_the_cli_prints_the_same_failures(tmp_path, bpebench_cli, data_dir):
    """A wrong trainer in a student's directory: bpebench.check prints, case by case, what
    `bpebench check --external` prints through adapter.py MODULE:FUNCTION (its one merge
    differs from every case's first)."""
    (tmp_path / "wrong_bpe.py").write_text(textwrap.dedent("""
        def train_bpe(input_path, vocab_size, special_tokens):
            return {}, [(b"'", b"\\\\")]
        """))
    adapter = os.path.join(EXAMPLES, "adapter.py")
    cli = cli_check_lines(bpebench_cli, data_dir,
                          f"{sys.executable} {adapter} wrong_bpe:train_bpe", cwd=tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        import wrong_bpe
        result = bpebench.check(wrong_bpe.train_bpe, data_dir=data_dir, quiet=True)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("wrong_bpe", None)
    assert len(result.failed) == 12
    assert result.cases[0].got == bpebench.Merge(b"'", b"\\", 0)
    assert str(result).splitlines(keepends=True) == cli


@pytest.mark.parametrize("left, right", [(b"'", b"\\"), (b'"', b"'"), (b"\t", b"\xff"),
                                         (b"\x00", b"~")])
def test_tokens_are_shown_as_python_writes_them(left, right, data_dir):
    def one_merge(input_path, vocab_size, special_tokens):
        return {}, [(left, right)]

    case = first_failure(bpebench.check(one_merge, data_dir=data_dir, quiet=True,
                                        failfast=True))
    assert case.got == bpebench.Merge(left, right, 0)
    assert f"      got      {left!r} + {right!r}  ({spell(left)} {spell(right)})  count 0\n" \
        in case.text
    assert bpebench.gpt2_spelling(left + right) == spell(left + right)


# ------------------------------------------------------------- trainers that misbehave

def test_a_trainer_that_raises_fails_every_case_with_where(data_dir):
    def broken(input_path, vocab_size, special_tokens):
        return 1 / 0

    result = bpebench.check(broken, data_dir=data_dir, quiet=True)
    assert len(result.failed) == 12
    assert all("raised ZeroDivisionError: division by zero (test_check.py:" in c.text
               for c in result.cases)


@pytest.mark.parametrize("returned, reason", [
    ([], "returned list, not (vocab, merges)"),
    (({}, [("s", "t")]), "merges[0] is ('s', 't'): each merge is a pair of non-empty bytes"),
    (({}, {}), "its merges are a dict, not a list of (bytes, bytes)"),
])
def test_wrong_types_are_named(returned, reason, data_dir):
    result = bpebench.check(lambda *args: returned, data_dir=data_dir, quiet=True)
    assert all(reason in c.text for c in result.cases), str(result)


def test_a_vocab_that_disagrees_with_the_merges_fails(example, data_dir):
    def without_specials(input_path, vocab_size, special_tokens):
        vocab, merges = example.train_bpe(input_path, vocab_size, special_tokens)
        return {i: t for i, t in vocab.items() if t not in
                {s.encode() for s in special_tokens}}, merges

    case = first_failure(bpebench.check(without_specials, data_dir=data_dir, quiet=True,
                                        failfast=True))
    assert case.text.startswith("FAIL  spec-example-low-lower V=263       its vocab has 262 "
                                "entries, not 256 + 1 special + 6 merges = 263\n")


def test_keyboard_interrupt_stops_the_battery_and_leaves_nothing(example, data_dir,
                                                                 tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    calls = []

    def interrupted(input_path, vocab_size, special_tokens):
        calls.append(input_path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return example.train_bpe(input_path, vocab_size, special_tokens)

    with pytest.raises(KeyboardInterrupt):
        bpebench.check(interrupted, data_dir=data_dir, quiet=True)
    assert len(calls) == 3
    assert calls[0].startswith(str(tmp_path))  # the check's directory was there ...
    assert os.listdir(tmp_path) == []          # ... and is gone


def test_missing_corpora_are_named_before_any_case(example, tmp_path):
    with pytest.raises(bpebench.UsageError, match="no corpora at .*nowhere: run make data"):
        bpebench.check(example.train_bpe, data_dir=tmp_path / "nowhere", quiet=True)
