"""pip install ./harness/python — the bpebench package for the Python that runs pip.

The extension is built by the tree's own Makefile (`make python PYTHON=<this python>`, one
recipe for both ways in; harness/python/README.md), so install from a checkout of bpebench:
the package links the C library of the tree around this directory. Offline, with Debian's
python3-venv: `python3 -m venv .venv && .venv/bin/pip install --no-index ./harness/python`
(docs/python.md).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(TOP, "build", "python")


class make_python(build_ext):
    """Runs `make python` in the tree, then copies the module it built into place."""

    def build_extension(self, ext):
        if not os.path.isfile(os.path.join(TOP, "impls", "bpe.h")):
            raise SystemExit(f"{HERE} builds against the bpebench tree around it, and {TOP} "
                             "is not one: pip install the harness/python of a checkout")
        subprocess.run(["make", "-C", TOP, "python", f"PYTHON={sys.executable}"], check=True)
        name = os.path.basename(self.get_ext_filename(ext.name))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(BUILD, "bpebench", name), target)


# setuptools' scratch directories go under the tree's build/, not beside the sources
os.makedirs(BUILD, exist_ok=True)
setup(
    name="bpebench",
    version="0.1.0",
    description="Train byte-level BPE tokenizers with bpebench's C trainers; check and time "
                "your own train_bpe (Stanford CS336's signature) against them",
    license="see the bpebench tree",
    python_requires=">=3.11",
    packages=["bpebench"],
    package_dir={"bpebench": os.path.join(HERE, "bpebench")},
    ext_modules=[Extension("bpebench._bpebench", sources=[])],
    cmdclass={"build_ext": make_python},
    options={"build": {"build_base": os.path.join(BUILD, "setuptools")},
             "egg_info": {"egg_base": BUILD}},
)
