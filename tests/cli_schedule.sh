#!/usr/bin/env bash
# cli_schedule.sh DGNN DATA_DIR: `dgnn schedule` and `dgnn simulate` end to end: flag
# errors, a hand-made dataset scheduled by even / greedy / ilp (JSON keys, every window
# exactly once, the SVG), a profile CSV fitted, the ILP fallback message, the simulator's
# table, plot and the event-family hook; bitcoin-alpha when the shared data is present.
set -u
dgnn=${1:-${DGNN_BIN:-}}
data=${2:-}
. "$(dirname "$0")/lib_cli.sh"
[ -x "$dgnn" ] || { echo "skip: no dgnn binary"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 (to read the JSON) absent"; exit 77; }

# a small event stream: 40 snapshots of 10 s, snapshot k with 1 + (k mod 7) * 3 edges
: > "$tmp/ev.txt"
for k in $(seq 0 39); do
  m=$((1 + (k % 7) * 3))
  for j in $(seq 0 $((m - 1))); do echo "$j $((j + 50 + k % 5)) $((k * 10 + 1))" >> "$tmp/ev.txt"; done
done
S="--data $tmp/ev.txt --snapshot-seconds 10 --window 3 --model evolvegcn-o"

expect_rc 0 "$dgnn" schedule --help; has "usage: dgnn schedule"
expect_rc 0 "$dgnn" simulate --help; has "usage: dgnn simulate"
expect_rc 2 "$dgnn" schedule $S; has "--workers"
expect_rc 2 "$dgnn" schedule $S --workers 4 --scheduler magic; has "unknown scheduler 'magic'"
expect_rc 2 "$dgnn" schedule --data "$tmp/ev.txt" --workers 4 --model tgn; has "not a snapshot model"
expect_rc 1 "$dgnn" schedule --data "$tmp/missing.txt" --model evolvegcn-o --workers 2; has "missing.txt"
expect_rc 2 "$dgnn" schedule $S --workers 2 --window -1; has "--window must be in 0..10000 (got -1)"
expect_rc 2 "$dgnn" simulate --synthetic 300 --workers 1,4 --alpha -1; has "--alpha must be >= 0 (got -1)"
expect_rc 2 "$dgnn" simulate --data "$tmp/ev.txt" --workers 1,2 --snapshot-seconds -3; has "--snapshot-seconds must be > 0"
# the snapshot trainer: a negative value typed for a numeric flag is refused, not taken as the default
for a in "--window -1" "--epochs -2" "--lr -1" "--windows-per-step -2" "--train-frac -0.5"; do
  expect_rc 2 "$dgnn" train $S $a --quiet; has "${a% *} must be in"
done

for s in even greedy ilp; do
  # the ILP: 2 s at most (it keeps its best schedule, at worst greedy's warm start); the
  # time limit is the ILP's only (even and greedy refuse it, below)
  tl=(); [ $s = ilp ] && tl=(--time-limit 2)
  expect_rc 0 "$dgnn" schedule $S --workers 4 --scheduler $s --svg "$tmp/$s.svg" "${tl[@]}"
  has "DEFAULT LAW"; has "imbalance"; has "makespan"
  if grep -q "</svg>" "$tmp/$s.svg" 2>/dev/null; then ok; else bad "$s: no SVG"; fi
  "$dgnn" schedule $S --workers 4 --scheduler $s --json "${tl[@]}" > "$tmp/$s.json" 2> /dev/null
  cp "$tmp/$s.json" "$tmp/out"
  has '"imbalance":'; has '"makespan":'
  # every training window exactly once: the samples listed in the schedule are distinct
  # and as many as the windows
  if python3 - "$tmp/$s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for r in d["schedule"] for g in r["groups"] for x in g]
assert len(s) == len(set(s)) == d["windows"], (len(s), len(set(s)), d["windows"])
assert len(d["schedule"]) == d["rounds"] and all(len(r["groups"]) == d["workers"] for r in d["schedule"])
ms = sum(max(r["cost"]) for r in d["schedule"]); tot = sum(sum(r["cost"]) for r in d["schedule"])
assert abs(ms - d["makespan"]) <= 1e-9 * ms and abs(ms / (tot / d["workers"]) - 1 - d["imbalance"]) < 1e-9
PY
  then ok; else bad "$s: JSON schedule is not every window exactly once"; fi
done
# greedy and ilp are never worse than even on the same costs
if python3 - "$tmp/even.json" "$tmp/greedy.json" "$tmp/ilp.json" <<'PY'
import json, sys
e, g, i = (json.load(open(p))["makespan"] for p in sys.argv[1:])
assert g <= e + 1e-12 and i <= g + 1e-12, (e, g, i)
PY
then ok; else bad "greedy/ilp worse than even"; fi

# a profile from a known law: the fit reports it
python3 - "$tmp/prof.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n")
    for i in range(3, 30):
        e = 2 + (i * 37) % 41; ew = e * 4 + i; lp = 101 * (3 + (i * 13) % 29)
        f.write("evolvegcn-o,%d,60,%d,%d,%d,5,100,%.9g\n" % (i, e, ew, lp, 2e-6 * e * 100 + 1e-6 * lp + 0.01))
