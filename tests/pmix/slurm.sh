#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# srun --mpi=pmix on a throwaway two-node Slurm cluster (cluster.sh):
#  1. pmix_rt: rank, size, node map, local ranks, job id, secret, put/fence/get
#     of every rank's values over two epochs; ranks 0,1 on one node, 2,3 on
#     the other; a two-node job publishes a non-loopback address
#  2. pmix_p2p: data between all pairs through ump_*, shm within a node and
#     tcp across (when the tree has those transports)
#  2b. srun --mpi=none: each task fails with a reason instead of running
#     as a lone rank 0
#  3. a rank exits 3 after init while the others wait in a fence: the job
#     ends (no -K: our exit hook aborts through PMIx) with a non-zero status
#  4. a rank calls ump_rt_abort(5): the job ends with a non-zero status
#  5. srun -K: a rank killed by SIGKILL in a fence ends the job (status != 0)
# Usage: slurm.sh HAVE_PMIX BUILD_DIR PMIX_RT PMIX_P2P XPORTS
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/cluster.sh"

[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start tasks; run this test as root"
pmix_need_packages slurmd slurmctld slurm-client munge libpmix-dev
ensure_pmix_build
# Debian may have started the system's own munged/slurmd from the package
# scripts; they use other sockets and ports, so ours do not meet them.
# On a loaded machine the throwaway cluster may not come up at once (a
# daemon slow to answer): stop it and try once more.
if ! cluster_start "$BUILD/tests/pmix-cluster"; then
    echo "the cluster did not come up; starting it again"
    cluster_stop
    sleep 2
    cluster_start "$BUILD/tests/pmix-cluster" || fail "the Slurm cluster did not come up twice"
fi
out=$BUILD/tests/pmix-cluster/out
SRUN=(srun --mpi=pmix -N2 --ntasks-per-node=2)

echo "1. srun -K ${SRUN[*]:1} pmix_rt"
run 40 "$out.rt" "${SRUN[@]}" -K "$PMIX_RT" ok 2
[ $RC -eq 0 ] || { cat "$out.rt"; cluster_logs; fail "pmix_rt failed under srun"; }
check_layout "$out.rt" 4 2
grep -q ' host n1 ' "$out.rt" && grep -q ' host n2 ' "$out.rt" ||
    fail "the ranks do not name the Slurm nodes n1 and n2 as their hosts"

if [ "$XPORTS" = shm,tcp ]; then
    echo "2. srun -K ${SRUN[*]:1} pmix_p2p (UMP_LOG=trace)"
    UMP_LOG=trace run 60 "$out.p2p" "${SRUN[@]}" -K "$PMIX_P2P"
    [ $RC -eq 0 ] || { tail -50 "$out.p2p"; fail "pmix_p2p failed under srun"; }
    check_transports "$out.p2p" 4
else
    echo "2. skipped: this tree has no shm and tcp transports yet"
fi

echo "2b. srun without --mpi=pmix: every task refuses to become a lone rank 0"
run 40 "$out.nopmix" srun --mpi=none -N2 --ntasks-per-node=2 "$PMIX_RT" info
[ $RC -ne 0 ] && [ $RC -ne 124 ] && [ "$(grep -c 'srun started 4 tasks without PMIx' "$out.nopmix")" -eq 4 ] ||
    { cat "$out.nopmix"; fail "status $RC: srun without PMIx was not refused by every task"; }

echo "3. rank 1 exits 3 while the others fence (no -K)"
run 40 "$out.exit" "${SRUN[@]}" "$PMIX_RT" exit3
[ $RC -ne 0 ] && [ $RC -ne 124 ] && [ $RC -ne 137 ] || { cat "$out.exit"; fail "status $RC: the job did not end by itself"; }
grep -q 'rank 1 exited with code 3 without finalizing ump' "$out.exit" ||
    { cat "$out.exit"; fail "no message naming rank 1"; }

echo "4. rank 1 calls ump_rt_abort(5)"
run 40 "$out.abort" "${SRUN[@]}" "$PMIX_RT" abort
[ $RC -ne 0 ] && [ $RC -ne 124 ] && [ $RC -ne 137 ] || { cat "$out.abort"; fail "status $RC: the job did not end by itself"; }
grep -q 'rank 1 aborted the job (code 5): pmix_rt test abort' "$out.abort" ||
    { cat "$out.abort"; fail "no abort message"; }

echo "5. srun -K: rank 1 is killed by SIGKILL while the others fence"
run 40 "$out.kill" "${SRUN[@]}" -K "$PMIX_RT" kill9
[ $RC -ne 0 ] && [ $RC -ne 124 ] && [ $RC -ne 137 ] || { cat "$out.kill"; fail "status $RC: the job did not end by itself"; }
echo "PASS"
