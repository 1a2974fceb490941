#!/usr/bin/env bash
# cli_simulate_event.sh DGNN DATA_DIR: `dgnn simulate --family event` end to end: a
# hand-made measured run on a hand-made stream (one worker reproduces the measured time,
# the table, the SVG and JSON, strict's exchange growing with P), a real single-process
# `dgnn train --out` run read back, and the errors (bad JSON names the file and field; the
# snapshot family's flags refused).
set -u
dgnn=${1:-${DGNN_BIN:-}}
. "$(dirname "$0")/lib_cli.sh"
[ -x "$dgnn" ] || { echo "skip: no dgnn binary"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 (to write and read the JSON) absent"; exit 77; }

# a stream of 3000 events over 120 nodes in 4 communities, one event per time unit
python3 - "$tmp/ev.txt" <<'PY'
import random, sys
r = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        u = r.randrange(120); c = u // 30
        v = c * 30 + r.randrange(30) if r.random() < 0.9 else r.randrange(120)
        if v == u: v = (u + 1) % 120
        f.write("%d %d %d\n" % (u, v, i))
PY
# a measured single-rank run on it: 2 s for 1000 events at batch 100
run() { # path seconds extra-json
  cat > "$1" <<EOF
{"model": "tgn", "dataset": "$tmp/ev.txt", "config": {"batch": 100, "threads": 1, "max_batches": 10,
 "mem_dim": 172, "time_dim": 100, "mail_slots": 10, "new_node_frac": 0, "val_quantile": 0.7,
 "test_quantile": 0.85, "seed": 0}, "data": {"train_events": 2100, "edge_dim": 0}, "num_params": 250000,
 "epochs": [{"train_seconds": $2, "train_events": 1000}] $3}
EOF
}
run "$tmp/r1.json" 2.0 ""

expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/r1.json" --workers 1,2,4,8 --window-events 500 \
  --svg "$tmp/sim.svg" --json "$tmp/sim.json"
has "event family"; has "2 ms/event"; has "row 2496 B"; has "speedup"
# a single-process run measures no per-rank compute and comm: n/a in the checks, never nan
has "n/a/"; if grep -qE "(^|[ /])-?nan([/% ]|$)" "$tmp/out"; then bad "checks table prints nan"; sed 's/^/    /' "$tmp/out" | head -12; else ok; fi
if grep -q "</svg>" "$tmp/sim.svg" 2> /dev/null; then ok; else bad "no SVG"; fi
if python3 - "$tmp/sim.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["train_events"]; p = {q["workers"]: q for q in d["points"]}
assert d["step_seconds"] == 0 and abs(d["event_seconds"] - 0.002) < 1e-12
t1 = n * 0.002
# one worker: the measured cost per event over the whole epoch, both schemes
assert abs(p[1]["t1"] - t1) < 1e-9 and abs(p[1]["strict"]["seconds"] - t1) < 1e-9, p[1]
assert abs(p[1]["depbloom"]["seconds"] - t1) < 1e-9 and p[1]["depbloom"]["sync"] == 0
# strict's exchange per step grows with P
g = [p[w]["strict"]["gather"] / p[w]["strict"]["steps"] for w in (2, 4, 8)]
assert g[0] < g[1] < g[2], g
# checks: the measured run itself, reproduced
c = d["checks"][0]
assert abs(c["predicted_seconds"] - 2.0) < 1e-9, c
PY
then ok; else bad "simulate --family event: JSON figures"; fi

# the validation table against a multi-rank run
run "$tmp/s2.json" 1.5 ', "dist": {"mode": "strict", "ranks": 2, "partition": false, "window_events": 10000,
 "window_seconds": 0, "refine": 0, "steps": 5, "state_bytes_per_epoch": 1e6, "grad_bytes_per_epoch": 1e7,
 "per_rank": [{"compute_seconds": 1.2, "sample_seconds": 0.01, "comm_seconds": 0.3},
 {"compute_seconds": 1.1, "sample_seconds": 0.01, "comm_seconds": 0.4}]}'
expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/r1.json" --measured-strict "$tmp/s2.json" --workers 1,2 \
  --net nvlink --refine 4
