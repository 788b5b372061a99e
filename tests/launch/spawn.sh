#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# spawn.sh UMPRUN PROG: umprun starting processes at run time (launch_spawn.c).
#  1. a 2-rank job whose rank 0 spawns a group of 2 and a group of 1+2
#     (tagged [1,r] and [2,r]), sees refusals and forged requests refused:
#     exit 0, every line there, the groups' output files, no leftovers;
#  2. a spawned rank exits 3: umprun exits 3 naming the spawned group;
#  3. a spawned process outlives the first group: umprun waits for it, and
#     its --timeout stops it (exit 124);
#  4. a group placed on a host umprun reaches through its rsh agent (a fake
#     ssh running the command here, as basic.sh does).
UMPRUN=$1 PROG=$2
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp) DIR=$(mktemp -d) TMPD=$(mktemp -d)
trap 'rm -rf "$OUT" "$DIR" "$TMPD"' EXIT

run_umprun "$OUT" --timeout 100 --tag-output --output-filename "$DIR" -n 2 "$PROG" parent
cat "$OUT"
[ "$RC" = 0 ] || fail "umprun exited $RC"
for line in '[0] parent rank 0 ok' '[1] parent rank 1 ok' \
            '[1,0] child A rank 0 of 2 ok' '[1,1] child A rank 1 of 2 ok' \
            '[2,0] child M rank 0 of 3 ok' '[2,1] child M rank 1 of 3 ok' \
            '[2,2] child M rank 2 of 3 ok'; do
    grep -qxF "$line" "$OUT" || fail "no line '$line'"
done
[ "$(grep -c '^\[0\] refused as expected' "$OUT")" = 4 ] || fail "want 4 refusals"
[ "$(grep -c '^\[0\] forged frame [0-9] refused: malformed spawn request' "$OUT")" = 7 ] ||
    fail "want 7 forged frames refused"
[ "$(grep -c '^umprun: rank 0 (host .*) sent a malformed spawn request' "$OUT")" = 7 ] ||
    fail "umprun did not log the 7 forged requests"
grep -q '^umprun: .*spawned group 2 (job [0-9a-f]\{16\}): 3 processes' "$OUT" ||
    fail "no verbose line for group 2"
grep -qxF 'child M rank 2 of 3 ok' "$DIR/3/rank.2/stdout" || fail "no output file of group 2"
grep -qxF 'child A rank 1 of 2 ok' "$DIR/2/rank.1/stdout" || fail "no output file of group 1"
grep -qxF 'parent rank 0 ok' "$DIR/1/rank.0/stdout" || fail "no output file of the first group"
no_leftovers "$PROG child"

run_umprun "$OUT" --timeout 100 -n 2 "$PROG" failparent
cat "$OUT"
[ "$RC" = 3 ] || fail "umprun exited $RC, want 3"
grep -qE '^umprun: rank 1 of spawned group 1 \(host [^,]+, pid [0-9]+\) exited with code 3; stopping the job$' "$OUT" ||
    fail "no verdict naming the spawned group"
[ "$(grep -c '^umprun: .*stopping the job' "$OUT")" = 1 ] || fail "want exactly one failure line"
no_leftovers "$PROG failparent"
no_leftovers "$PROG child"

run_umprun "$OUT" --timeout 8 -n 2 "$PROG" hangparent
cat "$OUT"
[ "$RC" = 124 ] || fail "umprun exited $RC, want 124"
grep -qxF 'child A rank 0 hangs' "$OUT" || fail "the child did not run"
grep -qxF 'parent rank 1 ok' "$OUT" || fail "the first group did not finish"
grep -q '^umprun: job timed out after 8 s' "$OUT" || fail "no timeout line"
no_leftovers "$PROG hangparent"
no_leftovers "$PROG child"

printf '#!/bin/sh\nhost=$1; shift\nexec sh -c "$*"\n' >"$TMPD/ssh"
chmod +x "$TMPD/ssh"
run_umprun "$OUT" --timeout 100 --tag-output --host fake-a:1,fake-b:1 --rsh "$TMPD/ssh" \
    "$PROG" remoteparent
cat "$OUT"
[ "$RC" = 0 ] || fail "umprun exited $RC"
for line in '[0] parent rank 0 ok' '[1] parent rank 1 ok' \
            '[1,0] child R rank 0 of 2 ok' '[1,1] child R rank 1 of 2 ok'; do
    grep -qxF "$line" "$OUT" || fail "no line '$line'"
done
no_leftovers "$PROG remoteparent"
no_leftovers "$PROG child"
echo PASS