PY
expect_rc 0 "$dgnn" schedule $S --workers 2 --scheduler greedy --profile "$tmp/prof.csv"
has "fitted on 27 rows"; has "0.0% MAPE on the fitted rows"
# every snapshot model has a law and a fit; a profile's rows of other models are left out
# (a wdgcn law on edges_window among evolvegcn-o rows of another law)
python3 - "$tmp/prof.csv" "$tmp/prof2.csv" <<'PY'
import sys
rows = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as f:
    f.write(rows[0] + "\n" + "\n".join(rows[1:]) + "\n")
    for i in range(3, 30):
        e = 2 + (i * 37) % 41; ew = e * 4 + i; lp = 101 * (3 + (i * 13) % 29)
        f.write("wdgcn,%d,60,%d,%d,%d,5,100,%.9g\n" % (i, e, ew, lp, 5e-6 * ew * 100 + 0.2))
PY
for m in evolvegcn-h tgcn gcrn-gru wdgcn gcn; do
  expect_rc 0 "$dgnn" schedule --data "$tmp/ev.txt" --snapshot-seconds 10 --window 3 --model $m --workers 2; has "DEFAULT LAW"
done
expect_rc 0 "$dgnn" schedule --data "$tmp/ev.txt" --snapshot-seconds 10 --window 3 --model wdgcn --workers 2 \
  --profile "$tmp/prof2.csv"
has "fitted on 27 rows"; has "0.0% MAPE on the fitted rows"
printf 'model,sample\n' > "$tmp/badprof.csv"
expect_rc 1 "$dgnn" schedule $S --workers 2 --profile "$tmp/badprof.csv"; has "badprof.csv:1: header"

# ILP fallback: a time limit too short for anything but the warm start
expect_rc 0 "$dgnn" schedule $S --workers 2 --scheduler ilp --time-limit 0.000001; has "time limit"
# a setting the scheduler never reads is refused before any output (it gave even's rounds
# whatever --rounds said, and greedy ran as without --time-limit)
expect_rc 2 "$dgnn" schedule $S --workers 2 --scheduler even --rounds 3
has "dgnn schedule: --rounds applies to --scheduler greedy and ilp"
expect_rc 2 "$dgnn" schedule $S --workers 2 --scheduler even --rounds 0; has "--rounds applies to"
for s in even greedy; do
  expect_rc 2 "$dgnn" schedule $S --workers 2 --scheduler $s --time-limit 3
  has "dgnn schedule: --time-limit is the ILP's (--scheduler ilp); the $s scheduler does not read it"
done
expect_rc 0 "$dgnn" schedule $S --workers 2 --scheduler greedy --rounds 3; has "3 rounds x 2 ranks"
# one of several processes that mpirun started: refused (each would print and write the same)
if command -v mpirun > /dev/null 2>&1; then
  expect_rc 2 timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$dgnn" schedule $S --workers 2 --svg "$tmp/mpi.svg"
  has "dgnn schedule: this process is one of 2 that an MPI launcher started"
  if [ -e "$tmp/mpi.svg" ]; then bad "mpirun -np 2 dgnn schedule: --svg written"; else ok; fi
fi
# the launcher's environment read as such without mpirun (Hydra's PMI_SIZE)
expect_rc 2 env PMI_SIZE=3 PMI_RANK=0 "$dgnn" schedule $S --workers 2; has "one of 3 that an MPI launcher started (PMI_SIZE=3)"
expect_rc 0 env PMI_SIZE=1 "$dgnn" schedule $S --workers 2

