#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fault campaign: for each kind of operation, N trials of a 4-rank job in
# which a random rank is killed with SIGKILL at a random moment. Every trial
# checks that umprun exits non-zero within 5 s of the kill, that no process
# of the job is left (the ranks' pids and their process groups), and that
# nothing of the job is left in /dev/shm. Prints a table; exit status 0
# when every trial passed.
#
# Usage: scripts/fault-campaign.sh [--trials N] [--kinds k1,k2,...]
#            [--umprun PATH] [--prog PATH] [--build DIR]
#   kinds: eager (64 B ping-pong, shm), rndv (4 MiB ping-pong, shm),
#          coll (allreduce/bcast/alltoall/barrier loop, shm),
#          tcp (64 B and 256 KiB ping-pong over tcp),
#          udp (the same over udp with 5% of datagrams dropped: UMP_REL_DROP),
#          slurm (the tcp kind's traffic under srun --mpi=pmix -K on the
#          throwaway two-node cluster of tests/pmix/cluster.sh: 2 ranks
#          per node; needs root, slurmd, slurmctld, munge and a library
#          built with PMIx, else skipped with the reason)
#   default: every kind, 100 trials; umprun and launch_ops from build/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
trials=100
kinds=eager,rndv,coll,tcp,udp,slurm
build="$root/build"
umprun=""
prog=""
while [ $# -gt 0 ]; do
    case "$1" in
    --trials) trials=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    --umprun) umprun=$2; shift 2 ;;
    --prog) prog=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '3,18p' "$0"; exit 0 ;;
    *) echo "fault-campaign: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$umprun" ] || umprun="$build/bin/umprun"
[ -n "$prog" ] || prog="$build/tests/launch_ops"
for f in "$umprun" "$prog"; do
    [ -x "$f" ] || { echo "fault-campaign: $f not built" >&2; exit 2; }
done

NRANKS=4
EXIT_LIMIT_MS=5000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }

# Per kind: the environment and launch_ops' own kind.
kind_env() {
    case "$1" in
    eager) echo "UMP_TRANSPORTS=shm,tcp launch=eager" ;;
    rndv) echo "UMP_TRANSPORTS=shm,tcp launch=rndv" ;;
    coll) echo "UMP_TRANSPORTS=shm,tcp launch=coll" ;;
    tcp) echo "UMP_TRANSPORTS=tcp launch=mixed" ;;
    udp) echo "UMP_TRANSPORTS=udp UMP_REL_DROP=0.05 launch=mixed" ;;
    slurm) echo "UMP_TRANSPORTS=shm,tcp launch=mixed" ;;
    esac
}

