#!/usr/bin/env bash
# dygnex_models.sh: DyGNeX on every snapshot model (issue 6; docs/dygnex.md "Every model").
# For each model and dataset:
#  1. the cost model fitted on the model's own per-window profile (dgnn train --profile,
#     EPOCHS epochs, one process, one thread, no evaluation): its error on the fitted rows
#     and on 20% held out ("fit per model a cost model and report its error on held-out
#     snapshots"), and the predicted imbalance at 4 workers (dgnn schedule, even and greedy);
#  2. one process playing 4 ranks (--sched-ranks 4: each group timed alone on one core, CPU
#     seconds) per scheduler, RUN_EPOCHS epochs: the measured imbalance and the epoch at equal
#     speed against even's, (1 + imbalance) / (1 + even's) - 1 (the machine's speed drifts
#     between runs; bench/dygnex.sh says why).
# Not a test: it prints a markdown table (and keeps the profiles and outputs in $OUT).
#   bench/dygnex_models.sh [DGNN] ; env: DATA (shared data folder), OUT (/tmp/dygnex-models),
#   EPOCHS (3), RUN_EPOCHS (2), MODELS ("evolvegcn-o evolvegcn-h gcn tgcn gcrn-gru wdgcn"),
#   SETS ("ba cm"), SCHEDS ("even greedy ilp"), ILP_LIMIT (10 s), REUSE=1 (keep outputs that
#   exist), TABLE_ONLY=1 (no runs: the table from the outputs already in $OUT)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dgnn=${1:-$root/build/dgnn}
data=${DATA:-$root/../shared/data}
out=${OUT:-/tmp/dygnex-models}
epochs=${EPOCHS:-3}
run_epochs=${RUN_EPOCHS:-2}
scheds=${SCHEDS:-"even greedy ilp"}
ilp_limit=${ILP_LIMIT:-10}
keep() { [ "${REUSE:-0}" = 1 ] && [ -s "$1" ]; }
models=${MODELS:-"evolvegcn-o evolvegcn-h gcn tgcn gcrn-gru wdgcn"}
[ -x "$dgnn" ] || { echo "no dgnn binary at $dgnn (build first, or pass its path)"; exit 1; }
mkdir -p "$out"
. "$root/bench/snap_datasets.sh"
[ "${TABLE_ONLY:-0}" = 1 ] || echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/machine.txt"
cat "$out/machine.txt"
for d in $sets; do
  for m in $models; do
    [ "${TABLE_ONLY:-0}" = 1 ] && break
    f=${file[$d]}
    if ! keep "$out/${d}_$m.csv"; then
      echo "== $d: $m, profile ($epochs epochs, one thread)" >&2
      "$dgnn" train --model "$m" --data "$f" ${args[$d]} --epochs "$epochs" --threads 1 --quiet --no-eval \
        --profile "$out/${d}_$m.csv" > "$out/${d}_$m.log" 2>&1
    fi
    for s in even greedy; do
      "$dgnn" schedule --model "$m" --data "$f" ${args[$d]} --workers 4 --scheduler $s \
        --profile "$out/${d}_$m.csv" > "$out/${d}_${m}_$s.txt" 2>&1
    done
    for s in $scheds; do
      keep "$out/${d}_${m}_emu4_$s.json" && continue
      echo "== $d: $m, one process playing 4 ranks, $s ($run_epochs epochs)" >&2
      "$dgnn" train --model "$m" --data "$f" ${args[$d]} --epochs "$run_epochs" --threads 1 --quiet --no-eval \
        --dist dygnex --sched-ranks 4 --scheduler $s --cost-profile "$out/${d}_$m.csv" --time-limit "$ilp_limit" \
        --out "$out/${d}_${m}_emu4_$s.json" > "$out/${d}_${m}_emu4_$s.log" 2>&1
    done
  done
done
python3 - "$out" "$sets" "$models" "$scheds" << 'EOF' | tee "$out/table.md"
import json, os, re, sys
out, sets, models, scheds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
name = {"ba": "bitcoin-alpha", "cm": "CollegeMsg (190,080 s)"}
pct = lambda x: "%.1f%%" % (100 * x)
print("### Cost model per model (fitted on its own profile; predicted imbalance at 4 workers)\n")
print("| data | model | windows | profiled s per epoch | median / max window s | fit MAPE | held-out MAPE (20%) | terms kept | even | greedy |")
print("|---|---|---|---|---|---|---|---|---|---|")
runs = []
for d in sets:
    for m in models:
        p = os.path.join(out, f"{d}_{m}.csv")
        if not os.path.exists(p): continue
        secs = sorted(float(l.split(",")[-1]) for l in open(p).read().split("\n")[1:] if l)
        g = open(os.path.join(out, f"{d}_{m}_greedy.txt")).read()
        e = open(os.path.join(out, f"{d}_{m}_even.txt")).read()
        f = re.search(r"error: ([\d.]+)% MAPE on the fitted rows, ([\d.]+)% on (\d+) held-out", g)
        imb = lambda t: re.search(r"imbalance\s+([\d.]+%)", t).group(1)
        law = re.search(r"seconds = ([^\n]*)", g).group(1)
        kept = ", ".join(t.split("*", 1)[1] if "*" in t else "1" for t in law.split(" + ") if float(t.split("*")[0]) > 0)
        print(f"| {name[d]} | {m} | {len(secs)} | {sum(secs):.2f} | {secs[len(secs) // 2]:.4f} / {secs[-1]:.4f} | "
              f"{f.group(1)}% | {f.group(2)}% ({f.group(3)} rows) | {kept} | {imb(e)} | {imb(g)} |")
        runs.append((d, m))
print("\n### One process playing 4 ranks (each group alone on one core; CPU seconds; mean of the epochs)\n")
print("equal speed: (1 + measured imbalance) / (1 + even's measured imbalance) - 1, the schedule's own gain.\n")
print("| data | model | scheduler | rounds | imbalance predicted | measured | measured makespan s | total CPU s | at equal speed vs even |")
print("|---|---|---|---|---|---|---|---|---|")
for d, m in runs:
    base = None
    for s in scheds:
        p = os.path.join(out, f"{d}_{m}_emu4_{s}.json")
        if not (os.path.exists(p) and os.path.getsize(p)): continue
        x = json.load(open(p))["dist"]
        if s == "even": base = x["imbalance_measured_cpu"]
        eq = "" if s == "even" or base is None else "%+.1f%%" % (100 * ((1 + x["imbalance_measured_cpu"]) / (1 + base) - 1))
        print(f"| {name[d]} | {m} | {s} | {x['rounds']} | {pct(x['imbalance_predicted'])} | "
              f"{pct(x['imbalance_measured_cpu'])} | {x['makespan_measured_cpu']:.3f} | {x['ranks'] * x['mean_measured_cpu']:.3f} | {eq} |")
EOF
