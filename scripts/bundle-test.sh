#!/usr/bin/env bash
# make test-bundle: the bundle (make bundle, dist/) run where none of Shades' libraries is installed, giving the
# bytes the static build gives here. Three root file systems: Debian 12 (glibc 2.36, the build's) and Debian 11
# (glibc 2.31, older than the build's), minimal (`debootstrap --variant=minbase`, made at once), and one with no
# C library at all, only Debian's static busybox as /bin/sh and its tools (`apt-get download` and `dpkg -x`:
# nothing is installed here), so the system's glibc is not used whatever its version (RHEL 8's 2.28, or none).
# In each, in a chroot with /proc mounted (without it a Swift program gets no arguments and O_TMPFILE no
# /proc/self/fd), the three at once:
#   - in a workspace: render pink, notch of a real MP3, catalogue build of Presets/, then the cluster section of
#     docs/studies.md as written (the bundle unpacked by its first line, study plan of the example study for a
#     cohort of 6, study slurm; the job script's tasks run by sh as Slurm would run them, no scheduler; study
#     status);
#   - every output file's SHA-256 compared with the same commands' here (.build-static/release/shades), the
#     job scripts and their logs apart (they name the binary); the job script must name the bundle's bin/shades;
#   - one run under LD_DEBUG=libs: every library tried or initialised must be the bundle's (none of the chroot's:
#     the Debian ones have their own libc, libstdc++, libgcc_s and libdb);
#   - `shades play`: no sound card, no ALSA configuration: one line on stderr, exit 1 (no abort).
# Everything lives in a temporary folder under /tmp, /proc unmounted and the folder removed at the end, also when
# a step fails (rm --one-file-system: never into a mount left behind). DEBIAN_MIRROR: another Debian mirror.
# 3½ minutes on a 2-core VM at load 2.6 (5½ at load 5): most of it four catalogue builds and debootstrap's downloads.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
shades=$root/.build-static/release/shades
version=$("$shades" --version | cut -d' ' -f1)
name=shades-$version-linux-x86_64
tarball=$root/dist/$name.tar.gz
[ -f "$tarball" ] || { echo "bundle-test.sh: no $tarball (make bundle)" >&2; exit 1; }
song=$(ls -S "$root"/.build-fixtures/music/*.mp3 2>/dev/null | tail -1)  # the smallest
[ -n "$song" ] || { echo "bundle-test.sh: no MP3 in .build-fixtures/music (bash scripts/music-fixtures.sh)" >&2; exit 1; }
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
debian_suites="bookworm bullseye"
roots="$debian_suites bare"

work=$(mktemp -d /tmp/shades-bundle-test.XXXXXX)
# Every mount under the folder (the chroots' /proc; debootstrap's own, if it was stopped halfway), deepest first.
unmount_all() {
    local mounts
    mounts=$(awk -v top="$work/" 'index($2, top) == 1 { print $2 }' /proc/mounts | sort -r)
    for m in $mounts; do $SUDO umount "$m" 2>/dev/null || $SUDO umount -l "$m"; done
}
# The background jobs (debootstrap, the chroots' checks) each run in a process group of their own (set -m): a
# failure or Ctrl-C here stops each whole group, the commands running in the chroots included, and waits up to
# 10 s for them to end before /proc is unmounted.
stop_jobs() {
    local pid groups=""
    for pid in ${debootstraps:-} ${checks:-}; do
        kill -TERM -- "-$pid" 2>/dev/null && groups="$groups,$pid"
    done
    [ -n "$groups" ] || return 0
    for _ in $(seq 40); do ps -o pid= -g "${groups#,}" > /dev/null || break; sleep 0.25; done
    wait 2>/dev/null || true
}
cleanup() {
    status=$?
    stop_jobs
    unmount_all
    $SUDO rm -rf --one-file-system "$work"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "bundle-test.sh: $*" >&2; exit 1; }
SECONDS=0

# 1. The root file systems, the Debian ones at once (mostly waiting for downloads); the bare one: busybox, its
#    applets' links, /dev/null.
debootstraps=""
set -m
for suite in $debian_suites; do
    $SUDO debootstrap --variant=minbase "$suite" "$work/$suite" "$mirror" > "$work/debootstrap-$suite.log" 2>&1 &
    debootstraps="$debootstraps $!"
done
set +m

# 2. The inputs, made here: a cohort of 6 patients as StudyCommandTests makes one (simulated audiograms and MMLs,
#    a 2 s song each), the default presets with the example study, and a real MP3.
inputs=$work/inputs
mkdir -p "$inputs/a" "$inputs/m"
cp -r "$root/Presets" "$inputs/Presets"
cp "$song" "$inputs/song.mp3"
(
    cd "$inputs"
    echo "id,site,arm,tinnitusHz,audiogram,mml,music" > patients.csv
    for i in 1 2 3 4 5 6; do
        "$shades" audiometry --simulate-audiogram 250:5,500:5,1000:10,2000:10,4000:15,8000:20 --seed $i -o a/P$i.json > /dev/null
        tinnitus=$([ $((i % 5)) = 0 ] && echo "left=6000 right=7000" || echo $((4000 + 250 * (i % 9))))
        # The MML at the patient's tinnitus frequency (a plan refuses one whose band misses it).
        "$shades" mml --frequency "$([ $((i % 5)) = 0 ] && echo 6000 || echo "$tinnitus")" --threshold -$((70 + i % 7)) \
            --simulate 20dB -o m/P$i.json > /dev/null
        mkdir -p songs/P$i
        "$shades" render pink --duration 2s --am 0.5 --seed $i -o songs/P$i/song.flac > /dev/null
        site=$([ $((i % 2)) = 0 ] && echo Ulm || echo Regensburg)
        echo "P$i,$site,,$tinnitus,a/P$i.json,m/P$i.json,songs/P$i" >> patients.csv
    done
)

# The cluster section of docs/studies.md, as written: its ```sh block after "### On a cluster" (unpack the bundle
# and put its bin/ on PATH; study plan protocol.json patients.csv; study slurm … && sbatch …; study status). The
# workspace has the example study as protocol.json (its calibration beside it). There is no Slurm here: the part
# of the slurm line before "&& sbatch" runs as written, then the job script's tasks run as Slurm runs them (sh,
# SLURM_ARRAY_TASK_ID set). The tarball's name in the block must be this version's.
block=$(awk '/^### On a cluster/ { section = 1 } section && /^```sh/ { inside = 1; next } inside && /^```/ { exit } inside { print }' \
    "$root/docs/studies.md")
unpack=$(printf '%s\n' "$block" | sed -n 1p)
plan=$(printf '%s\n' "$block" | grep '^shades study plan ' || true)
slurm=$(printf '%s\n' "$block" | grep '^shades study slurm ' | sed 's/ && sbatch .*//' || true)
status=$(printf '%s\n' "$block" | grep '^shades study status ' || true)
case "$unpack" in "tar -xzf $name.tar.gz && export PATH="*) ;; *) fail "docs/studies.md's cluster block does not start by unpacking $name.tar.gz: $unpack" ;; esac
[ -n "$plan" ] && [ -n "$slurm" ] && [ -n "$status" ] || fail "docs/studies.md's cluster block lacks plan, slurm or status: $block"
cp "$root/Presets/studies/example-study.json" "$inputs/protocol.json"
cp "$root/Presets/studies/example-calibration.json" "$inputs/"
# commands.sh WORKSPACE [unpack]: the commands, run by sh in a workspace holding the inputs (and, with "unpack",
# the tarball, unpacked by the block's first line; here the static build is on PATH instead).
cat > "$inputs/commands.sh" <<COMMANDS
set -eu
cd "\$1"
if [ "\${2:-}" = unpack ]; then $unpack; fi
shades render pink --duration 5s -o pink.flac
shades notch song.mp3 --frequency 6kHz -o notched.flac
shades catalogue build Presets -o catalogue
$plan
$slurm
last=\$(sed -n 's/^#SBATCH --array=0-\([0-9]*\).*/\1/p' study/slurm/build.sbatch)
for task in \$(seq 0 "\$last"); do SLURM_ARRAY_TASK_ID=\$task sh study/slurm/build.sbatch; done
$status
COMMANDS

