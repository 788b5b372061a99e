#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# auth.sh UMPRUN FAULTPROG: the key-value server refuses (and logs) a
# connection whose proof is made without the job secret, and a replayed
# genuine handshake; the job goes on; a rank with a wrong secret gets
# UMP_ERR_AUTH; bad UMP_JOB_* values give UMP_ERR_BOOTSTRAP.
UMPRUN=$1 PROG=$2
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

"$UMPRUN" -n 2 "$PROG" noauth >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "noauth job exited $?"; }
cat "$OUT"
[ "$(grep -c '^umprun: refused a key-value connection from 127.0.0.1:[0-9]*: wrong job secret' "$OUT")" = 2 ] ||
    fail "refusals not logged"
[ "$(grep -c 'noauth: refused as expected' "$OUT")" = 2 ] || fail "raw client not refused"
grep -q 'rank 1 done' "$OUT" || fail "the job did not go on after the refusals"

# Each of 3 ranks records its own genuine handshake through a proxy, then
# replays its bytes on a new connection: the server's fresh nonce makes the
# recorded proof worthless.
"$UMPRUN" --timeout 30 -n 3 "$PROG" replay >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "replay job exited $?"; }
cat "$OUT"
[ "$(grep -c '^umprun: refused a key-value connection from 127.0.0.1:[0-9]*: wrong job secret (failed authentication)' "$OUT")" = 3 ] ||
    fail "replays not refused and logged"
[ "$(grep -c 'replay: refused as expected' "$OUT")" = 3 ] || fail "a replay was not refused"
[ "$(grep -c 'rank [0-2] done' "$OUT")" = 3 ] || fail "the job did not go on after the replays"

"$UMPRUN" -n 1 "$PROG" badsecret >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "badsecret job exited $?"; }
cat "$OUT"
grep -q 'ump_rt_init returned UMP_ERR_AUTH' "$OUT" || fail "no UMP_ERR_AUTH"
# The server's proof, made with the real secret, fails first at the rank,
# which refuses the server before proving anything itself.
grep -q 'rt: refused the key-value server at 127.0.0.1:[0-9]*: it failed authentication' "$OUT" ||
    fail "the rank did not log it"

for var in UMP_JOB_RANK UMP_JOB_SIZE UMP_JOB_SECRET UMP_JOB_ID UMP_JOB_KVS UMP_JOB_NODE_ID \
    UMP_JOB_LOCAL_RANK; do
    "$UMPRUN" -n 1 "$PROG" badenv $var >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "badenv $var"; }
    grep -q 'returned UMP_ERR_BOOTSTRAP' "$OUT" || fail "$var: $(cat "$OUT")"
    grep -q "$var" "$OUT" || fail "the error does not name $var: $(cat "$OUT")"
done
echo PASS
