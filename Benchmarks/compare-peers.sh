#!/usr/bin/env bash
# Renders the same 10-minute stereo 48 kHz 16-bit WAV files with Shades, SoX and FFmpeg, several runs
# each, and prints the mean wall-clock times, the ratios shades/ffmpeg and shades/sox per job, and
# whether the target (Shades ≤ 0.25 × FFmpeg and ≤ 0.10 × SoX) is met.
#
# Usage: bash Benchmarks/compare-peers.sh        (from any directory)
# Environment:
#   SHADES_BIN   the shades executable to time (default: <repo>/.build-static/release/shades, built
#                with `make build` if missing)
#   RUNS         timed runs per command (default 5); WARMUP warm-up runs (default 1)
#   JOBS         jobs to run, space-separated subset of "pink white brown tone am-pink nbn pulsed notch"
#                (default: all)
# Exit status: 0 whether or not the target is met (the table says); non-zero if a tool fails.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-5}
warmup=${WARMUP:-1}
jobs=(${JOBS:-pink white brown tone am-pink nbn pulsed notch})
# The notch job (music through a one-octave notch, Shades vs SoX) has its own table at the end.
notch_job=0
synth_jobs=()
for job in "${jobs[@]}"; do
    if [ "$job" = notch ]; then notch_job=1; else synth_jobs+=("$job"); fi
done
duration_s=600 # 10 minutes
ffmpeg_target=0.25
sox_target=0.10

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
if ! command -v hyperfine >/dev/null 2>&1; then
    echo "installing: hyperfine"
    apt_install hyperfine || echo "hyperfine could not be installed; timing with a shell loop instead"
fi
have_hyperfine=0
command -v hyperfine >/dev/null 2>&1 && have_hyperfine=1

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

# Times COMMAND (warm-up + runs) and writes its mean and standard deviation in seconds to RESULT.
time_command() { # time_command NAME COMMAND RESULT
    local name=$1 cmd=$2 result=$3
    if [ "$have_hyperfine" = 1 ]; then
        hyperfine -N --warmup "$warmup" --runs "$runs" --prepare 'rm -f out.wav' \
            --export-json "$name.json" --command-name "$name" --style none "$cmd" >/dev/null 2>"$name.err" ||
            { cat "$name.err" >&2; return 1; }
        # hyperfine's warnings (outliers, slow first run), one line each.
        grep -o 'Warning: .*' "$name.err" | sed 's/\. .*//; s/^/      hyperfine /' || true
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["mean"], r["stddev"] or 0)' \
            "$name.json" >"$result"
    else
        local i t0 t1 times=()
        for ((i = 0; i < warmup + runs; i++)); do
            rm -f out.wav
            t0=$(date +%s%N)
            $cmd >/dev/null
            t1=$(date +%s%N)
            [ "$i" -ge "$warmup" ] && times+=("$(((t1 - t0)))")
        done
        python3 -c 'import statistics,sys; t=[int(x)/1e9 for x in sys.argv[1:]]; print(statistics.mean(t), statistics.stdev(t) if len(t)>1 else 0)' \
            "${times[@]}" >"$result"
    fi
    # Level of the last output (first minute), to show the files are comparable and unclipped.
    sox out.wav -n trim 0 60 stats 2>&1 | awk -v n="$name" '
        /^RMS lev dB/ {rms=$4} /^Pk lev dB/ {pk=$4} /^Length s/ {len=$3}
        END {printf "%s %s %s\n", rms, pk, len}' >"$result.level"
    local frames
    frames=$(soxi -s out.wav)
    echo "$frames" >"$result.frames"
    if [ "$frames" != $((duration_s * 48000)) ]; then
        echo "warning: $name wrote $frames frames, expected $((duration_s * 48000))" >&2
    fi
}

echo "Shades vs SoX vs FFmpeg: 10-minute stereo 48 kHz s16 WAV, $warmup warm-up + $runs timed runs each"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "timer: $([ "$have_hyperfine" = 1 ] && hyperfine --version || echo 'shell loop')"
echo "versions: $("$shades" --version 2>/dev/null || echo 'shades (no --version)'); $(sox --version 2>&1 | sed 's/^.*SoX/SoX/'); $(ffmpeg -version | head -1 | cut -d' ' -f1-3)"
echo "shades: $shades (built $(date -r "$shades" "+%Y-%m-%d %H:%M"))"
echo "work dir: $work"
echo

declare -A mean sd level
for job in "${synth_jobs[@]}"; do
    job_commands "$job"
    echo "== $job"
    for tool in shades sox ffmpeg; do
        var=${tool}_cmd
        cmd=${!var}
        echo "  $tool: $cmd"
        time_command "$job-$tool" "$cmd" "$work/$job-$tool.result"
        read -r m s <"$work/$job-$tool.result"
        mean[$job-$tool]=$m
        sd[$job-$tool]=$s
        level[$job-$tool]=$(cat "$work/$job-$tool.result.level")
    done
done
echo

