#!/usr/bin/env python3
"""fit_memory.py — measures trainers' peak RSS and fits their memory models
(bpe_trainer.memory, impls/bpe.h; docs/estimate.md explains the model).

    python3 harness/run/fit_memory.py measure CORPUS V TRAINER... >> runs.tsv
    python3 harness/run/fit_memory.py fit runs.tsv
    python3 harness/run/fit_memory.py times CORPUS...

`measure` runs `bpebench train --estimate` once (W, M, m, the process before
reading, the counting peak and the word table), then each trainer at V on one
thread (CORPUS a word-count file when named *.counts), and prints one line
per run: trainer, corpus, V, W, M, m, base MB, counting peak MB, word table
MB, measured peak MB (harness/run/memory_runs.tsv holds such lines).

`fit` fits, for every trainer, per_word and per_symbol (fixed is 1 MB) to its
runs of at most 1000 merges by least squares on the relative error, then
per_symbol_merged to the others so that their largest relative error is the
smallest it can be (the estimate promises a bound), over the runs whose peak
is the trainer's (not counting's). It prints each trainer's coefficients, as
its registry entry writes them, and a table of predicted / measured MB.

`times` fits the time figures: it runs every trainer at V = 300 on one
thread, TIME_REPEATS times on each CORPUS, and takes each corpus's median
setup + merge time per symbol (per merge and symbol for the trainers whose
registry entry has ns_per_merge_symbol, which rescan every word at every
merge); the figure is the geometric mean over the corpora, so that the
estimate is as often over as under. It prints each figure as its registry
entry writes it, and the largest over- and underestimate among the corpora.

Needs only python3. BPEBENCH (default build/bpebench) names the binary.
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

BPEBENCH = os.environ.get("BPEBENCH", "build/bpebench")
FIXED_MB = 1.0  # every trainer's .fixed
MERGES_LEVEL_OFF = 2500.0  # harness/run/estimate.c's
MB = 1e6


# Each run is started by /usr/bin/time, a small process: Linux keeps a
# process's peak RSS across exec, so one started by this script would count
# the interpreter's own memory into its peak.
TIME = ["/usr/bin/time", "-f", "%M"]


def corpus_args(corpus):
    """A corpus named *.counts is a word-count file (bpebench count)."""
    return [corpus, "--counts"] if corpus.endswith(".counts") else [corpus]


def estimate_line(corpus, vocab_size):
    out = subprocess.run(TIME + [BPEBENCH, "train", "--estimate", "--threads", "1", "--vocab-size",
                                 str(vocab_size)] + corpus_args(corpus), check=True,
                         capture_output=True, text=True).stdout
    words = re.search(r"W = (\d+), symbols M = (\d+), merges m = (\d+)", out)
    memory = re.search(r"([\d.]+) MB before reading, counting peaked at ([\d.]+) MB, "
                       r"word table ([\d.]+) MB", out)
    return [int(words[1]), int(words[2]), int(words[3])] + [float(x) for x in memory.groups()]


def measure(corpus, vocab_size, trainers):
    known = estimate_line(corpus, vocab_size)
    out = tempfile.mkdtemp(prefix="fit_memory.")
    for trainer in trainers:
        run = subprocess.run(TIME + [BPEBENCH, "train", "--quiet", "--threads", "1", "--trainer",
                                     trainer, "--vocab-size", str(vocab_size), "--out", out]
                             + corpus_args(corpus), check=True, capture_output=True, text=True)
        peak_kb = int(run.stderr.split()[-1])
        row = [trainer, os.path.basename(corpus), vocab_size] + known + [peak_kb * 1024 / MB]
        print("\t".join(str(x) for x in row), flush=True)
    shutil.rmtree(out)


def registry_entries():
    """(name, source text) of every trainer in impls/ (the files whose
    registry entry has a memory model)."""
    for name in sorted(os.listdir("impls")):
        if name.endswith(".c"):
            text = open(os.path.join("impls", name)).read()
            if ".memory = " in text:
                yield re.search(r'\.name = "([^"]+)"', text)[1], text


def copying_trainers():
    """The trainers whose registry entry says copies_words = true."""
    return {name for name, text in registry_entries() if ".copies_words = true" in text}


def merged_share(row):
    """harness/run/estimate.c's (1 − e^(−m/MERGES_LEVEL_OFF))·M: keep the two in step."""
    return (1 - math.exp(-row["m"] / MERGES_LEVEL_OFF)) * row["M"]


def predict(row, k, copies):
    """harness/run/estimate.c's estimate_trainer, in MB."""
    w, sym, base, counted, table = row["W"], row["M"], row["base"], row["counted"], row["table"]
    setup = FIXED_MB + (k[0] * w + k[1] * sym) / MB
    trainer = setup + k[2] * merged_share(row) / MB
    training = base + table + trainer
    if copies:
        training = max(base + table + setup, base + trainer)
    return max(training, counted)


