#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# netns.sh UMPRUN KVSPROG: two "hosts" as network namespaces joined by a
# veth pair (10.211.0.1 and .2). umprun runs in the first and starts 2 ranks
# in each through `--rsh "ip netns exec"`; the ranks must see node ids
# 0,0,1,1 and the addresses of their own namespace. Needs root (skips, 77).
UMPRUN=$1 PROG=$2
. "$(dirname "$0")/lib.sh"
A=umpA$$ B=umpB$$ VA=uva$$ VB=uvb$$
cleanup() {
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
    ip link del "$VA" 2>/dev/null
    rm -f "$OUT"
}
OUT=$(mktemp)
trap cleanup EXIT
if ! err=$(ip netns add "$A" 2>&1); then
    echo "SKIP: cannot create a network namespace: $err"
    exit 77
fi
ip netns add "$B" || fail "netns add $B"
ip link add "$VA" type veth peer name "$VB" || { echo "SKIP: no veth: $?"; exit 77; }
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" || fail "move veth"
ip -n "$A" addr add 10.211.0.1/24 dev "$VA" && ip -n "$B" addr add 10.211.0.2/24 dev "$VB" ||
    fail "addresses"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up || fail "lo up"; done
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up || fail "veth up"

timeout 30 ip netns exec "$A" "$UMPRUN" --timeout 20 --host "$A:2,$B:2" --rsh "ip netns exec" \
    --tag-output "$PROG" 0,0,1,1 >"$OUT" 2>&1 </dev/null
RC=$?
cat "$OUT"
[ $RC = 0 ] || fail "umprun exited $RC"
for r in 0 1; do grep -qx "\[$r\] rank $r ok node 0 addr 10.211.0.1 backend umprun" "$OUT" || fail "rank $r"; done
for r in 2 3; do grep -qx "\[$r\] rank $r ok node 1 addr 10.211.0.2 backend umprun" "$OUT" || fail "rank $r"; done

# A rank on the far "host" killed mid-job: umprun still names it and ends.
TOKEN="ump-netns-$$-$RANDOM"
timeout 30 ip netns exec "$A" "$UMPRUN" --host "$A:2,$B:2" --rsh "ip netns exec" \
    "$(dirname "$PROG")/launch_fault" kill9 3 fence "$TOKEN" >"$OUT" 2>&1 </dev/null
RC=$?
cat "$OUT"
[ $RC = 137 ] || fail "kill9 on the far host gave $RC"
grep -q "^umprun: rank 3 (host $B, pid [0-9]*) was killed by SIGKILL" "$OUT" || fail "no failure line"
JOBID=none
no_leftovers "$TOKEN"
echo PASS
