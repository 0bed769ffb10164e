#!/usr/bin/env bash
# Builds the libFuzzer targets (release, fuzzer + address sanitizer, so leaks count too) and runs each for
# SECONDS, FUZZ_JOBS at a time, from the seed corpus in Fuzz/Corpus/<target>/. Prints each target's
# executions, coverage (libFuzzer's cov: and ft:) and corpus size; exits 1 if any target found a crash,
# a hang (over 10 s), a leak or a failed invariant (the input is saved under .build-fuzz/fuzz/<target>/artifacts/).
# The targets are this package's own (Package.swift adds them when SHADES_FUZZ is set), so they reach the
# library's `package` declarations; they build into .build-fuzz, apart from the normal build.
#
#   bash Fuzz/run.sh [SECONDS] [TARGET ...]        e.g. bash Fuzz/run.sh 600 FuzzAnalysis
#   FUZZ_RUNS=0 bash Fuzz/run.sh                   only replay the seed corpus (no fuzzing)
#   FUZZ_BUILD_ONLY=1 bash Fuzz/run.sh             only build the targets (`make build-fuzz`)
#   FUZZ_SEED=1 bash Fuzz/run.sh 60                 CI (`make fuzz-ci`): a fixed seed from the seed corpus
#                                                  alone, at most seeded_runs inputs per target, so CI
#                                                  replays a prefix of what a local run with that seed
#                                                  tried; without FUZZ_SEED each run explores anew
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzPresetParser FuzzValueParsing FuzzAudioFile FuzzAnalysis)
jobs=${FUZZ_JOBS:-$(nproc)}

# Longest input per target: the largest seed with room to grow.
max_len() {
    case $1 in
        FuzzPresetParser) echo 16384 ;;
        FuzzValueParsing) echo 64 ;;
        FuzzAudioFile) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

# Most inputs per target in a seeded run: as many as `FUZZ_SEED=1 bash Fuzz/run.sh 240` tried here with
# every target ok (1,241,452 / 965,476 / 281,825 / 8,857), so CI never tries one that was not tried here.
seeded_runs() {
    case $1 in
        FuzzPresetParser) echo 1200000 ;;
        FuzzValueParsing) echo 900000 ;;
        FuzzAudioFile) echo 280000 ;;
        *) echo 8800 ;;
    esac
}

# SwiftPM passes `--sanitize fuzzer --sanitize address` to swiftc as two flags, and the driver hands only
# the last to the compiler (no coverage instrumentation); the combined flag restores both.
start=$(date +%s)
build=(swift build -c release --package-path .. --scratch-path ../.build-fuzz --sanitize fuzzer --sanitize address
       -Xswiftc -sanitize=fuzzer,address)
for target in "${targets[@]}"; do
    SHADES_FUZZ=1 "${build[@]}" --product "$target" 2>&1 \
        | grep -v "Cannot export local symbol '__asan_extra_spill_area'" || { echo "fuzz: build of $target failed"; exit 1; }
done
build_seconds=$(( $(date +%s) - start ))
bin=$(SHADES_FUZZ=1 "${build[@]}" --show-bin-path)
echo "fuzz: built in ${build_seconds} s"
[ -n "${FUZZ_BUILD_ONLY:-}" ] && exit 0

run_target() {
    local target=$1 work=../.build-fuzz/fuzz/$1
    rm -rf "$work/artifacts"
    local limit=(-max_total_time="$seconds")
    [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
    # A seeded run starts from the seeds only, as on a fresh clone, not from what earlier runs collected.
    # Without -use_cmp, -reload and Swift's per-process hash seed, a seeded run mutates the same way each
    # time (compared pointers, the clock and hashing would steer it otherwise).
    local seed=() environment=()
    if [ -n "${FUZZ_SEED:-}" ]; then
        seed=(-seed="$FUZZ_SEED" -use_cmp=0 -reload=0)
        environment=(SWIFT_DETERMINISTIC_HASHING=1)
        [ -z "${FUZZ_RUNS:-}" ] && limit+=(-runs="$(seeded_runs "$target")")
        rm -rf "$work/corpus"
    fi
    mkdir -p "$work/corpus" "$work/artifacts"
    # The first folder collects new inputs; the seeds are only read.
    local dictionary=()
    [ -f "Dictionaries/$target.dict" ] && dictionary=(-dict="Dictionaries/$target.dict")
    env "${environment[@]}" "$bin/$target" "${limit[@]}" "${seed[@]}" "${dictionary[@]}" -timeout=10 -detect_leaks=1 -rss_limit_mb=3072 -max_len="$(max_len "$target")" \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "Corpus/$target" \
        > "$work/log" 2>&1 || true
}

running=0
for target in "${targets[@]}"; do
    run_target "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
printf '%-18s %12s %10s %6s %8s %7s  %s\n' target executions exec/s cov ft corpus result
for target in "${targets[@]}"; do
    log=../.build-fuzz/fuzz/$target/log
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    line=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$line")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<< "$line")
    corpus=$(sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$line")
    result=ok
    if ls ../.build-fuzz/fuzz/"$target"/artifacts/* > /dev/null 2>&1 || ! grep -q '^Done ' "$log"; then
        result="FAILED: $(grep -m1 -E 'ERROR: |==ERROR|fuzz invariant failed|Fatal error|deadly signal|timeout' "$log" || echo 'see log')"
        status=1
    fi
    printf '%-18s %12s %10s %6s %8s %7s  %s\n' "$target" "${executions:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corpus:-?}" "$result"
done
echo "fuzz: ${seconds} s per target, ${jobs} at a time; $(( $(date +%s) - start )) s in all; logs and artifacts in .build-fuzz/fuzz/"
[ "$status" = 0 ] || for target in "${targets[@]}"; do
    for artifact in ../.build-fuzz/fuzz/"$target"/artifacts/*; do
        [ -e "$artifact" ] && echo "reproduce: .build-fuzz/release/$target ${artifact#../}"
    done
done
exit "$status"
