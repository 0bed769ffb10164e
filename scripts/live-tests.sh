#!/usr/bin/env bash
# Runs the live tests (Tests/ShadesLiveTests) against a headless PulseAudio server of their own: starts it
# in a temporary folder, exports its environment (XDG_RUNTIME_DIR, HOME, PULSE_SINK), runs the suite, and
# stops the server and removes the folder whatever the outcome (the suite's exit status is kept).
#   bash scripts/live-tests.sh [swift test options…]      e.g. -c release
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d "${TMPDIR:-/tmp}/shades-live-XXXXXX")
cleanup() { bash scripts/headless-pulse.sh stop "$dir" || true; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
eval "$(bash scripts/headless-pulse.sh start "$dir")"
swift test "$@" --filter ShadesLiveTests
