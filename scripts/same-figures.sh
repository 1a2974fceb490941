#!/usr/bin/env bash
# same-figures.sh DGNN OUTDIR: runs one short, seeded job of every kind (event models, the
# three multi-rank modes, every snapshot model, the scheduler, the simulators) with the dgnn
# binary DGNN, and writes each job's figures to OUTDIR/NAME.txt with the timings removed.
#
# For refactors that must not change a result (docs/architecture.md): run it with the binary
# before and the binary after, on the same machine, then `diff -r BEFORE AFTER` must be
# empty. Not a test: the figures depend on the CPU's sgemm kernel (docs/determinism.md).
set -euo pipefail
bin=$(readlink -f "$1"); out=$2
[ -d "$bin" ] && bin=$bin/dgnn
root=$(cd "$(dirname "$0")/.." && pwd)
data=$(readlink -f "${DGNN_DATA_DIR:-$root/../shared/data}")
mkdir -p "$out"; out=$(readlink -f "$out")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
# the JSON's lines without timings, sizes of memory, host names or the run's provenance
strip() { grep -vE '"[a-z_]*(seconds|secs|_s|_ms|time|per_second|rss_mb|gflops|host|bandwidth|elapsed|wall|measured|cpu|date|commit|command)[a-z_]*":' "$1" || true; }
job() { # NAME, then the dgnn arguments (without --out)
    local name=$1; shift
    if "$bin" "$@" --quiet --out "$work/$name.json" > "$work/$name.log" 2>&1; then
        strip "$work/$name.json" > "$out/$name.txt"
    else
        { echo "exit $?"; tail -5 "$work/$name.log"; } > "$out/$name.txt"
    fi
    echo "$name"
}
mpi_job() { # NAME, P, then the dgnn arguments
    local name=$1 p=$2; shift 2
    command -v mpirun > /dev/null || { echo "no mpirun" > "$out/$name.txt"; return; }
    if mpirun --oversubscribe --allow-run-as-root -np "$p" "$bin" "$@" --quiet --out "$work/$name.json" \
        > "$work/$name.log" 2>&1; then
        strip "$work/$name.json" > "$out/$name.txt"
    else
        { echo "exit $?"; tail -5 "$work/$name.log"; } > "$out/$name.txt"
    fi
    echo "$name"
}
stdout_job() { # NAME, then the dgnn arguments: the figures are what it prints
    local name=$1; shift
    if "$bin" "$@" > "$work/$name.json" 2> "$work/$name.log"; then
        strip "$work/$name.json" > "$out/$name.txt"
    else
        { echo "exit $?"; tail -5 "$work/$name.log"; } > "$out/$name.txt"
    fi
    echo "$name"
}
short="--epochs 2 --max-batches 15 --threads 1 --seed 3"
for m in tgn jodie dyrep apan; do job "$m" train --model "$m" $short; done
job tgn-tgl train --model tgn --preset tgl $short --sampler uniform --negatives all --attention tgl
mpi_job strict 2 train --model tgn --dist strict $short
mpi_job depbloom 2 train --model tgn --dist depbloom --partition --refine 2 $short
mpi_job depbloom-cp 2 train --model tgn --dist depbloom --partition --refine 2 --critical-path $short
mpi_job depbloom-apan 2 train --model apan --dist depbloom --partition --refine 2 --critical-path $short
col=$data/collegemsg/CollegeMsg.txt
if [ -f "$col" ]; then
    for m in evolvegcn-o evolvegcn-h tgcn gcrn-gru wdgcn gcn; do
        job "snap-$m" train --model "$m" --data "$col" --preset uci --epochs 2 --threads 1 --seed 3
    done
    for s in even greedy ilp; do
        job "dygnex-$s" train --model evolvegcn-o --data "$col" --preset uci --epochs 2 --threads 1 --dist dygnex --scheduler "$s" --sched-ranks 4
    done
    mpi_job dygnex-mpi 2 train --model evolvegcn-o --data "$col" --preset uci --epochs 2 --threads 1 --dist dygnex
    for s in greedy ilp; do
        stdout_job "schedule-$s" schedule --model evolvegcn-o --data "$col" --preset uci --workers 4 --scheduler "$s" --json
    done
    stdout_job simulate-data simulate --data "$col" --preset uci --workers 1,4,64 --json /dev/stdout
fi
stdout_job simulate simulate --synthetic 60 --workers 8,64,512 --json /dev/stdout
