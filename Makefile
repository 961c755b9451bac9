# bpebench — the targets a newcomer uses:
#   make            builds build/bpebench (installs nothing; a missing package
#                   stops it with the apt-get line to run)
#   make deps       installs the missing Debian packages (as root; otherwise
#                   prints the exact apt-get line and stops)
#   make test       deps, then every test program once (plain build)
#   make bench      deps, then the benchmark grid
# and the ones CI adds (.ci/run): make test-full (ASan+UBSan, TSan, valgrind,
# fuzzers), make test-load (the timing-prone tests with every core busy).
# BUILD=dir puts the build elsewhere (the sanitizer passes use build/asan, build/tsan).

CC      ?= cc
BUILD   ?= build
DATA    ?= build/data
OPT     ?= -O2 -g
CFLAGS  += -std=c11 $(OPT) -Wall -Wextra -Iimpls -Iharness
LDLIBS  += -lpcre2-8 -lcjson -lm -pthread

# Debian packages the build and the benchmark need (harness/deps.sh); a C
# compiler counts as present when `cc` runs. The tests add python3 and
# python3-regex (test_check runs the example Python trainer, docs/examples),
# GNU parallel (tests/test_scaling.sh) and what the Python package needs to
# build, test and install into a virtualenv (test-python).
DEPS      := cmd:cc=build-essential libpcre2-dev libcjson-dev libcmocka-dev cmd:gnuplot=gnuplot-nox xz-utils
TEST_DEPS := cmd:python3=python3 python3-regex cmd:parallel=parallel python3-dev python3-pytest \
             python3-venv python3-wheel-whl

