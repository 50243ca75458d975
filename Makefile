# lagrange - one Makefile, one library per layer folder, one binary.
#   make            build build/lagrange (optimized)
#   make check      build and run every test (also under ASan+UBSan)
#   make SAN=1      sanitized build in build-san/
CC      ?= cc
SAN     ?= 0
ifeq ($(SAN),1)
  BUILD ?= build-san
  OPT   := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SAN),fuzz)
  # coverage-instrumented for libFuzzer (clang only; see `make fuzz`)
  BUILD ?= build-fuzz
  OPT   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined
else
  BUILD ?= build
  OPT   := -O2 -g
endif
LAYERS  := base sym mech lang num cg cli
INC     := $(addprefix -Isrc/,$(LAYERS)) -I/usr/include/suitesparse
CFLAGS  ?=
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(OPT) $(INC)
# SUNDIALS and LAPACK (BSD-licensed) are linked statically: loading a dozen
# shared objects cost a quarter of a small model's run time.
LDLIBS  := -Wl,-Bstatic -lsundials_arkode -lsundials_cvode -lsundials_ida \
           -lsundials_nvecserial -lsundials_sunlinsoldense -lsundials_sunmatrixdense \
           -llapacke -llapack -lblas -Wl,-Bdynamic -lgfortran -lgmp -ldl -lm
LDFLAGS += $(filter -fsanitize%,$(OPT))

LIB_SRC := $(foreach l,$(filter-out cli,$(LAYERS)),$(wildcard src/$(l)/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

all: $(BUILD)/lagrange

$(BUILD)/liblagrange.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/lagrange: $(CLI_OBJ) $(BUILD)/liblagrange.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test_util.h $(BUILD)/liblagrange.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/liblagrange.a $(LDFLAGS) $(LDLIBS)

tests: $(TEST_BIN) $(BUILD)/lagrange

# Benchmarks (never part of the tests): the symbolic core alone, then the
# side-by-side comparisons in bench/*.py, all under one interpreter,
# Debian's python3 with SymPy, NumPy and SciPy (scripts/install-bench-deps.sh).
# `make bench-quick` runs the small sizes only.
BENCH_PY ?= /usr/bin/python3
$(BUILD)/bench/sym_chain: bench/sym_chain.c $(BUILD)/liblagrange.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/liblagrange.a $(LDFLAGS) $(LDLIBS)

bench: $(BUILD)/bench/sym_chain $(BUILD)/lagrange
	bash scripts/install-bench-deps.sh
	$(BUILD)/bench/sym_chain
	$(BENCH_PY) bench/codegen.py $(BUILD)/lagrange
	$(BENCH_PY) bench/eom.py $(BUILD)/lagrange
	$(BENCH_PY) bench/simulate.py $(BUILD)/lagrange

bench-quick: $(BUILD)/lagrange
	bash scripts/install-bench-deps.sh
	$(BENCH_PY) bench/codegen.py $(BUILD)/lagrange --quick
	$(BENCH_PY) bench/eom.py $(BUILD)/lagrange --quick
	$(BENCH_PY) bench/simulate.py $(BUILD)/lagrange --quick

# The main job: install what is missing, build, derive the cart pendulum.
demo:
	bash scripts/install-deps.sh
	$(MAKE) all
	$(BUILD)/lagrange eom examples/cart_pendulum.lag

# Fuzzing (tests/fuzz/): libFuzzer over the whole pipeline, built by clang in
# build-fuzz/, then the generator of valid models; FUZZ_SECONDS in total.
# cli_main.c is compiled once more with its main renamed, so the harness
# enters the program exactly as the command line does.
FUZZ_SECONDS ?= 600
FUZZ_CC      ?= clang
$(BUILD)/fuzz/cli_entry.o: src/cli/cli_main.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Dmain=lg_cli_main -c $< -o $@

$(BUILD)/fuzz/fuzz_lagrange: tests/fuzz/fuzz_lagrange.c $(BUILD)/fuzz/cli_entry.o \
                             $(filter-out %/cli_main.o,$(CLI_OBJ)) $(BUILD)/liblagrange.a
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDFLAGS) $(LDLIBS)

fuzz-build:
	$(MAKE) SAN=fuzz CC=$(FUZZ_CC) build-fuzz/fuzz/fuzz_lagrange
	$(MAKE) SAN=1 all

fuzz: fuzz-build
	bash tests/fuzz/run_fuzz.sh $(FUZZ_SECONDS)

# The test command: plain and sanitized builds, every suite, one summary line.
check:
	bash tests/run_all.sh

clean:
	rm -rf build build-san build-fuzz

.PHONY: all tests check clean demo bench bench-quick fuzz fuzz-build
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
