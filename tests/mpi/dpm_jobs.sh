#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpm_jobs.sh UMPRUN DPM_COMM: two umprun jobs meet on a port. The server
# job (2 ranks) opens a port and accepts; a process of another job
# connects and must be refused (MPI_ERR_PORT in it, a logged refusal in the
# server, whose accept goes on); then the server's own rank 1 connects.
set -u
umprun=$1 prog=$2
dir=$(mktemp -d /tmp/ump-dpm-jobs.XXXXXX)
trap 'rm -rf "$dir"' EXIT
file=$dir/port
"$umprun" -n 2 --timeout 60 "$prog" --server "$file" >"$dir/server.log" 2>&1 &
server=$!
"$umprun" -n 1 --timeout 60 "$prog" --other-job "$file" >"$dir/other.log" 2>&1
other=$?
touch "$file.go"
wait $server
srv=$?
echo "--- server job (exit $srv)"
cat "$dir/server.log"
echo "--- other job (exit $other)"
cat "$dir/other.log"
fail=0
[ $other -eq 0 ] || { echo "dpm_jobs.sh: FAIL: the other job exited $other"; fail=1; }
[ $srv -eq 0 ] || { echo "dpm_jobs.sh: FAIL: the server job exited $srv"; fail=1; }
grep -q "refused a connection on port" "$dir/server.log" ||
    { echo "dpm_jobs.sh: FAIL: the server logged no refusal"; fail=1; }
grep -q "not a process of this job" "$dir/other.log" ||
    { echo "dpm_jobs.sh: FAIL: the other job was not told why"; fail=1; }
exit $fail
