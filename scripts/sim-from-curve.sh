#!/usr/bin/env bash
# sim-from-curve.sh CURVE.json OUTDIR [DGNN]: DepBloom against strict on 1-512 workers,
# projected by `dgnn simulate --family event` from one worker's measured step-time curve
# (issue 18): CURVE.json is a `dgnn bench train --step-curve LIST --out CURVE.json` run, on
# the CPU or a GPU. Projections, each as OUTDIR/sim-NAME.txt (the table) and .json:
#  - the curve's own stream (wikipedia in scripts/gpu-check.sh), windows of 10,000, 5,000
#    and 2,500 events, refinement K = 1 and 4;
#  - a 10M-event synthetic stream (dgnn gen --events 10000000 --nodes 100000, written to
#    OUTDIR/syn10m.dgnn and removed after), windows of 100,000 events, K = 1 and 4.
# SIM_WORKERS (default 1,2,4,8,16,32,64,128,256,512) and SIM_SYNTHETIC=0 (skip the 10M
# stream) shorten it. Prints each table's header and speedup column; exit 1 if a run fails.
set -uo pipefail
curve=${1:?usage: sim-from-curve.sh CURVE.json OUTDIR [DGNN]}
outdir=${2:?usage: sim-from-curve.sh CURVE.json OUTDIR [DGNN]}
root=$(cd "$(dirname "$0")/.." && pwd)
dgnn=${3:-$root/build/dgnn}
workers=${SIM_WORKERS:-1,2,4,8,16,32,64,128,256,512}
[ -r "$curve" ] || { echo "sim-from-curve: $curve: cannot read" >&2; exit 2; }
[ -x "$dgnn" ] || { echo "sim-from-curve: $dgnn: not an executable (build first, or give DGNN)" >&2; exit 2; }
mkdir -p "$outdir" || exit 2
rc=0
project() { # name, then the simulate flags beyond --measured and --workers
    local name=$1; shift
    echo "-- $name: dgnn simulate --family event --measured $(basename "$curve") $*"
    # METIS's own complaints about windows with fewer nodes than parts go to the log only
    if "$dgnn" simulate --family event --measured "$curve" --workers "$workers" "$@" \
        --json "$outdir/sim-$name.json" > "$outdir/sim-$name.txt" 2>&1; then
        grep -E "^step curve|^apply rows|^ *workers|^ *[0-9]+ +[0-9]+ " "$outdir/sim-$name.txt"
    else
        tail -3 "$outdir/sim-$name.txt"; rc=1
    fi
}
for K in 1 4; do
    for w in 10000 5000 2500; do project "w$w-k$K" --window-events $w --refine "$K"; done
done
if [ "${SIM_SYNTHETIC:-1}" = 1 ]; then
    if "$dgnn" gen --events 10000000 --nodes 100000 --out "$outdir/syn10m.dgnn" > "$outdir/gen.txt" 2>&1; then
        for K in 1 4; do
            project "syn10m-k$K" --data "$outdir/syn10m.dgnn" --window-events 100000 --refine "$K"
        done
    else
        tail -3 "$outdir/gen.txt"; rc=1
    fi
    rm -f "$outdir/syn10m.dgnn"
fi
exit $rc