has "s2.json"; has "strict       2"; has "nvlink"; has "refine K = 4"
# a share of the cores under load, as docs/depbloom.md's checks give it (--cores 0.91)
expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/r1.json" --measured-strict "$tmp/s2.json" --workers 1,2 \
  --cores 0.91
expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/r1.json" --measured-strict "$tmp/s2.json" --cores 0

# errors
expect_rc 2 "$dgnn" simulate --family event --workers 1,2; has "--measured"
# one of several processes an MPI launcher started: each would write the same outputs
expect_rc 2 env PMI_SIZE=2 PMI_RANK=0 "$dgnn" simulate --synthetic 30 --workers 1,2 --json "$tmp/copies.json"
has "one of 2 that an MPI launcher started (PMI_SIZE=2)"
[ ! -e "$tmp/copies.json" ] && ok || bad "simulate under a launcher: --json written"
# the snapshot family's flags would be ignored here: refused before anything is read or written
for a in "--schedulers ilp" "--model gcn" "--window 3" "--pattern bursty" "--rounds 5" "--profile $tmp/missing.csv" \
         "--time-limit 3" "--preset uci" "--seed 2" "--nodes 5" "--snapshot-seconds 100"; do
  expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/r1.json" --workers 1,2 --json "$tmp/ign.json" $a
  has "${a% *} acts on --family snapshot"; has "a --family event run would ignore it"
done
if [ -e "$tmp/ign.json" ]; then bad "a refused flag: JSON written"; else ok; fi
# a run on the built-in stream: that stream is regenerated, a loading flag would describe nothing
if "$dgnn" train --epochs 1 --max-batches 2 --no-eval --threads 1 --mem-dim 16 --emb-dim 16 --time-dim 8 --quiet \
     --out "$tmp/builtin.json" > "$tmp/out" 2>&1; then
  expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/builtin.json" --workers 1,2; has "speedup"
  expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/builtin.json" --workers 1,2 --columns src,dst,ts
  has "--columns describes the --data file, but the run trained on the built-in stream"
else
  bad "dgnn train on the built-in stream failed"; sed 's/^/    /' "$tmp/out" | head -5
fi
expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/r1.json" --workers 1,2,; has "--workers: expected"
expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/r1.json" --workers 4,2; has "ascending"
expect_rc 2 "$dgnn" simulate --family event --synthetic 100; has "--synthetic"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/missing.json"; has "missing.json"
run "$tmp/bad.json" '"slow"' ""
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/bad.json"; has "bad.json"; has "'epochs[0].train_seconds'"
printf '{"model": "tgn", ' > "$tmp/cut.json"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/cut.json"; has "cut.json:1:18: not valid JSON (byte 17)"
# two runs in one file: refused (the first was read), at the second's line
cat "$tmp/r1.json" "$tmp/r1.json" > "$tmp/two.json"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/two.json"
has "two.json:$(($(wc -l < "$tmp/r1.json") + 1)):1: text after the JSON value"
# a key given twice is refused where it stands (cJSON read the first, Python's json the last)
sed 's|"train_seconds": 2.0,|"train_seconds": 2.0, "train_seconds": 9.0,|' "$tmp/r1.json" > "$tmp/dup.json"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/dup.json"
has "field 'epochs[0].train_seconds': key \"train_seconds\" appears twice"
sed 's|"model": "tgn",|"model": "tgn", "model": "jodie",|' "$tmp/r1.json" > "$tmp/dup.json"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/dup.json"; has "field 'model': key \"model\" appears twice"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/r1.json" --measured-depbloom "$tmp/s2.json"
has "'dist.mode': 'strict', not depbloom"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/s2.json"; has "2-rank run"
sed "s|$tmp/ev.txt|$tmp/gone.txt|" "$tmp/r1.json" > "$tmp/gone.json"
expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/gone.json"; has "field 'dataset'"; has "--data"

# a real run of the trainer (single process, small model) read back
if "$dgnn" train --data "$tmp/ev.txt" --epochs 1 --no-eval --threads 1 --mem-dim 16 --emb-dim 16 --time-dim 8 \
     --max-batches 5 --quiet --out "$tmp/real.json" > "$tmp/out" 2>&1; then
  expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/real.json" --workers 1,2 --window-events 500
  has "fitted on 1 run"; has "row 256 B"
