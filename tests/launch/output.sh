#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# output.sh UMPRUN OUTPROG: what ranks print reaches the user, live, and
# before umprun's verdict when the job fails (MPI_Abort, a fatal MPI error);
# --output-filename; MPI_Get_processor_name under umprun.
UMPRUN=$1 PROG=$2
. "$(dirname "$0")/lib.sh"
TMPD=$(mktemp -d)
OUT=$TMPD/out
trap 'rm -rf "$TMPD"' EXIT

# before_verdict FILE LINE...: every LINE is in FILE, above the verdict line.
before_verdict() {
    local f=$1 v l n; shift
    v=$(grep -n '^umprun: .*stopping the job' "$f" | head -1 | cut -d: -f1)
    [ -n "$v" ] || fail "no verdict in: $(cat "$f")"
    for l in "$@"; do
        n=$(grep -nxF -- "$l" "$f" | head -1 | cut -d: -f1)
        [ -n "$n" ] || fail "'$l' is missing"
        [ "$n" -lt "$v" ] || fail "'$l' (line $n) comes after the verdict (line $v)"
    done
}

# 1. MPI_Abort: 3 stdout lines of each rank and rank 0's stderr line come
#    before the verdict, though the program never flushes.
for n in 1 2 3; do
    "$UMPRUN" --timeout 60 -n $n "$PROG" abort >"$OUT" 2>&1 </dev/null; rc=$?
    cat "$OUT"
    [ $rc = 5 ] || fail "abort at $n ranks: exit status $rc, want 5"
    want=()
    for r in $(seq 0 $((n - 1))); do
        for i in 1 2 3; do want+=("rank $r step $i"); done
    done
    before_verdict "$OUT" "${want[@]}" "rank 0 says goodbye on stderr"
    grep -q '^umprun: rank 0 .* called abort with code 5' "$OUT" || fail "verdict names rank 0"
done

# 2. A fatal MPI error on rank 1: everyone's lines, the rank's own stderr
#    line and ump's error message, then the verdict.
"$UMPRUN" --timeout 60 -n 2 "$PROG" fatal >"$OUT" 2>&1 </dev/null; rc=$?
cat "$OUT"
[ $rc != 0 ] || fail "a fatal error exited 0"
before_verdict "$OUT" "rank 0 step 1" "rank 0 step 2" "rank 0 step 3" "rank 1 step 1" \
    "rank 1 step 2" "rank 1 step 3" "rank 1 says goodbye on stderr"
v=$(grep -n '^umprun: rank 1 .*stopping the job' "$OUT" | cut -d: -f1)
e=$(grep -n '^ump: MPI error on rank 1' "$OUT" | head -1 | cut -d: -f1)
[ -n "$v" ] && [ -n "$e" ] && [ "$e" -lt "$v" ] || fail "the MPI error message is not before the verdict"
grep -q 'invalid send returned' "$OUT" && fail "the fatal error handler returned"

# 3. Live: rank 0 prints a line and then blocks until this script writes to
#    a FIFO; the line must reach us while the rank still waits (if output
#    were held until exit, the read below would wait for ever: its bound
#    only keeps a broken build from hanging the test).
mkfifo "$TMPD/release" "$TMPD/stream"
exec 3<>"$TMPD/stream" # read-write: opening does not block
"$UMPRUN" --timeout 120 -n 2 "$PROG" live "$TMPD/release" >"$TMPD/stream" 2>"$TMPD/err" </dev/null &
UPID=$!
line=
read -r -t 100 -u 3 line
[ "$line" = "rank 0 is alive" ] || { kill $UPID; fail "rank 0's line did not arrive while it ran: '$line'"; }
kill -0 $UPID 2>/dev/null || fail "the job ended before it was released"
echo go >"$TMPD/release"
wait $UPID; rc=$?
[ $rc = 0 ] || { cat "$TMPD/err"; fail "live job exited $rc"; }
read -r -t 10 -u 3 line
[ "$line" = "rank 0 was released" ] || fail "second line: '$line'"
exec 3<&-

# 4. Many lines from several ranks: none lost, each rank's in order.
N=100000
"$UMPRUN" --timeout 120 -n 2 "$PROG" lines $N >"$OUT" </dev/null || fail "lines job exited $?"
for r in 0 1; do
    grep "^rank $r line " "$OUT" | awk -v n=$N '$4 != NR - 1 { bad = 1 } END { exit bad || NR != n }' ||
        fail "rank $r: lines lost or out of order"
done
[ "$(wc -l <"$OUT")" = $((2 * N)) ] || fail "want $((2 * N)) lines, got $(wc -l <"$OUT")"

# 5. --output-filename DIR: Open MPI's layout DIR/1/rank.N/{stdout,stderr},
#    ranks zero-filled to one width; output still shown unless :nocopy.
D=$TMPD/outdir
"$UMPRUN" -n 11 --output-filename "$D" sh -c 'echo "out $UMP_JOB_RANK"; echo "err $UMP_JOB_RANK" >&2' \
    >"$OUT" 2>"$TMPD/err" </dev/null || fail "--output-filename job exited $?"
[ "$(wc -l <"$OUT")" = 11 ] && [ "$(wc -l <"$TMPD/err")" = 11 ] || fail "output not copied to the terminal"
for r in $(seq 0 10); do
    p=$(printf '%s/1/rank.%02d' "$D" $r)
    [ "$(cat "$p/stdout")" = "out $r" ] || fail "$p/stdout: $(cat "$p/stdout")"
    [ "$(cat "$p/stderr")" = "err $r" ] || fail "$p/stderr: $(cat "$p/stderr")"
done
[ "$(ls "$D/1" | wc -l)" = 11 ] || fail "extra files: $(ls "$D/1")"
"$UMPRUN" -n 2 --tag-output --output-filename "$D/x:nocopy,nojobid" "$PROG" lines 3 >"$OUT" </dev/null ||
    fail "nocopy job exited $?"
[ ! -s "$OUT" ] || fail ":nocopy still printed: $(cat "$OUT")"
[ "$(cat "$D/x/rank.1/stdout")" = "rank 1 line 0
rank 1 line 1
rank 1 line 2" ] || fail "nojobid file (untagged): $(cat "$D/x/rank.1/stdout")"
"$UMPRUN" -n 1 --output-filename "$D/x:bogus" true >/dev/null 2>"$OUT" </dev/null; rc=$?
[ $rc = 2 ] && grep -q "unknown modifier 'bogus'" "$OUT" || fail "bad modifier: $rc $(cat "$OUT")"
touch "$TMPD/file"
"$UMPRUN" -n 1 --output-filename "$TMPD/file/sub" true >/dev/null 2>"$OUT" </dev/null; rc=$?
[ $rc != 0 ] && grep -q "cannot create" "$OUT" || fail "unwritable directory: $rc $(cat "$OUT")"

# 6. MPI_Get_processor_name is this machine's name, not umprun's "localhost".
"$UMPRUN" --timeout 60 -n 2 "$PROG" name >"$OUT" </dev/null || fail "name job exited $?"
h=$(hostname)
for r in 0 1; do
    grep -qxF "rank $r name $h len ${#h}" "$OUT" || fail "processor name: $(cat "$OUT")"
done
echo PASS
