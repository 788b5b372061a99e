#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# fault.sh UMPRUN FAULTPROG MODE VICTIM WAIT WANT_RC 'WANT_TEXT'
# A 4-rank job where rank VICTIM fails in MODE while the others WAIT: umprun
# must exit WANT_RC within 5 s, print WANT_TEXT (a grep -E pattern naming the
# rank), and leave no process and no /dev/shm/ump-<jobid>* file behind.
# MODE "killed" has the test script kill -9 rank VICTIM from outside.
UMPRUN=$1 PROG=$2 MODE=$3 VICTIM=$4 WAIT=$5 WANT_RC=$6 WANT_TEXT=$7
. "$(dirname "$0")/lib.sh"
TOKEN="ump-fault-$MODE-$$-$RANDOM"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

if [ "$MODE" = killed ]; then
    t0=$(now_ms)
    # Rank SLEEPER sleeps, so the others (the victim among them) stay in WAIT.
    SLEEPER=$(( (VICTIM + 1) % 4 ))
    "$UMPRUN" -v -n 4 "$PROG" none $SLEEPER "$WAIT" "$TOKEN" >"$OUT" 2>&1 </dev/null &
    UPID=$!
    # Wait until all 4 ranks run and have had time to reach the fence.
    for i in $(seq 50); do
        [ "$(pgrep -f -- "$TOKEN" | grep -vx "$UPID" | wc -l)" -ge 4 ] && break
        sleep 0.1
    done
    sleep 0.5
    VPID=$(pgrep -f -- "$PROG none $SLEEPER $WAIT $TOKEN" | grep -vx "$UPID" | sort -n | sed -n "$((VICTIM + 1))p")
    [ -n "$VPID" ] || fail "rank processes not found"
    kill -9 "$VPID"
    wait "$UPID"
    RC=$?
    MS=$(( $(now_ms) - t0 ))
    JOBID=$(sed -n 's/^umprun: job \([0-9a-f]\{16\}\),.*/\1/p' "$OUT" | head -1)
    WANT_TEXT="pid $VPID\) was killed by SIGKILL"
else
    run_umprun "$OUT" -n 4 "$PROG" "$MODE" "$VICTIM" "$WAIT" "$TOKEN"
fi
cat "$OUT"
echo "exit status $RC after $MS ms"
[ "$RC" = "$WANT_RC" ] || fail "umprun exited $RC, want $WANT_RC"
[ "$MS" -lt 5000 ] || fail "took $MS ms"
grep -E -- "^umprun: .*$WANT_TEXT" "$OUT" || fail "no line matching '$WANT_TEXT'"
[ "$(grep -c '^umprun: .*stopping the job' "$OUT")" = 1 ] || fail "want exactly one failure line"
grep -q "removed /dev/shm/ump-$JOBID-test-" "$OUT" || fail "umprun did not remove the test shm files"
no_leftovers "$TOKEN"
echo PASS
