#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# auth.sh UMPRUN FAULTPROG: the key-value server refuses (and logs) a
# connection without the job secret; a rank with a wrong secret gets
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

"$UMPRUN" -n 1 "$PROG" badsecret >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "badsecret job exited $?"; }
cat "$OUT"
grep -q 'ump_rt_init returned UMP_ERR_AUTH' "$OUT" || fail "no UMP_ERR_AUTH"
grep -q '^umprun: refused .*wrong job secret' "$OUT" || fail "umprun did not log it"

for var in UMP_JOB_RANK UMP_JOB_SIZE UMP_JOB_SECRET UMP_JOB_ID UMP_JOB_KVS UMP_JOB_NODE_ID \
    UMP_JOB_LOCAL_RANK; do
    "$UMPRUN" -n 1 "$PROG" badenv $var >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "badenv $var"; }
    grep -q 'returned UMP_ERR_BOOTSTRAP' "$OUT" || fail "$var: $(cat "$OUT")"
    grep -q "$var" "$OUT" || fail "the error does not name $var: $(cat "$OUT")"
done
echo PASS
