# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the launcher test scripts (sourced).
fail() { echo "FAIL: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }
# run_umprun OUTFILE args...: runs umprun (-v, to learn the job id), records
# the exit status in RC, the wall time in MS and the job id in JOBID.
run_umprun() {
    local out=$1; shift
    local t0; t0=$(now_ms)
    "$UMPRUN" -v "$@" >"$out" 2>&1 </dev/null
    RC=$?
    MS=$(( $(now_ms) - t0 ))
    JOBID=$(sed -n 's/^umprun: job \([0-9a-f]\{16\}\),.*/\1/p' "$out" | head -1)
    [ -n "$JOBID" ] || { cat "$out"; fail "no job id in umprun -v output"; }
}
# no_leftovers TOKEN: no process whose command line holds TOKEN, no shm file.
no_leftovers() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do   # reaping by init may lag a little
        pgrep -f -- "$1" >/dev/null || break
        sleep 0.1
    done
    if pgrep -f -- "$1" >/dev/null; then
        pgrep -a -f -- "$1" >&2
        fail "processes left over"
    fi
    if ls /dev/shm/ump-"$JOBID"* >/dev/null 2>&1; then
        ls -l /dev/shm/ump-"$JOBID"* >&2
        fail "shm files of job $JOBID left over"
    fi
}