# harness/ is in layers, one folder each (harness/README.md); the library is
# impls/ and every harness file but cli/main.c and the Python extension.
LIB_SRCS  := $(wildcard impls/*.c) \
             $(filter-out harness/cli/main.c harness/python/%,$(wildcard harness/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
HEADERS   := $(wildcard impls/*.h harness/*/*.h tests/*.h)
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%) $(BUILD)/tests/test_lexer_portable
TEST_UTIL := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/testutil_*.c))

.PHONY: all deps deps-check test test-run test-full test-asan test-tsan clean data python test-python
.SECONDARY:

all: $(BUILD)/bpebench

# `make deps` installs; every compile first checks, installing nothing
# (deps-check is order-only, so with -j it still runs before the first
# compile). Targets that install (test, bench) run deps, then make again.
deps:
	@sh harness/deps.sh $(DEPS) $(TEST_DEPS)

deps-check:
	@sh harness/deps.sh --check $(DEPS)

$(BUILD)/%.o: %.c $(HEADERS) | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# results.json records the flags the binary was built with (harness/bench/context.c).
BUILD_FLAGS := $(CFLAGS)
$(BUILD)/harness/bench/context.o: CFLAGS += -DBPE_CFLAGS='"$(BUILD_FLAGS)"'

# treefile.c finds plots/ and datasets/ in this tree and only here, and the
# corpora `make data` unpacks in $(DATA) (harness/base/treefile.h).
SOURCE_DIR_FLAG = -DBPE_SOURCE_DIR='"$(CURDIR)"' -DBPE_DATA_DIR='"$(abspath $(DATA))"'
$(BUILD)/harness/base/treefile.o: CFLAGS += $(SOURCE_DIR_FLAG)
# ... and is compiled again when either changes (make test-run DATA=DIR after
# a plain make), so check never looks for the corpora where they are not.
$(BUILD)/harness/base/treefile.o: $(BUILD)/treefile.paths
$(BUILD)/treefile.paths: FORCE
	@mkdir -p $(@D); echo "$(CURDIR) $(abspath $(DATA))" | cmp -s - $@ || \
	    echo "$(CURDIR) $(abspath $(DATA))" > $@
.PHONY: FORCE

$(BUILD)/libbpebench.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bpebench: $(BUILD)/harness/cli/main.o $(BUILD)/libbpebench.a
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_UTIL) $(BUILD)/libbpebench.a
	$(CC) $(CFLAGS) $^ $(LDLIBS) -lcmocka -o $@

# The Python package (harness/python/README.md): the library again as
# position-independent code in $(BUILD)/pic, linked into a CPython extension
# for $(PYTHON) (Debian's python3-dev), beside the package's modules in
# $(BUILD)/python: PYTHONPATH=$(BUILD)/python makes `import bpebench` work.
# `pip install ./harness/python` runs this target too.
PYTHON     ?= /usr/bin/python3
PY_OUT     := $(BUILD)/python/bpebench
PY_INCLUDE  = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
PY_SUFFIX   = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
PY_MODULES := $(patsubst harness/python/bpebench/%,$(PY_OUT)/%,$(wildcard harness/python/bpebench/*.py))

python: deps
	@sh harness/deps.sh python3-dev
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/pic OPT="$(OPT) -fPIC" $(BUILD)/pic/libbpebench.a
	@$(MAKE) --no-print-directory $(PY_OUT)/_bpebench$(PY_SUFFIX) $(PY_MODULES)

$(PY_OUT)/_bpebench$(PY_SUFFIX): harness/python/_bpebench.c $(HEADERS) $(BUILD)/pic/libbpebench.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -I$(PY_INCLUDE) $< $(BUILD)/pic/libbpebench.a $(LDLIBS) \
	    -Wl,--exclude-libs,ALL -o $@

$(PY_OUT)/%.py: harness/python/bpebench/%.py
	@mkdir -p $(dir $@)
	cp $< $@

# test_tokenizer_files makes chosen rename() calls of the library fail,
# test_results chosen malloc() calls, and test_initialpairs, test_counting
# and test_output chosen allocations and thread starts, in any thread
# (tests/failalloc.h).
FAILALLOC_TESTS := $(BUILD)/tests/test_initialpairs $(BUILD)/tests/test_counting \
    $(BUILD)/tests/test_output
$(BUILD)/tests/test_tokenizer_files: LDLIBS += -Wl,--wrap=rename
$(BUILD)/tests/test_results: LDLIBS += -Wl,--wrap=malloc
$(FAILALLOC_TESTS): $(BUILD)/tests/failalloc.o
$(FAILALLOC_TESTS): LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
    -Wl,--wrap=mmap,--wrap=mremap,--wrap=pthread_create
# test_lexer again, linked with a lexer.o built for the portable window
# classifier (harness/input/lexer.c: bit masks by multiplication rather
# than SSE2), so that the path other CPUs take is tested on x86-64 too.
$(BUILD)/portable/lexer.o: harness/input/lexer.c $(HEADERS) | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DBPE_LEXER_PORTABLE -c $< -o $@
$(BUILD)/tests/test_lexer_portable: $(BUILD)/tests/test_lexer.o $(BUILD)/portable/lexer.o \
    $(TEST_UTIL) $(BUILD)/libbpebench.a
	$(CC) $(CFLAGS) $^ $(LDLIBS) -lcmocka -o $@
# test_progress runs train on a pseudo-terminal (openpty, forkpty: libutil).
$(BUILD)/tests/test_progress: LDLIBS += -lutil

# `make test`: the packages, then test-run: the include-layer check
# (harness/README.md), every test program, run from the top of the tree,
# docs/scaling.md's map/reduce over 8 shards (tests/test_scaling.sh, GNU
# parallel) and the hostile sweep (195 abusive command lines,
# tests/hostile_sweep.sh), then the Python package's pytest suite
# (test-python); stops at the first failure. Tests: tests/README.md.
# The programs run TEST_JOBS at a time (default: one per core), each
# target's output printed whole when it ends: every test works in a
# temporary directory of its own, and test-load shows them indifferent to
# a busy machine. TEST_JOBS=1 runs them one after another.
TEST_JOBS ?= $(shell getconf _NPROCESSORS_ONLN)
RUN_TESTS := $(TEST_BINS:$(BUILD)/tests/%=run-%) run-test_scaling run-hostile_sweep
.PHONY: $(RUN_TESTS)

test: deps
	@$(MAKE) --no-print-directory test-run
	@$(MAKE) --no-print-directory test-python

test-run: $(TEST_BINS) $(BUILD)/bpebench $(DATA)/.unpacked
	@sh tests/check_layers.sh
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(RUN_TESTS)

# One test program.
$(filter-out run-test_scaling run-hostile_sweep,$(RUN_TESTS)): run-%:
	@echo "== $(BUILD)/tests/$*"; BPEBENCH=$(BUILD)/bpebench BPE_DATA=$(DATA) $(BUILD)/tests/$*

run-test_scaling:
	@echo "== tests/test_scaling.sh"; BPEBENCH=$(BUILD)/bpebench BPE_DATA=$(DATA) sh tests/test_scaling.sh

SWEEP_LOG ?= $(BUILD)/hostile_sweep.log
run-hostile_sweep:
	@BPEBENCH=$(BUILD)/bpebench bash tests/hostile_sweep.sh > $(SWEEP_LOG) || \
	    { grep DEFECT $(SWEEP_LOG); exit 1; }
	@tail -n 1 $(SWEEP_LOG)

# The tests that fork, time out or draw on a terminal, and the hostile
# sweep, run again with a busy loop on every core (LOAD_NICE: their
# priority, 0 = the tests'), as on a loaded CI machine: a test that depends
# on an idle machine fails here rather than at random later. They run
# TEST_JOBS at a time, as in test-run, beside the loops. The loops end
# with the tests, however they end.
LOAD_TESTS := test_bench test_bench_external test_check test_cli test_grid test_hostile \
              test_output test_progress test_report test_signals test_tokenizer_files \
              test_tools_io test_train_safety test_wordcount
LOAD_NICE ?= 0
.PHONY: test-load

test-load: $(LOAD_TESTS:%=$(BUILD)/tests/%) $(BUILD)/bpebench
	@loops=; \
	trap 'kill $$loops 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	for core in $$(seq $$(getconf _NPROCESSORS_ONLN)); do \
	    nice -n $(LOAD_NICE) sh -c 'while :; do :; done' & loops="$$loops $$!"; \
	done; \
	echo "== every core busy"; \
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target \
	    SWEEP_LOG=$(BUILD)/hostile_sweep-load.log $(LOAD_TESTS:%=run-%) run-hostile_sweep

# Every program and test, built (not run) as one target.
.PHONY: programs warnings
programs: $(BUILD)/bpebench $(TEST_BINS)

# Warning-free under gcc and clang (-Wall -Wextra, as errors), each in a
# build directory of its own.
warnings: deps
	@sh harness/deps.sh cmd:clang=clang python3-dev
	$(MAKE) --no-print-directory BUILD=$(BUILD)/werror-gcc CC=gcc OPT="-O2 -Werror" programs
	$(MAKE) --no-print-directory BUILD=$(BUILD)/werror-clang CC=clang OPT="-O2 -Werror" programs
	@for cc in gcc clang; do \
	    echo "$$cc: harness/python/_bpebench.c"; \
	    $$cc $(CFLAGS) -O2 -Werror -fPIC -I$(PY_INCLUDE) -c harness/python/_bpebench.c \
	        -o /dev/null || exit 1; \
	done

ASAN_BUILD ?= $(BUILD)/asan

test-asan:
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CC=$(CC) \
	    OPT="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" test-run

# The threaded code under ThreadSanitizer, built with -fsanitize=thread in
# its own directory: the parallel counting strategy (test_counting), the
# initial pair counts on threads (test_initialpairs), every trainer's
# setup on 1, 2, 3 and 7 threads (test_differential) and the workers
# trainer's merge loop on them (test_batches), built to hand every job of
# that loop to its threads (BATCH_WORKERS_SOLO=0: the test tables are small,
# and it would otherwise run them on one); every trainer described
# between its merges while its threads wait (test_trace); a tokenizer's
# files written by several threads at once (test_output); and a signal
# taken by a second thread while the first one's cleanup runs (test_signals).
TSAN_BUILD ?= $(BUILD)/tsan
TSAN_TESTS := test_counting test_initialpairs test_differential test_batches test_trace \
    test_output test_signals

test-tsan:
	$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CC=$(CC) \
	    OPT="-O1 -g -fsanitize=thread -fno-omit-frame-pointer -DBATCH_WORKERS_SOLO=0" \
	    $(TSAN_TESTS:%=$(TSAN_BUILD)/tests/%)
	@for t in $(TSAN_TESTS); do \
	    echo "== $(TSAN_BUILD)/tests/$$t"; \
	    TSAN_OPTIONS=halt_on_error=1 BPE_DATA=$(DATA) $(TSAN_BUILD)/tests/$$t || exit 1; \
	done

# What CI adds to `make test` (.ci/run): every test under ASan+UBSan, the
# threaded ones under TSan, memcheck on train runs, every fuzzer for
# FUZZ_SECONDS and the memory estimate's bound on 1 M and 10 M distinct
# words. Each pass builds in a directory of its own, so with -j2 (.ci/run)
# two chains of about equal length run side by side: the ASan pass and then
# the estimate's bound, beside TSan, memcheck and the fuzzers; without -j,
# all of them in a row. The corpora are unpacked first, once.
.PHONY: full-asan full-others
test-full: deps
	@$(MAKE) --no-print-directory data
	@$(MAKE) --no-print-directory full-asan full-others

full-asan:
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-estimate-large

full-others:
	@$(MAKE) --no-print-directory test-tsan
	@$(MAKE) --no-print-directory valgrind
	@$(MAKE) --no-print-directory fuzz

# train --estimate's 25% bound (tests/test_estimate.c) on the other shipped
# corpora and on synthetic corpora of 1 M and 10 M distinct words as well
# (30 MB and 300 MB, written by synth), and at V = 32000 on multilingual and
# 1 M words, and 10 M words for cache-aware (about 30 s more): about seven
# minutes on 2 cores, so not in `make test`.
.PHONY: test-estimate-large
test-estimate-large: $(BUILD)/tests/test_estimate $(BUILD)/bpebench $(DATA)/.unpacked
	BPE_ESTIMATE_LARGE=1 BPEBENCH=$(BUILD)/bpebench BPE_DATA=$(DATA) $(BUILD)/tests/test_estimate

# The Python package's tests (tests/python/, pytest, run with $(PYTHON)): the package
# against the command line and the CS336 fixtures, check and time, Ctrl-C and the GIL,
# and `pip install` into a virtualenv without the network. Neither bytecode nor pytest's
# cache is written into the tree.
test-python: python $(BUILD)/bpebench data
	@sh harness/deps.sh python3-pytest python3-venv python3-wheel-whl python3-regex
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(BUILD)/python BPEBENCH=$(BUILD)/bpebench \
	    BPE_DATA=$(DATA) $(PYTHON) -m pytest -p no:cacheprovider -q tests/python

# The real corpora of the grid: datasets/<path>.xz unpacked to $(DATA)/<path>
# and checked against datasets/MANIFEST.tsv (datasets/unpack.sh). The stamp
# makes a second run instant; a failed check removes it.

data: $(DATA)/.unpacked

$(DATA)/.unpacked: datasets/MANIFEST.tsv datasets/unpack.sh $(wildcard datasets/*/*.xz)
	@sh datasets/unpack.sh datasets $(DATA)