else
  bad "dgnn train failed"; sed 's/^/    /' "$tmp/out" | head -5
fi
# a bench run's step-time curve (issue 18): written with --out, read as one worker's costs
if "$dgnn" bench train --data "$tmp/ev.txt" --threads 1 --mem-dim 16 --emb-dim 16 --time-dim 8 --max-batches 7 \
     --batch 20 --quiet --step-curve 20,80 --out "$tmp/curve.json" > "$tmp/out" 2>&1; then
  if grep -q "applying received state rows (256 B each" "$tmp/out"; then ok; else bad "bench: no apply rate"; fi
  if python3 - "$tmp/curve.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["step_curve"]
assert c["device"] == "cpu" and [p["batch"] for p in c["points"]] == [20, 80], c
assert all(p["step_seconds"] > 0 and p["steps"] == 3 for p in c["points"]), c
assert c["apply_bytes_per_second"] > 1e6, c
assert c["optimizer_seconds"] > 0, c  # a time: positive, not compared with the steps' (no timed tests)
PY
  then ok; else bad "bench --step-curve --out: the step_curve object"; fi
  expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/curve.json" --workers 1,2 --window-events 500 \
    --json "$tmp/simc.json"
  has "step curve    measured on cpu"; has "measured with the step curve"; has "as the step curve's cpu"
  has "the optimizer"
  if python3 - "$tmp/curve.json" "$tmp/simc.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["step_curve"]; d = json.load(open(sys.argv[2]))
p = {q["batch"]: q["step_seconds"] for q in c["points"]}
one = [q for q in d["points"] if q["workers"] == 1][0]
# one worker: steps of 20 events (the bench's batch) at the curve's 20-event time
n = d["train_events"]; steps = -(-n // 20); last = n - (steps - 1) * 20
t20, t80 = p[20], p[80]
tlast = max(0.0, t20 + (t80 - t20) * (last - 20) / 60)
opt = c["optimizer_seconds"]
if last < 20 and 0 < opt < t20:  # below the smallest batch: not below (0, opt) -- (20, t20)
    tlast = max(tlast, opt + (t20 - opt) * last / 20)
assert abs(one["t1"] - ((steps - 1) * t20 + tlast)) < 1e-9 * one["t1"], (one["t1"], steps, t20)
assert abs(d["apply_bytes_per_second"] - c["apply_bytes_per_second"]) < 1e-6 * d["apply_bytes_per_second"]
PY
  then ok; else bad "simulate from the curve: one worker's epoch"; fi
  expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/curve.json" --workers 1,2 --apply-gbps 3
  has "3 GB/s (--apply-gbps)"
  # a GPU curve does not predict CPU runs: the check is skipped, saying why
  python3 - "$tmp/curve.json" "$tmp/gcurve.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["step_curve"]["device"] = "cuda:0"; json.dump(d, open(sys.argv[2], "w"))
PY
  expect_rc 0 "$dgnn" simulate --family event --measured "$tmp/gcurve.json" --measured-strict "$tmp/s2.json" \
    --workers 1,2
  has "not checked: it trained on cpu, the step-time curve was measured on cuda:0"
  expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/curve.json" --critical-path --workers 1,2
  has "already holds the trainer's own overlap"
  expect_rc 1 "$dgnn" simulate --family event --measured "$tmp/curve.json,$tmp/gcurve.json" --workers 1,2
  has "second step-time curve"
  # scripts/sim-from-curve.sh (what gpu-check.sh runs on the GPU's curve), on its own stream only
  expect_rc 0 env SIM_SYNTHETIC=0 SIM_WORKERS=1,2 bash "$(dirname "$0")/../scripts/sim-from-curve.sh" \
    "$tmp/curve.json" "$tmp/simdir" "$dgnn"
  has "-- w2500-k4"
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['refine']==4 and d['window_events']==2500" \
       "$tmp/simdir/sim-w2500-k4.json"; then ok; else bad "sim-from-curve.sh: its JSON"; fi
else
  bad "dgnn bench train --step-curve failed"; sed 's/^/    /' "$tmp/out" | head -5
fi
expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/r1.json" --compute-scale 0.03; has "compute-scale"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
