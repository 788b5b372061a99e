#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# compare-p2p.sh - ump against Open MPI, ping-pong, two ranks on two cores.
#
#   bench/mpi/compare-p2p.sh [--out FILE.md] [--reps N] [--build DIR]
#                            [--max BYTES] [--time SECONDS] [--only LIST]
#
# Runs, in alternation and --reps times each (default 3):
#   ump-shm      umprun -n 2 build/bench/pingpong --pin      UMP_TRANSPORTS=shm
#   ompi-vader   mpirun.openmpi --bind-to core --mca pml ob1 --mca btl vader,self
#   ompi-nocma   the same with --mca btl_vader_single_copy_mechanism none
#   ump-tcp      umprun ... UMP_TRANSPORTS=tcp
#   ompi-tcp     mpirun.openmpi --bind-to core --mca pml ob1 --mca btl tcp,self
# Open MPI runs bench/mpi/pingpong.c (the same program over MPI_Send/Recv).
# Before and after each run, bench/mpi/cacheline.c measures a one-cache-line
# hop between CPUs 0 and 1: below --near-ns (60) both times the run is
# labelled "near", above both times "far", else "mixed" (on a VM the vCPUs
# may move between runs). Prints the median of each configuration per size,
# over all runs and per placement, with the ratios ump / Open MPI, and
# writes the same as Markdown to --out. Installs openmpi-bin and libopenmpi-dev if missing.
# --only takes a comma list of configuration names to run.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=""
reps=3
build="$root/build"
max=4m
time_per=0.1
near_ns=60
only="ump-shm,ompi-vader,ompi-nocma,ump-tcp,ompi-tcp"
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --max) max=$2; shift 2 ;;
    --time) time_per=$2; shift 2 ;;
    --near-ns) near_ns=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h | --help) sed -n '3,25p' "$0"; exit 0 ;;
    *) echo "compare-p2p: unknown argument $1" >&2; exit 2 ;;
    esac
done

if ! command -v mpicc.openmpi >/dev/null || ! command -v mpirun.openmpi >/dev/null; then
    echo "compare-p2p: installing Open MPI (openmpi-bin libopenmpi-dev)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null
fi
command -v python3 >/dev/null || { echo "compare-p2p: python3 is needed for the table" >&2; exit 1; }

work=$(mktemp -d /tmp/compare-p2p.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpicc.openmpi -O2 -o "$work/pingpong-ompi" "$root/bench/mpi/pingpong.c"
cc -O2 -o "$work/cacheline" "$root/bench/mpi/cacheline.c"

umprun="$build/bin/umprun"
ump_pp="$build/bench/pingpong"
have_ump=1
if [ ! -x "$umprun" ] || [ ! -x "$ump_pp" ]; then
    echo "compare-p2p: $umprun or $ump_pp missing (build ump first): ump runs skipped" >&2
    have_ump=0
fi

pp_args=(--max "$max" --time "$time_per")
ompi=(mpirun.openmpi --allow-run-as-root --bind-to core -n 2 --mca pml ob1)

run_cfg() { # name csv
    local name=$1 csv=$2
    case "$name" in
    ump-shm) UMP_TRANSPORTS=shm "$umprun" -n 2 --timeout 900 "$ump_pp" --pin "${pp_args[@]}" --csv "$csv" ;;
    ump-tcp) UMP_TRANSPORTS=tcp "$umprun" -n 2 --timeout 900 "$ump_pp" --pin "${pp_args[@]}" --csv "$csv" ;;
    ompi-vader) "${ompi[@]}" --mca btl vader,self "$work/pingpong-ompi" "${pp_args[@]}" --csv "$csv" ;;
    ompi-nocma) "${ompi[@]}" --mca btl vader,self --mca btl_vader_single_copy_mechanism none \
        "$work/pingpong-ompi" "${pp_args[@]}" --csv "$csv" ;;
    ompi-tcp) "${ompi[@]}" --mca btl tcp,self "$work/pingpong-ompi" "${pp_args[@]}" --csv "$csv" ;;
    *) echo "compare-p2p: unknown configuration $name" >&2; return 2 ;;
    esac
}

probe() { "$work/cacheline" 0 1 100000 2>/dev/null || echo 9999; }

