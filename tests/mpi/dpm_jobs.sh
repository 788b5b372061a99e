#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpm_jobs.sh UMPRUN DPM_COMM: two umprun jobs meet on a port. The server
# job (2 ranks) opens a port and accepts; a process of another job
# connects and must be refused (MPI_ERR_PORT in it, a logged refusal in the
# server, whose accept goes on); then the server's own rank 1 connects.
# Then two jobs started with one --secret-file meet, world to world.
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

# Two jobs started with one --secret-file meet: every rank of each job.
secret=$dir/secret
"$umprun" -n 2 --timeout 60 --secret-file "$secret" "$prog" --shared-server "$dir/port2" \
    >"$dir/sserver.log" 2>&1 &
server=$!
"$umprun" -n 2 --timeout 60 --secret-file "$secret" "$prog" --shared-client "$dir/port2" \
    >"$dir/sclient.log" 2>&1
client=$?
wait $server
srv=$?
echo "--- shared secret: server job (exit $srv)"
cat "$dir/sserver.log"
echo "--- shared secret: client job (exit $client)"
cat "$dir/sclient.log"
[ $srv -eq 0 ] && [ $client -eq 0 ] || { echo "dpm_jobs.sh: FAIL: jobs sharing a secret did not meet"; fail=1; }
[ "$(stat -c %a "$secret")" = 600 ] || { echo "dpm_jobs.sh: FAIL: the secret file is not mode 600"; fail=1; }
# A secret file others can read is refused.
chmod 644 "$secret"
"$umprun" -n 1 --timeout 30 --secret-file "$secret" true >"$dir/open.log" 2>&1 &&
    { echo "dpm_jobs.sh: FAIL: a world-readable secret file was taken"; fail=1; }
grep -q "only you can read" "$dir/open.log" ||
    { cat "$dir/open.log"; echo "dpm_jobs.sh: FAIL: no reason for refusing the secret file"; fail=1; }
exit $fail
