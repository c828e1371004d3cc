# Entry points (README): make demo, make test. Each installs what is missing first.
BUILD      ?= build
JOBS       ?= $(shell nproc)
CTEST_JOBS ?= $(shell echo $$(( $$(nproc) * 2 )))
# Read when cmake runs (after `deps` has installed ninja), not when make starts.
GENERATOR   = $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# What `make demo` runs: the simulator, the operator, and dgdctl (`kubectl dgd status`).
DEMO_TARGETS = kube-sim dgd-operator dgdctl
# The demo builds in its own directory without debug information and with nlohmann/json.hpp
# precompiled once (DGD_PCH): compiling is most of the demo's time, -O2 alone takes about
# half the CPU time of -O2 -g, and json.hpp is a quarter of what is left (docs/benchmarks.md,
# "make demo from a fresh clone"). Warnings are not errors there: the demo builds to run,
# and `make test`'s build (the one CI runs) treats them as errors.
DEMO_BUILD ?= build-demo

.PHONY: all deps configure build toolchain test test-unit test-e2e test-chaos-two-replicas test-sanitize demo bench fuzz names clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The local cluster's programs (kube-apiserver, etcd, KWOK, ...) from their Go modules, built
# once into a cache keyed by their versions (localcluster/toolchain/build.sh); the e2e tests
# that run on the real control plane find them through DGD_TOOLCHAIN_BIN.
toolchain:
	@bash localcluster/toolchain/build.sh >/dev/null

test: build toolchain
	cd $(BUILD) && DGD_TOOLCHAIN_BIN=$$(bash $(CURDIR)/localcluster/toolchain/build.sh) ctest -j $(CTEST_JOBS) --output-on-failure --timeout 900

test-unit: build
	cd $(BUILD) && ctest -j $(CTEST_JOBS) -L unit --output-on-failure

test-e2e: build
	cd $(BUILD) && ctest -j $(CTEST_JOBS) -L e2e --output-on-failure

# The two-replica chaos run alone (it is part of `make test` too).
test-chaos-two-replicas: build
	cd $(BUILD) && ctest -R 'e2e/chaos/test_chaos_two_replicas' --output-on-failure --timeout 900

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer, built with clang in
# build-asan. The same build holds the libFuzzer targets (`make fuzz`), so one compile serves
# both; -O1 and line tables only keep that compile affordable on 2 cores.
SANITIZE_CONFIGURE = DGD_WITH_CLANG=1 bash scripts/install-deps.sh && \
	{ test -f build-asan/CMakeCache.txt || CXX=clang++ cmake -S . -B build-asan $(GENERATOR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
	  -DDGD_SANITIZE=ON -DDGD_FUZZ=ON; }

# Every sanitized process writes its report here (the e2e tests' kube-sim, operator and
# dgdctl included); scripts/check-sanitizer-reports.sh fails the run on any finding.
SANITIZER_REPORTS = $(CURDIR)/build-asan/sanitizer-reports

test-sanitize:
	@$(SANITIZE_CONFIGURE)
	cmake --build build-asan -j $(JOBS)
	rm -rf $(SANITIZER_REPORTS) && mkdir -p $(SANITIZER_REPORTS)
	cd build-asan && DGD_TEST_TIME_FACTOR=5 \
	  ASAN_OPTIONS=detect_leaks=1:log_path=$(SANITIZER_REPORTS)/report:log_exe_name=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan-suppressions.txt \
	  UBSAN_OPTIONS=print_stacktrace=1:log_path=$(SANITIZER_REPORTS)/report:log_exe_name=1 \
	  ctest -j $(CTEST_JOBS) --output-on-failure --timeout 1800; \
	  rc=$$?; bash $(CURDIR)/scripts/check-sanitizer-reports.sh $(SANITIZER_REPORTS) && exit $$rc

# Builds only what the demo runs. KEEP=1 leaves the cluster running for kubectl until Ctrl-C.
demo:
	@echo "==> [1/4] installing what is missing (scripts/install-deps.sh)"
	@bash scripts/install-deps.sh
	@echo "==> [2/4] configuring $(DEMO_BUILD)"
	@test -f $(DEMO_BUILD)/CMakeCache.txt || cmake -S . -B $(DEMO_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" -DDGD_PCH=ON -DDGD_WERROR=OFF >/dev/null
	@echo "==> [3/4] building $(DEMO_TARGETS) (-j $(JOBS); the first build compiles for several minutes)"
	@cmake --build $(DEMO_BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@echo "==> [4/4] running the demo (scripts/demo.sh)"
	@DEMO_KEEP=$(KEEP) bash scripts/demo.sh $(DEMO_BUILD)

# -O2: GCC 12's -O3 raises a false -Wrestrict in std::string code (and -Werror is on).
bench: deps
	@test -f build-bench/CMakeCache.txt || cmake -S . -B build-bench $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DDGD_BENCH=ON
	cmake --build build-bench -j $(JOBS) --target benchmarks
	bash bench/run.sh build-bench

# libFuzzer targets (tests/fuzz) for FUZZ_SECONDS (default 60) or FUZZ_RUNS each; see docs/reliability.md.
fuzz:
	@$(SANITIZE_CONFIGURE)
	cmake --build build-asan -j $(JOBS) --target dgd_fuzzers
	bash tests/fuzz/run.sh build-asan

# The naming convention (.clang-tidy; docs/architecture.md "Naming"): fails with file:line of
# each name that breaks it, in the translation units changed since main (NAMES_SINCE=<rev>
# for another base), every one with NAMES_ALL=1, or those matching NAMES_FILES=<regex>.
names:
	@DGD_WITH_CLANG_TIDY=1 bash scripts/install-deps.sh
	@JOBS=$(JOBS) bash scripts/check-names.sh

clean:
	rm -rf $(BUILD) $(DEMO_BUILD) build-asan build-bench build-names
