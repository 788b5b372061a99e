#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Which bootstrap backend a rank picks (UMP_BOOTSTRAP=auto|umprun|pmix and
# the environment), without any PMIx server:
#  - nothing set: singleton
#  - PMIX_RANK/PMIX_NAMESPACE set (auto): PMIx, which fails at once (no
#    server) with a reason; never a silent singleton
#  - the same with UMP_BOOTSTRAP=umprun: singleton
#  - PMIX_SERVER_URI41 alone (auto): PMIx
#  - UMP_BOOTSTRAP=pmix with nothing set: PMIx, failing with a reason
#  - under umprun with PMIX_* inherited (umprun inside a Slurm step): umprun
# Usage: select.sh HAVE_PMIX UMPRUN PMIX_RT
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
HAVE_PMIX=$1 UMPRUN=$2 RT=$3
out=$(mktemp)
supp=$(mktemp)
trap 'rm -f "$out" "$supp"' EXIT
# libpmix keeps allocations of a failed PMIx_Init: not ours (ASan build).
printf 'leak:libpmix\nleak:libevent\n' >"$supp"
export LSAN_OPTIONS="suppressions=$supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
clean=(env -u PMIX_RANK -u PMIX_NAMESPACE -u UMP_JOB_KVS -u UMP_BOOTSTRAP)
if [ "$HAVE_PMIX" = ON ]; then why='PMIx_Init failed'; else why='built without PMIx support'; fi

expect_backend() { # name backend env...
    local name=$1 want=$2
    shift 2
    timeout 20 "${clean[@]}" "$@" "$RT" info >"$out" 2>&1 </dev/null
    local rc=$?
    [ $rc -eq 0 ] && grep -q "backend $want\$" "$out" ||
        { cat "$out"; fail "$name: status $rc, want backend $want"; }
    echo "ok: $name -> $want"
}
expect_pmix_failure() { # name env...
    local name=$1
    shift
    local t0=$(date +%s)
    timeout 20 "${clean[@]}" "$@" "$RT" info >"$out" 2>&1 </dev/null
    local rc=$?
    [ $rc -eq 2 ] && grep -q "$why" "$out" ||
        { cat "$out"; fail "$name: status $rc, want 2 and '$why'"; }
    [ $(($(date +%s) - t0)) -le 5 ] || fail "$name: took more than 5 s to fail"
    echo "ok: $name -> fails: $(grep -o "$why.*" "$out" | head -1 | cut -c1-60)"
}

expect_backend "no launcher" singleton
expect_pmix_failure "PMIX_RANK + PMIX_NAMESPACE" PMIX_RANK=0 PMIX_NAMESPACE=fake
expect_backend "PMIx env + UMP_BOOTSTRAP=umprun" singleton PMIX_RANK=0 PMIX_NAMESPACE=fake UMP_BOOTSTRAP=umprun
expect_pmix_failure "PMIX_SERVER_URI41 alone" PMIX_SERVER_URI41='0.0;tcp4://127.0.0.1:1'
expect_pmix_failure "UMP_BOOTSTRAP=pmix" UMP_BOOTSTRAP=pmix

timeout 30 "${clean[@]}" PMIX_RANK=0 PMIX_NAMESPACE=fake "$UMPRUN" --timeout 20 -n 2 "$RT" info \
    >"$out" 2>&1 </dev/null
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'backend umprun$' "$out")" -eq 2 ] ||
    { cat "$out"; fail "umprun with PMIX_* inherited: status $rc, want 2 umprun ranks"; }
echo "ok: umprun with PMIX_* inherited -> umprun"
echo PASS
