#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rank_env.sh RANKS VAR=VALUE... -- PROGRAM [ARGS...]: run by umprun as each
# rank's program, exports the variables only in the ranks listed (RANKS:
# comma-separated numbers, matched against UMP_JOB_RANK), then runs PROGRAM,
# so one job can start its ranks with different settings.
ranks=$1
shift
mine=false
case ",$ranks," in *",${UMP_JOB_RANK:-none},"*) mine=true ;; esac
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    if $mine; then export "$1"; fi
    shift
done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "rank_env.sh: no program" >&2; exit 2; }
exec "$@"
