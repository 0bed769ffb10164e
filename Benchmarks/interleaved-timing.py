#!/usr/bin/env python3
"""Times commands in rounds: each round runs every command once, one after another, so a busy spell of a
shared machine slows all of them alike (timing one command's runs back to back, then the next command's,
lets such a spell fall on one tool only and moves the ratios between them by a quarter).

Usage: interleaved-timing.py WARMUP RUNS PREPARE KEEP NAME COMMAND [NAME COMMAND ...]
  WARMUP, RUNS  untimed rounds first, then timed rounds
  PREPARE       a shell command run (untimed) before every run of every command, e.g. 'rm -f out.wav'
  KEEP          a path each command writes (or -): after a command's last run it is renamed NAME-KEEP,
                so its output can be checked after the others have run
  COMMAND       split like a shell's words and run without a shell, as hyperfine -N does
Writes NAME.result in the working folder: the median wall-clock seconds, their standard deviation, and the
median CPU seconds (user + system of the command and its children), one line. Exit status non-zero when a
command fails (its standard error is shown).
"""
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def run_once(words):
    """Runs `words`; returns (wall seconds, CPU seconds). Exits when the command fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(words, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.stderr.write(result.stderr.decode(errors="replace"))
        sys.exit(f"failed ({result.returncode}): {shlex.join(words)}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    if len(sys.argv) < 7 or (len(sys.argv) - 5) % 2:
        sys.exit(__doc__)
    warmup, runs = int(sys.argv[1]), int(sys.argv[2])
    prepare, keep = sys.argv[3], sys.argv[4]
    pairs = sys.argv[5:]
    commands = [(pairs[i], shlex.split(pairs[i + 1])) for i in range(0, len(pairs), 2)]
    walls = {name: [] for name, _ in commands}
    cpus = {name: [] for name, _ in commands}
    for round_index in range(warmup + runs):
        last = round_index == warmup + runs - 1
        for name, words in commands:
            subprocess.run(prepare, shell=True, check=True)
            wall, cpu = run_once(words)
            if round_index >= warmup:
                walls[name].append(wall)
                cpus[name].append(cpu)
            if last and keep != "-" and os.path.exists(keep):
                os.replace(keep, f"{name}-{keep}")
    for name, _ in commands:
        spread = statistics.stdev(walls[name]) if len(walls[name]) > 1 else 0.0
        with open(f"{name}.result", "w") as out:
            out.write(f"{statistics.median(walls[name])} {spread} {statistics.median(cpus[name])}\n")


if __name__ == "__main__":
    main()