# One trial; prints "ok|fail exit_ms orphans leftovers reason".
trial() {
    local kind=$1 n=$2
    local token="ump-fc-$kind-$$-$n-$RANDOM"
    local out="$work/$kind.$n.out"
    local envs launch=""
    envs=()
    for kv in $(kind_env "$kind"); do
        case "$kv" in launch=*) launch=${kv#launch=} ;; *) envs+=("$kv") ;; esac
    done
    : >"$out"
    if [ "$kind" = slurm ]; then
        env "${envs[@]}" srun --mpi=pmix -N2 --ntasks-per-node=2 -K -t 2 "$prog" "$launch" 60 \
            "$token" >"$out" 2>&1 </dev/null &
    else
        env "${envs[@]}" "$umprun" -v --timeout 120 -n $NRANKS "$prog" "$launch" 60 "$token" \
            >"$out" 2>&1 </dev/null &
    fi
    local upid=$!
    # Into the loop: rank 0 says so once every rank did one round.
    local i
    for i in $(seq 400); do
        grep -q '^launch_ops: looping' "$out" && break
        kill -0 $upid 2>/dev/null || break
        sleep 0.05
    done
    if ! grep -q '^launch_ops: looping' "$out"; then
        kill -9 $upid 2>/dev/null; wait $upid 2>/dev/null
        echo "fail 0 0 0 job-did-not-start:$(tr '\n' ' ' <"$out" | cut -c1-200)"
        return
    fi
    local jobid pids=()
    jobid=$(sed -n 's/^umprun: job \([0-9a-f]\{16\}\),.*/\1/p' "$out" | head -1)
    # The ranks: processes of the program itself (srun and its helpers
    # carry the token on their command lines too).
    local comm
    comm=$(basename "$prog" | cut -c1-15)
    mapfile -t pids < <(pgrep -f -- "$token" | grep -vx "$upid" | while read -r p; do
        [ "$(cat /proc/$p/comm 2>/dev/null)" = "$comm" ] && echo "$p"
    done)
    if [ ${#pids[@]} -ne $NRANKS ]; then
        kill -9 $upid 2>/dev/null; wait $upid 2>/dev/null
        echo "fail 0 0 0 found-${#pids[@]}-rank-processes"
        return
    fi
    # The job's shared-memory files, by name, from the ranks' mappings
    # (srun gives no job id to look for).
    local shmfiles="" p
    for p in "${pids[@]}"; do
        shmfiles+=" $(grep -o '/dev/shm/ump-[^ ]*' /proc/$p/maps 2>/dev/null | tr '\n' ' ')"
    done
    # A random moment: 0..999 ms into the loop.
    sleep "0.$(printf '%03d' $((RANDOM % 1000)))"
    local victim=${pids[$((RANDOM % NRANKS))]}
    local vrank
    vrank=$(tr '\0' '\n' </proc/"$victim"/environ 2>/dev/null | sed -n 's/^UMP_JOB_RANK=//p')
    local t0 t1 rc
    t0=$(now_ns)
    kill -9 "$victim" 2>/dev/null
    sleep 10 &
    local spid=$!
    wait -n $upid $spid
    t1=$(now_ns)
    if kill -0 $upid 2>/dev/null; then
        kill -9 $upid 2>/dev/null; wait $upid 2>/dev/null
        rc=hang
    else
        wait $upid
        rc=$?
    fi
    kill $spid 2>/dev/null; wait $spid 2>/dev/null
    local ms=$(((t1 - t0) / 1000000))
    # Processes: the ranks' pids, anything in their process groups (each
    # rank leads its own), anything carrying the token. Init may take a
    # moment to reap the last ones.
    local orphans=0
    for i in $(seq 20); do
        orphans=0
        for p in "${pids[@]}"; do
            if [ -d /proc/$p ] && [ "$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" != Z ]; then
                orphans=$((orphans + 1))
            fi
            orphans=$((orphans + $(pgrep -g "$p" 2>/dev/null | grep -cvx "$p")))
        done
        orphans=$((orphans + $(pgrep -f -- "$token" | wc -l)))
        [ $orphans -eq 0 ] && break
        sleep 0.05
    done
    local leftovers=0
    [ -n "$jobid" ] && leftovers=$(ls /dev/shm 2>/dev/null | grep -c "^ump-$jobid")
    for p in $shmfiles; do
        [ -e "$p" ] && [ -z "$jobid" ] && leftovers=$((leftovers + 1))
    done
    local why=""
    [ "$rc" = hang ] && why="umprun-still-running-10s-after-the-kill"
    [ "$rc" = 0 ] && why="umprun-exited-0"
    [ -z "$why" ] && [ $ms -ge $EXIT_LIMIT_MS ] && why="exit-took-${ms}ms"
    # umprun's failure line names the killed rank: its own verdict, or,
    # when a peer noticed the death first and aborted, that peer's message.
    [ -z "$why" ] && [ "$kind" != slurm ] &&
        ! grep -Eq "^umprun: .*(pid $victim\) was killed by SIGKILL|peer rank $vrank\))" "$out" &&
        why="no-line-naming-the-killed-rank"
    [ -z "$why" ] && [ $orphans -ne 0 ] && why="$orphans-processes-left"
    [ -z "$why" ] && [ "$leftovers" -ne 0 ] && why="$leftovers-shm-files-left"
    if [ -n "$why" ]; then
        cp "$out" "$work/../fault-campaign-$kind-$n.log" 2>/dev/null
        echo "fail $ms $orphans $leftovers $why"
        # Clean up what the failure left, so later trials start clean.
        pkill -9 -f -- "$token" 2>/dev/null
        [ -n "$jobid" ] && rm -f /dev/shm/ump-"$jobid"*
        for p in $shmfiles; do rm -f "$p"; done
    else
        echo "ok $ms $orphans $leftovers"
    fi
    rm -f "$out"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }

# Why the slurm kind cannot run here, or nothing.
slurm_why() {
    [ "$(id -u)" -eq 0 ] || { echo "slurmd must run as root to start tasks"; return; }
    local c
    for c in srun slurmctld slurmd munged sinfo; do
        command -v $c >/dev/null || { echo "no $c (Debian: slurmd slurmctld slurm-client munge)"; return; }
    done
    local cache
    cache=$(dirname "$(dirname "$umprun")")/CMakeCache.txt
    grep -q '^PMIX_FOUND:INTERNAL=1' "$cache" 2>/dev/null ||
        echo "the library in $(dirname "$cache") was built without PMIx (libpmix-dev)"
}

status=0
printf '%-6s %6s %8s %8s %8s %9s %8s\n' kind trials med_ms max_ms orphans leftovers failures
IFS=, read -r -a klist <<<"$kinds"
for kind in "${klist[@]}"; do
    if [ -z "$(kind_env "$kind")" ]; then
        echo "fault-campaign: unknown kind $kind" >&2
        exit 2
    fi
    if [ "$kind" = slurm ]; then
        why=$(slurm_why)
        if [ -n "$why" ]; then
            printf '%-6s %6s %8s %8s %8s %9s %8s  skipped: %s\n' slurm 0 - - - - - "$why"
            continue
        fi
        fail() { echo "fault-campaign: slurm cluster: $*" >&2; exit 1; }
        . "$root/tests/pmix/cluster.sh"
        # The throwaway cluster may fail to come up on a loaded machine (a
        # daemon slow to answer, a port the previous cluster still holds):
        # one more try, then say why.
        if ! cluster_start "$work/cluster" >"$work/cluster.log" 2>&1; then
            cluster_stop >>"$work/cluster.log" 2>&1
            sleep 2
            if ! cluster_start "$work/cluster" >>"$work/cluster.log" 2>&1; then
                echo "fault-campaign: the slurm cluster did not start; its log ends:" >&2
                tail -15 "$work/cluster.log" >&2
                cluster_stop >/dev/null 2>&1
                exit 1
            fi
        fi
        trap 'cluster_stop; [ -n "${MUNGE_SHORT:-}" ] && rm -rf "$MUNGE_SHORT"; rm -rf "$work"' EXIT
    fi
    times="$work/$kind.times"
    : >"$times"
    fails=0 orphans=0 leftovers=0
    for n in $(seq "$trials"); do
        read -r res ms orph left why <<<"$(trial "$kind" "$n")"
        orphans=$((orphans + orph))
        leftovers=$((leftovers + left))
        [ "$res" = ok ] || { fails=$((fails + 1)); echo "fault-campaign: $kind trial $n: $why" >&2; }
        [ "$ms" -gt 0 ] && echo "$ms" >>"$times"
    done
    med=$(median <"$times")
    max=$(sort -n "$times" | tail -1)
    [ $fails -eq 0 ] || status=1
    printf '%-6s %6d %8s %8s %8d %9d %8d\n' "$kind" "$trials" "${med:--}" "${max:--}" $orphans $leftovers $fails
done
exit $status
