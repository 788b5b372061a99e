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
# SIGINT and SIGTERM to umprun reach every rank; umprun exits 128+signal.
for sig in INT TERM; do
    TOKEN="ump-sig-$$-$RANDOM"
    t0=$(now_ms)
    "$UMPRUN" -v -n 3 "$PROG" none 0 fence "$TOKEN" >"$OUT" 2>&1 </dev/null &
    UPID=$!
    for i in $(seq 50); do
        [ "$(pgrep -f -- "$TOKEN" | wc -l)" -ge 4 ] && break
        sleep 0.1
    done
    sleep 0.2
    kill -$sig $UPID
    wait $UPID; rc=$?
    MS=$(( $(now_ms) - t0 ))
    cat "$OUT"
    want=$((128 + $(kill -l $sig)))
    [ $rc = $want ] || fail "SIG$sig to umprun gave $rc, want $want"
    [ "$MS" -lt 8000 ] || fail "SIG$sig took $MS ms"
    grep -q "^umprun: got SIG$sig" "$OUT" || fail "no line about SIG$sig"
    JOBID=$(sed -n 's/^umprun: job \([0-9a-f]\{16\}\),.*/\1/p' "$OUT" | head -1)
    no_leftovers "$TOKEN"
done

# The rsh path with ssh-style quoting: a fake "ssh" that, like ssh, joins
# its words into one string for a shell on the "remote" host (here: this one).
TMPD=$(mktemp -d)
trap 'rm -f "$OUT"; rm -rf "$TMPD"' EXIT
printf '#!/bin/sh\nhost=$1; shift\nexec sh -c "$*"\n' >"$TMPD/ssh"
chmod +x "$TMPD/ssh"
"$UMPRUN" --host fake-a:1,fake-b:1 --rsh "$TMPD/ssh" --tag-output \
    printf '%s|' "a  b" "it's" '$HOME' >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "fake ssh job"; }
cat "$OUT"; echo
[ "$(cat "$OUT")" = "[0] a  b|it's|\$HOME|
[1] a  b|it's|\$HOME|" ] || [ "$(cat "$OUT")" = "[1] a  b|it's|\$HOME|
[0] a  b|it's|\$HOME|" ] || fail "quoting through ssh"
"$UMPRUN" --host fake-a:2,fake-b:1 --rsh "$TMPD/ssh" "$(dirname "$PROG")/launch_kvs" 0,0,1 \
    >"$OUT" 2>&1 </dev/null || { cat "$OUT"; fail "kvs through fake ssh"; }
[ "$(grep -c ' ok node' "$OUT")" = 3 ] || fail "kvs through fake ssh: $(cat "$OUT")"
# A hostfile: comments, "name slots=N", "name:N"; -n defaults to the slots.
cat >"$TMPD/hosts" <<HOSTS
# two slots here
localhost slots=2
$(hostname):1   # this machine by name: also local
HOSTS
"$UMPRUN" --hostfile "$TMPD/hosts" sh -c 'echo "$UMP_JOB_RANK/$UMP_JOB_SIZE node $UMP_JOB_NODE_ID of $UMP_JOB_NUM_NODES local $UMP_JOB_LOCAL_RANK/$UMP_JOB_LOCAL_SIZE on $UMP_JOB_HOST"' \
    >"$OUT" </dev/null || fail "hostfile job"
sort "$OUT" >"$OUT.s"; mv "$OUT.s" "$OUT"
cat "$OUT"
[ "$(cat "$OUT")" = "0/3 node 0 of 2 local 0/2 on localhost
1/3 node 0 of 2 local 1/2 on localhost
2/3 node 1 of 2 local 0/1 on $(hostname)" ] || fail "hostfile placement"
"$UMPRUN" -n 4 --hostfile "$TMPD/hosts" true </dev/null 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "4 ranks on 3 slots gave $rc"

# --bind-to core pins each rank to its own core; none leaves them free.
ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
    "$UMPRUN" -n 2 --bind-to core sh -c 'taskset -pc $$ | sed "s/.*: //"' >"$OUT" </dev/null
    [ "$(sort -u "$OUT" | wc -l)" = 2 ] && ! grep -q '[,-]' "$OUT" || fail "bind core: $(cat "$OUT")"
    "$UMPRUN" -n 2 --bind-to none sh -c 'taskset -pc $$ | sed "s/.*: //"' >"$OUT" </dev/null
    [ "$(sort -u "$OUT")" = "$(taskset -pc $$ | sed "s/.*: //")" ] || fail "bind none: $(cat "$OUT")"
fi
# umprun itself killed with SIGKILL: its ranks die with it (parent-death signal).
TOKEN="ump-orphan-$$-$RANDOM"
"$UMPRUN" -n 3 -x UMP_TEST_NO_SHM=1 "$PROG" none 1 fence "$TOKEN" >/dev/null 2>&1 </dev/null &
UPID=$!
for i in $(seq 50); do
    [ "$(pgrep -f -- "$TOKEN" | wc -l)" -ge 4 ] && break
    sleep 0.1
done
kill -9 $UPID
wait $UPID 2>/dev/null
JOBID=none
no_leftovers "$TOKEN"
echo PASS