# The benchmark (docs/benchmarking.md): the grid of harness/bench/default-grid.conf over
# the unpacked corpora, each run in its own process; results.json, report.md
# and plots/ go to BENCH_OUT. bench-quick is the smoke-sized grid (--quick).
BENCH_OUT ?= results/$(shell date +%Y-%m-%d)
.PHONY: bench bench-quick

bench: deps
	@$(MAKE) --no-print-directory all data
	$(BUILD)/bpebench bench --config harness/bench/default-grid.conf --data-dir $(DATA) --out $(BENCH_OUT)
	@echo "make bench: the report is $(BENCH_OUT)/report.md"

bench-quick: deps
	@$(MAKE) --no-print-directory all data
	$(BUILD)/bpebench bench --config harness/bench/default-grid.conf --quick --data-dir $(DATA) \
	    --out results/quick
	@echo "make bench-quick: the report is results/quick/report.md"

# The lecture grid (harness/bench/lecture-grid.conf, docs/benchmarking.md):
# every step of the course in about two minutes on 2 cores, for slides; its
# report.md opens with the summary table of docs/algorithms.md, and its
# figures are the ones docs/ shows. Written to LECTURE_OUT.
LECTURE_OUT ?= results/lecture
.PHONY: lecture

lecture: deps
	@$(MAKE) --no-print-directory all data
	$(BUILD)/bpebench bench --config harness/bench/lecture-grid.conf --data-dir $(DATA) \
	    --out $(LECTURE_OUT)
	@echo "make lecture: the report is $(LECTURE_OUT)/report.md"