# simulator
expect_rc 0 "$dgnn" simulate --synthetic 300 --pattern bursty --workers 1,4,16 --svg "$tmp/sim.svg" --json "$tmp/sim.json"
has "synthetic bursty"; has "greedy-eff"
if grep -q "</svg>" "$tmp/sim.svg" && grep -q '"efficiency"' "$tmp/sim.json"; then ok; else bad "simulate: no plot/json"; fi
expect_rc 0 "$dgnn" simulate --data "$tmp/ev.txt" --snapshot-seconds 10 --window 3 --workers 1,2 --net nvlink --allreduce tree
has "nvlink"; has "tree all-reduce"
expect_rc 2 "$dgnn" simulate --family event --synthetic 100; has "not built yet"
expect_rc 2 "$dgnn" simulate --synthetic 100 --pattern flat; has "unknown pattern 'flat'"
expect_rc 2 "$dgnn" simulate --synthetic 100 --workers 4,2; has "ascending"

lacks() { if grep -qF -- "$1" "$tmp/out"; then bad "output has '$1'"; sed 's/^/    /' "$tmp/out" | head -8; else ok; fi; }
# --rounds above the window count: one prefix, refused before any output
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --rounds 100
has "dgnn simulate: --rounds 100 is more than the 19 windows"; lacks "greedy-eff"; lacks "simulate      synthetic"
# settings no listed scheduler reads: refused before any output, as schedule refuses them
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --time-limit 5
has "--time-limit is the ILP's"; lacks "greedy-eff"
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --schedulers even --rounds 5
has "--rounds applies to the greedy and ilp schedulers"; lacks "even-eff"
expect_rc 0 "$dgnn" simulate --synthetic 30 --workers 1,2 --schedulers greedy --rounds 5; has "greedy-eff"
expect_rc 2 "$dgnn" schedule $S --workers 2 --rounds 100
has "dgnn schedule: --rounds 100 is more than the 24 training windows"; lacks "schedule: schedule:"
lacks "training windows (samples"
# the help states the automatic rounds as the scheduler chooses them (sched.c), not "or floor"
for c in schedule simulate; do
  expect_rc 0 "$dgnn" $c --help; has "the R in C - 7 .. C with R >= 0.9 C, C = ceil(windows / P)"; lacks "or floor"
done
# the lists: no scheduler twice (duplicate columns and JSON keys), no empty entry anywhere
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --schedulers even,even --json "$tmp/dup.json"
has "'even' is given twice"
if [ -e "$tmp/dup.json" ]; then bad "--schedulers even,even: JSON written"; else ok; fi
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --schedulers even,greedy,; has "empty entry"
for w in 1,2, 1,,2 ,1,2; do expect_rc 2 "$dgnn" simulate --synthetic 30 --workers $w; has "--workers: expected"; done
# a flag the run would ignore is refused, naming where it acts
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --measured "$tmp/o.json"
has "--measured acts on --family event only"
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --refine 3; has "--refine acts on --family event only"
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --snapshot-seconds 100
has "--snapshot-seconds acts on --family snapshot --data FILE only"
for a in "--pattern bursty" "--nodes 5" "--seed 2" "--in-dim 3"; do
  expect_rc 2 "$dgnn" simulate --data "$tmp/ev.txt" --snapshot-seconds 10 --window 3 --workers 1,2 $a
  has "${a% *} acts on --family snapshot --synthetic T only"
done
expect_rc 2 "$dgnn" simulate --synthetic 30 --workers 1,2 --profile "$tmp/prof.csv" --rate 1e9; has "--rate"
expect_rc 2 "$dgnn" schedule $S --workers 2 --profile "$tmp/prof.csv" --rate 1e9; has "--rate"

if [ -n "$data" ] && [ -f "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" ]; then
  expect_rc 0 "$dgnn" schedule --data "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" --model evolvegcn-o --workers 4 --scheduler greedy
  has "85 training windows (samples 10..94"; has "21 rounds x 4 ranks"; has "1 fewer than ceil(windows / P) = 22"
  # 2 workers: C = 43, the rule's range 39..43, greedy's best 41
  expect_rc 0 "$dgnn" schedule --data "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" --model evolvegcn-o --workers 2
  has "41 rounds x 2 ranks"; has "2 fewer than ceil(windows / P) = 43"
  expect_rc 2 "$dgnn" schedule --data "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" --model evolvegcn-o --workers 2 \
    --rounds 100
  has "dgnn schedule: --rounds 100 is more than the 85 training windows"; lacks "schedule: schedule:"
  # even keeps ceil(85 / 4) = 22 rounds; greedy with --rounds 22 too
  expect_rc 0 "$dgnn" schedule --data "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" --model evolvegcn-o --workers 4 --scheduler even
  has "22 rounds x 4 ranks"
  expect_rc 0 "$dgnn" schedule --data "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" --model evolvegcn-o --workers 4 --scheduler greedy --rounds 22
  has "22 rounds x 4 ranks"
else
  echo "skip: shared data folder '$data' absent: bitcoin-alpha not scheduled"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
