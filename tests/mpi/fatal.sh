#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# fatal.sh PATTERN COMMAND...: COMMAND (a launcher running a program that
# raises an error under MPI_ERRORS_ARE_FATAL) must exit non-zero, and its
# output must match the extended regex PATTERN (the name of the failed call)
# and must not contain the program's "was not aborted" / "returned" lines.
# With FATAL_RC set, the exit status must be exactly that.
set -u
pattern=$1
shift
out=$(timeout 60 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -eq 0 ]; then
    echo "fatal.sh: FAIL: the job exited 0; MPI_ERRORS_ARE_FATAL must abort it"
    exit 1
fi
if [ $rc -eq 124 ]; then
    echo "fatal.sh: FAIL: the job did not end within 60 s (the abort did not reach every rank)"
    exit 1
fi
if [ -n "${FATAL_RC:-}" ] && [ $rc -ne "$FATAL_RC" ]; then
    echo "fatal.sh: FAIL: exit status $rc, want $FATAL_RC"
    exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "fatal.sh: FAIL: exit status $rc, but the output does not match /$pattern/"
    exit 1
fi
if grep -Eq 'was not aborted|returned under MPI_ERRORS_ARE_FATAL' <<<"$out"; then
    echo "fatal.sh: FAIL: a rank went on after the fatal error"
    exit 1
fi
echo "fatal.sh: PASS: exit status $rc, output matches /$pattern/"
