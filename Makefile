# Convenience front end over CMake. The two quick-start commands are `make demo` and `make test`.
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
TSAN_BUILD ?= build-tsan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
CMAKE_FLAGS ?=

.PHONY: all build demo test test-torch2 test-sanitize test-tsan bench install clean models box-stack-plot python-dist fresh-machine-check

all: build

# libccd for the DCOL tests (tools/fetch_deps.sh: unpacked into $(BUILD)/deps unless installed)
DEPS_PREFIX = $(abspath $(BUILD))/deps/usr

$(BUILD)/CMakeCache.txt:
	sh tools/fetch_deps.sh $(BUILD)/deps
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$(DEPS_PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# the main job: two bunnies (data/bunny.obj) back to back, the second turned 180 degrees about the
# vertical and 8.3 along x so that they interpenetrate a little; prints a summary and writes the
# contacts (JSON with pose Jacobians, PLY and OBJ point sets) and the posed collision meshes to
# $(BUILD)/demo/. Builds only the command-line program.
DEMO_POSE_B ?= 8.3 0 0  0 0 1 0
demo: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target osculate_cli
	@mkdir -p $(BUILD)/demo
	$(BUILD)/tools/osculate contact data/bunny.obj data/bunny.obj --pose-b "$(DEMO_POSE_B)" --derivatives \
	  --json $(BUILD)/demo/contact.json --points $(BUILD)/demo/contact.ply --obj $(BUILD)/demo/contact.obj \
	  --scene $(BUILD)/demo/scene.obj

# the real meshes the tests and benchmarks read (CGAL's data from Debian's libcgal-demo; see data/README.md)
models:
	sh tools/fetch_models.sh $(BUILD)/models
	sh tools/fetch_cad.sh $(BUILD)/models/cad

# every test: the C tests, then the Python package's (python/run_tests.sh: a wheel of python/, installed
# into a virtual environment in $(BUILD)/python-venv, pytest against it from outside the source tree).
# Parts that need a tool this machine lacks (clang's libFuzzer, pkg-config, python3, PyTorch) say in one
# line that they were skipped; nothing fails for their lack.
test: build models
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	sh python/run_tests.sh $(BUILD)

# the PyTorch tests under PyTorch 2 from PyPI (torch.compile, torch.func) against the wheel that
# `make test` built (python/run_torch2_tests.sh; a separate virtual environment, ~3 GB)
test-torch2:
	sh python/run_torch2_tests.sh $(BUILD)

# the C tests under AddressSanitizer and UndefinedBehaviorSanitizer
test-sanitize: models
	sh tools/fetch_deps.sh $(BUILD)/deps
	cmake -S . -B $(SANITIZE_BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSC_SANITIZE=ON \
	  -DCMAKE_PREFIX_PATH=$(DEPS_PREFIX) \
	  -DOSC_BUILD_BENCH=OFF -DOSC_MODEL_DIR=$(abspath $(BUILD))/models $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)

# the thread stress test (every query family from several threads on shared models, answers equal
# bit for bit to those computed alone, each thread's errors its own) under ThreadSanitizer. OpenMP
# is off in this build: libgomp is not instrumented, so ThreadSanitizer cannot see its barriers;
# the stress test's threads are the caller's own, as in a simulator that embeds the library.
TSAN_TESTS = test_threads
test-tsan:
	cmake -S . -B $(TSAN_BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSC_SANITIZE_THREAD=ON \
	  -DOSC_USE_OPENMP=OFF -DOSC_BUILD_BENCH=OFF -DOSC_BUILD_EXAMPLES=OFF -DOSC_BUILD_TOOLS=OFF $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TESTS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir $(TSAN_BUILD) --output-on-failure -R '^($(subst $(eval) ,|,$(TSAN_TESTS)))$$'

# every benchmark; figures go to $(BUILD)/bench/results.jsonl
bench: build models
	sh bench/run.sh $(BUILD)

# docs/box_stack.png (Beker et al. 2026 Fig. 10): osculate's box sweep against MuJoCo's box-box contacts;
# MuJoCo comes from bench/peers/setup.sh, matplotlib is installed into that virtual environment
box-stack-plot: build
	test -x $(BUILD)/peers/venv/bin/python || sh bench/peers/setup.sh $(BUILD)
	$(BUILD)/peers/venv/bin/python -m pip install -q --disable-pip-version-check matplotlib
	$(BUILD)/peers/venv/bin/python tools/plot_box_stack.py --build $(BUILD) --out docs/box_stack.png

install: build
	cmake --install $(BUILD)

# the Python package's sdist and manylinux wheel in $(BUILD)/python-dist (python -m build, auditwheel
# repair with the vendored libraries' licences, twine check), the wheel's install time into a fresh
# virtual environment, and the Python suite against the installed wheel (tools/python_dist.sh)
python-dist:
	sh tools/python_dist.sh $(BUILD)

# the README's quick start from a fresh clone of HEAD on a fresh Debian 12 (debootstrap, chroot; as root)
fresh-machine-check:
	sh tools/fresh_machine_check.sh --python

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(TSAN_BUILD)
