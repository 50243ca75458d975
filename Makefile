# lagrange - one Makefile, one library per layer folder, one binary.
#   make            build build/lagrange, build/liblagrange.a and .so (optimized)
#   make check      build and run every test (also under ASan+UBSan)
#   make SAN=1      sanitized build in build-san/
#   make install    PREFIX=/usr/local DESTDIR= (make uninstall removes it)
# Packagers: WERROR= turns warnings back into warnings; CFLAGS and LDFLAGS
# given on the command line are kept (the project's own are appended);
# PREFIX, LIBDIR, MANDIR and DESTDIR are honoured.
CC      ?= cc
OBJCOPY ?= objcopy
WERROR  ?= -Werror
SAN     ?= 0
ifeq ($(SAN),1)
  BUILD ?= build-san
  OPT   := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
           -DLG_CHECK_CANONICAL
else ifeq ($(SAN),fuzz)
  # coverage-instrumented for libFuzzer (clang only; see `make fuzz`)
  BUILD ?= build-fuzz
  OPT   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined
else
  BUILD ?= build
  OPT   := -O2 -g
endif
LAYERS  := base sym mech lang num cg api cli
INC     := $(addprefix -Isrc/,$(LAYERS)) -I/usr/include/suitesparse
CFLAGS  ?=
# One set of objects for the static and the shared library: position
# independent, and only what lagrange.h marks LAGRANGE_API is exported.
override CFLAGS += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wvla $(WERROR) $(OPT) $(INC) \
           -fPIC -fvisibility=hidden
# SUNDIALS and LAPACK (BSD-licensed) are linked statically: loading a dozen
# shared objects cost a quarter of a small model's run time.
LDLIBS  := -Wl,-Bstatic -lsundials_arkode -lsundials_cvode -lsundials_ida \
           -lsundials_nvecserial -lsundials_sunlinsoldense -lsundials_sunmatrixdense \
           -llapacke -llapack -lblas -Wl,-Bdynamic -lgfortran -lgmp -ldl -lm
override LDFLAGS += $(filter -fsanitize%,$(OPT))
# MPI for `lagrange sweep` under mpirun: the plugin lagrange-mpi.so
# (src/cli/mpi/), built when pkg-config finds OpenMPI (libopenmpi-dev;
# LG_MPI=0 builds without it). Only the plugin sees mpi.h and links libmpi;
# the binary loads it only under mpirun (src/cli/cli_sweep_mpi.c).
LG_MPI ?= $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
ifeq ($(LG_MPI),1)
  MPI_CFLAGS := $(shell pkg-config --cflags ompi-c)
  MPI_LIBS   := $(shell pkg-config --libs ompi-c)
  MPI_PLUGIN := $(BUILD)/lagrange-mpi.so
endif
# The threads of `sweep`
LDLIBS  += -lpthread
# URDF import: only libxml2's headers (libxml2-dev); the library itself is
# opened with dlopen when a URDF is read (src/lang/lang_urdf.c), so that
# the command's start pays nothing for it.
XML_CFLAGS ?= $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
$(BUILD)/src/lang/lang_urdf.o $(BUILD)/src/lang/lang_mesh_dae.o: override CFLAGS += $(XML_CFLAGS)

# The shared library links what Debian 12 ships as shared objects
# (libsundials-dev, liblapacke-dev, libgmp-dev): packages pull them in.
SHLIBS  := -lsundials_arkode -lsundials_cvode -lsundials_ida -lsundials_nvecserial \
           -lsundials_sunlinsoldense -lsundials_sunmatrixdense -llapacke -llapack -lblas \
           -lgmp -ldl -lpthread -lm

# A static link needs the Fortran runtime too when it takes LAPACK's archive
# (cc -static ... $$(pkg-config --static --libs lagrange)).
PC_PRIVATE := $(filter-out -lgmp -ldl -lpthread -lm,$(SHLIBS)) -lgfortran -lquadmath \
              -lgmp -ldl -lpthread -lm

VERSION := $(shell sed -n 's/^\#define LAGRANGE_VERSION_STRING "\(.*\)"/\1/p' src/api/lagrange.h)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME  := liblagrange.so.$(MAJOR)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

