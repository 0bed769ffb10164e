#!/usr/bin/env bash
# Renders the same 10-minute stereo 48 kHz 16-bit WAV files with Shades, SoX and FFmpeg, several runs
# each, and prints the median wall-clock times, the ratios shades/ffmpeg and shades/sox per job, and
# whether each job meets its goals. Then the file jobs against SoX: a 7-minute WAV notched,
# a 22.05 kHz MP3 resampled to 48 kHz and notched, and the catalogue's music (three 5-minute 44.1 kHz
# songs resampled and notched).
#
# Goals (whole process, measured in one run): every noise job's CPU time (user + system) ≤ 0.5 × FFmpeg's,
# and its wall clock ≤ 0.35 × FFmpeg (white, tone, pulsed: ≤ 0.25 ×); notch ≤ 0.35 × SoX `sinc`; notch
# with resampling ≤ 0.5 × SoX `rate -v 48k sinc`; catalogue with music ≤ 1 × SoX doing the songs one after
# another (wall clock).
# The CPU time (user + system) is printed beside each: on a machine shared with other work, Shades'
# two threads get less of it than single-threaded tools, and the CPU ratio shows the work itself.
# The tools of a job are timed in rounds (Benchmarks/interleaved-timing.py): each round runs each tool
# once, so a busy spell of a shared machine slows them alike; the figures are each tool's medians.
#
# Usage: bash Benchmarks/compare-peers.sh        (from any directory)
# Environment:
#   SHADES_BIN   the shades executable to time (default: <repo>/.build-static/release/shades, built
#                with `make build` if missing)
#   RUNS         timed rounds (default 5); WARMUP untimed rounds first (default 1)
#   JOBS         jobs to run, space-separated subset of
#                "pink white brown tone am-pink nbn pulsed notch notch-rate catalogue-music" (default: all)
# Exit status: 0 whether or not the goals are met (the table says); non-zero if a tool fails.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-5}
warmup=${WARMUP:-1}
jobs=(${JOBS:-pink white brown tone am-pink nbn pulsed notch notch-rate catalogue-music})
# The file jobs (music notched, resampled, catalogued; Shades vs SoX) have their own table at the end.
file_jobs=()
synth_jobs=()
for job in "${jobs[@]}"; do
    case $job in
        notch | notch-rate | catalogue-music) file_jobs+=("$job") ;;
        *) synth_jobs+=("$job") ;;
    esac
done
duration_s=600 # 10 minutes

sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi

# --- Tools -----------------------------------------------------------------------------------------
apt_updated=0
apt_install() { # apt_install PACKAGE...: installs Debian packages, running apt-get update once first.
    if [ "$apt_updated" = 0 ]; then
        "${sudo_cmd[@]}" apt-get update -qq
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "$@" >/dev/null
}

missing=()
command -v sox >/dev/null 2>&1 || missing+=(sox)
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    apt_install "${missing[@]}"
fi
timer=(python3 "$script_dir/interleaved-timing.py")

# --- Shades ----------------------------------------------------------------------------------------
shades=${SHADES_BIN:-$repo_root/.build-static/release/shades} # what `make build` makes
if [ ! -x "$shades" ]; then
    echo "building shades: make -C $repo_root build"
    make -s -C "$repo_root" build
fi

