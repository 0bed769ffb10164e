# Shades: the two commands a newcomer runs on a fresh Debian machine.
#   make catalogue   install the C libraries if missing, build in release, render Presets/ into ./catalogue
#   make test        install the C libraries and the tests' tools if missing, run the test suite (release build),
#                    then the live tests through a headless PulseAudio, then a headless PipeWire (make test-live)
# Robustness (docs/development.md): make fuzz, make test-tsan, make test-asan, make soak.

DEB_PACKAGES := libfftw3-dev libsndfile1-dev libsamplerate0-dev libebur128-dev portaudio19-dev libasound2-dev pkg-config
# For the tests only: the LAME encoder's command-line tool makes their MP3 fixtures.
TEST_PACKAGES := lame
# For the live tests (make test-live): a headless PulseAudio server and its tools (parecord, paplay, pactl),
# the ALSA plugin through which PortAudio's "default" device reaches it (PortAudio is in DEB_PACKAGES), and
# tmux, the 80×24 terminal in which the interactive procedures are driven (LiveProcedureScreenTests.swift).
LIVE_PACKAGES := pulseaudio pulseaudio-utils libasound2-plugins tmux
# Then a headless PipeWire for the notch-filter configuration (PipeWireNotchTests): the server and its tools
# (pw-cli, pw-link, pw-play, pw-record), WirePlumber, and the session D-Bus WirePlumber needs. Installed
# without recommended packages: no pipewire-pulse or pipewire-alsa (they would take PulseAudio's and ALSA's
# clients from the headless PulseAudio), no rtkit.
PIPEWIRE_PACKAGES := pipewire pipewire-bin wireplumber dbus-daemon
# For make test-slurm: GNU Parallel, which builds a study's shards without a scheduler (slurm-wlm and munge
# are installed by scripts/slurm-cluster.sh, which starts them).
CLUSTER_PACKAGES := parallel
# For make test-arm64: Debian's aarch64 C library and cross gcc (the linker driver; clang compiles the kernels)
# and qemu's user-mode emulator to run the result.
ARM64_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# For make test-bundle: the minimal Debian root file systems the bundle is run in.
BUNDLE_TEST_PACKAGES := debootstrap
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

.PHONY: deps test-deps live-deps test-live build catalogue test api-listing docs bench bench-quick compare-peers compare-study-peers compare-builds cpu-flags clean manual \
	build-bench fuzz fuzz-ci build-fuzz build-tsan test-tsan test-asan soak load-test test-kernels test-arm64 test-slurm \
	bundle test-bundle

# Installs those of the Debian packages $(1) that are missing (apt-get install options: $(2)). A package
# removed but not purged (dpkg's "rc") counts as missing: `dpkg -s` answers 0 for it.
INSTALL_MISSING = missing=""; \
	for p in $(1); do \
		[ "$$(dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null)" = installed ] || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(2) $$missing; \
	fi

deps:
	@$(call INSTALL_MISSING,$(DEB_PACKAGES))

# Also real music for the tests and the examples of the README and docs/ (scripts/music-fixtures.sh:
# Debian's asc-music and planetblupi-music-ogg, downloaded once into .build-fixtures/music).
test-deps:
	@$(call INSTALL_MISSING,$(TEST_PACKAGES))
	@bash scripts/music-fixtures.sh

live-deps:
	@$(call INSTALL_MISSING,$(LIVE_PACKAGES))
	@$(call INSTALL_MISSING,$(PIPEWIRE_PACKAGES),--no-install-recommends)

build: deps
	swift build $(SWIFT_FLAGS) --static-swift-stdlib --scratch-path $(STATIC_BUILD) --product shades

# Renders Presets/*.json into ./catalogue: loudness-matched, seamless assets, manifest.json and index.html
# (built in a temporary folder and moved into place; unchanged assets are reused).
catalogue: build
	$(SHADES) catalogue build Presets -o $(CATALOGUE)

