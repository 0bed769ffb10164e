#!/usr/bin/env bash
# The cost of a study's patients (issue "Cohorts on a cluster"): Shades' `study build` against a shell loop of
# SoX and FFmpeg making the same files, in one run, in CPU seconds (user + system) per patient.
#
# Arms of Presets/studies/example-study.json, each patient's song 3 minutes of a real MP3 (the tests' music,
# cut to a 44.1 kHz FLAC that both read):
#   am-noise        60 s of 10 Hz AM pink noise at a level in dBFS RMS           SoX: synth, stats, gain
#   am-noise-sham   the same at 2 Hz, matched in integrated loudness to the 10 Hz twin  + FFmpeg ebur128 for both
#   notched-music   the song resampled to 48 kHz, a one-octave notch at 6 kHz, at −30 LUFS, true peak checked
#                                                                   SoX: rate -v, sinc band-reject; FFmpeg ebur128
#   notched-music-sham  the notch moved to 1,061 Hz, matched in loudness to its twin (rendered too)
# Every output is a 24-bit stereo 48 kHz FLAC with its SHA-256 taken, as `study build` does. The loop does
# less than Shades: no blinding, manifest, unblinding key or sync, and its notch is SoX's `sinc` (Kaiser
# windowed FIR), not Shades' linear-phase FFT filter; ripple is left out (SoX and FFmpeg have no spectral
# ripple).
#
# Usage: bash Benchmarks/compare-study-peers.sh          (from any directory)
# Environment: SHADES_BIN (default <repo>/.build-static/release/shades, built with `make build` if missing),
#              PATIENTS per arm (default 4).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
patients=${PATIENTS:-4}
shades=${SHADES_BIN:-$repo_root/.build-static/release/shades}
[ -x "$shades" ] || make -C "$repo_root" build >/dev/null
sudo_cmd=()
[ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
missing=()
for tool in sox ffmpeg; do command -v $tool >/dev/null 2>&1 || missing+=("$tool"); done
[ -e /usr/lib/x86_64-linux-gnu/sox/libsox_fmt_mp3.so ] || missing+=(libsox-fmt-mp3)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash "$repo_root/scripts/music-fixtures.sh" >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/shades-study-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir songs
sox "$repo_root/.build-fixtures/music/frontiers.mp3" -r 44100 -b 16 songs/song.flac trim 0 180
"$shades" audiometry --simulate-audiogram 250:5,500:5,1000:10,2000:10,4000:15,8000:20 --seed 1 -o audiogram.json >/dev/null
"$shades" mml --frequency 6kHz --threshold -70 --simulate 20dB -o mml.json >/dev/null

# cpu_seconds COMMAND...: runs it, prints its user + system CPU seconds.
cpu_seconds() {
    local TIMEFORMAT='%3U %3S'   # bash's `time`: the command's and its children's CPU seconds
    { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%.2f", $1 + $2}'
}

# --- Shades: one study per arm, every patient at 6 kHz, built one patient at a time (--jobs 1).
declare -A shades_cost
for arm in am-noise am-noise-sham notched-music notched-music-sham; do
    mkdir "$arm" && cd "$arm"
    { echo "id,site,arm,tinnitusHz,audiogram,mml,music"
      for i in $(seq 1 "$patients"); do echo "P$i,Ulm,$arm,6000,../audiogram.json,../mml.json,../songs"; done; } > patients.csv
    "$shades" study plan "$repo_root/Presets/studies/example-study.json" patients.csv -o study >/dev/null
    shades_cost[$arm]=$(cpu_seconds "$shades" study build study --jobs 1)
    "$shades" study check study >/dev/null
    cd ..
done

# --- SoX and FFmpeg in a shell loop, per patient.
integrated_lufs() { # integrated_lufs FILE: FFmpeg's EBU R128 integrated loudness (LUFS), true peak measured too.
    ffmpeg -hide_banner -nostats -i "$1" -af ebur128=peak=true -f null - 2>&1 | awk '/I:/ {v = $2} END {print v}'
}
rms_dbfs() { # rms_dbfs FILE: SoX's RMS level (dBFS).
    sox "$1" -n stats 2>&1 | awk '/RMS lev dB/ {print $4}'
}
am_patient() { # am_patient OUT RATE_HZ [MATCH_LUFS]: 60 s of AM pink noise at −30 dBFS RMS, or matched to MATCH_LUFS.
    local out=$1 rate=$2 target=${3:-}
    sox -n -r 48000 -c 2 -e floating-point -b 32 raw.wav synth 60 pinknoise synth 60 sine amod "$rate" 100
    local gain
    if [ -z "$target" ]; then
        gain=$(awk -v r="$(rms_dbfs raw.wav)" 'BEGIN {print -30 - r}')
    else
        gain=$(awk -v l="$(integrated_lufs raw.wav)" -v t="$target" 'BEGIN {print t - l}')
    fi
    sox raw.wav -b 24 "$out" gain "$gain"
    sha256sum "$out" >/dev/null
}
music_patient() { # music_patient OUT LOW_HZ HIGH_HZ: the song at 48 kHz without LOW…HIGH Hz, at −30 LUFS.
    local out=$1 low=$2 high=$3
    sox songs/song.flac -e floating-point -b 32 raw.wav rate -v 48k sinc -a 100 "$high"-"$low"
    local gain
    gain=$(awk -v l="$(integrated_lufs raw.wav)" 'BEGIN {print -30 - l}')
    sox raw.wav -b 24 "$out" gain "$gain"
    sha256sum "$out" >/dev/null
}
loop_arm() { # loop_arm ARM: every patient's files of ARM.
    for i in $(seq 1 "$patients"); do
        case $1 in
            am-noise) am_patient "P$i.flac" 10 ;;
            am-noise-sham) am_patient twin.flac 10
                           am_patient "P$i.flac" 2 "$(integrated_lufs twin.flac)" ;;
            notched-music) music_patient "P$i.flac" 4243 8485 ;;
            notched-music-sham) music_patient twin.flac 4243 8485
                                music_patient "P$i.flac" 750 1500 ;;
        esac
    done
}
export -f loop_arm am_patient music_patient integrated_lufs rms_dbfs
export patients
declare -A loop_cost
for arm in am-noise am-noise-sham notched-music notched-music-sham; do
    mkdir "loop-$arm" && ln -s ../songs "loop-$arm/songs"
    loop_cost[$arm]=$(cd "loop-$arm" && cpu_seconds bash -c "loop_arm $arm")
done

cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
echo "CPU seconds per patient ($patients patients per arm; $cpu, $(nproc) cores)"
printf "%-20s %10s %12s %8s\n" arm shades sox+ffmpeg ratio
for arm in am-noise am-noise-sham notched-music notched-music-sham; do
    awk -v a="$arm" -v s="${shades_cost[$arm]}" -v l="${loop_cost[$arm]}" -v n="$patients" \
        'BEGIN {printf "%-20s %10.2f %12.2f %8.2f\n", a, s / n, l / n, s / l}'
done
