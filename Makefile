# Convenience front end over CMake. The two quick-start commands are `make demo` and `make test`.
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
CMAKE_FLAGS ?=

.PHONY: all build demo test test-sanitize bench install clean models

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# the main job: build the cup of seed 000 Fig. 9 from three XPSQs, mesh it, write cup.obj
demo: build
	$(BUILD)/examples/cup $(BUILD)/cup.obj

# the real meshes the tests and benchmarks read (CGAL's data from Debian's libcgal-demo; see data/README.md)
models:
	sh tools/fetch_models.sh $(BUILD)/models

# every test
test: build models
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# the C tests under AddressSanitizer and UndefinedBehaviorSanitizer
test-sanitize: models
	cmake -S . -B $(SANITIZE_BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSC_SANITIZE=ON \
	  -DOSC_BUILD_BENCH=OFF -DOSC_MODEL_DIR=$(abspath $(BUILD))/models $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)

# every benchmark; figures go to $(BUILD)/bench/results.jsonl
bench: build models
	sh bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
