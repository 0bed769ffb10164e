#!/usr/bin/env bash
# Real music no one here made, for the tests and the examples of the README and docs/: the MP3s of Debian's asc-music
# (22.05 kHz, e.g. frontiers.mp3, 7 min 21 s) and the Ogg Vorbis files of planetblupi-music-ogg (44.1 kHz,
# 2–10 min). Downloaded once with `apt-get download` and unpacked with `dpkg -x` into FOLDER (default
# .build-fixtures/music), flat: FOLDER/frontiers.mp3, FOLDER/music004.ogg, …; kept between runs.
set -euo pipefail
folder=${1:-.build-fixtures/music}
packages="asc-music planetblupi-music-ogg"
[ -f "$folder/.complete" ] && exit 0
mkdir -p "$folder"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# apt-get download needs the package lists; _apt cannot write into a root-owned temporary folder.
chmod 777 "$work"
if ! apt-get download $packages >/dev/null 2>&1; then
    apt-get update -qq
    apt-get download $packages >/dev/null
fi
for deb in *.deb; do dpkg -x "$deb" tree; done
cd - >/dev/null
find "$work/tree/usr/share" -type f \( -name '*.mp3' -o -name '*.ogg' \) -exec cp {} "$folder/" \;
touch "$folder/.complete"
echo "music fixtures: $(ls "$folder" | wc -l) files in $folder"
