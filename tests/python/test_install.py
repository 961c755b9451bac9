"""`pip install ./harness/python` into a virtualenv made by Debian's python3-venv, without
the network (--no-index): the package is then imported outside the tree and trains; the
install writes nothing beside the package's sources."""
import os
import subprocess

from conftest import TOP

SOURCES = os.path.join(TOP, "harness", "python")


def listing(top: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), top)
                  for d, _, files in os.walk(top) for f in files)


def test_pip_installs_offline_into_a_venv(tmp_path, data_dir):
    before = listing(SOURCES)
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_FIND_LINKS")}
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", SOURCES],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    corpus = os.path.join(data_dir, "cs336", "corpus.en")
    script = ("import bpebench, sys; v, m = bpebench.train_bpe(sys.argv[1], 260, "
              "['<|endoftext|>']); print(bpebench.__file__); print(m)")
    ran = subprocess.run([str(venv / "bin" / "python"), "-c", script, corpus],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    where, merges = ran.stdout.splitlines()
    assert where.startswith(str(venv))
    assert merges == "[(b' ', b't'), (b' ', b'a'), (b'h', b'e')]"
    assert listing(SOURCES) == before
