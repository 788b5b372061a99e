#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# basic.sh UMPRUN FAULTPROG: programs that do not use ump, stdin, output
# tagging, -x, command-line errors, --timeout.
UMPRUN=$1 PROG=$2
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

# A program that never calls ump runs like under any launcher.
"$UMPRUN" -n 2 hostname >"$OUT" </dev/null || fail "umprun -n 2 hostname exited $?"
[ "$(wc -l <"$OUT")" = 2 ] || fail "want 2 lines, got: $(cat "$OUT")"
[ "$(sort -u "$OUT")" = "$(hostname)" ] || fail "unexpected output: $(cat "$OUT")"

# stdin reaches rank 0 (and only rank 0); --tag-output prefixes every line.
printf 'line one\nline two\n' | "$UMPRUN" -n 3 --tag-output "$PROG" cat >"$OUT" ||
    fail "cat job exited $?"
cat "$OUT"
grep -qx '\[0\] line one' "$OUT" && grep -qx '\[0\] line two' "$OUT" || fail "stdin lost"
[ "$(grep -c 'line' "$OUT")" = 2 ] || fail "stdin went to other ranks"
for r in 0 1 2; do grep -qx "\[$r\] rank $r done" "$OUT" || fail "rank $r line untagged"; done

# Lines from many ranks never mix mid-line.
"$UMPRUN" -n 4 sh -c 'for i in $(seq 200); do echo "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa$i"; done' >"$OUT" </dev/null
[ "$(grep -cvE '^a{52}[0-9]+$' "$OUT")" = 0 ] || fail "interleaved lines"
[ "$(wc -l <"$OUT")" = 800 ] || fail "lines lost: $(wc -l <"$OUT")"

# -x VAR=VAL sets, -x VAR exports.
UMP_TEST_X=from-env "$UMPRUN" -n 1 -x UMP_TEST_X -x UMP_TEST_Y=set sh -c 'echo "$UMP_TEST_X $UMP_TEST_Y $UMP_JOB_RANK $UMP_JOB_SIZE"' >"$OUT" </dev/null
[ "$(cat "$OUT")" = "from-env set 0 1" ] || fail "-x: $(cat "$OUT")"

# Exit status of a plain failing program, and of a program killed by a signal.
"$UMPRUN" -n 2 sh -c 'exit 5' </dev/null 2>"$OUT"; rc=$?
[ $rc = 5 ] || fail "exit 5 gave $rc"
grep -q 'exited with code 5' "$OUT" || fail "no exit line"
"$UMPRUN" -n 2 sh -c 'kill -TERM $$' </dev/null 2>"$OUT"; rc=$?
[ $rc = 143 ] || fail "SIGTERM gave $rc"
grep -q 'killed by SIGTERM' "$OUT" || fail "no signal line"

# Command-line errors: status 2 and a message.
for args in "" "-n" "-n 0 true" "-n x true" "--bogus true" "--bind-to socket true" \
    "--timeout -1 true" "-n 3 --host a:1,b:1 true" "--host a:0 true"; do
    "$UMPRUN" $args >/dev/null 2>"$OUT" </dev/null; rc=$?
    [ $rc = 2 ] || fail "'umprun $args' exited $rc"
    grep -q '^umprun: ' "$OUT" || fail "'umprun $args' said nothing"
done
"$UMPRUN" --help | grep -q -- '--tag-output' || fail "--help"
"$UMPRUN" -n 1 /nonexistent/prog </dev/null 2>"$OUT"; rc=$?
[ $rc = 127 ] || fail "missing program gave $rc"

# --timeout stops a job that sleeps: status 124, within ~1 s of the limit.
TOKEN="ump-timeout-$$-$RANDOM"
run_umprun "$OUT" --timeout 1 -n 2 "$PROG" none 0 sleep "$TOKEN"
cat "$OUT"
[ $RC = 124 ] || fail "timeout gave $RC"
grep -q '^umprun: job timed out after 1 s' "$OUT" || fail "no timeout line"
[ "$MS" -lt 3500 ] || fail "timeout took $MS ms"
no_leftovers "$TOKEN"
echo PASS