# The suite includes PublicAPITests: the public API of the library products must be API/public-api.txt.
# The live tests run apart, after the others, against a server of their own (one null sink: one at a time).
# Every module a target imports must be among its declared dependencies (--explicit-target-dependency-import-check).
test: deps test-deps live-deps
	swift test $(SWIFT_FLAGS) --explicit-target-dependency-import-check error --skip ShadesLiveTests
	bash scripts/live-tests.sh $(SWIFT_FLAGS)

# A study built as a Slurm job array on a real one-node cluster (Tests/ShadesClusterTests): scripts/slurm-cluster.sh
# installs slurm-wlm and munge if missing and starts munged, slurmctld and slurmd in a temporary folder; the suite
# runs with SLURM_CONF and the script's path exported; the cluster is stopped afterwards, also when a test fails.
# Without SLURM_CONF the suite is skipped (plain `swift test`); here a cluster that does not start fails the target.
# About 3½ minutes on a busy 2-core VM (a 200-patient study through Slurm, then through GNU Parallel).
test-slurm: deps
	@$(call INSTALL_MISSING,$(CLUSTER_PACKAGES))
	@set -e; dir=$$(mktemp -d /tmp/shades-slurm.XXXXXX); \
	trap 'bash scripts/slurm-cluster.sh stop "$$dir"; rm -rf "$$dir"' EXIT; trap 'exit 130' INT TERM; \
	exports=$$(bash scripts/slurm-cluster.sh start "$$dir"); eval "$$exports"; \
	echo "Slurm: $$(sinfo -h -o '%P %D %T %c' | head -1) ($$SLURM_CONF)"; \
	SHADES_SLURM_CLUSTER=$(CURDIR)/scripts/slurm-cluster.sh \
		swift test $(SWIFT_FLAGS) --explicit-target-dependency-import-check error --filter ShadesClusterTests

# The relocatable bundle for a machine without Shades' libraries or a recent C library (a cluster node):
# dist/shades-VERSION-linux-x86_64.tar.gz and its .sha256 (scripts/bundle.sh): bin/shades (a sh launcher),
# libexec/shades (the static build), lib/ (every library ldd lists, glibc and its loader too), LICENSES/.
bundle: build
	bash scripts/bundle.sh $(SHADES) dist

# The bundle in chroots of a minimal Debian 12 and Debian 11 (glibc 2.31), made with debootstrap, and of a root
# with no C library (static busybox), in a temporary folder (scripts/bundle-test.sh): render, notch of a real MP3,
# catalogue build, the README's cluster steps for a small study, each output's SHA-256 against the static build's;
# every library loaded the bundle's (LD_DEBUG); `shades play` refusing in one line. 3½ minutes on a 2-core VM
# at load 2.6 (5½ at load 5), most of it four catalogue builds and debootstrap's downloads.
test-bundle: bundle
	@$(call INSTALL_MISSING,$(BUNDLE_TEST_PACKAGES),--no-install-recommends)
	@bash scripts/music-fixtures.sh
	bash scripts/bundle-test.sh

# Regenerates API/public-api.txt, the listing of the public API of the library products, from the modules'
# symbol graphs (Tests/ShadesAPITests). It uses the test suite's build: after `make test` nothing is rebuilt.
# Run it after a change to the public API and commit the listing with the change.
api-listing: deps
	SHADES_WRITE_API_LISTING=1 swift test $(SWIFT_FLAGS) --filter PublicAPITests

# The command-line reference from the commands (docs/development.md): a man page per command in docs/man/
# (scripts/manual-pages.sh: swift-argument-parser's generate-manual plugin, which builds the package in
# release; dated by the last commit to Sources/shades, so the pages change only with the commands) and docs/reference.md
# (CommandReferenceTests, which checks both in `make test`).
MANUAL_DATE := $(shell git log -1 --format=%cs -- Sources/shades 2>/dev/null || date -u +%F)
manual: deps
	bash scripts/manual-pages.sh docs/man $(MANUAL_DATE)
	SHADES_WRITE_REFERENCE=1 swift test $(SWIFT_FLAGS) --filter CommandReferenceTests

