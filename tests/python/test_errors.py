"""Failures, Ctrl-C and the GIL:
  - a bad input raises BpeError, a bad argument UsageError (a ValueError too), each with
    the one-line message the command line prints for the same mistake;
  - Ctrl-C (SIGINT to a Python process in the middle of a long training) ends it at once
    by KeyboardInterrupt, leaving no file, no directory and no process behind;
  - the GIL is released while the C side works: another thread runs meanwhile.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import bpebench
from conftest import TOP, run_cli


def cli_message(binary: str, *args: str) -> tuple[int, str]:
    """The exit status and the one-line message (without "bpebench: ") of a command."""
    done = run_cli(binary, *args)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpebench: "), done.stderr
    return done.returncode, lines[0][len("bpebench: "):]


def test_a_missing_input_is_the_cli_message(bpebench_cli, tmp_path):
    missing = str(tmp_path / "nope.txt")
    status, message = cli_message(bpebench_cli, "train", "--vocab-size", "300", "--out",
                                  str(tmp_path / "o"), missing)
    assert status == 1
    with pytest.raises(bpebench.BpeError) as raised:
        bpebench.train_bpe(missing, 300, ["<|endoftext|>"])
    assert str(raised.value) == message
    assert not isinstance(raised.value, ValueError)


def test_invalid_utf8_names_the_offset(bpebench_cli, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world\n\xff\xfe more text\n")
    _, message = cli_message(bpebench_cli, "train", "--vocab-size", "300", "--out",
                             str(tmp_path / "o"), str(bad))
    with pytest.raises(bpebench.BpeError, match="byte offset 12") as raised:
        bpebench.train_bpe(bad, 300, ["<|endoftext|>"])
    assert str(raised.value) == message
    assert not (tmp_path / "o").exists()
    with pytest.raises(bpebench.BpeError, match="byte offset 12"):
        bpebench.count_words(bad)
    assert bpebench.count_words(bad, invalid_utf8="bytes")[b"\xff\xfe"] == 1
    bpebench.count_words(bad, invalid_utf8="bytes", out=tmp_path / "bad.counts")
    assert (tmp_path / "bad.counts").read_text(encoding="utf-8").endswith("#end 6 7\n")
    summary = bpebench.train(bad, 260, tmp_path / "bytes", invalid_utf8="bytes")
    assert summary.invalid_runs == 1 and (tmp_path / "bytes" / "vocab.json").exists()


@pytest.mark.parametrize("cli_args, call", [
    (["--vocab-size", "256"], lambda p: bpebench.train_bpe(p, 256, ["<|endoftext|>"])),
    (["--vocab-size", "300", "--pattern", "(unclosed"],
     lambda p: bpebench.train_bpe(p, 300, ["<|endoftext|>"], pattern="(unclosed")),
    (["--vocab-size", "300", "--special-token", ""],
     lambda p: bpebench.train_bpe(p, 300, [""])),
])
def test_bad_arguments_are_usage_errors(cli_args, call, bpebench_cli, data_dir, tmp_path):
    corpus = os.path.join(data_dir, "cs336", "corpus.en")
    status, message = cli_message(bpebench_cli, "train", *cli_args, "--out",
                                  str(tmp_path / "o"), corpus)
    assert status == 2
    with pytest.raises(bpebench.UsageError) as raised:
        call(corpus)
    assert str(raised.value) == message
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("sizes", [[300, 400, 300], [256, 300], list(range(300, 365)),
                                   [300, 1000, 1]])
def test_a_bad_list_of_sizes_is_the_cli_message(sizes, bpebench_cli, data_dir, tmp_path):
    """vocab_size=[...] is refused as `--vocab-size V1,V2,...` is, before anything is read
    or written."""
    corpus = os.path.join(data_dir, "cs336", "corpus.en")
    status, message = cli_message(bpebench_cli, "train", "--vocab-size",
                                  ",".join(map(str, sizes)), "--out", str(tmp_path / "o"),
                                  corpus)
    assert status == 2
    with pytest.raises(bpebench.UsageError) as raised:
        bpebench.train(corpus, sizes, tmp_path / "o")
    assert str(raised.value) == message
    assert not (tmp_path / "o").exists()


def test_train_bpe_takes_one_size(data_dir):
    """CS336's train_bpe returns one (vocab, merges): a list is refused, saying how to get
    each size (a prefix of the merges) or a tokenizer set per size (train)."""
    corpus = os.path.join(data_dir, "cs336", "corpus.en")
    with pytest.raises(bpebench.UsageError, match=r"one vocab_size.*merges\[:V - 256"):
        bpebench.train_bpe(corpus, [300, 400], ["<|endoftext|>"])
    with pytest.raises(bpebench.UsageError, match="names no size"):
        bpebench.train(corpus, [], "unused")
    with pytest.raises(TypeError, match="whole number"):
        bpebench.train(corpus, [300, "400"], "unused")


def test_arguments_of_the_wrong_type_are_type_errors(data_dir):
    corpus = os.path.join(data_dir, "cs336", "corpus.en")
    with pytest.raises(TypeError, match="list of str"):
        bpebench.train_bpe(corpus, 300, "<|endoftext|>")
    with pytest.raises(TypeError, match="whole number"):
        bpebench.train_bpe(corpus, "300", ["<|endoftext|>"])
    with pytest.raises(bpebench.UsageError, match="unknown trainer 'fast'"):
        bpebench.train_bpe(corpus, 300, [], trainer="fast")
    with pytest.raises(bpebench.UsageError, match="bad threads 0"):
        bpebench.train_bpe(corpus, 300, [], threads=0)


def test_train_never_writes_over_an_input(bpebench_cli, tmp_path):
    corpus = tmp_path / "merges.txt"
    corpus.write_text("some text to train on\n")
    status, message = cli_message(bpebench_cli, "train", "--vocab-size", "260", "--out",
                                  str(tmp_path), str(corpus))
    assert status == 2
    with pytest.raises(bpebench.UsageError) as raised:
        bpebench.train(corpus, 260, tmp_path)
    assert str(raised.value) == message
    assert corpus.read_text() == "some text to train on\n"


# ------------------------------------------------------------- Ctrl-C

def children_of(pid: int) -> list[int]:
    """The live processes whose parent is pid (from /proc; zombies left out)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state, parent = f.read().rsplit(")", 1)[1].split()[:2]
            except (OSError, ValueError):
                continue
            if int(parent) == pid and state != "Z":
                found.append(int(entry))
    return found


