"""`pip install ./harness/python` into a virtualenv made by Debian's python3-venv, without
the network (--no-index), both ways docs/python.md gives: as Debian's pip does it, and
with the `wheel` package from Debian's python3-wheel-whl first (what a newer pip needs).
The package is then imported outside the tree and trains; the install writes nothing
beside the package's sources."""
import os
import subprocess

import pytest

from conftest import TOP

SOURCES = os.path.join(TOP, "harness", "python")
DEBIAN_WHEELS = "/usr/share/python-wheels"

WAYS = {
    "plain": [["install", "--no-index", SOURCES]],
    "with-wheel": [["install", "--no-index", "--find-links", DEBIAN_WHEELS, "wheel"],
                   ["install", "--no-index", "--no-build-isolation", SOURCES]],
}


def listing(top: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), top)
                  for d, _, files in os.walk(top) for f in files)


@pytest.mark.parametrize("way", WAYS)
def test_pip_installs_offline_into_a_venv(way, tmp_path, data_dir):
    before = listing(SOURCES)
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_FIND_LINKS")}
    for args in WAYS[way]:
        done = subprocess.run([str(venv / "bin" / "pip"), *args], capture_output=True,
                              text=True, env=env)
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