IFS=, read -r -a cfgs <<<"$only"
index="$work/index.txt" # rep cfg placement before_ns after_ns csv
: >"$index"
for rep in $(seq 1 "$reps"); do
    for cfg in "${cfgs[@]}"; do
        if [ "${cfg#ump-}" != "$cfg" ] && [ $have_ump = 0 ]; then continue; fi
        csv="$work/$cfg.$rep.csv"
        before=$(probe)
        echo "compare-p2p: rep $rep/$reps $cfg (cache line hop before: $before ns)" >&2
        if ! run_cfg "$cfg" "$csv" >"$work/$cfg.$rep.log" 2>&1; then
            echo "compare-p2p: $cfg failed; its output:" >&2
            tail -20 "$work/$cfg.$rep.log" >&2
            continue
        fi
        after=$(probe)
        placement=$(awk -v a="$before" -v b="$after" -v t="$near_ns" \
            'BEGIN { print (a < t && b < t) ? "near" : (a >= t && b >= t) ? "far" : "mixed" }')
        echo "$rep $cfg $placement $before $after $csv" >>"$index"
    done
done

python3 - "$index" "$out" "$near_ns" <<'PY'
import csv, statistics, sys
index, out, near = sys.argv[1], sys.argv[2], sys.argv[3]
runs = [l.split() for l in open(index) if l.strip()]
data = {}   # placement -> cfg -> size -> [(lat, bw)]
probes = {}
# Every run counts in "all"; the placement groups split them by the probe.
for rep, cfg, place, before, after, path in runs:
    for group in ("all", place):
        probes.setdefault(group, []).extend([float(before), float(after)])
        with open(path) as f:
            for row in csv.DictReader(f):
                d = data.setdefault(group, {}).setdefault(cfg, {})
                d.setdefault(int(row["size"]), []).append(
                    (float(row["latency_us"]), float(row["bandwidth_MBps"])))
order = ["ump-shm", "ompi-vader", "ompi-nocma", "ump-tcp", "ompi-tcp"]
pairs = [("ump-shm", "ompi-vader"), ("ump-shm", "ompi-nocma"), ("ump-tcp", "ompi-tcp")]
lines = ["# ump vs Open MPI: ping-pong, 2 ranks on CPUs 0 and 1", "",
         "Medians over repetitions; latency = half round trip (us), bandwidth in MB/s "
         "(10^6 B/s); ratio = ump / Open MPI (latency: < 1 is better for ump; "
         "bandwidth: > 1 is better for ump). Placement from a one-cache-line hop "
         f"between the CPUs before and after each run (near < {near} ns).", ""]
def fmt(x):
    return "-" if x is None else (f"{x:.2f}" if x < 100 else f"{x:.0f}")
groups = ["all"] + [g for g in ("near", "far", "mixed") if g in data]
for place in groups:
    if place not in data:
        continue
    cfgs = [c for c in order if c in data[place]]
    nruns = {c: sum(1 for r in runs if r[1] == c and place in ("all", r[2])) for c in cfgs}
    ps = probes[place]
    lines += [f"## placement: {place} (cache-line hop {min(ps):.0f}-{max(ps):.0f} ns; runs: "
              + ", ".join(f"{c} x{nruns[c]}" for c in cfgs) + ")", ""]
    sizes = sorted({s for c in cfgs for s in data[place][c]})
    def med(c, s, k):
        v = data[place].get(c, {}).get(s)
        return statistics.median(x[k] for x in v) if v else None
    for k, what in ((0, "latency (us)"), (1, "bandwidth (MB/s)")):
        prs = [p for p in pairs if p[0] in cfgs and p[1] in cfgs]
        head = ["bytes"] + cfgs + [f"{a}/{b}" for a, b in prs]
        lines += [f"### {what}", "", "| " + " | ".join(head) + " |",
                  "|" + "---:|" * len(head)]
        for s in sizes:
            if k == 1 and s == 0:
                continue
            row = [str(s)] + [fmt(med(c, s, k)) for c in cfgs]
            for a, b in prs:
                x, y = med(a, s, k), med(b, s, k)
                row.append(f"{x / y:.2f}" if x is not None and y else "-")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
text = "\n".join(lines)
print(text)
if out:
    with open(out, "w") as f:
        f.write(text + "\n")
    print(f"(written to {out})", file=sys.stderr)
PY