# Fuzzers (libFuzzer, clang): every tests/fuzz_<name>.c is one target, built
# with ASan+UBSan under $(BUILD)/fuzz; `make fuzz` runs each for FUZZ_SECONDS
# (fuzz-run-<name>: one of them; with -j2, two at a time), starting from its
# seed files (below) and what it learnt before, kept in
# $(BUILD)/fuzz/corpus/<name>; any crashing input goes to $(BUILD)/fuzz/crash-*.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_CFLAGS  := -std=c11 -O1 -g -Wall -Wextra -Iimpls -Iharness -Itests \
                -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BINS    := $(patsubst tests/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz_*.c))
FUZZ_RUNS    := $(patsubst tests/%.c,fuzz-run-%,$(wildcard tests/fuzz_*.c))
FUZZ_OBJS    := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS) $(wildcard tests/testutil_*.c))
.PHONY: fuzz fuzz-deps $(FUZZ_RUNS)

# clang alone (installed without recommends) lacks libFuzzer's runtime.
fuzz-deps:
	@sh harness/deps.sh cmd:$(FUZZ_CC)=clang libclang-rt-14-dev

$(BUILD)/fuzz/obj/harness/base/treefile.o: FUZZ_CFLAGS += $(SOURCE_DIR_FLAG)

