#!/usr/bin/env bash
# The man pages of `shades`, one per command, into FOLDER (make manual): swift-argument-parser's generate-manual
# plugin builds the package in release and its tool, and writes pages from `shades --experimental-dump-help`.
# That tool drops every character outside ASCII ("9–16 kHz" came out as "916 kHz", "125 … 16000 Hz" as
# "125  16000 Hz"), so the pages are written again by the same tool from the dump with each such character
# spelled as a placeholder (U+2026 as MDOCU2026U), and the placeholders become mandoc's escapes (\[u2026]).
# Usage: scripts/manual-pages.sh FOLDER DATE (yyyy-mm-dd, the pages' date).
set -euo pipefail
folder=$1 date=$2


swift package plugin generate-manual --configuration release --multi-page --date "$date"
tool=$(find .build -name generate-manual-tool -type f -perm -u+x | head -n 1)
[ -n "$tool" ] || { echo "manual-pages.sh: the plugin built no generate-manual-tool under .build" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The "tool" the generator runs with --experimental-dump-help: shades's dump, ASCII only.
cat > "$work/shades" <<SCRIPT
#!/bin/sh
"$PWD/.build/release/shades" "\$@" | perl -CSD -pe 's/([^\x00-\x7f])/sprintf("MDOCU%04XU", ord(\$1))/ge'
SCRIPT
chmod +x "$work/shades"
mkdir "$work/pages"
"$tool" "$work/shades" --multi-page --date "$date" --output-directory "$work/pages"
perl -pi -e 's/MDOCU([0-9A-F]{4,5})U/\\[u$1]/g' "$work"/pages/*.1

rm -rf "$folder"
mkdir -p "$folder"
cp "$work"/pages/*.1 "$folder"/
