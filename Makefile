# gpusim - discrete-event simulator for GPU cluster capacity planning.
#
#   make         build ./gpusim (installs nothing; names any missing package)
#   make deps    install the Debian packages gpusim needs (apt-get, sudo when not root)
#   make demo    deps, build, run the example, print paths
#   make test    deps, build with ASan+UBSan, run all tests
#   make bench   performance figures (events/s vs a bare heap, peak RSS)
#   make fuzz    libFuzzer harnesses (clang) for the readers and a small run, FUZZ_SECONDS each;
#                inputs that fail are kept in tests/fuzz/corpus/<target>/ (make test replays them)
#   make install PREFIX=/usr/local   the binary, model files, figure scripts, examples
#
# Objects go to build/<config>/ so sanitized and release objects never mix.
# pkg-config runs in a sub-make, after the package check (or deps.sh) ran.

CC ?= cc
PKGS := gsl libcjson
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2 \
        -Wwrite-strings -Wundef
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -MMD -MP $(shell pkg-config --cflags $(PKGS))
LIBS = $(shell pkg-config --libs $(PKGS)) -lcsv -lm
# float-cast-overflow: GCC's "undefined" group leaves out float-to-integer
# conversions out of range (1e300 into an int), which are undefined too.
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
# The release build: -O3 (inlining and unrolling across the event loop's
# small helpers); it keeps IEEE arithmetic (no -ffast-math, and ISO C mode contracts no FMA),
# so reports are byte-identical to -O2's. Release objects depend on this
# Makefile, so a changed flag rebuilds them all.
REL_OPT ?= -O3
PREFIX ?= /usr/local
# make demo and make test build with two jobs (the CI machine's cores).
JOBS ?= -j2