# --- Work directory --------------------------------------------------------------------------------
work=$(mktemp -d /tmp/shades-compare-peers.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Commands per job (run inside $work; each writes out.wav).
job_commands() { # job_commands JOB: sets shades_cmd, sox_cmd, ffmpeg_cmd
    local job=$1
    case $job in
        pink | white | brown)
            shades_cmd="$shades render $job --duration 10m --rate 48000 --channels stereo --format s16 -o out.wav"
            sox_cmd="sox -n -r 48000 -c 2 -b 16 out.wav synth $duration_s ${job}noise vol 0.1"
            ffmpeg_cmd="ffmpeg -loglevel error -y -f lavfi -i anoisesrc=c=$job:r=48000:a=0.1:d=$duration_s -ac 2 -c:a pcm_s16le out.wav"
            ;;
        tone)
            shades_cmd="$shades render tone --frequency 1kHz --duration 10m --rate 48000 --channels stereo --format s16 -o out.wav"
            sox_cmd="sox -n -r 48000 -c 2 -b 16 out.wav synth $duration_s sine 1000 vol 0.1"
            ffmpeg_cmd="ffmpeg -loglevel error -y -f lavfi -i sine=f=1000:r=48000:d=$duration_s -ac 2 -c:a pcm_s16le out.wav"
            ;;
        am-pink) # 10 Hz, depth 1 (Neff 2017): SoX tremolo, FFmpeg tremolo
            shades_cmd="$shades render pink --am 10 --am-depth 1 --duration 10m --rate 48000 --channels stereo --format s16 -o out.wav"
            sox_cmd="sox -n -r 48000 -c 2 -b 16 out.wav synth $duration_s pinknoise tremolo 10 100 vol 0.1"
            ffmpeg_cmd="ffmpeg -loglevel error -y -f lavfi -i anoisesrc=c=pink:r=48000:a=0.1:d=$duration_s,tremolo=f=10:d=1 -ac 2 -c:a pcm_s16le out.wav"
            ;;
        nbn) # ½ octave at 4 kHz (3364-4757 Hz). Not equal filters: Shades ≥ 80 dB down 1/12 octave out;
             # SoX's sinc is a long FIR; FFmpeg's bandpass is one biquad (shallow skirts).
            shades_cmd="$shades render nbn --frequency 4kHz --width 0.5 --duration 10m --rate 48000 --channels stereo --format s16 -o out.wav"
            sox_cmd="sox -n -r 48000 -c 2 -b 16 out.wav synth $duration_s whitenoise sinc 3364-4757 vol 0.3"
            ffmpeg_cmd="ffmpeg -loglevel error -y -f lavfi -i anoisesrc=c=white:r=48000:a=0.3:d=$duration_s,bandpass=f=4000:width_type=o:w=0.5 -ac 2 -c:a pcm_s16le out.wav"
            ;;
        pulsed) # 1 kHz, 200 ms on / 200 ms off. Shades: 25 ms raised-cosine ramps, exact frames;
                # SoX: square-wave AM (no ramps); FFmpeg: volume switched per 1,024-sample frame.
            shades_cmd="$shades render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms --duration 10m --rate 48000 --channels stereo --format s16 -o out.wav"
            sox_cmd="sox -n -r 48000 -c 2 -b 16 out.wav synth $duration_s sine 1000 synth $duration_s square amod 2.5 vol 0.1"
            ffmpeg_cmd="ffmpeg -loglevel error -y -f lavfi -i sine=f=1000:r=48000:d=$duration_s,volume=volume='lt(mod(t\\,0.4)\\,0.2)':eval=frame -ac 2 -c:a pcm_s16le out.wav"
            ;;
        *)
            echo "unknown job '$job' (allowed: pink white brown tone am-pink nbn pulsed notch)" >&2
            exit 2
            ;;
    esac
}

