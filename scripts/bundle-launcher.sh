#!/bin/sh
# shades from its bundle (scripts/bundle.sh): runs ../libexec/shades through the bundle's own loader, C library
# and libraries (../lib), whatever the system has; its LD_LIBRARY_PATH and /etc/ld.so.cache are not read.
# SHADES_EXECUTABLE: this file's path, for the job scripts `shades study slurm` writes (the loader is
# /proc/self/exe here). No process is started to find the bundle (each fork costs start-up time): $PWD and
# parameter expansion only, and `ls` to follow a symbolic link to this file (POSIX has no readlink).
self=$0
case $self in /*) ;; *) self=$PWD/$self ;; esac
while [ -h "$self" ]; do
    target=$(ls -ld -- "$self")
    target=${target#*" -> "}
    case $target in /*) self=$target ;; *) self=${self%/*}/$target ;; esac
done
lib=${self%/*}/../lib
case $lib in *:*) echo "shades: the bundle's path has a ':', which a library path cannot hold: $lib" >&2; exit 1 ;; esac
SHADES_EXECUTABLE=$self
export SHADES_EXECUTABLE
exec "$lib/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$lib" --argv0 "$0" "${self%/*}/../libexec/shades" "$@"
