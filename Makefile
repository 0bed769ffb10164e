# Shades: the two commands a newcomer runs on a fresh Debian machine.
#   make catalogue   install the C libraries if missing, build in release, render Presets/ into ./catalogue
#   make test        install the C libraries and the tests' tools if missing, run the test suite (release build)

DEB_PACKAGES := libfftw3-dev libsndfile1-dev libsamplerate0-dev libebur128-dev pkg-config
# For the tests only: the LAME encoder's command-line tool makes their MP3 fixtures.
TEST_PACKAGES := lame
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# A plain release build, as an app depending on Shades gets it: the hot kernels (CShadesKernels) are built
# for baseline, AVX2 + FMA and AVX-512 and chosen at run time, so no CPU flags are needed.
SWIFT_FLAGS := -c release
# Flags for a build tuned to this CPU, only to compare with the plain build (Benchmarks/compare-builds.sh).
HAS_CPU = $(shell for f in $(1); do grep -qw $$f /proc/cpuinfo 2>/dev/null || exit 1; done && echo yes)
CPU_FLAGS := $(if $(call HAS_CPU,avx512f avx512bw avx512dq avx512vl),-Xswiftc -target-cpu -Xswiftc skylake-avx512,$(if $(call HAS_CPU,avx2 fma),-Xswiftc -target-cpu -Xswiftc haswell))
# The command-line tool links the Swift runtime statically: it starts in 4.4 ms instead of 6.5 ms
# (`perf stat -r 30 shades --version`) and runs on machines without a Swift toolchain. It has its own
# build folder: the tests cannot link that way (no static Testing library), and the two sets of flags
# would rebuild each other's modules.
STATIC_BUILD := .build-static
SHADES := $(STATIC_BUILD)/release/shades
CATALOGUE := catalogue

.PHONY: deps test-deps build catalogue test bench bench-quick compare-peers compare-builds cpu-flags clean

# Installs those of the Debian packages $(1) that are missing.
INSTALL_MISSING = missing=""; \
	for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

deps:
	@$(call INSTALL_MISSING,$(DEB_PACKAGES))

test-deps:
	@$(call INSTALL_MISSING,$(TEST_PACKAGES))

build: deps
	swift build $(SWIFT_FLAGS) --static-swift-stdlib --scratch-path $(STATIC_BUILD) --product shades

# Renders Presets/*.json into ./catalogue: loudness-matched, seamless assets, manifest.json and index.html
# (built in a temporary folder and moved into place; unchanged assets are reused).
catalogue: build
	$(SHADES) catalogue build Presets -o $(CATALOGUE)

test: deps test-deps
	swift test $(SWIFT_FLAGS)

bench: deps
	cd Benchmarks && swift package benchmark --no-progress

# Short CI run of the plain build: prints the table, then fails if a streaming render call allocated
# (Thresholds/: 0 mallocs).
bench-quick: deps
	cd Benchmarks && SHADES_BENCH_QUICK=1 swift package benchmark --no-progress
	cd Benchmarks && SHADES_BENCH_QUICK=1 swift package benchmark thresholds check --target Sources --filter 'Stream-.*' --no-progress

compare-peers: build
	bash Benchmarks/compare-peers.sh

# The plain build against one tuned to this CPU, side by side (goal: plain within 1.3× everywhere).
compare-builds: deps
	bash Benchmarks/compare-builds.sh

# The compiler flags for a build tuned to this CPU (compare-builds; see Benchmarks/README.md).
cpu-flags:
	@echo $(CPU_FLAGS)

clean:
	rm -rf .build .build-plain .build-tuned $(STATIC_BUILD) $(CATALOGUE) Benchmarks/.build
