#!/usr/bin/env bash
# A headless PulseAudio server with a float32 48 kHz stereo null sink, for the live tests (a machine without
# a sound card: CI, containers). Based on /work/shared/audio/headless-pulse.sh; seen working on Debian as root.
#
#   eval "$(scripts/headless-pulse.sh start DIR)"   # starts the server; prints the exports
#   parecord -d shades_sink.monitor --format=float32le --rate=48000 --channels=2 --file-format=wav out.wav &
#   ...play...
#   scripts/headless-pulse.sh stop DIR               # stops it and waits until it has gone
#
# Packages (Debian): pulseaudio pulseaudio-utils libasound2-plugins (PortAudio's ALSA "default" device
# reaches the server through the pulse plugin; Debian's PortAudio has no native PulseAudio host API).
# Everything lives in DIR (socket, pid, cookie, log), so several servers can run side by side.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
case "$cmd" in
start)
  mkdir -p "$dir/run" "$dir/home"; chmod 700 "$dir/run"
  dir=$(cd "$dir" && pwd)
  export XDG_RUNTIME_DIR="$dir/run" HOME="$dir/home" PULSE_SINK=shades_sink
  # norewinds=1: without it the null sink replaces the first 2-27 ms of each new stream with silence.
  # No module-suspend-on-idle, so the sink's clock keeps running between streams.
  pulseaudio --daemonize=yes --exit-idle-time=-1 --disallow-exit -n --use-pid-file=yes \
    --load="module-native-protocol-unix auth-anonymous=1" \
    --load="module-null-sink sink_name=shades_sink rate=48000 format=float32le channels=2 norewinds=1" \
    --load="module-always-sink" \
    --log-target=file:"$dir/pulse.log" >&2
  timeout 10 sh -c 'until pactl info >/dev/null 2>&1; do sleep 0.05; done' \
    || { echo "headless-pulse: the server did not start (see $dir/pulse.log)" >&2; exit 1; }
  pactl set-default-sink shades_sink
  # PULSE_REALTIME=1 (scripts/load-test.sh): the server's main thread under SCHED_RR too (its sink thread
  # already is). It passes the clients' data on to the sink; at normal priority a loaded machine delays it
  # past a short buffer. (Set after the start: the server resets the scheduling it starts with.)
  if [ -n "${PULSE_REALTIME:-}" ]; then chrt --rr -p 20 "$(cat "$dir/run/pulse/pid")" >&2; fi
  echo "export XDG_RUNTIME_DIR='$dir/run' HOME='$dir/home' PULSE_SINK=shades_sink"
  ;;
stop)
  pid=$(cat "$dir/run/pulse/pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.05; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
