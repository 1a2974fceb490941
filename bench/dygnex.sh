#!/usr/bin/env bash
# dygnex.sh: DyGNeX's measured figures (issue 6; docs/dygnex.md "Measured" keeps them):
#  1. per-window profiles of EvolveGCN-O on bitcoin-alpha and CollegeMsg (one process, one
#     thread), the cost model fitted on each and its held-out error;
#  2. predicted imbalance at 4 ranks per scheduler (dgnn schedule on the fitted costs; the
#     synthetic sequences through dgnn simulate with the default law: with --profile,
#     simulate would give the synthetic windows whose sample numbers the profile holds the
#     profile's sizes);
#  3. distributed training runs, mpirun -np 2 and 4, per scheduler: per-epoch time,
#     measured imbalance (wall and CPU seconds of each group), per-rank compute/comm; and
#     one process playing 4 ranks (each group timed alone: no sharing of cores);
#  4. the simulator (dgnn simulate --family snapshot) against those runs;
#  5. the simulated efficiency at 512 and 4096 workers on 262,155-snapshot synthetic
#     sequences (64 windows per worker at 4096), and the ILP on 1,000 windows and 512 workers.
# Not a test: it prints markdown tables (and keeps every JSON in $OUT).
#   bench/dygnex.sh [DGNN] ; env: DATA (shared data folder), OUT (/tmp/dygnex-bench),
#   EPOCHS (2 per run), NPS ("2 4"), SCHEDS ("even greedy ilp"), ILP_LIMIT (10 s),
#   ALPHA/BETA (this machine's MPI latency and s/byte for the simulator: 2e-6, 1e-9),
#   SETS ("ba cm"), TABLE_ONLY=1 (no runs: the tables from the JSONs already in $OUT)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dgnn=${1:-$root/build/dgnn}
data=${DATA:-$root/../shared/data}
out=${OUT:-/tmp/dygnex-bench}
epochs=${EPOCHS:-2}
nps=${NPS:-"2 4"}
scheds=${SCHEDS:-"even greedy ilp"}
ilp_limit=${ILP_LIMIT:-10}
alpha=${ALPHA:-2e-6}
beta=${BETA:-1e-9}
[ -x "$dgnn" ] || { echo "no dgnn binary at $dgnn (build first, or pass its path)"; exit 1; }
command -v mpirun > /dev/null || { echo "mpirun not found"; exit 1; }
mkdir -p "$out"
mpi="mpirun --allow-run-as-root --oversubscribe"
. "$root/bench/snap_datasets.sh"
T="--model evolvegcn-o --threads 1 --quiet"
tl() { if [ "$1" = ilp ]; then echo "--time-limit $ilp_limit"; fi; } # the ILP's flag: even and greedy refuse it
[ "${TABLE_ONLY:-0}" = 1 ] || echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/machine.txt"
cat "$out/machine.txt"
for d in $sets; do
  [ "${TABLE_ONLY:-0}" = 1 ] && break
  f=${file[$d]}
  echo "== $d: profile (3 epochs, one process, one thread)" >&2
  "$dgnn" train $T --data "$f" ${args[$d]} --epochs 3 --no-eval --profile "$out/$d.csv" --out "$out/${d}_1.json" \
    > "$out/${d}_1.log" 2>&1
  for s in even greedy ilp; do
    "$dgnn" schedule --model evolvegcn-o --data "$f" ${args[$d]} --workers 4 --scheduler $s --profile "$out/$d.csv" \
      $(tl $s) > "$out/${d}_sched4_$s.txt" 2>&1
    "$dgnn" schedule --model evolvegcn-o --data "$f" ${args[$d]} --workers 4 --scheduler $s --profile "$out/$d.csv" \
      $(tl $s) --json > "$out/${d}_sched4_$s.json" 2> /dev/null
  done
  for np in $nps; do
    for s in $scheds; do
      echo "== $d: mpirun -np $np, $s" >&2
      $mpi -np $np "$dgnn" train $T --data "$f" ${args[$d]} --epochs "$epochs" --no-eval --dist dygnex --scheduler $s \
        --cost-profile "$out/$d.csv" $(tl $s) --out "$out/${d}_np${np}_$s.json" \
        > "$out/${d}_np${np}_$s.log" 2>&1
    done
  done
  for s in $scheds; do
    echo "== $d: one process playing 4 ranks, $s" >&2
    "$dgnn" train $T --data "$f" ${args[$d]} --epochs "$epochs" --no-eval --dist dygnex --sched-ranks 4 --scheduler $s \
      --cost-profile "$out/$d.csv" $(tl $s) --out "$out/${d}_emu4_$s.json" > "$out/${d}_emu4_$s.log" 2>&1
  done
  "$dgnn" simulate --family snapshot --model evolvegcn-o --data "$f" ${args[$d]} --profile "$out/$d.csv" \
    --workers 1,2,4 --schedulers even,greedy,ilp --time-limit "$ilp_limit" --alpha "$alpha" --beta "$beta" \
    --json "$out/${d}_sim.json" > "$out/${d}_sim.txt" 2>&1