# Every output's SHA-256, by path relative to the workspace ($1), but the inputs and the job script and logs.
digests() {
    (cd "$1" && find pink.flac notched.flac catalogue study -type f ! -path 'study/slurm/*' -print0 | sort -z \
        | xargs -0 sha256sum)
}

# 3. Here: the same commands with the static build.
mkdir "$work/host"
cp -r "$inputs/." "$work/host/"
echo "bundle-test: host run ($shades)"
PATH=$(dirname "$shades"):$PATH sh "$work/host/commands.sh" "$work/host" > "$work/host.log" 2>&1 \
    || { cat "$work/host.log"; fail "the commands failed here"; }
grep -q "^exec '$(readlink -f "$shades")' study build" "$work/host/study/slurm/build.sbatch" \
    || fail "here, the job script does not run $(readlink -f "$shades"): $(tail -1 "$work/host/study/slurm/build.sbatch")"
digests "$work/host" > "$work/host.sha256"
echo "bundle-test: $(wc -l < "$work/host.sha256") output files here, $SECONDS s"

for pid in $debootstraps; do
    wait "$pid" || { tail -20 "$work"/debootstrap-*.log; fail "debootstrap failed (mirror $mirror)"; }
done
debootstraps=""
bare=$work/bare
mkdir -p "$bare/bin" "$bare/usr" "$bare/dev" "$bare/proc" "$bare/tmp" "$bare/root" "$work/busybox"
chmod 777 "$work/busybox"  # apt-get download runs as _apt
(cd "$work/busybox" && { apt-get download busybox-static > /dev/null 2>&1 \
    || { $SUDO apt-get update -qq && apt-get download busybox-static > /dev/null; }; } && dpkg -x busybox-static_*.deb tree)