$(BUILD)/fuzz/obj/%.o: %.c $(HEADERS) | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/libbpebench.a: $(FUZZ_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/tests/fuzz_%.o $(BUILD)/fuzz/libbpebench.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -lcmocka -o $@

# Real files a fuzzer also starts from (libFuzzer's -seed_inputs, comma-separated):
# a results file bench wrote, the default grid, a word-count file count wrote,
# and for the lexer the first 2 KB of every multilingual file and of a book.
FUZZ_SEEDS_fuzz_results   := tests/fixtures/results-small.json
FUZZ_SEEDS_fuzz_config    := harness/bench/default-grid.conf
FUZZ_SEEDS_fuzz_wordcount := tests/fixtures/small.counts
LEXER_SEED_TEXTS := $(addprefix multilingual/,ar.txt de.txt en.txt hi.txt zh.txt) \
                    gutenberg-en/alice_in_wonderland.txt
LEXER_SEEDS := $(foreach f,$(LEXER_SEED_TEXTS),$(BUILD)/fuzz/lexer-seeds/$(subst /,_,$f))
comma := ,
FUZZ_SEEDS_fuzz_lexer     := $(subst $(eval) ,$(comma),$(strip $(LEXER_SEEDS)))

$(BUILD)/fuzz/lexer-seeds/.made: $(DATA)/.unpacked
	@mkdir -p $(dir $@)
	@for f in $(LEXER_SEED_TEXTS); do \
	    head -c 2048 $(DATA)/$$f > $(dir $@)$$(echo $$f | tr / _) || exit 1; done; touch $@

fuzz: $(FUZZ_RUNS)

$(FUZZ_RUNS): fuzz-run-%: $(BUILD)/fuzz/% $(BUILD)/fuzz/lexer-seeds/.made
	@mkdir -p $(BUILD)/fuzz/corpus/$*
	@echo "== $< for $(FUZZ_SECONDS) s"
	@$< -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(BUILD)/fuzz/ \
	    $(addprefix -seed_inputs=,$(FUZZ_SEEDS_$*)) $(BUILD)/fuzz/corpus/$*

# The tokenizer files in the real libraries (tests/interop/run.sh): Node.js,
# npm and the pinned npm packages (tokenizers, js-tiktoken) are installed
# here and only here, into $(BUILD)/interop; three tokenizers trained, each
# library's ids compared with the reference encoder's on a multilingual text.
.PHONY: interop
$(BUILD)/interop/refencode: tests/interop/refencode.c $(BUILD)/libbpebench.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libbpebench.a $(LDLIBS) -o $@

interop: all data $(BUILD)/interop/refencode
	@sh tests/interop/run.sh $(BUILD) $(DATA)

# report.html drawn by a browser (tests/html/check.py): Debian's chromium
# (and python3-pil, to read its screenshots) installed here and only here;
# the quick grid measured into $(BUILD)/html/quick, its report.html rendered
# whole (page.png) and each figure alone, each of which must be drawn.
# HTML_FIGURES is how many the quick grid makes: merge loop against vocab
# size and against corpus size, memory, speedup and the ladder of steps for
# each of its 3 corpora, one per-merge profile, and, on 2 cores or more
# (threads = 1,all is then two thread counts), pretokenize+count time
# against threads.
# Then `bpebench trace --html` the same way: a page for every trainer on the
# worked example, its first TRACE_MERGES merges (heap's stale pops and
# linked-list's dirty map come at the third), every drawing checked (one per
# merge, or per batch of merges made in one step: as many as trace says).
HTML_FIGURES = $(shell [ "$$(getconf _NPROCESSORS_ONLN)" -gt 1 ] && echo 17 || echo 16)
TRACE_MERGES = 3
.PHONY: html-check
html-check: all data
	@sh harness/deps.sh cmd:chromium=chromium python3-pil
	$(BUILD)/bpebench bench --config harness/bench/default-grid.conf --quick --data-dir $(DATA) \
	    --out $(BUILD)/html/quick > $(BUILD)/html-bench.log
	/usr/bin/python3 tests/html/check.py $(BUILD)/html/quick $(BUILD)/html/shots $(HTML_FIGURES)
	@mkdir -p $(BUILD)/html/trace
	@for t in $$($(BUILD)/bpebench list | awk '/^counting strategies/ {exit} /^[a-z]/ {print $$1}'); do \
	    n=$$($(BUILD)/bpebench trace --trainer $$t --max-merges $(TRACE_MERGES) \
	        --html $(BUILD)/html/trace/$$t.html | sed -n 's/^wrote .*: \([0-9]*\) drawing.*/\1/p'); \
	    /usr/bin/python3 tests/html/check.py $(BUILD)/html/trace/$$t.html \
	        $(BUILD)/html/trace/shots-$$t "$$n" || exit 1; \
	done

# The golden traces test_trace compares `bpebench trace` with (tests/golden/trace/:
# every trainer on SPEC §2's worked example and on aaaaa), rewritten from the
# binary: after a deliberate change to a trace, review `git diff tests/golden`.
.PHONY: trace-golden
trace-golden: $(BUILD)/bpebench $(BUILD)/tests/test_trace
	@mkdir -p tests/golden/trace
	BPE_UPDATE_GOLDEN=1 BPEBENCH=$(BUILD)/bpebench $(BUILD)/tests/test_trace

# Valgrind (memcheck) on representative `train` runs of the plain build: the
# cs336 corpus with naive and the trainers from heap on (threaded-walk on 2
# threads), and a small text with invalid UTF-8 kept as bytes, special tokens
# and the gpt4 pattern; then `trace` of every trainer with its page and a
# drawing. Any error, or any definite or indirect leak, fails.
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
.PHONY: valgrind

valgrind: all data
	@sh harness/deps.sh valgrind
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	printf 'caf\303\251 <s> \377\376 na\357ve <|endoftext|> caf\303\251s\r\n' > $$tmp/odd.txt && \
	for run in "naive 400 $(DATA)/cs336/corpus.en" "heap 1000 $(DATA)/cs336/corpus.en" \
	           "linked-list 1000 $(DATA)/cs336/corpus.en" "bucket 1000 $(DATA)/cs336/corpus.en" \
	           "cache-aware 1000 $(DATA)/cs336/corpus.en" \
	           "threaded-walk 1000 --threads 2 $(DATA)/cs336/corpus.en" \
	           "workers 1000 --threads 2 $(DATA)/cs336/corpus.en" \
	           "cache-aware 300 --invalid-utf8=bytes --pattern gpt4 --special-token <s> \
	            --special-token <|endoftext|> $$tmp/odd.txt" \
	           "naive 300 --invalid-utf8=bytes --pattern gpt4 --special-token <s> \
	            --special-token <|endoftext|> $$tmp/odd.txt"; do \
	    set -f; set -- $$run; set +f; t=$$1; v=$$2; shift 2; \
	    echo "== valgrind: train --trainer $$t --vocab-size $$v $$*"; \
	    $(VALGRIND) $(BUILD)/bpebench train --trainer $$t --vocab-size $$v --out $$tmp/out "$$@" \
	        >/dev/null || exit 1; \
	done; \
	for t in $$($(BUILD)/bpebench list | awk '/^counting strategies/ {exit} /^[a-z]/ {print $$1}'); do \
	    echo "== valgrind: trace --trainer $$t --html --svg"; \
	    $(VALGRIND) $(BUILD)/bpebench trace --trainer $$t --html $$tmp/t.html --svg $$tmp/t.svg \
	        >/dev/null || exit 1; \
	done

clean:
	rm -rf build