def solve(rows, weights):
    """Weighted linear least squares by the normal equations (a few unknowns)."""
    n = len(rows[0][0])
    a = [[sum(w * x[i] * x[j] for (x, _), w in zip(rows, weights)) for j in range(n)]
         for i in range(n)]
    b = [sum(w * x[i] * y for (x, y), w in zip(rows, weights)) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            f = a[j][i] / a[i][i]
            a[j] = [aj - f * ai for aj, ai in zip(a[j], a[i])]
            b[j] -= f * b[i]
    k = [0.0] * n
    for i in reversed(range(n)):
        if abs(a[i][i]) > 1e-12 * max(abs(x) for x in a[i]) + 1e-300:
            k[i] = (b[i] - sum(a[i][j] * k[j] for j in range(i + 1, n))) / a[i][i]
    return k  # a coefficient no run shows stays 0


def fit_merged(runs, k, copies):
    """per_symbol_merged for the model k (per_word, per_symbol) on runs: the
    value where the largest overestimate equals the largest underestimate,
    which is where the largest error is smallest, since every run's error
    grows with it. By bisection."""
    low, high = 0.0, 1000.0
    for _ in range(60):
        mid = (low + high) / 2
        errors = [predict(r, k[:2] + [mid], copies) / r["peak"] - 1 for r in runs]
        if max(errors) + min(errors) > 0:
            high = mid
        else:
            low = mid
    return (low + high) / 2


def fit_trainer(runs, copies):
    """per_word, per_symbol, per_symbol_merged for one trainer, in two steps:
    the first two from the runs of at most 1000 merges (where the merges'
    share is small), then per_symbol_merged from the others. A copying
    trainer's run peaks with the word table (setup) or without it (merges),
    whichever the model says is larger."""
    own = [r for r in runs if r["counted"] < 0.95 * r["peak"]]  # not counting's peak
    small = [r for r in own if r["m"] <= 1000]
    rows = [([r["W"], r["M"]], (r["peak"] - r["base"] - FIXED_MB - r["table"]) * MB)
            for r in small]
    k = solve(rows, [1 / (r["peak"] * MB) ** 2 for r in small]) + [0.0]
    large = [r for r in own if r["m"] > 1000]
    if large:
        k[2] = fit_merged(large, k, copies)
    return k


def fit(path):
    fields = ["trainer", "corpus", "V", "W", "M", "m", "base", "counted", "table", "peak"]
    runs = []
    for line in open(path):
        values = line.split()
        if values and not line.startswith("#"):
            r = dict(zip(fields, values))
            for f in fields[2:]:
                r[f] = float(r[f])
            runs.append(r)
    copies = copying_trainers()
    trainers = list(dict.fromkeys(r["trainer"] for r in runs))  # in the runs' order
    models = {t: fit_trainer([r for r in runs if r["trainer"] == t], t in copies) for t in trainers}
    for t in trainers:
        k = models[t]
        print(f"{t:15} .per_word = {k[0]:.1f}, .per_symbol = {k[1]:.1f}, "
              f".per_symbol_merged = {k[2]:.1f}")
    columns = []  # (corpus, V) in the order of the runs file
    for r in runs:
        if (r["corpus"], r["V"]) not in columns:
            columns.append((r["corpus"], r["V"]))
    print("\n| corpus | V | " + " | ".join(trainers) + " |")
    print("|---" * (len(trainers) + 2) + "|")
    for c, v in columns:
        cells = []
        for t in trainers:
            mine = [r for r in runs if r["trainer"] == t and (r["corpus"], r["V"]) == (c, v)]
            if mine:
                p, peak = predict(mine[0], models[t], t in copies), mine[0]["peak"]
                cells.append(f"{p:.1f} / {peak:.1f} ({100 * (p / peak - 1):+.0f}%)")
            else:
                cells.append("–")
        print(f"| {c} | {int(v)} | " + " | ".join(cells) + " |")


TIME_REPEATS = 3  # runs per trainer and corpus in `times`; the median is kept
TIME_V = 300      # the vocabulary size `times` runs at


def registry_trainers():
    """Every trainer's name, in the order bpebench list gives them, and the
    set whose time figure is per merge and symbol."""
    listed = subprocess.run([BPEBENCH, "list"], check=True, capture_output=True,
                            text=True).stdout.split()
    entries = dict(registry_entries())
    per_merge = {name for name, text in entries.items() if ".ns_per_merge_symbol = " in text}
    return sorted(entries, key=listed.index), per_merge


def setup_and_merge_seconds(corpus, trainer, out):
    """One run's setup + merge seconds, from train's `time` line."""
    text = subprocess.run([BPEBENCH, "train", "--threads", "1", "--trainer", trainer,
                           "--vocab-size", str(TIME_V), "--out", out] + corpus_args(corpus),
                          check=True, capture_output=True, text=True).stdout
    found = re.search(r"setup ([\d.]+) s, merge ([\d.]+) s", text)
    return float(found[1]) + float(found[2])


def times(corpora):
    trainers, per_merge = registry_trainers()
    shape = {c: estimate_line(c, TIME_V) for c in corpora}  # W, M, m, ...
    out = tempfile.mkdtemp(prefix="fit_memory.")
    for t in trainers:
        ns = []
        for c in corpora:
            runs = sorted(setup_and_merge_seconds(c, t, out) for _ in range(TIME_REPEATS))
            sym, merges = shape[c][1], shape[c][2]
            ns.append(runs[len(runs) // 2] * 1e9 / (sym * merges if t in per_merge else sym))
        fitted = math.exp(sum(math.log(x) for x in ns) / len(ns))
        name = "ns_per_merge_symbol" if t in per_merge else "ns_per_symbol"
        shown = float(f"{fitted:.2g}")
        print(f"{t:15} .{name} = {shown:g}   (estimate / run: {shown / max(ns):.2f} to "
              f"{shown / min(ns):.2f})", flush=True)
    shutil.rmtree(out)


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "measure":
        measure(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) == 3 and sys.argv[1] == "fit":
        fit(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "times":
        times(sys.argv[2:])
    else:
        sys.exit(__doc__)