LIB_SRC := $(foreach l,$(filter-out cli,$(LAYERS)),$(wildcard src/$(l)/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/cli_anim_assets.o
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

all: $(BUILD)/lagrange $(BUILD)/liblagrange.a $(if $(filter 0,$(SAN)),$(BUILD)/$(SONAME)) \
     $(MPI_PLUGIN)

# The installed archive exports only what lagrange.h declares: the objects
# are linked into one (ld -r) whose hidden names are made local, so that
# a program linking liblagrange.a statically cannot collide with (or call)
# the library's internal functions. The command, the unit tests and the
# benchmarks link the internal archive, which keeps every name.
$(BUILD)/liblagrange-internal.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/liblagrange.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(BUILD)/liblagrange-all.o $^
	$(OBJCOPY) --localize-hidden $(BUILD)/liblagrange-all.o
	rm -f $@
	$(AR) rcs $@ $(BUILD)/liblagrange-all.o

$(BUILD)/$(SONAME): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined $(LDFLAGS) -o $@ $^ $(SHLIBS)

$(BUILD)/lagrange: $(CLI_OBJ) $(BUILD)/liblagrange-internal.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# `lagrange animate` embeds three.js (Debian's libjs-three) and its player
# at build time; the generated C stays in $(BUILD)/gen.
THREE_JS := $(wildcard /usr/share/javascript/three/three.min.js)
# (three.js installed or not is recorded, so installing it rebuilds this)
$(BUILD)/gen/cli_anim_assets.c: scripts/embed-assets.sh src/cli/cli_anim_player.js $(THREE_JS) \
                                $(BUILD)/three-flags
	@mkdir -p $(dir $@)
	bash scripts/embed-assets.sh $@ src/cli/cli_anim_player.js

$(BUILD)/gen/cli_anim_assets.o: $(BUILD)/gen/cli_anim_assets.c
	$(CC) $(filter-out -Werror -Wall -Wextra,$(CFLAGS)) -c $< -o $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The command is a client of lagrange.h: it sees the public header, the
# base utilities and its own headers, nothing of the library's layers, so
# an internal include cannot build (tests/cli/test_layering.sh checks the
# symbols too).
$(BUILD)/src/cli/%.o: src/cli/%.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out $(INC),$(CFLAGS)) -Isrc/api -Isrc/base -Isrc/cli -MMD -MP -c $< -o $@

$(BUILD)/lagrange-mpi.so: src/cli/mpi/cli_sweep_mpi_plugin.c src/cli/cli_sweep_mpi.h \
                          src/cli/cli_sweep.h src/cli/cli.h
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -shared $(LDFLAGS) -o $@ $< $(MPI_LIBS)
$(BUILD)/three-flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(THREE_JS)' | cmp -s - $@ || echo '$(THREE_JS)' > $@
FORCE:

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test_util.h $(BUILD)/liblagrange-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/liblagrange-internal.a $(LDFLAGS) $(LDLIBS)

# The command's output files are the command's (src/cli), tested on their own.
$(BUILD)/tests/test_cli_outfile: tests/unit/test_cli_outfile.c tests/unit/test_util.h \
    $(BUILD)/src/cli/cli_outfile.o $(BUILD)/liblagrange-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/src/cli/cli_outfile.o \
	  $(BUILD)/liblagrange-internal.a $(LDFLAGS) $(LDLIBS)

tests: $(TEST_BIN) $(BUILD)/lagrange

# The library's thread rules under ThreadSanitizer (not part of `make
# check`: a third full build): two and three threads on one system, and
# `lagrange sweep` on threads through every integrator path.
tsan:
	$(MAKE) BUILD=build-tsan OPT="-O1 -g -fsanitize=thread" build-tsan/tests/test_api \
	  build-tsan/tests/test_deferred_derive build-tsan/lagrange
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test_api
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test_deferred_derive
	TSAN_OPTIONS=halt_on_error=1 bash tests/cli/tsan_sweep.sh build-tsan/lagrange

# Benchmarks (never part of the tests): the symbolic core alone, then the
# side-by-side comparisons in bench/*.py, all under one interpreter,
# Debian's python3 with SymPy, NumPy and SciPy (scripts/install-bench-deps.sh).
# `make bench-quick` runs the small sizes only. `make bench` ends with
# test_codegen_agreement.py --big: the generated code and the printed
# equations against eval on the 3D arm past the tests' 20 links.
BENCH_PY ?= /usr/bin/python3
$(BUILD)/bench/sym_chain: bench/sym_chain.c $(BUILD)/liblagrange-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/liblagrange-internal.a $(LDFLAGS) $(LDLIBS)

bench: $(BUILD)/bench/sym_chain $(BUILD)/lagrange
	bash scripts/install-bench-deps.sh
	$(BUILD)/bench/sym_chain
	$(BENCH_PY) bench/codegen.py $(BUILD)/lagrange
	$(BENCH_PY) bench/eom.py $(BUILD)/lagrange
	$(BENCH_PY) bench/simulate.py $(BUILD)/lagrange
	$(BENCH_PY) bench/sweep.py $(BUILD)/lagrange
	$(BENCH_PY) tests/cli/test_codegen_agreement.py $(BUILD)/lagrange $(BUILD)/lagrange --big
	$(MAKE) bench-peers

# issue 26: URDF robots against MuJoCo 2.2.2 and KDL (installs them from Debian)
bench-peers: $(BUILD)/lagrange
	sh bench/install-peers.sh
	$(BENCH_PY) bench/peers.py $(BUILD)/lagrange --out $(BUILD)/bench/peers

bench-quick: $(BUILD)/lagrange
	bash scripts/install-bench-deps.sh
	$(BENCH_PY) bench/codegen.py $(BUILD)/lagrange --quick
	$(BENCH_PY) bench/eom.py $(BUILD)/lagrange --quick
	$(BENCH_PY) bench/simulate.py $(BUILD)/lagrange --quick
	$(BENCH_PY) bench/sweep.py $(BUILD)/lagrange --quick

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
	$(CC) $(CFLAGS) -MMD -MP -Dmain=lg_cli_main -c $< -o $@

$(BUILD)/fuzz/fuzz_lagrange: tests/fuzz/fuzz_lagrange.c $(BUILD)/fuzz/cli_entry.o \
                             $(filter-out %/cli_main.o,$(CLI_OBJ)) $(BUILD)/liblagrange-internal.a
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDFLAGS) $(LDLIBS)