done
for p in growing bursty; do
  [ "${TABLE_ONLY:-0}" = 1 ] && break
  "$dgnn" simulate --family snapshot --model evolvegcn-o --synthetic 2000 --pattern $p \
    --workers 4 --schedulers even,greedy,ilp --time-limit "$ilp_limit" --json "$out/syn_$p.json" \
    > "$out/syn_$p.txt" 2>&1 || true
  "$dgnn" simulate --family snapshot --model evolvegcn-o --synthetic 262155 --pattern $p \
    --workers 1,512,4096 --schedulers even,greedy,ilp --time-limit "$ilp_limit" --json "$out/scale_$p.json" \
    > "$out/scale_$p.txt" 2>&1 || true
  "$dgnn" simulate --family snapshot --model evolvegcn-o --synthetic 1011 --pattern $p \
    --workers 512 --schedulers greedy,ilp --time-limit "$ilp_limit" --json "$out/ilp512_$p.json" \
    > "$out/ilp512_$p.txt" 2>&1 || true
done

python3 - "$out" "$sets" "$nps" "$scheds" << 'EOF' | tee "$out/table.md"
import json, os, re, sys
out, sets, nps, scheds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
name = {"ba": "bitcoin-alpha", "cm": "CollegeMsg (190,080 s)"}
J = lambda f: json.load(open(os.path.join(out, f)))
ok = lambda f: os.path.exists(os.path.join(out, f)) and os.path.getsize(os.path.join(out, f)) > 0
pct = lambda x: "%.1f%%" % (100 * x)
# the epoch at this run's speed against even's at the same speed: (1 + cpu imbalance) / (1 + even's) - 1
equal_speed = lambda s, x, base_imb: "" if s == "even" or base_imb is None else \
    "%+.1f%%" % (100 * ((1 + x["imbalance_measured_cpu"]) / (1 + base_imb) - 1))

print("### Cost model (EvolveGCN-O, fitted on the 3-epoch profile, one thread)\n")
print("| data | windows | 1-process epoch (s) | sum of profiled windows (s) | fit MAPE | held-out MAPE (20%) |")
print("|---|---|---|---|---|---|")
for d in sets:
    r1 = J(f"{d}_1.json")
    ep = sum(e["train_seconds"] for e in r1["epochs"]) / len(r1["epochs"])
    txt = open(os.path.join(out, f"{d}_sched4_greedy.txt")).read()
    m = re.search(r"error: ([\d.]+)% MAPE on the fitted rows, ([\d.]+)% on (\d+) held-out", txt)
    tot = sum(float(l.split(",")[-1]) for l in open(os.path.join(out, f"{d}.csv")).read().split("\n")[1:] if l)
    print(f"| {name[d]} | {r1['data']['train_samples']} | {ep:.3f} | {tot:.3f} | {m.group(1)}% | {m.group(2)}% ({m.group(3)} rows) |")

print("\n### Predicted imbalance at 4 ranks (fitted costs; schedulers' own figures)\n")
print("| input | rounds | even | greedy | ilp | ilp method, gap, solve s |")
print("|---|---|---|---|---|---|")
for d in sets:
    s = {k: J(f"{d}_sched4_{k}.json") for k in ("even", "greedy", "ilp")}
    i = s["ilp"]
    print(f"| {name[d]} | {s['greedy']['rounds']} | {pct(s['even']['imbalance'])} | {pct(s['greedy']['imbalance'])} | "
          f"{pct(i['imbalance'])} | {i['method']}, {pct(i['gap'])}, {i['solve_seconds']:.1f} |")
