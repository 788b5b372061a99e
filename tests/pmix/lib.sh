# SPDX-License-Identifier: BSD-3-Clause
# Shared by the PMIx test scripts (sourced). They are called as
#   script.sh HAVE_PMIX BUILD_DIR PMIX_RT PMIX_P2P XPORTS
# HAVE_PMIX is ON when the library was configured with libpmix; XPORTS is
# "shm,tcp" when the tree has both transports (then the data test checks
# which one each pair of ranks took), else "none".
SKIP=77
skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*" >&2; exit 1; }

HAVE_PMIX=$1 BUILD=$2 PMIX_RT=$3 PMIX_P2P=$4 XPORTS=$5 MPI_SPAWN=${6:-}
BUILD=$(cd "$BUILD" && pwd)
# libpmix and libevent keep allocations until exit by design: do not let
# LeakSanitizer (the ASan build) call those failures of ours.
LSAN_SUPP="$BUILD/tests/pmix-lsan.supp"
printf 'leak:libpmix\nleak:libevent\nleak:libhwloc\nleak:libmunge\nleak:libopen-pal\n' >"$LSAN_SUPP"
export LSAN_OPTIONS="suppressions=$LSAN_SUPP${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

pmix_need_packages() {
    local p missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null || skip "no apt-get to install ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        { command -v sudo >/dev/null && sudo -n true 2>/dev/null; } ||
            skip "need root to install ${missing[*]}"
        sudo="sudo -n"
    fi
    echo "installing ${missing[*]}"
    # An empty or stale package list is the usual reason an install fails.
    if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null 2>&1; then
        $sudo apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null 2>&1 || skip "apt-get could not install ${missing[*]}"
    fi
}

# The library was configured before libpmix-dev was installed: build the
# two test programs again in a private tree that has the PMIx backend
# (same source, same sanitizer setting), and use those.
ensure_pmix_build() {
    [ "$HAVE_PMIX" = ON ] && return 0
    pmix_need_packages libpmix-dev pkg-config
    local src san sub=$BUILD/tests/pmix-build
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
    san=$(sed -n 's/^UMP_SANITIZE:BOOL=//p' "$BUILD/CMakeCache.txt")
    [ -n "$src" ] || fail "cannot find the source tree in $BUILD/CMakeCache.txt"
    echo "ump in $BUILD has no PMIx backend: building the test programs in $sub"
    cmake -S "$src" -B "$sub" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUMP_SANITIZE="${san:-OFF}" \
        >"$sub.log" 2>&1 || { cat "$sub.log"; fail "configure of $sub failed"; }
    grep -q '^PMIX_FOUND:INTERNAL=1' "$sub/CMakeCache.txt" || fail "pkg-config finds no pmix"
    cmake --build "$sub" -j"$(nproc)" --target pmix_rt pmix_p2p ${MPI_SPAWN:+mpi_spawn} \
        >>"$sub.log" 2>&1 || { tail -30 "$sub.log"; fail "build in $sub failed"; }
    PMIX_RT=$sub/tests/pmix_rt
    PMIX_P2P=$sub/tests/pmix_p2p
    [ -z "$MPI_SPAWN" ] || MPI_SPAWN=$sub/tests/mpi/spawn
}

# run SECONDS OUTFILE cmd...: runs cmd with a time limit, output to OUTFILE;
# sets RC and MS (wall time).
run() {
    local limit=$1 out=$2 t0
    shift 2
    t0=$(date +%s%3N)
    timeout -k 5 "$limit" "$@" >"$out" 2>&1 </dev/null
    RC=$?
    MS=$(($(date +%s%3N) - t0))
    echo "  [$*] -> status $RC in $MS ms"
}

# check_layout OUTFILE NRANKS NNODES: the pmix_rt lines of a good run. Sets
# NODE_OF[rank] for check_transports. With NNODES = 2 the ranks fill node
# 0 then node 1 in blocks (srun's default distribution).
check_layout() {
    local out=$1 n=$2 nn=$3 r
    NODE_OF=()
    local lines jobs
    lines=$(grep -c '^rt rank ' "$out")
    [ "$lines" -eq "$n" ] || { cat "$out"; fail "$lines rank lines, want $n"; }
    jobs=$(sed -n 's/.* job \([0-9a-f]*\) .*/\1/p' "$out" | sort -u | wc -l)
    [ "$jobs" -eq 1 ] || { cat "$out"; fail "the ranks disagree on the job id"; }
    grep '^rt rank ' "$out" | grep -qv 'backend pmix$' && { cat "$out"; fail "a rank did not use pmix"; }
    while read -r _ _ rank _ size _ node _ local _ host _ job _ addr _ backend; do
        [ "$size" -eq "$n" ] || fail "rank $rank: size $size, want $n"
        NODE_OF[$rank]=${node%/*}
        [ "${node#*/}" -eq "$nn" ] || fail "rank $rank: ${node#*/} nodes, want $nn"
        local per=$((n / nn))
        [ "${local#*/}" -eq "$per" ] || fail "rank $rank: local size ${local#*/}, want $per"
        [ "${local%/*}" -eq $((rank % per)) ] || fail "rank $rank: local rank ${local%/*}"
        if [ "$nn" -eq 1 ]; then
            [ "$addr" = 127.0.0.1 ] || fail "rank $rank: one-node job publishes $addr"
        else
            [ "$addr" != 127.0.0.1 ] || fail "rank $rank: a two-node job publishes 127.0.0.1"
        fi
    done < <(grep '^rt rank ' "$out")
    for ((r = 0; r < n; r++)); do
        [ "${NODE_OF[$r]}" = "${NODE_OF[$((r / (n / nn) * (n / nn)))]}" ] ||
            fail "rank $r is not on the node of rank $((r / (n / nn) * (n / nn)))"
    done
    if [ "$nn" -eq 2 ]; then
        [ "${NODE_OF[0]}" != "${NODE_OF[$((n - 1))]}" ] || fail "ranks 0 and $((n - 1)) share a node"
    fi
    echo "  layout ok: ${NODE_OF[*]}"
}

# check_transports OUTFILE NRANKS: every "rank P over X" trace line of the
# core names shm for a peer on the same node and tcp for one elsewhere.
check_transports() {
    local out=$1 n=$2 me peer x seen=0
    while read -r me peer x; do
        [ "$me" = "$peer" ] && continue
        local want=tcp
        [ "${NODE_OF[$me]}" = "${NODE_OF[$peer]}" ] && want=shm
        [ "$x" = "$want" ] || fail "rank $me reaches rank $peer over $x, want $want"
        seen=$((seen + 1))
    done < <(sed -n 's/^\[ump [^ ]* rank \([0-9]*\)\] trace: rank \([0-9]*\) over \([a-z]*\).*/\1 \2 \3/p' "$out")
    [ "$seen" -eq $((n * (n - 1))) ] || { cat "$out"; fail "$seen transport choices traced, want $((n * (n - 1)))"; }
    [ "$(grep -c '^p2p rank [0-9]* ok' "$out")" -eq "$n" ] || { cat "$out"; fail "not every rank checked its data"; }
    echo "  data and transports ok ($seen pairs)"
}
