#!/usr/bin/env bash
# Plays through a headless PulseAudio (scripts/headless-pulse.sh) while every core runs a busy loop at normal
# priority, and reports the underruns (the device's and the file reader's), whether real-time scheduling was
# granted, and the CPU the player used. By hand (make load-test), not in CI: it runs for minutes.
#
#   bash scripts/load-test.sh [MINUTES] [BUFFER] [SOUND…]
#     MINUTES  default 10
#     BUFFER   the callback period, default 5ms
#     SOUND    what to play (default: a pink-noise "music" file as long as the run, notched at 500 Hz, ½ octave:
#              the file reader and the longest notch of docs/live-playback.md together), e.g. pink --am 10
#   LOAD_BUSY=0 bash scripts/load-test.sh 1     the same without the busy loops
#
# Prints one line per figure and exits 1 when there were underruns. Uses .build/release/shades (swift build
# -c release first).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}; buffer=${2:-5ms}; shift $(( $# < 2 ? $# : 2 ))
shades=$PWD/.build/release/shades
[ -x "$shades" ] || { echo "load-test: $shades is missing (swift build -c release)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/shades-load-XXXXXX")
cp "$shades" "$dir/shades"   # a rebuild during the run does not touch the binary that plays
shades=$dir/shades
busy=()
cleanup() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  bash scripts/headless-pulse.sh stop "$dir/pulse" || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

seconds=$(( minutes * 60 ))
if [ $# -eq 0 ]; then
  "$shades" render pink --duration "${seconds}s" --level -20 --seed 1 -o "$dir/music.wav" >/dev/null
  set -- "$dir/music.wav" --notch 500Hz --width 0.5
fi
eval "$(PULSE_REALTIME=${LOAD_PULSE_REALTIME:-1} bash scripts/headless-pulse.sh start "$dir/pulse")"
echo "load-test: server threads: $(ps -L -o cls=,rtprio=,comm= -p "$(cat "$dir/pulse/run/pulse/pid")" | tr -s ' ' | paste -sd ';')"

cores=$(getconf _NPROCESSORS_ONLN)
if [ "${LOAD_BUSY:-1}" != 0 ]; then
  for _ in $(seq "$cores"); do
    ( while :; do :; done ) &
    busy+=($!)
  done
fi
echo "load-test: $minutes min at a $buffer buffer, ${#busy[@]} busy loops on $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')): shades play $*"

"$shades" play "$@" --timer "${seconds}s" --fade-out 1s --buffer "$buffer" --quiet --report "$dir/report.json" &
player=$!
wait "$player" || { echo "load-test: play failed" >&2; exit 1; }
report=$(cat "$dir/report.json")
echo "load-test: report $report"
underruns=$(echo "$report" | sed -E 's/.*"underruns": ([0-9]+).*/\1/')
reader=$(echo "$report" | sed -E 's/.*"readerUnderruns": ([0-9]+).*/\1/')
realtime=$(echo "$report" | sed -E 's/.*"realtime": (true|false).*/\1/')
echo "load-test: underruns $underruns (device), $reader (file reader); real-time scheduling granted: $realtime"
[ "$underruns" = 0 ] && [ "$reader" = 0 ]
