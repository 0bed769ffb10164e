#!/usr/bin/env bash
# Runs the live tests (Tests/ShadesLiveTests) against audio servers of their own, one after the other, each
# in a temporary folder and stopped before the next starts: a headless PulseAudio (scripts/headless-pulse.sh)
# for every suite but PipeWireNotchTests, then a headless PipeWire (scripts/headless-pipewire.sh) for
# PipeWireNotchTests. Each server's environment is exported to its run only (XDG_RUNTIME_DIR, HOME, …).
# The servers are stopped and the folder removed whatever the outcome; the status is the first failure's.
#   bash scripts/live-tests.sh [swift test options…]      e.g. -c release
#   LIVE_SERVERS=pipewire bash scripts/live-tests.sh …    only the PipeWire run (or: pulse)
set -euo pipefail
cd "$(dirname "$0")/.."
servers=${LIVE_SERVERS:-pulse pipewire}
dir=$(mktemp -d "${TMPDIR:-/tmp}/shades-live-XXXXXX")
cleanup() {
  bash scripts/headless-pulse.sh stop "$dir/pulse" || true
  bash scripts/headless-pipewire.sh stop "$dir/pipewire" || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

status=0
for server in $servers; do
  case "$server" in
  pulse) suites=(--filter ShadesLiveTests --skip PipeWireNotchTests) ;;
  pipewire) suites=(--filter ShadesLiveTests.PipeWireNotchTests) ;;
  *) echo "live-tests: unknown server $server (allowed: pulse, pipewire)" >&2; exit 2 ;;
  esac
  # A subshell: the server's exports end with its run (set -e does not hold in it: each step is checked).
  (
    exports=$(bash "scripts/headless-$server.sh" start "$dir/$server") || exit 1
    eval "$exports"
    swift test "$@" "${suites[@]}"
  ) || { s=$?; [ "$status" != 0 ] || status=$s; }
  bash "scripts/headless-$server.sh" stop "$dir/$server" || true
done
exit "$status"