for p in ("growing", "bursty"):
    if not ok(f"syn_{p}.json"): continue
    pt = J(f"syn_{p}.json")["points"][0]
    print(f"| synthetic {p}, 2,000 snapshots | {pt['greedy']['rounds']} | {pct(pt['even']['imbalance'])} | "
          f"{pct(pt['greedy']['imbalance'])} | {pct(pt['ilp']['imbalance'])} | gap {pct(pt['ilp']['gap'])}, "
          f"{pt['ilp']['solve_seconds']:.1f} |")

print("\n### Distributed runs (mpirun, one thread per rank; per epoch, mean of the epochs)\n")
print("imbalance = sum over rounds of the slowest group / sum of the mean group - 1; wall: the groups' wall")
print("seconds (ranks share the cores), cpu: their process CPU seconds (the no-contention time of each group);")
print("no-contention epoch = CPU makespan + Adam steps + rounds x the all-reduce's alpha-beta time.\n")
print("equal speed: (1 + cpu imbalance) / (1 + even's) - 1, the epoch at this run's mean speed against even's")
print("at the same speed (the machine's speed drifts between runs; the schedule's own gain).\n")
print("| data | ranks | scheduler | epoch wall s | vs even | imbalance pred | wall | cpu | cpu makespan s | sum of ranks' cpu s | no-contention epoch s | vs even | at equal speed vs even | comm s (max rank) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
rows = {}
for d in sets:
    sim = J(f"{d}_sim.json")
    gb = sim["grad_bytes"]; a = sim["alpha"]; b = sim["beta"]
    for np_ in nps:
        P = int(np_)
        ar = 2 * (P - 1) * a + 2 * (P - 1) / P * gb * b
        base = None; base_nc = None; base_imb = None
        for s in scheds:
            f = f"{d}_np{np_}_{s}.json"
            if not ok(f): continue
            x = J(f)["dist"]
            nc = x["makespan_measured_cpu"] + x["step_seconds"] + x["rounds"] * ar
            ep = x["epoch_seconds"]
            if s == "even": base, base_nc, base_imb = ep, nc, x["imbalance_measured_cpu"]
            rows[(d, P, s)] = (x, nc)
            vs = "" if s == "even" or base is None else "%+.1f%%" % (100 * (ep / base - 1))
            vsn = "" if s == "even" or base_nc is None else "%+.1f%%" % (100 * (nc / base_nc - 1))
            eq = equal_speed(s, x, base_imb)
            print(f"| {name[d]} | {P} | {s} | {ep:.3f} | {vs} | {pct(x['imbalance_predicted'])} | "
                  f"{pct(x['imbalance_measured'])} | {pct(x['imbalance_measured_cpu'])} | {x['makespan_measured_cpu']:.3f} | "
                  f"{sum(r['cpu_seconds'] for r in x['per_rank']):.3f} | {nc:.3f} | {vsn} | {eq} | "
                  f"{max(r['comm_seconds'] for r in x['per_rank']):.3f} |")

print("\n### One process playing 4 ranks (each group run alone on one core; CPU seconds)\n")
print("total = all windows' CPU seconds in this run (the profile's sum was measured earlier: the machine's")
print("speed drifts with the load on the other hyperthread); calibrated = predicted makespan x measured")
print("mean / predicted mean, i.e. the schedule's predicted imbalance applied to this run's speed.\n")
print("| data | scheduler | total pred s | total meas s | makespan pred s | calibrated s | measured s | error (calibrated) | imbalance pred | measured (cpu) | measured (wall) | makespan vs even | at equal speed vs even |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for d in sets:
    base = None; base_imb = None
    for s in scheds:
        f = f"{d}_emu4_{s}.json"
        if not ok(f): continue
        x = J(f)["dist"]
        P = x["ranks"]
        cal = x["makespan_predicted"] * x["mean_measured_cpu"] / x["mean_predicted"]
        m = x["makespan_measured_cpu"]
        if s == "even": base, base_imb = m, x["imbalance_measured_cpu"]
        vs = "" if s == "even" or base is None else "%+.1f%%" % (100 * (m / base - 1))
        eq = equal_speed(s, x, base_imb)
        print(f"| {name[d]} | {s} | {P * x['mean_predicted']:.3f} | {P * x['mean_measured_cpu']:.3f} | "
              f"{x['makespan_predicted']:.3f} | {cal:.3f} | {m:.3f} | {100 * (cal / m - 1):+.1f}% | "
              f"{pct(x['imbalance_predicted'])} | {pct(x['imbalance_measured_cpu'])} | {pct(x['imbalance_measured'])} | {vs} | {eq} |")

print("\n### Simulator (dgnn simulate --family snapshot, this machine's alpha/beta) against the runs\n")
print("sim T_P = the schedule's makespan (fitted costs) + rounds x all-reduce (alpha-beta, this machine's")
print("values), against the measured no-contention epoch (table above); calibrated: the simulated makespan")
print("scaled by the run's measured mean / predicted mean (the run's own machine speed), plus the same")
print("all-reduce term; wall: the run's epoch, which includes the sharing of 2 cores by the ranks and by")
print("other jobs (the simulator gives every worker its own core). P = 1: sim T_1 against the one-process")
print("epoch (wall; the profile run itself) and against the emulated runs' total CPU.\n")
print("| data | P | scheduler | sim T_P s | no-contention s | error | calibrated error | wall s | error (wall) |")
print("|---|---|---|---|---|---|---|---|---|")
for d in sets:
    sim = J(f"{d}_sim.json")
    r1 = J(f"{d}_1.json")
    ep1 = sum(e["train_seconds"] for e in r1["epochs"]) / len(r1["epochs"])
    emu = [J(f"{d}_emu4_{s}.json")["dist"] for s in scheds if ok(f"{d}_emu4_{s}.json")]
    tot = sum(x["mean_measured_cpu"] * x["ranks"] for x in emu) / len(emu) if emu else float("nan")
    for pt in sim["points"]:
        P = pt["workers"]
        for s in scheds:
            if s not in pt: continue
            tp = pt[s]["tp"]
            if P == 1:
                if s == "even":
                    print(f"| {name[d]} | 1 | - | {tp:.3f} | {tot:.3f} (emulated runs' CPU) | {100 * (tp / tot - 1):+.1f}% | | "
                          f"{ep1:.3f} | {100 * (tp / ep1 - 1):+.1f}% |")
                continue
            if (d, P, s) not in rows: continue
            x, nc = rows[(d, P, s)]
            cal = pt[s]["makespan"] * x["mean_measured_cpu"] / x["mean_predicted"] + pt[s]["comm"] + x["step_seconds"]
            print(f"| {name[d]} | {P} | {s} | {tp:.3f} | {nc:.3f} | {100 * (tp / nc - 1):+.1f}% | {100 * (cal / nc - 1):+.1f}% | "
                  f"{x['epoch_seconds']:.3f} | {100 * (tp / x['epoch_seconds'] - 1):+.1f}% |")

print("\n### Simulated scaling (default cost law, `--net ib`, all-reduce auto)\n")
print("| sequence | P | all-reduce | even imbalance / efficiency | greedy imbalance / efficiency | ilp imbalance / efficiency, gap |")
print("|---|---|---|---|---|---|")
for p in ("growing", "bursty"):
    if not ok(f"scale_{p}.json"): continue
    for pt in J(f"scale_{p}.json")["points"]:
        if pt["workers"] == 1: continue
        print(f"| {p}, 262,155 snapshots | {pt['workers']} | {pt['allreduce']} | {pct(pt['even']['imbalance'])} / "
              f"{pct(pt['even']['efficiency'])} | {pct(pt['greedy']['imbalance'])} / {pct(pt['greedy']['efficiency'])} | "
              f"{pct(pt['ilp']['imbalance'])} / {pct(pt['ilp']['efficiency'])}, {pct(pt['ilp']['gap'])} |")
print("\n### ILP: 1,000 windows on 512 workers (1,011-snapshot synthetic sequences)\n")
print("| sequence | rounds | greedy imbalance | ilp imbalance | ilp gap to the bound | ilp solve s |")
print("|---|---|---|---|---|---|")
for p in ("growing", "bursty"):
    if not ok(f"ilp512_{p}.json"): continue
    pt = J(f"ilp512_{p}.json")["points"][0]
    print(f"| {p} | {pt['ilp']['rounds']} | {pct(pt['greedy']['imbalance'])} | {pct(pt['ilp']['imbalance'])} | "
          f"{pct(pt['ilp']['gap'])} | {pt['ilp']['solve_seconds']:.3f} |")
EOF
