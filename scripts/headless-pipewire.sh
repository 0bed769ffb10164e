#!/usr/bin/env bash
# A headless PipeWire with a float32 48 kHz stereo null sink, for the live tests (a machine without a sound
# card: CI, containers): a session D-Bus of its own, pipewire, and WirePlumber (which links streams to their
# targets; it exits without a session bus). Seen working on Debian 12 (PipeWire 0.3.65, WirePlumber 0.4.13)
# as root.
#
#   eval "$(scripts/headless-pipewire.sh start DIR)"   # starts D-Bus, PipeWire, WirePlumber; prints the exports
#   pw-record --target shades_sink --format f32 --rate 48000 --channels 2 out.wav &   # the sink's monitor
#   ...play, e.g. pw-play --target NODE file.wav...
#   scripts/headless-pipewire.sh stop DIR               # stops them and waits until they have gone
#
# Packages (Debian): pipewire pipewire-bin wireplumber dbus-daemon (no pipewire-pulse or pipewire-alsa: they
# would answer PulseAudio's and ALSA's clients in place of the headless PulseAudio of headless-pulse.sh).
# Everything lives in DIR (sockets, pids, configuration, logs), so several servers can run side by side.
# Clients whose command line names a file in DIR (pipewire -c DIR/…, pw-cat, pw-play, pw-record) are
# stopped too: a `pipewire -c` filter chain outlives the server it was connected to.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
sink=shades_sink

# Whether process `pid` has ended (gone, or a zombie its parent has not reaped).
ended() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# Stops the process whose id is in file $1 if its name is $2: SIGTERM, up to 5 s, then SIGKILL.
stop_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null || true)
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do ended "$pid" && return 0; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
}

case "$cmd" in
start)
  mkdir -p "$dir/run" "$dir/home" "$dir/config/pipewire/pipewire.conf.d"; chmod 700 "$dir/run"
  dir=$(cd "$dir" && pwd)
  # The null sink: its own clock (priority.driver), the default sink (priority.session above any filter's),
  # F32 at 48 kHz like the server's default clock rate, so nothing is converted.
  cat >"$dir/config/pipewire/pipewire.conf.d/shades-sink.conf" <<EOF
context.objects = [
    { factory = adapter
        args = {
            factory.name     = support.null-audio-sink
            node.name        = $sink
            node.description = "Shades null sink"
            media.class      = Audio/Sink
            object.linger    = true
            audio.format     = F32
            audio.rate       = 48000
            audio.channels   = 2
            audio.position   = [ FL FR ]
            priority.session = 2000
            priority.driver  = 2000
        }
    }
]
EOF
  exports="XDG_RUNTIME_DIR='$dir/run' PIPEWIRE_RUNTIME_DIR='$dir/run' HOME='$dir/home' XDG_CONFIG_HOME='$dir/config'"
  exports+=" XDG_STATE_HOME='$dir/home/state' DBUS_SESSION_BUS_ADDRESS='unix:path=$dir/run/bus'"
  exports+=" SHADES_PIPEWIRE_SINK=$sink SHADES_PIPEWIRE_DIR='$dir'"
  eval "export $exports"
  unset PIPEWIRE_REMOTE PIPEWIRE_CONFIG_DIR PIPEWIRE_CONFIG_NAME
  dbus-daemon --session --address="$DBUS_SESSION_BUS_ADDRESS" --fork --nopidfile --print-pid=3 \
    3>"$dir/dbus.pid" >"$dir/dbus.log" 2>&1 </dev/null
  # setsid: away from the terminal's Ctrl-C, like a daemon (stop ends them, also after a Ctrl-C).
  setsid pipewire >"$dir/pipewire.log" 2>&1 </dev/null & echo $! >"$dir/pipewire.pid"
  timeout 10 sh -c 'until pw-cli info 0 >/dev/null 2>&1; do sleep 0.05; done' \
    || { echo "headless-pipewire: pipewire did not start (see $dir/pipewire.log)" >&2; exit 1; }
  setsid wireplumber >"$dir/wireplumber.log" 2>&1 </dev/null & echo $! >"$dir/wireplumber.pid"
  # Ready when WirePlumber has made the null sink the default.
  timeout 10 sh -c "until pw-metadata 0 default.audio.sink 2>/dev/null | grep -q '\"$sink\"'; do sleep 0.05; done" \
    || { echo "headless-pipewire: WirePlumber did not set up $sink (see $dir/wireplumber.log)" >&2; exit 1; }
  echo "export $exports"
  ;;
stop)
  dir=$(cd "$dir" 2>/dev/null && pwd) || exit 0
  for comm in /proc/[0-9]*/comm; do
    pid=${comm#/proc/}; pid=${pid%/comm}
    case "$(cat "$comm" 2>/dev/null)" in pipewire|pw-cat|pw-play|pw-record) ;; *) continue ;; esac
    case "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" in
      *"$dir/"*) echo "$pid" >"$dir/client.pid"; stop_pid "$dir/client.pid" "$(cat "$comm" 2>/dev/null)" ;;
    esac
  done
  stop_pid "$dir/wireplumber.pid" wireplumber
  stop_pid "$dir/pipewire.pid" pipewire
  stop_pid "$dir/dbus.pid" dbus-daemon
  ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