# DocC for the library products an app uses (Sources/<Module>/<Module>.docc: a landing page, topic groups and
# articles), one archive per module: .build-docs/plugins/Swift-DocC/outputs/<Module>.doccarchive (a static site:
# serve the folder and open /documentation/<module>/, lower case). swift-docc-plugin's --warnings-as-errors: a
# broken ``symbol`` link or an undocumented parameter fails. A debug build in a folder of its own: sharing .build
# with make test would rebuild the modules there (swift test builds them with other settings) and make the next
# make test rebuild them again; debug takes half the CPU time of release. From a fresh clone 68 and 86 s on a
# 2-core VM at load 2 (1 min 40 s at load 6), then 13 s.
DOCS_BUILD := .build-docs
DOCS_TARGETS := ShadesDSP ShadesRender ShadesAnalysis ShadesProcedures
docs: deps
	swift package --scratch-path $(DOCS_BUILD) generate-documentation $(addprefix --target ,$(DOCS_TARGETS)) --warnings-as-errors

# `shades play` through a real audio server: scripts/live-tests.sh starts a headless PulseAudio (null sink,
# float32 48 kHz stereo) in a temporary folder, runs Tests/ShadesLiveTests with its environment exported
# (XDG_RUNTIME_DIR, HOME, PULSE_SINK) and stops it afterwards, also when a test fails. About 2 minutes.
# Then, the same way, a headless PipeWire (D-Bus, pipewire, WirePlumber, a null sink) for PipeWireNotchTests:
# `shades notch-filter --pipewire` loaded in it. About 15 s. `LIVE_SERVERS=pipewire make test-live`: only that.
test-live: deps live-deps
	bash scripts/live-tests.sh $(SWIFT_FLAGS)

# The C kernels without Swift (Tests/KernelHarness/run.sh, a few seconds): the baseline x86-64 set's emulated
# fused multiply-add against this CPU's FMA instruction, bit for bit over millions of random and adversarial
# inputs, and every function of every kernel set this CPU runs on fixed inputs, giving the same digests.
test-kernels:
	bash Tests/KernelHarness/run.sh native

# The kernels built for aarch64 and run under qemu-user: the same digests as the x86-64 sets, and fmla/fmadd
# in the code with no call to fmaf (the hardware fused multiply-add). About 10 s after the install.
test-arm64:
	@$(call INSTALL_MISSING,$(ARM64_PACKAGES),--no-install-recommends)
	bash Tests/KernelHarness/run.sh arm64

# libFuzzer targets (Fuzz/, with the address and leak sanitizers), each for FUZZ_SECONDS, two at a time;
# a crash, hang (over 10 s), leak or failed invariant fails the run and leaves the input in
# .build-fuzz/fuzz/<target>/artifacts/ (see Fuzz/run.sh). The sanitizer runtimes ship with the toolchain.
FUZZ_SECONDS ?= 300
fuzz: deps
	bash Fuzz/run.sh $(FUZZ_SECONDS)

# CI: half a minute per target (two at a time: a minute in all).
fuzz-ci: deps
	FUZZ_SEED=1 bash Fuzz/run.sh 30

# The fuzz targets' build alone (fuzz-ci then compiles nothing; .ci/run starts it beside make test).
build-fuzz: deps
	FUZZ_BUILD_ONLY=1 bash Fuzz/run.sh

# The suites that run threads (parallel renders, the streaming writer, the read-ahead thread, the parallel
# catalogue build and check, parallel analysis) under ThreadSanitizer, in a build folder of their own. A
# race fails the run (ThreadSanitizer's exit code 66, also from the `shades` processes the tests start).
# A filter matches `Module.Suite/test`: `\.CommandLineTests` is that suite, not all of ShadesCommandLineTests.
TSAN_SUITES := RendererTests|\.CommandLineTests|NotchedMusicTests|NotchCommandTests|NotchedNoiseTests|StimuliTests|CatalogueBuildTests|CatalogueCommandTests|FileAnalysisTests
test-tsan: deps
	swift test $(SWIFT_FLAGS) --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_SUITES)'

