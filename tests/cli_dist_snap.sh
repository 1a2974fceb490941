#!/usr/bin/env bash
# cli_dist_snap.sh DGNN DATA_DIR: DyGNeX's distributed snapshot training end to end.
# Without mpirun only the one-process parts run (a process playing 4 ranks, flag errors);
# with it: test_dist_snap under mpirun -np 2 and 4 (N ranks against one process), then
# `mpirun -np 2 dgnn train --dist dygnex` with each scheduler (rank 0's JSON has the dist
# object and the test figures), the cost model fitted on a profile the trainer wrote, a
# 2-rank run resumed from its checkpoint, and a configuration error on every rank ends the
# job with a message instead of a hang.
set -u
dgnn=${1:-${DGNN_BIN:-}}
[ -x "$dgnn" ] || { echo "skip: no dgnn binary"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 (to read the JSON) absent"; exit 77; }
bindir=$(dirname "$dgnn")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAILED: $1"; }
# js FILE EXPR: prints EXPR over the JSON d (a tuple as its items separated by spaces)
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); x=eval(sys.argv[2]); print(*(x if isinstance(x, tuple) else (x,)))" "$@"; }

# a small stream whose snapshots grow: 30 snapshots of 10 s, snapshot k with 2 + k edges
# around 6 hubs (so link prediction has something to learn and windows differ in cost)
: > "$tmp/ev.txt"
for k in $(seq 0 29); do
  for j in $(seq 0 $((1 + k))); do echo "$((j % 6)) $((6 + (j * 7 + k * 3) % 40)) $((k * 10 + 1))" >> "$tmp/ev.txt"; done
done
S="--model evolvegcn-o --data $tmp/ev.txt --snapshot-seconds 10 --window 3 --hidden 8 --cls-hidden 16 --negatives 5
   --skip-val-epochs 0 --threads 1 --quiet"

# one process playing 4 ranks (no mpirun needed)
if out=$("$dgnn" train $S --epochs 2 --dist dygnex --sched-ranks 4 --scheduler greedy --out "$tmp/e.json" 2>&1) &&
   [ "$(js "$tmp/e.json" "d['dist']['emulated'], d['dist']['ranks'], d['dist']['processes']")" = "True 4 1" ] &&
   echo "$out" | grep -q "^test MAP" && echo "$out" | grep -q "emulated"; then
  ok "one process playing 4 ranks: dist JSON (emulated), test figures"
else bad "one process playing 4 ranks"; echo "$out" | tail -10; fi
# flag errors
if out=$("$dgnn" train $S --dist bogus 2>&1); then bad "--dist bogus accepted"
elif echo "$out" | grep -q "\-\-dist: 'bogus'"; then ok "--dist bogus refused"
else bad "--dist bogus: no clear message"; echo "$out" | tail -3; fi
if out=$("$dgnn" train $S --dist dygnex --scheduler magic 2>&1); then bad "--scheduler magic accepted"
elif echo "$out" | grep -q "\-\-scheduler: 'magic'"; then ok "--scheduler magic refused"
else bad "--scheduler magic: no clear message"; echo "$out" | tail -3; fi
if out=$("$dgnn" train $S --sched-ranks 2 2>&1); then bad "--sched-ranks without --dist accepted"
elif echo "$out" | grep -q "need --dist dygnex"; then ok "--sched-ranks without --dist refused"
else bad "--sched-ranks without --dist: no clear message"; echo "$out" | tail -3; fi
if out=$("$dgnn" train $S --dist dygnex --windows-per-step 2 2>&1); then bad "--windows-per-step 2 with dygnex accepted"
elif echo "$out" | grep -q "windows-per-step does not apply"; then ok "--windows-per-step with dygnex refused"
else bad "--windows-per-step with dygnex: no clear message"; echo "$out" | tail -3; fi

if ! command -v mpirun > /dev/null 2>&1; then
  echo "$pass passed, $fail failed (mpirun not found: multi-rank parts skipped)"
  [ $fail = 0 ] || exit 1
  exit 77
fi
mpi="mpirun --allow-run-as-root --oversubscribe"
t="$bindir/test_dist_snap"
# a build without MPI (DGNN_MPI=OFF, the sanitizer pass) runs every mpirun rank as a lone
# process ("rank 0 of 1"): nothing multi-rank to check then
if [ -x "$t" ] && $mpi -np 2 "$t" 2>&1 | grep -q "rank 0 of 1:"; then
  echo "$pass passed, $fail failed (this build has no MPI: multi-rank parts skipped)"
  [ $fail = 0 ] || exit 1
  exit 77
fi
if [ -x "$t" ]; then
  for np in 2 4; do
    if out=$(timeout 120 $mpi -np $np "$t" 2>&1); then ok "test_dist_snap np=$np: $(echo "$out" | tail -1)"
    else bad "test_dist_snap np=$np"; echo "$out" | grep -v "^epoch" | tail -20; fi
  done