[ ${#synth_jobs[@]} -gt 0 ] && python3 - "$ffmpeg_target" "$sox_target" "${synth_jobs[@]}" <<PY
import sys
ffmpeg_target, sox_target = float(sys.argv[1]), float(sys.argv[2])
jobs = sys.argv[3:]
mean = {$(for k in "${!mean[@]}"; do printf '"%s": %s, ' "$k" "${mean[$k]}"; done)}
sd = {$(for k in "${!sd[@]}"; do printf '"%s": %s, ' "$k" "${sd[$k]}"; done)}
level = {$(for k in "${!level[@]}"; do printf '"%s": "%s", ' "$k" "${level[$k]}"; done)}
print("Mean wall-clock time per 10-minute file (± standard deviation), seconds")
header = f"{'job':<6} {'shades':>14} {'sox':>14} {'ffmpeg':>14} {'shades/ffmpeg':>14} {'shades/sox':>11}  target (≤{ffmpeg_target:g}×ffmpeg, ≤{sox_target:g}×sox)"
print(header)
print("-" * len(header))
for job in jobs:
    s, x, f = (mean[f"{job}-{t}"] for t in ("shades", "sox", "ffmpeg"))
    rf, rx = s / f, s / x
    met_f, met_x = rf <= ffmpeg_target, rx <= sox_target
    verdict = "met" if met_f and met_x else "NOT met (" + ", ".join(
        n for n, ok in (("ffmpeg", met_f), ("sox", met_x)) if not ok) + ")"
    cell = lambda t: f"{mean[f'{job}-{t}']:.3f}±{sd[f'{job}-{t}']:.3f}"
    print(f"{job:<6} {cell('shades'):>14} {cell('sox'):>14} {cell('ffmpeg'):>14} {rf:>14.3f} {rx:>11.3f}  {verdict}")
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
met = sum(1 for job in jobs if mean[f"{job}-shades"] / mean[f"{job}-ffmpeg"] <= ffmpeg_target
          and mean[f"{job}-shades"] / mean[f"{job}-sox"] <= sox_target)
print(f"Target (shades ≤ {ffmpeg_target:g} × ffmpeg and ≤ {sox_target:g} × sox) met for {met} of {len(jobs)} jobs.")
PY

# --- Notched music: a 7-minute stereo 48 kHz 16-bit WAV, one octave at 4 kHz ---------------------------
if [ "$notch_job" = 1 ]; then
    # Real music from Debian's asc-music (GPL MP3s, 22.05 kHz): the tracks joined, resampled to 48 kHz and
    # cut to 7 minutes (not timed). Without the package, pink noise stands in.
    if ! dpkg -s asc-music >/dev/null 2>&1; then apt_install asc-music || true; fi
    music=(/usr/share/games/asc/music/*.mp3)
    if [ -e "${music[0]}" ]; then
        parts=()
        for i in "${!music[@]}"; do
            ffmpeg -loglevel error -y -i "${music[$i]}" -ar 48000 -ac 2 -c:a pcm_s16le "part$i.wav"
            parts+=("part$i.wav")
        done
        sox "${parts[@]}" -b 16 music.wav trim 0 420
        source_name="asc-music (${#music[@]} tracks joined)"
    else
        "$shades" render pink --duration 7m --format s16 -o music.wav >/dev/null
        source_name="pink noise (asc-music not available)"
    fi
    shades_cmd="$shades notch music.wav --frequency 4kHz --width 1 --format s16 -o out.wav"
    sox_cmd="sox music.wav out.wav sinc -t 50 5657-2828 -t 50"
    echo
    echo "== notch: $source_name, 7 min stereo 48 kHz s16 WAV in and out, one octave at 4 kHz"
    for tool in shades sox; do
        var=${tool}_cmd
        echo "  $tool: ${!var}"
        time_notch=$work/notch-$tool.result
        if [ "$have_hyperfine" = 1 ]; then
            hyperfine -N --warmup "$warmup" --runs "$runs" --prepare 'rm -f out.wav' --export-json "notch-$tool.json" \
                --style none "${!var}" >/dev/null 2>"notch-$tool.err" || { cat "notch-$tool.err" >&2; exit 1; }
            python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["mean"], r["stddev"] or 0)' \
                "notch-$tool.json" >"$time_notch"
        else
            t0=$(date +%s%N); ${!var} >/dev/null; t1=$(date +%s%N)
            echo "$(((t1 - t0)))e-9 0" >"$time_notch"
        fi
    done
    python3 - "$work/notch-shades.result" "$work/notch-sox.result" <<'PY'
import sys
(s, sd_s), (x, sd_x) = (tuple(map(float, open(p).read().split())) for p in sys.argv[1:3])
print(f"notch     shades {s:.3f}±{sd_s:.3f} s   sox {x:.3f}±{sd_x:.3f} s   shades/sox {s / x:.3f}   "
      f"target (≤0.5×sox) {'met' if s / x <= 0.5 else 'NOT met'}")
PY
fi