cp "$work/busybox/tree/bin/busybox" "$bare/bin/"
ln -s /bin "$bare/usr/bin"
$SUDO chroot "$bare" /bin/busybox --install -s /bin
$SUDO mknod -m 666 "$bare/dev/null" c 1 3
echo "bundle-test: root file systems made ($roots), $SECONDS s"

# 4. In each chroot, the three at once (each command is mostly one thread). check_suite SUITE: its report line in
#    $work/SUITE.result, or a failure's lines in $work/SUITE.failure (and status 1).
check_suite() {
    local suite=$1 chroot=$work/$1 workspace=/workspace glibc bin outside play_status
    bin=$workspace/$name/bin
    fail() { echo "$suite: $*" > "$work/$suite.failure"; exit 1; }
    in_chroot() { $SUDO chroot "$chroot" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root "$@"; }
    $SUDO mount -t proc proc "$chroot/proc"
    glibc=$(in_chroot getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2 || true)
    $SUDO mkdir -p "$chroot$workspace"
    $SUDO cp -r "$inputs/." "$chroot$workspace/"
    # The cluster section's first step: the bundle copied into the workspace, unpacked there by the block's line.
    $SUDO cp "$tarball" "$chroot$workspace/"
    in_chroot sh "$workspace/commands.sh" "$workspace" unpack > "$work/$suite.log" 2>&1 \
        || fail "the commands failed in the chroot: $(tail -5 "$work/$suite.log")"
    grep -q "^exec '$bin/shades' study build" "$chroot$workspace/study/slurm/build.sbatch" \
        || fail "the job script does not run the bundle's $bin/shades: $(tail -1 "$chroot$workspace/study/slurm/build.sbatch")"
    grep -q "^6 of 6 patients done" "$work/$suite.log" || fail "study status: $(tail -3 "$work/$suite.log")"
    digests "$chroot$workspace" > "$work/$suite.sha256"
    diff "$work/host.sha256" "$work/$suite.sha256" > "$work/$suite.diff" \
        || fail "outputs differ from the static build's (< here, > in the chroot): $(cat "$work/$suite.diff")"

    # Libraries: those the loader tried or initialised after the launcher's sh handed over (the last but one
    # "transferring control"; the program's is the last) must all be in the bundle's lib/.
    in_chroot LD_DEBUG=libs "$bin/shades" notch "$workspace/song.mp3" --frequency 4kHz -o /tmp/ld.flac \
        > /dev/null 2> "$work/$suite.ld" || fail "shades notch under LD_DEBUG failed: $(tail -3 "$work/$suite.ld")"
    awk '/transferring control:/ { n++ } { line[NR] = $0; control[NR] = n } END {
             for (i = 1; i <= NR; i++) if (control[i] >= n - 1) print line[i] }' "$work/$suite.ld" \
        | sed -n 's/.*\(trying file=\|calling init: \)\(.*\)/\2/p' > "$work/$suite.loaded"
    outside=$(grep -v "^$bin/../lib/" "$work/$suite.loaded" || true)
    [ -z "$outside" ] || fail "libraries taken from outside the bundle: $outside"
    grep -qx "$bin/../lib/libc.so.6" "$work/$suite.loaded" || fail "no libc.so.6 in LD_DEBUG's log"

    # play: no card, no ALSA configuration.
    play_status=0
    in_chroot "$bin/shades" play pink --timer 1s > /dev/null 2> "$work/$suite.play" || play_status=$?
    [ "$play_status" = 1 ] && [ "$(wc -l < "$work/$suite.play")" = 1 ] \
        || fail "shades play exited $play_status (expected 1, with one line): $(cat "$work/$suite.play")"
    $SUDO umount "$chroot/proc"
    echo "$suite (glibc ${glibc:-none}): $(wc -l < "$work/$suite.sha256") outputs identical, every library the bundle's," \
        "play: $(cat "$work/$suite.play")" > "$work/$suite.result"
}
checks=""
set -m
for suite in $roots; do
    check_suite "$suite" &
    checks="$checks $!"
done
set +m
failed=0
for pid in $checks; do wait "$pid" || failed=1; done
checks=""
for suite in $roots; do
    [ -f "$work/$suite.result" ] && echo "bundle-test: $(cat "$work/$suite.result")"
    [ -f "$work/$suite.failure" ] && echo "bundle-test: $(cat "$work/$suite.failure")" >&2
    [ -f "$work/$suite.result" ] || failed=1
done
[ "$failed" = 0 ] || fail "failed after $SECONDS s"
echo "bundle-test: passed in $SECONDS s"
