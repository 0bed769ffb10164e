#!/usr/bin/env bash
# The relocatable bundle for machines without Shades' libraries (a cluster node, any x86_64 Linux):
#   bundle.sh BINARY DIST   writes DIST/shades-VERSION-linux-x86_64.tar.gz and its .sha256 (VERSION: the first
#                           word of `BINARY --version`)
# Inside, under shades-VERSION-linux-x86_64/:
#   bin/shades       a POSIX sh launcher: runs libexec/shades through the bundle's own loader with the bundle's
#                    lib/ as the only library path (no /etc/ld.so.cache, no LD_LIBRARY_PATH), and exports
#                    SHADES_EXECUTABLE (its own absolute path: under an explicit loader /proc/self/exe names the
#                    loader, and `shades study slurm` writes this path into the job script)
#   libexec/shades   BINARY as built (the static Swift runtime inside)
#   lib/             every shared library `ldd BINARY` lists, the C library and its loader too (so the bundle
#                    does not need the node's glibc: Debian 12's 2.36 runs on any kernel from 3.2), by soname
#   LICENSES/        each library's Debian copyright file (the package from `dpkg -S`), the Swift runtime's and
#                    the argument parser's licences, README.md: what they mean for whoever ships the bundle
# The tarball is reproducible: sorted names, owner 0, every time the last commit's, gzip without a name or time.
set -euo pipefail
usage="usage: bundle.sh BINARY DIST"
binary=${1:?$usage}; dist=${2:?$usage}
root=$(cd "$(dirname "$0")/.." && pwd)
version=$("$binary" --version | cut -d' ' -f1)
name=shades-$version-linux-x86_64
work=$(mktemp -d "${TMPDIR:-/tmp}/shades-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
top=$work/$name
mkdir -p "$top/bin" "$top/libexec" "$top/lib" "$top/LICENSES"

# The libraries: `soname => path` lines and the loader's own line (`/lib64/ld-linux-x86-64.so.2 (0x…)`).
listing=$(ldd "$binary")
if grep -q 'not found' <<< "$listing"; then
    echo "bundle.sh: $binary needs libraries this machine lacks:" >&2; grep 'not found' <<< "$listing" >&2; exit 1
fi
paths=$(awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 } $1 ~ /^\// { n = split($1, p, "/"); print p[n], $1 }' <<< "$listing")
loader=$(awk '$1 ~ /^ld-linux/ { print $1 }' <<< "$paths")
[ "$loader" = ld-linux-x86-64.so.2 ] || { echo "bundle.sh: no x86-64 loader in ldd's list of $binary" >&2; exit 1; }

# The Debian package that installed a library: dpkg knows it by the path it shipped, which is the path ldd
# gives, its real path, or that with /usr taken off or put on (merged /usr).
package_of() {
    local real candidate
    real=$(readlink -f "$1")
    for candidate in "$1" "$real" "${real#/usr}" "/usr$1"; do
        dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1 && return 0
    done
    return 1
}

packages=()
while read -r soname path; do
    cp -L "$path" "$top/lib/$soname"
    chmod 755 "$top/lib/$soname"
    package=$(package_of "$path") || { echo "bundle.sh: no Debian package owns $path (its licence is unknown)" >&2; exit 1; }
    copyright=/usr/share/doc/$package/copyright
    [ -f "$copyright" ] || { echo "bundle.sh: $package has no $copyright" >&2; exit 1; }
    cp -L "$copyright" "$top/LICENSES/$package.copyright"
    packages+=("$soname $package")
done <<< "$paths"

cp "$binary" "$top/libexec/shades"
chmod 755 "$top/libexec/shades"
cp "$root/scripts/bundle-launcher.sh" "$top/bin/shades"
chmod 755 "$top/bin/shades"

# Inside the binary: the Swift runtime, Foundation and Dispatch (Apache-2.0 with the Runtime Library Exception),
# Foundation's own ICU (the Unicode licence: Debian's ICU copyright file holds it) and the argument parser.
swift_licence=$(dirname "$(readlink -f "$(command -v swift)")")/../share/swift/LICENSE.txt
cp "$swift_licence" "$top/LICENSES/swift.LICENSE.txt"
cp "$root/.build-static/checkouts/swift-argument-parser/LICENSE.txt" "$top/LICENSES/swift-argument-parser.LICENSE.txt"
icu=$(ls -d /usr/share/doc/libicu[0-9]* 2>/dev/null | head -1)
[ -n "$icu" ] || { echo "bundle.sh: no Debian ICU package (libicu72) to take ICU's licence from" >&2; exit 1; }
cp -L "$icu/copyright" "$top/LICENSES/icu.copyright"
# The full texts the Debian copyright files refer to ("… can be found in /usr/share/common-licenses/GPL-2").
mkdir "$top/LICENSES/common-licenses"
for text in $(grep -oh '/usr/share/common-licenses/[A-Za-z0-9.+-]*[A-Za-z0-9+]' "$top"/LICENSES/*.copyright | sort -u); do
    [ -f "$text" ] && cp -L "$text" "$top/LICENSES/common-licenses/"
done
{
    cat "$root/scripts/bundle-licences.md"
    echo
    echo "## The libraries in lib/ and the Debian packages they come from"
    echo
    echo "| library | Debian package | its source package (\`apt-get source NAME=VERSION\`) | licence file |"
    echo "|---|---|---|---|"
    for entry in "${packages[@]}"; do
        set -- $entry
        echo "| $1 | $2 $(dpkg-query -W -f='${Version}' "$2") | $(dpkg-query -W -f='${source:Package}=${source:Version}' "$2") | $2.copyright |"
    done
} > "$top/LICENSES/README.md"

# Modes that do not depend on the umask or the sources' own (bin/, libexec/ and lib/ are 755 already).
find "$top" -type d -exec chmod 755 {} +
find "$top/LICENSES" -type f -exec chmod 644 {} +

mkdir -p "$dist"
tarball=$dist/$name.tar.gz
epoch=$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)
tar -C "$work" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -n -9 > "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
(cd "$dist" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "bundle: $tarball ($(du -k "$tarball" | cut -f1) KiB compressed, ${#packages[@]} libraries)"