# Times the three commands of a job in rounds and reads each tool's medians (wall s, its standard
# deviation, CPU s) and the level and length of its last output.
time_synth_job() { # time_synth_job JOB
    local job=$1 tool m s c frames
    "${timer[@]}" "$warmup" "$runs" 'rm -f out.wav' out.wav \
        "$job-shades" "$shades_cmd" "$job-sox" "$sox_cmd" "$job-ffmpeg" "$ffmpeg_cmd"
    for tool in shades sox ffmpeg; do
        read -r m s c <"$job-$tool.result"
        wall[$job-$tool]=$m
        sd[$job-$tool]=$s
        cpu[$job-$tool]=$c
        # Level of the first minute, to show the files are comparable and unclipped.
        level[$job-$tool]=$(sox "$job-$tool-out.wav" -n trim 0 60 stats 2>&1 | awk '
            /^RMS lev dB/ {rms=$4} /^Pk lev dB/ {pk=$4} /^Length s/ {len=$3}
            END {printf "%s %s %s\n", rms, pk, len}')
        frames=$(soxi -s "$job-$tool-out.wav")
        if [ "$frames" != $((duration_s * 48000)) ]; then
            echo "warning: $job-$tool wrote $frames frames, expected $((duration_s * 48000))" >&2
        fi
        rm -f "$job-$tool-out.wav"
    done
}

echo "Shades vs SoX vs FFmpeg: 10-minute stereo 48 kHz s16 WAV, $warmup untimed + $runs timed rounds"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "timer: Benchmarks/interleaved-timing.py (each round runs every tool of a job once; medians)"
echo "versions: $("$shades" --version 2>/dev/null || echo 'shades (no --version)'); $(sox --version 2>&1 | sed 's/^.*SoX/SoX/'); $(ffmpeg -version | head -1 | cut -d' ' -f1-3)"
echo "shades: $shades (built $(date -r "$shades" "+%Y-%m-%d %H:%M"))"
echo "work dir: $work"
echo

declare -A wall sd cpu level
for job in "${synth_jobs[@]}"; do
    job_commands "$job"
    echo "== $job"
    for tool in shades sox ffmpeg; do
        var=${tool}_cmd
        echo "  $tool: ${!var}"
    done
    time_synth_job "$job"
done
echo

[ ${#synth_jobs[@]} -gt 0 ] && python3 - "${synth_jobs[@]}" <<PY
import sys
jobs = sys.argv[1:]
# Goals: Shades' wall-clock time at most this share of FFmpeg's, and its CPU time at most cpu_goal of it.
cpu_goal = 0.5
goal = {"pink": 0.35, "brown": 0.35, "am-pink": 0.35, "nbn": 0.35, "white": 0.25, "tone": 0.25, "pulsed": 0.25}
wall = {$(for k in "${!wall[@]}"; do printf '"%s": %s, ' "$k" "${wall[$k]}"; done)}
sd = {$(for k in "${!sd[@]}"; do printf '"%s": %s, ' "$k" "${sd[$k]}"; done)}
cpu = {$(for k in "${!cpu[@]}"; do printf '"%s": %s, ' "$k" "${cpu[$k]}"; done)}
level = {$(for k in "${!level[@]}"; do printf '"%s": "%s", ' "$k" "${level[$k]}"; done)}
print("Median wall-clock time per 10-minute file (± standard deviation), seconds; CPU: median user + system, seconds")
header = (f"{'job':<8} {'shades':>13} {'sox':>13} {'ffmpeg':>13} {'shades/ffmpeg':>13} {'shades/sox':>10}"
          f" {'CPU shades':>10} {'CPU ffmpeg':>10} {'CPU ratio':>9}  goal")
print(header)
print("-" * len(header))
for job in jobs:
    s, x, f = (wall[f"{job}-{t}"] for t in ("shades", "sox", "ffmpeg"))
    rf, rx = s / f, s / x
    cs, cf = cpu[f"{job}-shades"], cpu[f"{job}-ffmpeg"]
    g = goal.get(job, 0.25)
    verdict = (f"wall ≤{g:g}×: " + ("met" if rf <= g else "NOT met")
               + f", CPU ≤{cpu_goal:g}×: " + ("met" if cf > 0 and cs / cf <= cpu_goal else "NOT met"))
    cell = lambda t: f"{wall[f'{job}-{t}']:.3f}±{sd[f'{job}-{t}']:.3f}"
    cpu_ratio = f"{cs / cf:.3f}" if cf > 0 else "-"
    print(f"{job:<8} {cell('shades'):>13} {cell('sox'):>13} {cell('ffmpeg'):>13} {rf:>13.3f} {rx:>10.3f}"
          f" {cs:>10.3f} {cf:>10.3f} {cpu_ratio:>9}  {verdict}")
print()
print("Output level over the first 60 s (sox stats, both channels: RMS dBFS / peak dBFS). The levels differ")
print("because the commands are the stated ones; FFmpeg's anoisesrc is mono upmixed (-ac 2), so its channels are identical.")
for job in jobs:
    cells = []
    for t in ("shades", "sox", "ffmpeg"):
        rms, pk, _ = (level[f"{job}-{t}"].split() + ["?", "?", "?"])[:3]
        cells.append(f"{t} {rms}/{pk}")
    print(f"  {job:<6} " + "   ".join(cells))
print()
met = sum(1 for job in jobs if wall[f"{job}-shades"] / wall[f"{job}-ffmpeg"] <= goal.get(job, 0.25)
          and cpu[f"{job}-ffmpeg"] > 0 and cpu[f"{job}-shades"] / cpu[f"{job}-ffmpeg"] <= cpu_goal)
print(f"Both goals met for {met} of {len(jobs)} jobs.")
PY

# --- File jobs: music notched, resampled, catalogued (Shades vs SoX) ------------------------------------
# Real music from Debian's packages: asc-music (GPL MP3s, 22.05 kHz stereo) and planetblupi-music-ogg
# (44.1 kHz stereo Ogg Vorbis). Without them, pink noise stands in. Preparing the inputs is not timed.
if [ ${#file_jobs[@]} -gt 0 ]; then
    # SoX reads MP3 only with libsox-fmt-mp3 (Debian's sox alone says "no handler for file extension `mp3'").
    for package in asc-music planetblupi-music-ogg libsox-fmt-mp3; do
        dpkg -s "$package" >/dev/null 2>&1 || apt_install "$package" || true
    done
    mp3s=(/usr/share/games/asc/music/*.mp3)
    oggs=(/usr/share/planetblupi/music/*.ogg)
    declare -A file_wall file_sd file_cpu file_cmd file_goal file_what
fi
for job in "${file_jobs[@]}"; do
    case $job in
        notch) # 7 minutes stereo 48 kHz s16 WAV in and out, one octave at 4 kHz
            if [ -e "${mp3s[0]}" ]; then
                parts=()
                for i in "${!mp3s[@]}"; do
                    ffmpeg -loglevel error -y -i "${mp3s[$i]}" -ar 48000 -ac 2 -c:a pcm_s16le "part$i.wav"
                    parts+=("part$i.wav")
                done
                sox "${parts[@]}" -b 16 music.wav trim 0 420
                file_what[$job]="asc-music (${#mp3s[@]} tracks joined), 7 min stereo 48 kHz s16 WAV, 1 octave at 4 kHz"
            else
                "$shades" render pink --duration 7m --format s16 -o music.wav >/dev/null
                file_what[$job]="pink noise (asc-music not available), 7 min stereo 48 kHz s16 WAV, 1 octave at 4 kHz"
            fi
            file_cmd[$job-shades]="$shades notch music.wav --frequency 4kHz --width 1 --format s16 -o out.wav"
            file_cmd[$job-sox]="sox music.wav out.wav sinc -t 50 5657-2828 -t 50"
            file_goal[$job]=0.35
            ;;
        notch-rate) # a 22.05 kHz MP3 resampled to 48 kHz and notched at 6 kHz (one octave), 24-bit out
            song=/usr/share/games/asc/music/frontiers.mp3
            if [ ! -e "$song" ]; then
                "$shades" render pink --duration 7m --rate 22050 --format s16 -o song22.wav >/dev/null
                song=song22.wav
            fi
            file_what[$job]="$(basename "$song") ($(soxi -d "$song" 2>/dev/null || echo '?'), $(soxi -r "$song" 2>/dev/null || echo '?') Hz) → 48 kHz s24, 1 octave at 6 kHz"
            file_cmd[$job-shades]="$shades notch $song --frequency 6kHz --rate 48000 -o out.wav"
            file_cmd[$job-sox]="sox $song -b 24 out.wav rate -v 48k sinc -t 50 8485-4243 -t 50"
            file_goal[$job]=0.5
            ;;
        catalogue-music) # three 5-minute 44.1 kHz songs into a catalogue with one 10-s noise besides
            mkdir -p songs presets
            for i in 0 1 2; do
                if [ -e "${oggs[$i]:-}" ]; then
                    sox "${oggs[$i]}" "songs/song$i.ogg" trim 0 300
                else
                    "$shades" render pink --duration 5m --rate 44100 --seed $((i + 1)) --format s16 -o "songs/song$i.wav" >/dev/null
                fi
            done
            cat >presets/one.json <<'JSON'
{ "defaults": { "loudnessLUFS": -23, "rate": 48000, "format": "wav", "sampleFormat": "s16", "lengthSeconds": 10 },
  "categories": [ { "id": "noise", "titles": { "en": "Noise", "de": "Rauschen" },
    "sounds": [ { "id": "white", "titles": { "en": "White noise", "de": "Weißes Rauschen" }, "sound": { "source": "white" } } ] } ] }
JSON
            file_what[$job]="three 5-minute 44.1 kHz songs ($(ls songs | tr '\n' ' ')) → 48 kHz s24, 1 octave at 6 kHz"
            file_cmd[$job-shades]="$shades catalogue build presets -o out-catalogue --tinnitus-frequency 6kHz --music songs"
            file_cmd[$job-sox]="bash -c 'mkdir -p sox-out; for f in songs/*; do sox \$f -b 24 sox-out/\$(basename \$f).wav rate -v 48k sinc -t 50 8485-4243 -t 50; done'"
            file_goal[$job]=1
            ;;
    esac
    echo
    echo "== $job: ${file_what[$job]}"
    for tool in shades sox; do
        echo "  $tool: ${file_cmd[$job-$tool]}"
    done
    "${timer[@]}" "$warmup" "$runs" 'rm -rf out.wav out-catalogue sox-out' - \
        "$job-shades" "${file_cmd[$job-shades]}" "$job-sox" "${file_cmd[$job-sox]}"
    for tool in shades sox; do
        read -r file_wall[$job-$tool] file_sd[$job-$tool] file_cpu[$job-$tool] <"$job-$tool.result"
    done
done
if [ ${#file_jobs[@]} -gt 0 ]; then
    echo
    echo "Median wall-clock time (± standard deviation) and CPU (median user + system), seconds"
    printf '%-16s %14s %14s %10s %10s %10s  %s\n' job shades sox shades/sox "CPU shades" "CPU sox" goal
    for job in "${file_jobs[@]}"; do
        python3 - "$job" "${file_wall[$job-shades]}" "${file_sd[$job-shades]}" "${file_cpu[$job-shades]}" \
            "${file_wall[$job-sox]}" "${file_sd[$job-sox]}" "${file_cpu[$job-sox]}" "${file_goal[$job]}" <<'PY'
import sys
job = sys.argv[1]
s, sd_s, c_s, x, sd_x, c_x, goal = map(float, sys.argv[2:])
verdict = f"≤{goal:g}× sox: " + ("met" if s / x <= goal else "NOT met")
print(f"{job:<16} {f'{s:.3f}±{sd_s:.3f}':>14} {f'{x:.3f}±{sd_x:.3f}':>14} {s / x:>10.3f} {c_s:>10.3f} {c_x:>10.3f}  {verdict}")
PY
    done
fi
