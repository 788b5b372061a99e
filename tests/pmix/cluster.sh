# SPDX-License-Identifier: BSD-3-Clause
# A throwaway two-node Slurm cluster on this machine, for the PMIx tests
# (sourced, after lib.sh). Nodes n1 and n2 are two slurmd daemons on 127.0.0.1 with their
# own ports, spool and TmpFS directories; munged runs with its own socket
# and key, so nothing of a system-wide Slurm or munge is used or disturbed.
# Every daemon started here is stopped by pid from an EXIT trap.
#
#   cluster_start DIR           start munged, slurmctld, slurmd n1 n2; wait idle
#                               (returns 1, saying why, when a daemon does not
#                               start or the nodes are not idle within 30 s:
#                               a port taken meanwhile, a loaded machine)
#   cluster_stop                (the trap) stop them and remove DIR's sockets

# A free TCP port block of n ports starting at a pseudo-random base.
free_port_base() {
    local n=$1 base i used
    for _ in $(seq 50); do
        base=$((20000 + RANDOM % 30000))
        used=0
        for i in $(seq 0 $((n - 1))); do
            if ss -Htln "sport = :$((base + i))" 2>/dev/null | grep -q .; then used=1; fi
        done
        [ $used -eq 0 ] && { echo $base; return 0; }
    done
    return 1
}

CLUSTER_PIDS=()
CLUSTER_DIR=""

cluster_stop() {
    local p
    for p in "${CLUSTER_PIDS[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${CLUSTER_PIDS[@]}"; do
        for _ in $(seq 50); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$p" 2>/dev/null
    done
    CLUSTER_PIDS=()
}

# Prints the last lines of every daemon log (after a failure).
cluster_logs() {
    local f
    for f in "$CLUSTER_DIR"/log/*; do
        echo "--- $f" >&2
        tail -n 20 "$f" >&2
    done
}

# wait_pidfile FILE SECONDS: the daemon's pid, once it wrote it.
wait_pidfile() {
    local i
    for i in $(seq $(($2 * 10))); do
        if [ -s "$1" ]; then cat "$1"; return 0; fi
        sleep 0.1
    done
    return 1
}

cluster_start() {
    CLUSTER_DIR=$1
    rm -rf "$CLUSTER_DIR"
    mkdir -p "$CLUSTER_DIR"/{log,state,spool,tmp,munge}
    CLUSTER_DIR=$(cd "$CLUSTER_DIR" && pwd)
    chmod 700 "$CLUSTER_DIR" "$CLUSTER_DIR/munge"
    # Unix socket paths are limited to 107 bytes: keep munge's short.
    local sock="$CLUSTER_DIR/munge/sock"
    if [ ${#sock} -gt 100 ]; then
        MUNGE_SHORT=$(mktemp -d /tmp/ump-munge.XXXXXX)
        sock=$MUNGE_SHORT/sock
    fi
    trap 'cluster_stop; [ -n "${MUNGE_SHORT:-}" ] && rm -rf "$MUNGE_SHORT"' EXIT

    dd if=/dev/urandom of="$CLUSTER_DIR/munge/key" bs=1024 count=1 status=none
    chmod 400 "$CLUSTER_DIR/munge/key"
    munged --force --socket="$sock" --key-file="$CLUSTER_DIR/munge/key" \
        --pid-file="$CLUSTER_DIR/munge/pid" --log-file="$CLUSTER_DIR/log/munged" \
        --seed-file="$CLUSTER_DIR/munge/seed" >>"$CLUSTER_DIR/log/munged.out" 2>&1 ||
        { echo "munged did not start" >&2; return 1; }
    local pid
    pid=$(wait_pidfile "$CLUSTER_DIR/munge/pid" 10) || { echo "munged wrote no pid" >&2; return 1; }
    CLUSTER_PIDS+=("$pid")

    local base
    base=$(free_port_base 3) || { echo "no free ports" >&2; return 1; }
    local host
    host=$(hostname)
    export SLURM_CONF="$CLUSTER_DIR/slurm.conf"
    cat >"$SLURM_CONF" <<EOF
ClusterName=umptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$CLUSTER_DIR/state
SlurmdSpoolDir=$CLUSTER_DIR/spool/%n
TmpFS=$CLUSTER_DIR/tmp/%n
SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid
SlurmdPidFile=$CLUSTER_DIR/slurmd.%n.pid
SlurmctldLogFile=$CLUSTER_DIR/log/slurmctld
SlurmdLogFile=$CLUSTER_DIR/log/slurmd.%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
KillWait=2
InactiveLimit=0
MinJobAge=10
SlurmctldTimeout=10
SlurmdTimeout=10
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 1)) CPUs=2 State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 2)) CPUs=2 State=UNKNOWN
PartitionName=ump Nodes=n1,n2 Default=YES MaxTime=5 State=UP OverSubscribe=YES
EOF
    mkdir -p "$CLUSTER_DIR"/spool/n1 "$CLUSTER_DIR"/spool/n2 "$CLUSTER_DIR"/tmp/n1 "$CLUSTER_DIR"/tmp/n2

    slurmctld -i -f "$SLURM_CONF" >>"$CLUSTER_DIR/log/slurmctld.out" 2>&1 || { cluster_logs; echo "slurmctld did not start" >&2; return 1; }
    pid=$(wait_pidfile "$CLUSTER_DIR/slurmctld.pid" 10) || { cluster_logs; echo "slurmctld wrote no pid" >&2; return 1; }
    CLUSTER_PIDS+=("$pid")
    local n
    for n in n1 n2; do
        slurmd -f "$SLURM_CONF" -N $n >>"$CLUSTER_DIR/log/slurmd.$n.out" 2>&1 || { cluster_logs; echo "slurmd $n did not start" >&2; return 1; }
        pid=$(wait_pidfile "$CLUSTER_DIR/slurmd.$n.pid" 10) || { cluster_logs; echo "slurmd $n wrote no pid" >&2; return 1; }
        CLUSTER_PIDS+=("$pid")
    done
    # By the clock, and each sinfo bounded: one that waits for a slurmctld
    # that does not answer would otherwise take its own message timeout.
    local states deadline=$((SECONDS + 30))
    while [ $SECONDS -lt $deadline ]; do
        states=$(timeout 3 sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | tr '\n' ' ')
        [ "$(timeout 3 sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)" -eq 2 ] &&
            return 0
        sleep 0.1
    done
    cluster_logs
    echo "the two nodes are not idle after 30 s (sinfo: $states)" >&2
    return 1
}
