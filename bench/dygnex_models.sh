#!/usr/bin/env bash
# costmodel.sh: DyGNeX's cost model fitted per snapshot model (issue 6, "fit per model a cost
# model and report its error on held-out snapshots"; docs/dygnex.md "Cost model per model").
# For each model and dataset: a per-window profile (dgnn train --profile, EPOCHS epochs, one
# process, one thread, no evaluation), then dgnn schedule --profile at 4 workers with even
# and greedy: the fit's error on its rows and on 20% held out, and the predicted imbalance.
# Not a test: it prints a markdown table (and keeps the profiles and outputs in $OUT).
#   bench/costmodel.sh [DGNN] ; env: DATA (shared data folder), OUT (/tmp/costmodel-bench),
#   EPOCHS (3), MODELS ("evolvegcn-o evolvegcn-h gcn tgcn gcrn-gru wdgcn"), SETS ("ba cm"),
#   TABLE_ONLY=1 (no runs: the table from the outputs already in $OUT)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dgnn=${1:-$root/build/dgnn}
data=${DATA:-$root/../shared/data}
out=${OUT:-/tmp/costmodel-bench}
epochs=${EPOCHS:-3}
models=${MODELS:-"evolvegcn-o evolvegcn-h gcn tgcn gcrn-gru wdgcn"}
[ -x "$dgnn" ] || { echo "no dgnn binary at $dgnn (build first, or pass its path)"; exit 1; }
mkdir -p "$out"
declare -A file args
file[ba]=$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv
args[ba]=""
file[cm]=$data/collegemsg/CollegeMsg.txt
args[cm]="--preset uci --snapshot-seconds 190080"
sets=""
for d in ${SETS:-ba cm}; do
  if [ -e "${file[$d]}" ]; then sets="$sets $d"; else echo "skip: ${file[$d]} not found"; fi
done
[ -n "$sets" ] || exit 0
[ "${TABLE_ONLY:-0}" = 1 ] || echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/machine.txt"
cat "$out/machine.txt"
for d in $sets; do
  for m in $models; do
    [ "${TABLE_ONLY:-0}" = 1 ] && break
    echo "== $d: $m, profile ($epochs epochs, one thread)" >&2
    "$dgnn" train --model "$m" --data "${file[$d]}" ${args[$d]} --epochs "$epochs" --threads 1 --quiet --no-eval \
      --profile "$out/${d}_$m.csv" > "$out/${d}_$m.log" 2>&1
    for s in even greedy; do
      "$dgnn" schedule --model "$m" --data "${file[$d]}" ${args[$d]} --workers 4 --scheduler $s \
        --profile "$out/${d}_$m.csv" > "$out/${d}_${m}_$s.txt" 2>&1
    done
  done
done
python3 - "$out" "$sets" "$models" << 'EOF' | tee "$out/table.md"
import os, re, sys
out, sets, models = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
name = {"ba": "bitcoin-alpha", "cm": "CollegeMsg (190,080 s)"}
print("| data | model | windows | profiled s per epoch | median / max window s | fit MAPE | held-out MAPE (20%) | coefficients kept | imbalance at 4: even | greedy |")
print("|---|---|---|---|---|---|---|---|---|---|")
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
EOF
