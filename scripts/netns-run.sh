#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# netns-run.sh - run a ump job over two "hosts" on one machine.
#
#   scripts/netns-run.sh <umprun args...>
#   e.g. scripts/netns-run.sh -n 4 --timeout 60 build/tests/mp/sizes
#
# Makes two network namespaces joined by a veth pair (10.212.0.1/24 and
# 10.212.0.2/24), runs umprun inside the first with
#   --host <ns1>:2,<ns2>:2 --rsh "ip netns exec"
# plus the given arguments, and returns umprun's exit status. Ranks on one
# namespace share memory (shm); between the namespaces only the veth network
# joins them (tcp). The namespaces are removed on exit, whatever happens.
# Exits 77 (ctest's skip code) with the reason when namespaces cannot be made.
#
# Environment: UMPRUN = the launcher (default: build/bin/umprun next to this
# script's repository). UMP_NETNS_QDISC = a tc qdisc put on both veth ends,
# e.g. "tbf rate 200mbit burst 16kb limit 32kb" (a shaper with a short
# queue: bursts beyond it are really dropped); skipped (77) without tc.
set -u

skip() {
    echo "netns-run: SKIP: $*" >&2
    exit 77
}

here=$(cd "$(dirname "$0")" && pwd)
umprun=${UMPRUN:-$here/../build/bin/umprun}
[ -x "$umprun" ] || { echo "netns-run: no launcher at $umprun (set UMPRUN)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
command -v ip >/dev/null 2>&1 || skip "the ip command (iproute2) is not installed"

# Names unique per run so parallel runs do not collide (interface names <= 15).
id=$$
ns1=umpA$id
ns2=umpB$id
va=umpva$id
vb=umpvb$id

cleanup() {
    ip netns del "$ns1" 2>/dev/null
    ip netns del "$ns2" 2>/dev/null
    ip link del "$va" 2>/dev/null
    true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Namespaces left by a run that was killed outright (SIGKILL skips traps).
for old in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^ump[AB][0-9]+$'); do
    kill -0 "${old#ump?}" 2>/dev/null || ip netns del "$old" 2>/dev/null
done

ip netns add "$ns1" 2>/dev/null || skip "cannot create a network namespace (ip netns add failed)"
ip netns add "$ns2" || skip "cannot create a second network namespace"
ip link add "$va" type veth peer name "$vb" 2>/dev/null || skip "cannot create a veth pair"
ip link set "$va" netns "$ns1" && ip link set "$vb" netns "$ns2" ||
    skip "cannot move veth ends into the namespaces"
ip -n "$ns1" addr add 10.212.0.1/24 dev "$va" &&
    ip -n "$ns2" addr add 10.212.0.2/24 dev "$vb" &&
    ip -n "$ns1" link set "$va" up && ip -n "$ns2" link set "$vb" up &&
    ip -n "$ns1" link set lo up && ip -n "$ns2" link set lo up ||
    skip "cannot configure the veth pair"

if [ -n "${UMP_NETNS_QDISC:-}" ]; then
    command -v tc >/dev/null 2>&1 || skip "UMP_NETNS_QDISC needs the tc command (iproute2)"
    # shellcheck disable=SC2086 # the qdisc spec is a list of words
    tc -n "$ns1" qdisc add dev "$va" root $UMP_NETNS_QDISC &&
        tc -n "$ns2" qdisc add dev "$vb" root $UMP_NETNS_QDISC ||
        skip "cannot add qdisc '$UMP_NETNS_QDISC' on the veth pair"
    echo "netns-run: qdisc on the veth pair: $UMP_NETNS_QDISC" >&2
fi

# The link must carry traffic before the job starts.
if command -v ping >/dev/null 2>&1; then
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        ip netns exec "$ns1" ping -c 1 -W 1 10.212.0.2 >/dev/null 2>&1 && break
        sleep 0.2
    done
fi

echo "netns-run: $ns1 (10.212.0.1) + $ns2 (10.212.0.2): $umprun --host $ns1:2,$ns2:2 $*" >&2
ip netns exec "$ns1" "$umprun" --host "$ns1:2,$ns2:2" --rsh "ip netns exec" "$@"
rc=$?
echo "netns-run: umprun exited $rc" >&2
exit $rc
