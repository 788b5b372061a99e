#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# options.sh UMPRUN BINDIR: the options MPI users bring from Open MPI's mpirun
# and MPICH's mpiexec, their effect where a rank can see it (placement,
# environment, directory, binding), the program lookup, and the mpiexec and
# mpirun names in BINDIR (when the build made them).
UMPRUN=$1 BINDIR=$2
. "$(dirname "$0")/lib.sh"
TMPD=$(mktemp -d)
OUT=$TMPD/out
trap 'rm -rf "$TMPD"' EXIT
# Each rank says where it is: rank/size node/nodes local-rank/local-size host.
WHERE='echo "$UMP_JOB_RANK/$UMP_JOB_SIZE $UMP_JOB_NODE_ID/$UMP_JOB_NUM_NODES $UMP_JOB_LOCAL_RANK/$UMP_JOB_LOCAL_SIZE $UMP_JOB_HOST"'

# expect 'WANT' args...: the sorted output of umprun args... is WANT.
expect() {
    local want=$1; shift
    "$UMPRUN" "$@" >"$OUT" 2>"$TMPD/err" </dev/null || { cat "$TMPD/err"; fail "umprun $* exited $?"; }
    sort "$OUT" -o "$OUT"
    [ "$(cat "$OUT")" = "$want" ] || { echo "want:"; echo "$want"; echo "got:"; cat "$OUT"; fail "umprun $*"; }
}
# refuse 'TEXT' args...: umprun args... exits 2 and says TEXT.
refuse() {
    local text=$1; shift
    "$UMPRUN" "$@" >/dev/null 2>"$OUT" </dev/null; local rc=$?
    [ $rc = 2 ] || fail "umprun $* exited $rc, want 2"
    grep -qF -- "$text" "$OUT" || fail "umprun $*: want '$text' in: $(cat "$OUT")"
}

# -n, -np, --np=, --n: the rank count.
for n in "-n 3" "-np 3" "--np=3" "--n 3" "--n=3"; do
    expect "0/3
1/3
2/3" $n sh -c 'echo $UMP_JOB_RANK/$UMP_JOB_SIZE'
done

# Two local "hosts" (two names of this machine): placement is observable.
H2=localhost:2,127.0.0.1:2
expect "0/4 0/2 0/2 localhost
1/4 0/2 1/2 localhost
2/4 1/2 0/2 127.0.0.1
3/4 1/2 1/2 127.0.0.1" -H $H2 sh -c "$WHERE"
for map in slot core hwthread SLOT; do
    expect "0/4 0/2 0/2 localhost
1/4 0/2 1/2 localhost
2/4 1/2 0/2 127.0.0.1
3/4 1/2 1/2 127.0.0.1" --map-by $map -host $H2 sh -c "$WHERE"
done
expect "0/4 0/2 0/2 localhost
1/4 1/2 0/2 127.0.0.1
2/4 0/2 1/2 localhost
3/4 1/2 1/2 127.0.0.1" --map-by node --host $H2 sh -c "$WHERE"
expect "0/3 0/2 0/2 localhost
1/3 1/2 0/1 127.0.0.1
2/3 0/2 1/2 localhost" --map-by=node -n 3 --hosts $H2 sh -c "$WHERE"
# ranks per node: -N, -npernode, --npernode, -ppn, --map-by ppr:N:node
for ppn in "-N 1" "-npernode 1" "--npernode=1" "-ppn 1" "--map-by ppr:1:node"; do
    expect "0/2 0/2 0/1 localhost
1/2 1/2 0/1 127.0.0.1" $ppn -H $H2 sh -c "$WHERE"
done
expect "0/6 0/2 0/3 localhost
1/6 0/2 1/3 localhost
2/6 0/2 2/3 localhost
3/6 1/2 0/3 127.0.0.1
4/6 1/2 1/3 127.0.0.1
5/6 1/2 2/3 127.0.0.1" -N 3 -H localhost,127.0.0.1 sh -c "$WHERE"
expect "0/2 0/1 0/2 localhost
1/2 0/1 1/2 localhost" -N 2 sh -c "$WHERE"
refuse "3 ranks asked for but 1 per host on 2 hosts make 2" -n 3 -N 1 -H $H2 true
# More ranks than slots: an error that names --oversubscribe, unless given.
refuse "(--oversubscribe allows it)" -n 5 -H $H2 true
for o in --oversubscribe -oversubscribe "--map-by slot:oversubscribe" "--map-by core:OVERSUBSCRIBE"; do
    expect "0/5 0/2 0/3 localhost