fuzz-build:
	$(MAKE) SAN=fuzz CC=$(FUZZ_CC) build-fuzz/fuzz/fuzz_lagrange
	$(MAKE) SAN=1 all

fuzz: fuzz-build
	bash tests/fuzz/run_fuzz.sh $(FUZZ_SECONDS)

# The Python package in place: python/lagrange finds build/liblagrange.so.N,
# so PYTHONPATH=python python3 -c 'import lagrange' works from here, and its
# C extension lagrange._fast (Model.eval/accel) is built beside it for PY
# (Debian's python3: python3-dev, python3-numpy). The extension does not
# link liblagrange: it calls the entries ctypes found (see _fast.c).
PY      ?= /usr/bin/python3
# (asked only when `python` is a goal: importing NumPy costs 0.1 s)
PY_CFG  := $(if $(filter python,$(MAKECMDGOALS)),$(shell $(PY) -c 'import sysconfig, numpy; print(sysconfig.get_config_var("EXT_SUFFIX"), sysconfig.get_paths()["include"], numpy.get_include())' 2>/dev/null))
PY_EXT  := python/lagrange/_fast$(word 1,$(PY_CFG))
PY_SRC  := python/lagrange/_fast.c python/lagrange/_fast_result.c
python: $(BUILD)/$(SONAME) $(PY_EXT)

$(PY_EXT): $(PY_SRC) python/lagrange/_fast.h src/api/lagrange.h
	@test -n "$(word 3,$(PY_CFG))" || { echo "make python: $(PY) with NumPy and its headers is needed (bash scripts/install-deps.sh)" >&2; exit 1; }
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Wvla $(WERROR) -fPIC -shared -fvisibility=hidden \
	  -Isrc/api -isystem $(word 2,$(PY_CFG)) -isystem $(word 3,$(PY_CFG)) -o $@ $(PY_SRC)

# The test command: plain and sanitized builds, every suite, one summary line.
check:
	bash tests/run_all.sh

clean:
	rm -rf build build-san build-tsan build-fuzz
	rm -f python/lagrange/_fast.*so

# ---- install ---------------------------------------------------------------------------
# lagrange.pc: Libs for the shared library; Libs.private adds what a static
# link of liblagrange.a needs (pkg-config --static).
define PC_FILE
prefix=$(PREFIX)
libdir=$(LIBDIR)
includedir=$(INCLUDEDIR)

Name: lagrange
Description: Equations of motion from model files: derive, evaluate, simulate, generate C
Version: $(VERSION)
Cflags: -I$${includedir}
Libs: -L$${libdir} -llagrange
Libs.private: $(PC_PRIVATE)
endef
export PC_FILE

install: $(BUILD)/lagrange $(BUILD)/liblagrange.a $(BUILD)/$(SONAME) $(MPI_PLUGIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(BUILD)/lagrange $(DESTDIR)$(BINDIR)/lagrange
	install -m 644 $(BUILD)/liblagrange.a $(DESTDIR)$(LIBDIR)/liblagrange.a
	install -m 755 $(BUILD)/$(SONAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	$(if $(MPI_PLUGIN),install -d $(DESTDIR)$(LIBDIR)/lagrange && \
	  install -m 755 $(MPI_PLUGIN) $(DESTDIR)$(LIBDIR)/lagrange/lagrange-mpi.so)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/liblagrange.so
	install -m 644 src/api/lagrange.h $(DESTDIR)$(INCLUDEDIR)/lagrange.h
	printf '%s\n' "$$PC_FILE" > $(DESTDIR)$(PKGCONFIGDIR)/lagrange.pc
	install -m 644 man/lagrange.1 $(DESTDIR)$(MANDIR)/man1/lagrange.1
	install -m 644 man/lagrange-model.5 $(DESTDIR)$(MANDIR)/man5/lagrange-model.5

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lagrange $(DESTDIR)$(LIBDIR)/liblagrange.a \
	  $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/liblagrange.so \
	  $(DESTDIR)$(INCLUDEDIR)/lagrange.h $(DESTDIR)$(PKGCONFIGDIR)/lagrange.pc \
	  $(DESTDIR)$(MANDIR)/man1/lagrange.1 $(DESTDIR)$(MANDIR)/man5/lagrange-model.5 \
	  $(DESTDIR)$(LIBDIR)/lagrange/lagrange-mpi.so
	-rmdir $(DESTDIR)$(LIBDIR)/lagrange 2>/dev/null

.PHONY: FORCE all tests check clean python demo bench bench-quick bench-peers fuzz fuzz-build install uninstall tsan
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(BUILD)/fuzz/cli_entry.d
