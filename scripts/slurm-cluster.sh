#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the cluster tests (Tests/ShadesClusterTests, make test-slurm).
#   slurm-cluster.sh start DIR           install slurm-wlm and munge if missing, start munged (unless one answers),
#                                        slurmctld and slurmd with DIR/slurm.conf; wait until the node is idle;
#                                        print `export SLURM_CONF=DIR/slurm.conf` (to eval)
#   slurm-cluster.sh stop DIR            stop what start started (by pid files; munged only if start started it)
#   slurm-cluster.sh kill-slurmd DIR     SIGKILL slurmd (a node daemon crash; running tasks go on without it)
#   slurm-cluster.sh restart-slurmd DIR  start slurmd again and wait until the node answers
# The node is this host with its CPUs and half its memory, partition `cpu` (docs/studies.md's cluster section names
# it). No cgroups here, so proctrack/linuxproc and task/none; no accounting (sacct is disabled: ask
# `scontrol show job`). Needs root (slurmd runs the jobs as their user; SlurmUser root). Seen with Debian 12's
# slurm-wlm 22.05.8.
# Ports: SLURMCTLD_PORT (16817) and SLURMD_PORT (16818), so a site's own Slurm on 6817/6818 is left alone.
set -euo pipefail
usage="usage: slurm-cluster.sh start|stop|kill-slurmd|restart-slurmd DIR"
cmd=${1:?$usage}; dir=${2:?$usage}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

# Prints the node's state as sinfo reports it (idle, mixed, allocated, down*, …), or nothing.
node_state() { SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o %T 2>/dev/null | head -1; }

# Waits up to $1 seconds for the node's state to match the regular expression $2; else shows the logs' ends.
wait_for_node() {
    local state=""
    for _ in $(seq $(( $1 * 4 ))); do
        state=$(node_state)
        [[ $state =~ $2 ]] && return 0
        sleep 0.25
    done
    echo "slurm-cluster.sh: the node is '${state:-not reported}' after $1 s (expected $2); the logs end:" >&2
    tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 2>/dev/null || true
    return 1
}

# Signal $2 to the process whose id is in pid file $1, if that process is alive.
signal_pid_file() {
    local pid
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill "-$2" "$pid" 2>/dev/null || true
}

# Waits up to 10 s for the process in pid file $1 to end.
wait_pid_file_gone() {
    local pid
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
    return 1
}

start_slurmd() { SLURM_CONF="$dir/slurm.conf" slurmd; }

case $cmd in
start)
    if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null \
        || ! command -v munged >/dev/null; then
        echo "installing slurm-wlm and munge" >&2
        $SUDO apt-get update -qq >&2
        # Without recommended packages: slurmd, slurmctld and slurm-client with the basic plugins are all it needs.
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2
    fi
    mkdir -p "$dir/state" "$dir/spool"
    dir=$(cd "$dir" && pwd)
    host=$(hostname -s)
    memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
    cat > "$dir/slurm.conf" <<CONF
# A one-node test cluster written by scripts/slurm-cluster.sh.
ClusterName=shades-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=${SLURMCTLD_PORT:-16817}
SlurmdPort=${SLURMD_PORT:-16818}
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=$memory_mb State=UNKNOWN
PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    # munged will not run as root and checks the ownership of its folders.
    if ! munge -n >/dev/null 2>&1; then
        $SUDO mkdir -p /run/munge
        [ -f /etc/munge/munge.key ] || $SUDO mungekey -c >/dev/null 2>&1 || $SUDO /usr/sbin/create-munge-key >/dev/null 2>&1
        $SUDO chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
        $SUDO su -s /bin/sh munge -c munged
        for _ in $(seq 20); do munge -n >/dev/null 2>&1 && break; sleep 0.25; done
        munge -n >/dev/null 2>&1 || { echo "slurm-cluster.sh: munged does not answer" >&2; exit 1; }
        cp /run/munge/munged.pid "$dir/munged.pid"
    fi
    SLURM_CONF="$dir/slurm.conf" slurmctld
    start_slurmd
    wait_for_node 30 '^idle$'
    echo "export SLURM_CONF=$dir/slurm.conf"
    ;;
stop)
    # Jobs a failed test left behind are cancelled first, so no task outlives the cluster (up to 15 s).
    if [ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        SLURM_CONF="$dir/slurm.conf" scancel --user="$(id -un)" 2>/dev/null || true
        for _ in $(seq 60); do
            [ -z "$(SLURM_CONF="$dir/slurm.conf" squeue -h 2>/dev/null)" ] && break
            sleep 0.25
        done
    fi
    # SIGTERM first; anything left after 10 s gets SIGKILL. Only the processes named by this folder's pid files.
    for name in slurmd slurmctld munged; do signal_pid_file "$dir/$name.pid" TERM; done
    for name in slurmd slurmctld munged; do
        wait_pid_file_gone "$dir/$name.pid" || signal_pid_file "$dir/$name.pid" KILL
    done
    ;;
kill-slurmd)
    signal_pid_file "$dir/slurmd.pid" KILL
    wait_pid_file_gone "$dir/slurmd.pid"
    ;;
restart-slurmd)
    start_slurmd
    # Back once it answers: idle, or running tasks (mixed, allocated, completing); `*` means not responding.
    wait_for_node 60 '^(idle|mixed|allocated|completing)$'
    ;;
*) echo "$usage" >&2; exit 2 ;;
esac
