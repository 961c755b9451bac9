"""docs/python.md runs as written: every ```python block, in order, in one namespace, from
the top of the tree, with docs/examples/bpe_example.py standing for the reader's trainer;
then every test_* function the blocks define (the page's own test suite)."""
import contextlib
import os
import re
import shutil
import sys

from conftest import EXAMPLES, TOP

PAGE = os.path.join(TOP, "docs", "python.md")


def test_every_python_block_of_the_page_runs(monkeypatch):
    with open(PAGE, encoding="utf-8") as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(), flags=re.M | re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(TOP)
    monkeypatch.syspath_prepend(EXAMPLES)
    namespace: dict = {"__name__": "python_md"}
    try:
        with contextlib.redirect_stdout(sys.stderr):
            for number, block in enumerate(blocks, 1):
                exec(compile(block, f"{PAGE} (python block {number})", "exec"), namespace)
            tests = [f for name, f in namespace.items() if name.startswith("test_")]
            assert tests
            for test in tests:
                test()
    finally:
        shutil.rmtree(os.path.join(TOP, "build", "tokenizers"), ignore_errors=True)