1/5 0/2 1/3 localhost
2/5 0/2 2/3 localhost
3/5 1/2 0/2 127.0.0.1
4/5 1/2 1/2 127.0.0.1" $o -n 5 -H $H2 sh -c "$WHERE"
done
refuse "unsupported modifier 'PE=2'" --map-by slot:PE=2 -n 1 true
refuse "--map-by takes slot, core, hwthread, node or ppr:N:node, not 'socket'" --map-by socket -n 1 true
refuse "only ppr:N:node" --map-by ppr:2:socket -n 1 true

# Hostfiles under every name.
printf 'localhost slots=2\n127.0.0.1:1\n' >"$TMPD/hosts"
for hf in --hostfile -hostfile --machinefile -machinefile -f; do
    expect "0/3 0/2 0/2 localhost
1/3 0/2 1/2 localhost
2/3 1/2 0/1 127.0.0.1" $hf "$TMPD/hosts" sh -c "$WHERE"
done
expect "0/3 0/2 0/2 localhost
1/3 0/2 1/2 localhost
2/3 1/2 0/1 127.0.0.1" --hostfile="$TMPD/hosts" sh -c "$WHERE"

# Environment: -x VAR, -x VAR=VAL, -genv VAR VAL, -env VAR VAL.
UMP_TEST_X=from-env expect "from-env set g e
from-env set g e" -n 2 -x UMP_TEST_X -x UMP_TEST_Y=set -genv UMP_TEST_G g -env UMP_TEST_E e \
    sh -c 'echo "$UMP_TEST_X $UMP_TEST_Y $UMP_TEST_G $UMP_TEST_E"'
refuse "option -genv needs two values" -genv A
refuse "-genv needs VAR VALUE, not 'A=1'" -genv A=1 x -n 1 true

# Working directory: -wdir, --wdir=, -wd; a missing one is refused.
mkdir "$TMPD/wd"
for w in "-wdir $TMPD/wd" "--wdir=$TMPD/wd" "-wd $TMPD/wd"; do
    expect "$TMPD/wd
$TMPD/wd" $w -n 2 pwd
done
refuse "-wdir $TMPD/nonexistent: No such file or directory" -wdir "$TMPD/nonexistent" -n 1 pwd
# Remote ranks change directory on their host: a fake "ssh" that, like ssh,
# hands its words to a shell on the "remote" host (here: this one).
mkdir "$TMPD/agent"
printf '#!/bin/sh\nhost=$1; shift\nexec sh -c "$*"\n' >"$TMPD/agent/ssh"
chmod +x "$TMPD/agent/ssh"
expect "$TMPD/wd fake-a
$TMPD/wd fake-b" --host fake-a,fake-b --rsh "$TMPD/agent/ssh" -wdir "$TMPD/wd" sh -c 'echo "$(pwd) $UMP_JOB_HOST"'

# Binding: hwthread is core's synonym here; other levels are refused.
if [ "$(nproc)" -ge 2 ]; then
    for b in hwthread core:overload-allowed; do
        "$UMPRUN" -n 2 --bind-to $b sh -c 'taskset -pc $$ | sed "s/.*: //"' >"$OUT" </dev/null
        [ "$(sort -u "$OUT" | wc -l)" = 2 ] && ! grep -q '[,-]' "$OUT" || fail "bind $b: $(cat "$OUT")"
    done
fi
refuse "--bind-to takes core, hwthread or none, not 'socket'" --bind-to socket -n 1 true

