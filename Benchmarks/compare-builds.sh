#!/usr/bin/env bash
# Times the plain release build (what an app depending on Shades gets: `swift build -c release`, no CPU
# flags) against a build for this CPU (`-target-cpu`, see `make cpu-flags`), side by side in one run, on
# the jobs of compare-peers.sh (10-minute stereo 48 kHz s16) plus `analyze` of a 10-minute file. Prints
# the mean times and the ratio plain / tuned; the goal is at most 1.3 everywhere.
#
# Usage: bash Benchmarks/compare-builds.sh      (from any directory; builds both into .build-plain and
#        .build-tuned). Environment: RUNS (default 5), JOBS (subset of the job names below).
# Exit status: 0 whether or not the goal is met (the table says); non-zero if a build or a job fails.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-5}
jobs=(${JOBS:-white pink brown tone am-pink nbn pulsed notch analyze})
command -v hyperfine >/dev/null || { echo "compare-builds needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

cpu_flags=$(make -s -C "$repo" cpu-flags)
echo "building: plain, and tuned with '$cpu_flags'"
(cd "$repo" && swift build -c release --scratch-path .build-plain --product shades >/dev/null)
(cd "$repo" && swift build -c release $cpu_flags --scratch-path .build-tuned --product shades >/dev/null)
plain=$repo/.build-plain/release/shades
tuned=$repo/.build-tuned/release/shades

work=$(mktemp -d /tmp/shades-compare-builds.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
common="--duration 10m --rate 48000 --channels stereo --format s16 -o out.wav"
# Inputs of the notch and analyze jobs, written once: 7 minutes of music-like pink noise, 10 minutes of pink.
"$plain" render pink --duration 7m --rate 44100 --seed 5 -o music.wav >/dev/null
"$plain" render pink --duration 10m --format s16 -o ten-minutes.wav >/dev/null

job_arguments() {
    case $1 in
        white | pink | brown) echo "render $1 $common" ;;
        tone) echo "render tone --frequency 1kHz $common" ;;
        am-pink) echo "render pink --am 10 --am-depth 1 $common" ;;
        nbn) echo "render nbn --frequency 4kHz --width 0.5 $common" ;;
        pulsed) echo "render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms $common" ;;
        notch) echo "notch music.wav --frequency 4kHz -o out.wav" ;;
        analyze) echo "analyze ten-minutes.wav" ;;
        *) echo "unknown job '$1'" >&2; exit 2 ;;
    esac
}

mean() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$1"; }

printf '%-9s %10s %10s %7s\n' job "plain s" "tuned s" ratio
for job in "${jobs[@]}"; do
    arguments=$(job_arguments "$job")
    for build in plain tuned; do
        binary=$plain; [ "$build" = tuned ] && binary=$tuned
        hyperfine -N --warmup 1 --runs "$runs" --prepare 'rm -f out.wav' --export-json "$job-$build.json" \
            --style none "$binary $arguments" >/dev/null 2>&1
    done
    # The seed contract: both builds write the same bytes (analyze: the same report).
    "$plain" $arguments >plain.txt; [ -f out.wav ] && mv out.wav plain.wav
    "$tuned" $arguments >tuned.txt; [ -f out.wav ] && mv out.wav tuned.wav
    if [ "$job" = analyze ]; then cmp -s plain.txt tuned.txt; else cmp -s plain.wav tuned.wav; fi ||
        echo "warning: $job: the two builds wrote different bytes" >&2
    p=$(mean "$job-plain.json") t=$(mean "$job-tuned.json")
    python3 -c 'import sys; p,t=float(sys.argv[2]),float(sys.argv[3]); print(f"{sys.argv[1]:<9} {p:10.3f} {t:10.3f} {p/t:7.2f}")' "$job" "$p" "$t"
done