else bad "$t not built"; fi

# the trainer's profile, then the cost model fitted on it in a 2-rank run, per scheduler
"$dgnn" train $S --epochs 1 --no-eval --profile "$tmp/p.csv" > /dev/null 2>&1 || bad "profile run"
for sch in even greedy ilp; do
  if out=$(timeout 120 $mpi -np 2 "$dgnn" train $S --epochs 2 --dist dygnex --scheduler $sch --cost-profile "$tmp/p.csv" \
       --time-limit 2 --out "$tmp/$sch.json" 2>&1) &&
     [ "$(js "$tmp/$sch.json" "d['dist']['mode'], d['dist']['ranks'], d['dist']['processes'], d['dist']['cost_model']")" = "dygnex 2 2 profile" ] &&
     js "$tmp/$sch.json" "sum(r['windows'] for r in d['dist']['per_rank']) == d['dist']['windows'] and len(d['dist']['per_round']) == d['dist']['rounds'] and d['dist']['imbalance_measured'] >= 0 and d['dist']['makespan_measured'] > 0" | grep -q True &&
     echo "$out" | grep -q "cost model    fitted" && echo "$out" | grep -q "^test MAP"; then
    ok "mpirun -np 2 --dist dygnex --scheduler $sch --cost-profile: dist JSON, test figures"
  else bad "mpirun -np 2 --dist dygnex --scheduler $sch"; echo "$out" | tail -12; fi
done
# the same schedule and seed: 2 ranks and one process playing them train the same model:
# the same epoch losses within 2e-5 relative (the all-reduce sums the two ranks' gradients
# in another order: a few ulp per step; measured 1e-9 relative under the SkylakeX, Haswell
# and Sandybridge kernels) and the same number of training pairs. Not the MAPs: they rank
# near-tied pairs (this sequence's nodes have few distinct neighbourhoods), and under
# Haswell parameters 1e-9 apart moved epoch 2's validation MAP from 0.02545 to 0.02443, so
# that the best epoch, and with it the tested parameters and the test MAP, changed (issue
# 12; test_dist_snap compares the parameters themselves)
if "$dgnn" train $S --epochs 2 --dist dygnex --sched-ranks 2 --scheduler greedy --cost-profile "$tmp/p.csv" \
     --out "$tmp/g1.json" > /dev/null 2>&1 &&
   out=$(js "$tmp/g1.json" "[(a['train_loss'], b['train_loss'], a['train_pairs'] == b['train_pairs']) for a, b in zip(d['epochs'], json.load(open('$tmp/greedy.json'))['epochs'])]") &&
   python3 -c "import sys; r = eval(sys.argv[1]); sys.exit(not (len(r) == 2 and all(abs(a - b) <= 2e-5 * abs(b) and p for a, b, p in r)))" "$out"; then
  ok "2 ranks and one process playing them: the same epoch losses (relative 2e-5)"
else bad "2 ranks against one process: epoch losses differ: ${out:-no JSON}"; fi
# a 2-rank run stopped after 2 epochs and resumed from rank 0's checkpoint ends where an
# uninterrupted 4-epoch run ends (rank 0 broadcasts parameters, Adam moments and progress):
# the same computation (binary, kernel, ranks, threads), so the figures are compared exactly
D="$S --dist dygnex --scheduler greedy"
if timeout 120 $mpi -np 2 "$dgnn" train $D --epochs 4 --out "$tmp/full.json" > /dev/null 2>&1 &&
   timeout 120 $mpi -np 2 "$dgnn" train $D --epochs 2 --checkpoint "$tmp/ck" > /dev/null 2>&1 &&
   out=$(timeout 120 $mpi -np 2 "$dgnn" train $D --epochs 4 --checkpoint "$tmp/ck" --resume --out "$tmp/res.json" 2>&1) &&
   echo "$out" | grep -q "resumed from" &&
   [ "$(js "$tmp/full.json" "[e['train_loss'] for e in d['epochs']], d['test']['map']")" = \
     "$(js "$tmp/res.json" "[e['train_loss'] for e in d['epochs']], d['test']['map']")" ]; then
  ok "2 ranks: stop after 2 epochs, --resume to 4: the uninterrupted run's losses and test MAP"
else bad "2 ranks: checkpoint and --resume"; fi
# a configuration error seen by every rank: a message and a non-zero exit, no hang
t0=$(date +%s)
if out=$(timeout 60 $mpi -np 2 "$dgnn" train $S --epochs 1 --dist dygnex --sched-ranks 3 2>&1); then
  bad "--sched-ranks 3 under 2 processes accepted"
elif [ $(( $(date +%s) - t0 )) -lt 60 ] && echo "$out" | grep -q "rank [01]: --sched-ranks 3 under 2 processes"; then
  ok "--sched-ranks 3 under 2 processes ends the job with a message"
else bad "--sched-ranks 3 under 2 processes: no clear message or a hang"; echo "$out" | tail -5; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