# test-tsan's build alone: `swift test list` builds as test-tsan does, then lists the tests into a file (its
# output, shown if it fails; `swift build --build-tests` builds with other settings, and test-tsan would
# compile everything again). .ci/run starts it at the lowest priority beside make test, after build-fuzz.
build-tsan: deps
	mkdir -p .build-tsan
	swift test $(SWIFT_FLAGS) --sanitize=thread --scratch-path .build-tsan list > .build-tsan/list.txt \
		|| { cat .build-tsan/list.txt; exit 1; }

# The whole suite under AddressSanitizer (with LeakSanitizer; Tests/lsan-suppressions.txt lists leaks in
# the toolchain's libraries), the day stream cut to an hour (not in CI: about 2 minutes from cold).
test-asan: deps
	SHADES_STREAM_HOURS=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt \
		swift test $(SWIFT_FLAGS) --sanitize=address --scratch-path .build-asan

# Live playback under load, by hand (not CI): LOAD_MINUTES (10) at a LOAD_BUFFER (5ms) callback through a
# headless PulseAudio while a busy loop runs on every core at normal priority; reports the underruns of the
# device and the file reader and whether real-time scheduling was granted, and fails on an underrun.
# Plays a pink-noise "music" file notched at 500 Hz, ½ octave (scripts/load-test.sh: other sounds).
LOAD_MINUTES ?= 10
LOAD_BUFFER ?= 5ms
load-test: deps live-deps
	swift build $(SWIFT_FLAGS) --product shades
	bash scripts/load-test.sh $(LOAD_MINUTES) $(LOAD_BUFFER)

# The day stream with every hour's figures (SOAK_HOURS, default the test's 24).
SOAK_HOURS ?= 24
soak: deps
	SHADES_STREAM_HOURS=$(SOAK_HOURS) SHADES_STREAM_VERBOSE=1 swift test $(SWIFT_FLAGS) --filter DayStreamTests

bench: deps
	cd Benchmarks && swift package benchmark --no-progress

# Short CI run of the plain build: prints the table, then fails if a streaming render call allocated
# (Thresholds/: 0 mallocs) or a catalogue build's memory grew with its song (Thresholds/: peak resident).
bench-quick: deps
	cd Benchmarks && SHADES_BENCH_QUICK=1 swift package benchmark --no-progress
	cd Benchmarks && SHADES_BENCH_QUICK=1 swift package benchmark thresholds check --target Sources --filter 'Stream-.*' --no-progress
	cd Benchmarks && SHADES_BENCH_QUICK=1 swift package benchmark thresholds check --target Files --filter 'Catalogue-music-.*' --no-progress

# bench-quick's build alone: the plugin builds what a run needs, then lists the benchmarks (bench-quick then
# compiles nothing; .ci/run starts it after build-fuzz and build-tsan).
build-bench: deps
	cd Benchmarks && swift package benchmark list --no-progress

compare-peers: build
	bash Benchmarks/compare-peers.sh

# A study's patients per arm: study build against SoX and FFmpeg making the same files in a shell loop (CPU s).
compare-study-peers: build
	bash Benchmarks/compare-study-peers.sh

# The plain build against one tuned to this CPU, side by side (goal: plain within 1.3× everywhere).
compare-builds: deps
	bash Benchmarks/compare-builds.sh

# The compiler flags for a build tuned to this CPU (compare-builds; see Benchmarks/README.md).
cpu-flags:
	@echo $(CPU_FLAGS)

clean:
	rm -rf .build .build-plain .build-tuned .build-tsan .build-asan $(STATIC_BUILD) $(CATALOGUE) Benchmarks/.build .build-fuzz dist $(DOCS_BUILD)