# cli/ helpers that are not commands (the fill-up driver, cluster templates,
# plan feasibility) link into the tests too; cli_*.c and main.c are the tool.
LIB_SRC := $(wildcard base/*.c) models/gpu/gpu_model.c models/gpu/gpu_failures.c models/llm/llm_model.c models/perf/perf_profile.c models/perf/perf_shape.c \
           models/perf/perf_fit.c $(wildcard workloads/*.c) $(wildcard sim/*.c) $(wildcard sim/service/*.c) \
           $(wildcard policies/*.c) $(wildcard policies/share/*.c) $(filter-out cli/main.c cli/cli_%.c,$(wildcard cli/*.c))
CLI_SRC := cli/main.c $(wildcard cli/cli_*.c)
TEST_SRC := $(wildcard tests/test_*.c) tests/run.c tests/tables.c tests/testutil.c
# Fuzz harnesses (tests/fuzz/): built with clang and libFuzzer by `make fuzz`,
# and with the normal sanitized build and replay.c as the corpus replays
# `make test` runs (no clang needed).
# Every reader that takes outside input: the trace, cluster and model files,
# reports, a small run, each importer (k8s and sacct included), gen
# openb-variant's base list, the sweep spec and manifest, check baselines,
# plan SLO terms, cluster templates.
FUZZ_TARGETS := trace cluster model report sim import_sd import_dlrm import_mooncake import_openb import_azure \
                k8s sacct gen_openb sweep_spec sweep_manifest check plan_slo cluster_template
# the commands' files (not main.c, whose main() is libFuzzer's): the import,
# sweep, check and plan harnesses call into them
FUZZ_COMMON := tests/fuzz/fuzz_util.c $(filter-out cli/main.c,$(CLI_SRC))
FUZZ_SECONDS ?= 60
FZ := build/fuzz
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer

REL := build/release
TST := build/test
REL_OBJ := $(patsubst %.c,$(REL)/%.o,$(LIB_SRC) $(CLI_SRC))
TST_LIB_OBJ := $(patsubst %.c,$(TST)/%.o,$(LIB_SRC))
TST_CLI_OBJ := $(patsubst %.c,$(TST)/%.o,$(CLI_SRC))
TST_OBJ := $(patsubst %.c,$(TST)/%.o,$(TEST_SRC))

.PHONY: all deps check-deps demo test bench clean install baseline-update build-release build-test run-tests \
        run-demo run-bench fgd-table fgd-variants fuzz build-fuzz run-fuzz

all: check-deps
	@$(MAKE) --no-print-directory build-release

check-deps:
	@sh scripts/deps.sh --check

deps:
	@sh scripts/deps.sh

build-release: gpusim
build-test: $(TST)/gpusim $(TST)/run_tests $(FUZZ_TARGETS:%=$(TST)/fuzz_%_replay)

gpusim: $(REL_OBJ)
	$(CC) $(REL_OPT) -g -o $@ $^ $(LIBS)

$(REL)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(BASE_CFLAGS) $(REL_OPT) -g -c -o $@ $<

$(TST)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC [asan,ubsan] $<"
	@$(CC) $(BASE_CFLAGS) $(SAN) -O1 -g -c -o $@ $<

# the runner's list of test tables, made from the test files (tests/tables.c):
# rewritten only when it changes, so an unchanged list rebuilds nothing
$(TST)/test_list.h: $(wildcard tests/test_*.c)
	@mkdir -p $(dir $@)
	@grep -ho '^const test_case tests_[a-z0-9_]*\[\]' $(sort $^) | sed 's/^const test_case \(.*\)\[\]/TEST_TABLE(\1)/' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(TST)/tests/tables.o: tests/tables.c $(TST)/test_list.h
	@mkdir -p $(dir $@)
	@echo "CC [asan,ubsan] $<"
	@$(CC) $(BASE_CFLAGS) $(SAN) -I$(TST) -O1 -g -c -o $@ $<

$(TST)/gpusim: $(TST_LIB_OBJ) $(TST_CLI_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

$(TST)/run_tests: $(TST_LIB_OBJ) $(TST_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

# objects of the fuzz builds are intermediate to make's pattern chains: keep them
.SECONDARY:

# the corpus replays: each harness with replay.c, sanitized like the tests
$(TST)/fuzz_%_replay: $(TST_LIB_OBJ) $(FUZZ_COMMON:%.c=$(TST)/%.o) $(TST)/tests/fuzz/fuzz_%.o $(TST)/tests/fuzz/replay.o
	$(CC) $(SAN) -o $@ $^ $(LIBS)

# make fuzz: clang from Debian (scripts/deps.sh --fuzz installs it; a plain
# make never needs it)
fuzz:
	@sh scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory $(JOBS) build-fuzz
	@$(MAKE) --no-print-directory run-fuzz

build-fuzz: $(FUZZ_TARGETS:%=$(FZ)/fuzz_%)

$(FZ)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC [fuzz] $<"
	@$(FUZZ_CC) $(BASE_CFLAGS) -Wno-unknown-warning-option $(FUZZ_SAN) -O1 -g -c -o $@ $<

$(FZ)/fuzz_%: $(patsubst %.c,$(FZ)/%.o,$(LIB_SRC) $(FUZZ_COMMON)) $(FZ)/tests/fuzz/fuzz_%.o
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined,float-cast-overflow -o $@ $^ $(LIBS)

run-fuzz: build-fuzz
	@sh tests/fuzz/run.sh $(FZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

demo: deps
	@$(MAKE) --no-print-directory $(JOBS) gpusim
	@$(MAKE) --no-print-directory run-demo

run-demo: gpusim
	@sh scripts/demo.sh

test: deps
	@$(MAKE) --no-print-directory $(JOBS) build-test gpusim
	@$(MAKE) --no-print-directory run-tests

run-tests: build-test gpusim
	@sh tests/run_all.sh build/test

bench: deps
	@$(MAKE) --no-print-directory $(JOBS) gpusim $(REL)/bench_heap $(REL)/bench_reader
	@$(MAKE) --no-print-directory run-bench

# The FGD fill-up table on generated openb variants (minutes, no outside data)
fgd-variants: gpusim
	@sh scripts/fgd_variants.sh $(OUT)

# The FGD fill-up table on the paper's 17 openb traces, then the generated set (minutes):
#   make fgd-table TRACES=folder-with-the-openb-csv-files
fgd-table: gpusim
	@if [ -z "$(TRACES)" ]; then echo "usage: make fgd-table TRACES=DIR (the openb_*.csv files of Alibaba clusterdata cluster-trace-gpu-v2023)" >&2; exit 2; fi
	@sh scripts/fgd_table.sh "$(TRACES)" $(OUT)

run-bench: gpusim $(REL)/bench_heap $(REL)/bench_reader
	@sh scripts/bench.sh
	@sh scripts/bench_scale.sh
	@sh scripts/bench_trace.sh
	@sh scripts/bench_gang.sh
	@sh scripts/bench_infer.sh
	@sh scripts/bench_mem.sh
	@sh scripts/bench_compose.sh
	@sh scripts/bench_backfill.sh
	@sh scripts/bench_failures.sh
	@sh scripts/bench_work.sh

$(REL)/bench_heap: scripts/bench_heap.c
	@mkdir -p $(REL)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $< -lm

# the trace reader alone, on the release objects
$(REL)/bench_reader: scripts/bench_reader.c $(patsubst %.c,$(REL)/%.o,$(LIB_SRC))
	$(CC) $(BASE_CFLAGS) -O2 -o $@ $^ $(LIBS)

baseline-update: gpusim
	@sh scripts/update_baselines.sh ./gpusim

# The binary finds its data under ../share/gpusim beside its own directory
# (gs_exe_relative), so an installed gpusim needs no checkout.
SHARE = $(DESTDIR)$(PREFIX)/share/gpusim
install: check-deps
	@$(MAKE) --no-print-directory $(JOBS) gpusim
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/models/gpu $(SHARE)/models/llm $(SHARE)/models/perf/splitwise $(SHARE)/scripts \
		$(SHARE)/workloads/examples
	install -m 755 gpusim $(DESTDIR)$(PREFIX)/bin/gpusim
	install -m 644 models/gpu/*.json $(SHARE)/models/gpu/
	install -m 644 models/llm/*.json $(SHARE)/models/llm/
	install -m 644 models/perf/splitwise/perf_model.csv models/perf/splitwise/LICENSE $(SHARE)/models/perf/splitwise/
	install -m 644 scripts/fig_*.gp $(SHARE)/scripts/
	install -m 644 workloads/examples/*.csv workloads/examples/*.json $(SHARE)/workloads/examples/

clean:
	rm -rf build gpusim

-include $(REL_OBJ:.o=.d) $(TST_LIB_OBJ:.o=.d) $(TST_CLI_OBJ:.o=.d) $(TST_OBJ:.o=.d) \
         $(wildcard $(TST)/tests/fuzz/*.d) $(wildcard $(FZ)/*/*.d $(FZ)/*/*/*.d)