def wait_for(condition, seconds: float = 60.0) -> bool:
    """Polls condition() every 10 ms until it holds (True) or seconds pass (False)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


INTERRUPTED = """
import signal, sys, bpebench
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if make ran with it ignored
print("started", flush=True)
kind, corpus, out = sys.argv[1:]
if kind == "train":
    bpebench.train(corpus, 20000, out, trainer="naive", threads=1)
elif kind == "count":
    bpebench.count_words(corpus, out=out, threads=1)
else:
    bpebench.train_bpe(corpus, 20000, ["<|endoftext|>"], trainer="naive", threads=1)
print("finished", flush=True)
"""


@pytest.fixture(scope="module")
def long_text(data_dir, tmp_path_factory):
    """400 MB of Gutenberg's text: minutes of counting on one thread."""
    path = tmp_path_factory.mktemp("long") / "long.txt"
    with open(os.path.join(data_dir, "gutenberg-en", "war_and_peace.txt"), "rb") as f:
        book = f.read()
    with open(path, "wb") as f:
        for _ in range(400_000_000 // len(book)):
            f.write(book)
    yield str(path)
    os.unlink(path)


@pytest.mark.parametrize("kind", ["train", "train_bpe", "count"])
def test_ctrl_c_stops_at_once_and_leaves_nothing(kind, data_dir, long_text, tmp_path):
    """SIGINT to a Python process whose call trains naive on all of Gutenberg, or counts
    400 MB (minutes): once the work is under way in its child, the process dies of
    KeyboardInterrupt at once, and nothing it made is left: no output directory, no
    temporary file, no child. (The 60 s bound only keeps a broken build from hanging.)"""
    out = tmp_path / "out" / "new" / "tokenizer"  # train makes it, with its parents
    corpus = os.path.join(data_dir, "gutenberg-en")
    if kind == "count":  # count_words writes one file into a directory that exists
        (tmp_path / "out").mkdir()
        out, corpus = tmp_path / "out" / "words.counts", long_text
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    process = subprocess.Popen([sys.executable, "-c", INTERRUPTED, kind, corpus, str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    try:
        assert process.stdout.readline() == "started\n"
        assert wait_for(lambda: children_of(process.pid))  # the child doing the work
        worker = children_of(process.pid)
        assert len(worker) == 1
        if kind == "train":  # the child makes the directory once it has listed the inputs
            assert wait_for((tmp_path / "out" / "new" / "tokenizer").is_dir)
        time.sleep(0.5)  # well into reading and counting
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGINT, err
    assert err.rstrip().endswith("KeyboardInterrupt")
    assert os.listdir(tmp_path / "out" if kind == "count" else tmp_path) == []
    assert not os.path.exists(f"/proc/{worker[0]}")


ALARMED = """
import os, signal, sys, bpebench
class Stop(Exception):
    pass
def stop(signo, frame):
    raise Stop()
signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, 0.5)
try:
    bpebench.train_bpe(sys.argv[1], 20000, [], trainer="naive", threads=1)
except Stop:
    print("stopped", flush=True)
"""


def ignore_interrupts():
    """What `nohup cmd &` or a script's background job does to what it starts: SIGINT and
    SIGTERM ignored, and inherited so by every process it makes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


@pytest.mark.parametrize("started", ["plainly", "with interrupts ignored"])
def test_a_signal_handler_s_exception_goes_through(data_dir, started):
    """Any exception a Python signal handler raises stops the work, as Ctrl-C does: here a
    timer's, half a second into a training of minutes (60 s: the hang guard). Also when the
    interpreter was started with SIGINT and SIGTERM ignored, as in a background job."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", ALARMED, os.path.join(data_dir, "gutenberg-en")],
                          capture_output=True, text=True, env=env, timeout=60,
                          preexec_fn=ignore_interrupts if started != "plainly" else None)
    assert done.returncode == 0 and done.stdout.startswith("stopped"), done.stderr


# ------------------------------------------------------------- the GIL

def test_the_gil_is_released_while_c_works(data_dir):
    """A thread trains; this one watches for the child that does the work. It can only
    see it while the call is inside C, so seeing it proves this thread ran meanwhile:
    with the GIL held through the call, it could not."""
    done = threading.Event()
    before, seen = set(children_of(os.getpid())), set()

    def train():
        try:
            bpebench.train_bpe(os.path.join(data_dir, "gutenberg-en"), 3000, [],
                               trainer="heap", threads=1)
        finally:
            done.set()

    worker = threading.Thread(target=train)
    worker.start()
    while not done.is_set() and not seen:
        seen = set(children_of(os.getpid())) - before
    worker.join()
    assert seen, "no child seen while train_bpe ran: the GIL was held"
