#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# netns_loss.sh STREAM_PROG: the udp stream test across two network
# namespaces whose veth link is shaped by tc (tbf with a short queue), so
# bursts overflow it and datagrams are really lost. Every byte must arrive
# intact (the program checks) and the senders' counters must show
# retransmissions. Skips (77) where namespaces or tc are not available.
set -u
prog=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export UMP_TRANSPORTS=udp UMP_STATS=1
export UMP_NETNS_QDISC=${UMP_NETNS_QDISC:-"tbf rate 200mbit burst 16kb limit 24kb"}
"$here/../../scripts/netns-run.sh" -n 4 --timeout 100 --tag-output "$prog" 8m >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "FAIL: the job exited $rc"; exit 1; }
[ "$(grep -c 'all correct' "$out")" = 2 ] || { echo "FAIL: want two receivers reporting"; exit 1; }
rexmit=$(grep -o 'udp: sent=[0-9]* retransmitted=[0-9]*' "$out" |
         sed 's/.*retransmitted=//' | awk '{s += $1} END {print s + 0}')
echo "retransmitted datagrams in all: $rexmit"
[ "$rexmit" -gt 0 ] || { echo "FAIL: the shaped link dropped nothing (no retransmissions)"; exit 1; }
echo PASS
