# gpusim - discrete-event simulator for GPU cluster capacity planning.
#
#   make demo    install missing packages, build, run the example, print paths
#   make test    install missing packages, build with ASan+UBSan, run all tests
#   make bench   performance figures (events/s vs a bare heap, peak RSS)
#
# Objects go to build/<config>/ so sanitized and release objects never mix.
# pkg-config runs in a sub-make, after deps.sh has installed what is missing.

CC ?= cc
PKGS := gsl libcjson
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2 \
        -Wwrite-strings -Wundef
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -MMD -MP $(shell pkg-config --cflags $(PKGS))
LIBS = $(shell pkg-config --libs $(PKGS)) -lcsv -lm
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIB_SRC := $(wildcard sim/*.c) $(wildcard policies/*.c) $(wildcard workloads/*.c) models/gpu/gpu_model.c
LIB_SRC := $(filter-out sim/main.c sim/cli_%.c,$(LIB_SRC))
CLI_SRC := sim/main.c $(wildcard sim/cli_*.c)
TEST_SRC := $(wildcard tests/test_*.c) tests/run.c tests/testutil.c

REL := build/release
TST := build/test
REL_OBJ := $(patsubst %.c,$(REL)/%.o,$(LIB_SRC) $(CLI_SRC))
TST_LIB_OBJ := $(patsubst %.c,$(TST)/%.o,$(LIB_SRC))
TST_CLI_OBJ := $(patsubst %.c,$(TST)/%.o,$(CLI_SRC))
TST_OBJ := $(patsubst %.c,$(TST)/%.o,$(TEST_SRC))

.PHONY: all deps demo test bench clean baseline-update build-release build-test run-tests run-demo run-bench fgd-table

all: deps
	@$(MAKE) --no-print-directory build-release

deps:
	@sh scripts/deps.sh

build-release: gpusim
build-test: $(TST)/gpusim $(TST)/run_tests

gpusim: $(REL_OBJ)
	$(CC) -O2 -g -o $@ $^ $(LIBS)

$(REL)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(BASE_CFLAGS) -O2 -g -c -o $@ $<

$(TST)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "CC [asan,ubsan] $<"
	@$(CC) $(BASE_CFLAGS) $(SAN) -O1 -g -c -o $@ $<

$(TST)/gpusim: $(TST_LIB_OBJ) $(TST_CLI_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

$(TST)/run_tests: $(TST_LIB_OBJ) $(TST_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

demo: deps
	@$(MAKE) --no-print-directory run-demo

run-demo: gpusim
	@sh scripts/demo.sh

test: deps
	@$(MAKE) --no-print-directory run-tests

run-tests: build-test gpusim
	@sh tests/run_all.sh

bench: deps
	@$(MAKE) --no-print-directory run-bench

# The FGD fill-up table on the paper's 17 openb traces (minutes):
#   make fgd-table TRACES=folder-with-the-openb-csv-files
fgd-table: gpusim
	@if [ -z "$(TRACES)" ]; then echo "usage: make fgd-table TRACES=DIR (the openb_*.csv files of Alibaba clusterdata cluster-trace-gpu-v2023)" >&2; exit 2; fi
	@sh scripts/fgd_table.sh "$(TRACES)" $(OUT)

run-bench: gpusim $(REL)/bench_heap
	@sh scripts/bench.sh

$(REL)/bench_heap: scripts/bench_heap.c
	@mkdir -p $(REL)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $< -lm

baseline-update: gpusim
	@sh scripts/update_baselines.sh ./gpusim

clean:
	rm -rf build gpusim

-include $(REL_OBJ:.o=.d) $(TST_LIB_OBJ:.o=.d) $(TST_CLI_OBJ:.o=.d) $(TST_OBJ:.o=.d)