# Flags that need no value; --allow-run-as-root is accepted and changes nothing.
"$UMPRUN" -tag-output --allow-run-as-root -n 1 echo hi >"$OUT" </dev/null || fail "flags"
[ "$(cat "$OUT")" = "[0] hi" ] || fail "-tag-output: $(cat "$OUT")"

# --version, -V; --help; an unknown option is named, in either spelling.
for v in --version -version -V; do
    "$UMPRUN" $v >"$OUT" || fail "$v exited $?"
    grep -qE '^umprun \(ump\) [0-9]+\.[0-9]+\.[0-9]+$' "$OUT" || fail "$v: $(cat "$OUT")"
done
"$UMPRUN" --help >"$OUT" || fail "--help"
for o in --npernode --map-by --oversubscribe -genv -wdir --output-filename --version; do
    grep -q -- "$o" "$OUT" || fail "--help does not mention $o"
done
refuse "unknown option '--mca'" --mca btl self -n 1 true
refuse "unknown option '--bogus'" --bogus=1 -n 1 true
refuse "unknown option '-q'" -q -n 1 true
refuse "option --tag-output takes no value" --tag-output=1 -n 1 true

# The program: on PATH; else in the current directory (not on PATH);
# else in the -wdir directory; missing or not executable: a clear error.
mkdir "$TMPD/bin"
printf '#!/bin/sh\necho "mine $UMP_JOB_RANK $(pwd)"\n' >"$TMPD/bin/myprog"
chmod +x "$TMPD/bin/myprog"
(cd "$TMPD/bin" && "$UMPRUN" -n 2 myprog) >"$OUT" </dev/null || fail "program in the current directory"
sort "$OUT" -o "$OUT"
[ "$(cat "$OUT")" = "mine 0 $TMPD/bin
mine 1 $TMPD/bin" ] || fail "program in the current directory: $(cat "$OUT")"
(cd "$TMPD" && "$UMPRUN" -n 1 -wdir bin myprog) >"$OUT" </dev/null || fail "program in -wdir"
[ "$(cat "$OUT")" = "mine 0 $TMPD/bin" ] || fail "program in -wdir: $(cat "$OUT")"
(cd "$TMPD" && "$UMPRUN" -n 2 myprog) >/dev/null 2>"$OUT" </dev/null; rc=$?
[ $rc = 127 ] || fail "missing program exited $rc"
grep -q "^umprun: cannot find program 'myprog': it is neither on PATH nor in $TMPD$" "$OUT" ||
    fail "missing program: $(cat "$OUT")"
[ "$(wc -l <"$OUT")" = 1 ] || fail "want one line about a missing program: $(cat "$OUT")"
echo 'int main(void) { return 0; }' >"$TMPD/bin/prog.c"
(cd "$TMPD/bin" && "$UMPRUN" -n 2 prog.c) >/dev/null 2>"$OUT" </dev/null; rc=$?
[ $rc = 126 ] || fail "C source as a program exited $rc"
grep -q "cannot run prog.c: it is C source; compile it first (mpicc -o prog prog.c)" "$OUT" ||
    fail "C source: $(cat "$OUT")"
"$UMPRUN" -n 1 "$TMPD/bin/nothere" >/dev/null 2>"$OUT" </dev/null; rc=$?
[ $rc = 127 ] && grep -q "cannot run $TMPD/bin/nothere: No such file" "$OUT" || fail "missing path: $rc $(cat "$OUT")"

# The MPI names (a build with UMP_MPI_NAMES=OFF has none).
if [ -e "$BINDIR/mpiexec" ]; then
    for name in mpiexec mpirun; do
        "$BINDIR/$name" -np 2 sh -c 'echo $UMP_JOB_RANK/$UMP_JOB_SIZE' >"$OUT" </dev/null || fail "$name"
        [ "$(sort "$OUT")" = "0/2
1/2" ] || fail "$name: $(cat "$OUT")"
        "$BINDIR/$name" --version | grep -q '^umprun (ump)' || fail "$name --version"
    done
else
    echo "no $BINDIR/mpiexec: built with UMP_MPI_NAMES=OFF"
fi
echo PASS
