#!/usr/bin/env bash
# cli_dist.sh: the distributed trainers under mpirun -np 2 and 4 (skipped without mpirun):
# test_dist_event (strict against single-process training), then `dgnn train --dist`
# end to end (rank 0's JSON has the dist object), and a bad flag ends every rank.
set -u
dgnn="$1"
bindir=$(dirname "$dgnn")
t="$bindir/test_dist_event"
if ! command -v mpirun >/dev/null 2>&1; then echo "skip: mpirun not found"; exit 77; fi
if [ ! -x "$t" ]; then echo "skip: $t not built"; exit 77; fi
mpi="mpirun --allow-run-as-root --oversubscribe"
pass=0; fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAILED: $1"; fail=$((fail + 1)); }
for np in 2 4; do
  if out=$($mpi -np $np "$t" 2>&1); then ok "test_dist_event np=$np: $(echo "$out" | tail -1)"
  else bad "test_dist_event np=$np"; echo "$out" | tail -20; fi
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if out=$($mpi -np 2 "$dgnn" train --dist strict --epochs 1 --max-batches 10 --threads 1 --quiet \
    --out "$tmp/r.json" 2>&1) && grep -q '"dist"' "$tmp/r.json" && grep -q '"mode":[[:space:]]*"strict"' "$tmp/r.json" \
    && grep -q '"per_rank"' "$tmp/r.json" && echo "$out" | grep -q "^test AP"; then
  ok "dgnn train --dist strict -np 2 writes the dist JSON"
else bad "dgnn train --dist strict -np 2"; echo "$out" | tail -20; fi
if out=$($mpi -np 2 "$dgnn" train --dist depbloom --partition --window-events 5000 --epochs 1 --threads 1 --quiet \
    --out "$tmp/d.json" --window-report "$tmp/w.csv" 2>&1) && grep -q '"mode":[[:space:]]*"depbloom"' "$tmp/d.json" \
    && grep -q '"cut_fraction":[[:space:]]*0\.' "$tmp/d.json" && echo "$out" | grep -q "^test AP"; then
  ok "dgnn train --dist depbloom --partition -np 2"
else bad "dgnn train --dist depbloom --partition -np 2"; echo "$out" | tail -20; fi
# the window report: one row per window (as many as the JSON's windows), each window's
# events split over the 2 ranks, the boundary sync below strict's bound
if awk -F, -v W="$(grep -o '"windows":[[:space:]]*[0-9]*' "$tmp/d.json" | grep -o '[0-9]*$')" '
    NR == 1 { ok = ($0 ~ /^window,begin,end,events,cut_events,cut_fraction,nodes,events_rank0,events_rank1,/); next }
    { rows++; if ($8 + $9 != $4 || $4 != $3 - $2 || $12 <= 0 || $12 > $13) ok = 0 }
    END { exit !(ok && rows == W && rows > 0) }' "$tmp/w.csv" 2>/dev/null; then
  ok "--window-report: one row per window, events per rank add up"
else bad "--window-report"; head -3 "$tmp/w.csv" 2>/dev/null; fi
if out=$("$dgnn" train --dist strict --window-report "$tmp/x.csv" 2>&1); then bad "--window-report without depbloom accepted"
else ok "--window-report needs --dist depbloom"; fi
if out=$($mpi -np 2 "$dgnn" train --dist depbloom --partition --epochs 1 --max-batches 2 --threads 1 --quiet \
    --window-report "$tmp/no/such/dir/w.csv" 2>&1); then bad "unwritable --window-report accepted"
elif echo "$out" | grep -q "no/such/dir/w.csv"; then ok "unwritable --window-report: message names the file"
else bad "unwritable --window-report: no clear message"; echo "$out" | tail -5; fi
# a rank killed mid-run ends the job at once with a message naming it; the checkpoint
# of the last finished epoch stays loadable and --resume finishes the run
ck="$tmp/ck"
$mpi -np 2 "$dgnn" train --dist strict --epochs 3 --max-batches 40 --threads 1 --quiet --checkpoint "$ck" \
    >"$tmp/kill.out" 2>&1 &
job=$!
for i in $(seq 1 240); do [ -f "$ck/checkpoint.dgnnckpt" ] && break; sleep 0.5; done
# the ranks (not mpirun; dgnn re-executes itself, so their comm may read "exe")
victim=$(pgrep -f -- "--checkpoint $ck" | while read p; do
  case "$(ps -o comm= -p "$p")" in mpirun|orterun|prterun) ;; *) echo "$p";; esac; done | tail -1)
t0=$(date +%s)
[ -n "$victim" ] && kill -9 "$victim"
wait $job; rc=$?
dt=$(( $(date +%s) - t0 ))
if [ -n "$victim" ] && [ $rc -ne 0 ] && [ $dt -le 30 ] && grep -q "rank [01]" "$tmp/kill.out"; then
  ok "kill -9 of a rank: exit $rc after $dt s, message names the rank"
else bad "kill -9 of a rank (victim '$victim', rc $rc, $dt s)"; tail -5 "$tmp/kill.out"; fi
if out=$($mpi -np 2 "$dgnn" train --dist strict --epochs 3 --max-batches 40 --threads 1 --quiet --checkpoint "$ck" \
    --resume 2>&1) && echo "$out" | grep -q "resumed from" && echo "$out" | grep -q "^test AP"; then
  ok "--resume after the kill finishes the run"
else bad "--resume after the kill"; echo "$out" | tail -10; fi
# that 2-rank --dist strict checkpoint resumed otherwise: refused, naming both runs
if out=$("$dgnn" train --epochs 4 --max-batches 40 --threads 1 --quiet --checkpoint "$ck" --resume 2>&1); then
  bad "a 2-rank strict checkpoint resumed in one process"
elif echo "$out" | grep -q "was written by a 2-rank --dist strict run; this run is 1 process (processes 2 -> 1, dist strict -> none)"; then
  ok "2-rank strict checkpoint in one process: refused"
else bad "2-rank strict checkpoint in one process: no clear message"; echo "$out" | tail -3; fi
if out=$($mpi -np 3 "$dgnn" train --dist strict --epochs 4 --max-batches 40 --threads 1 --quiet --checkpoint "$ck" \
    --resume 2>&1); then bad "a 2-rank strict checkpoint resumed by 3 ranks"
elif echo "$out" | grep -q "this run is a 3-rank --dist strict run (processes 2 -> 3)"; then ok "... by 3 ranks: refused"
else bad "... by 3 ranks: no clear message"; echo "$out" | tail -3; fi
if out=$($mpi -np 2 "$dgnn" train --dist depbloom --partition --epochs 4 --max-batches 40 --threads 1 --quiet \
    --checkpoint "$ck" --resume 2>&1); then bad "a strict checkpoint resumed under depbloom"
elif echo "$out" | grep -q "(dist strict -> depbloom, partition unset -> 1"; then ok "... under depbloom: refused"
else bad "... under depbloom: no clear message"; echo "$out" | tail -3; fi
# the counters of a resumed run cover all its epochs: the JSON's integer figures equal an
# uninterrupted run's (steps, per-rank events and bytes, bytes per epoch, hot rows)
counters() { tr -d ' \t\n' <"$1" | grep -oE '"(steps|train_events|bytes_sent|state_bytes_per_epoch|grad_bytes_per_epoch|hot_rows_rank0)":[0-9.e+]+'; }
run2="$mpi -np 2 $dgnn train --dist depbloom --partition --window-events 2000 --critical-path --max-batches 15 --threads 1 --quiet --no-eval"
if $run2 --epochs 2 --out "$tmp/u.json" >/dev/null 2>&1 && $run2 --epochs 1 --checkpoint "$tmp/ck2" >/dev/null 2>&1 &&
    $run2 --epochs 2 --checkpoint "$tmp/ck2" --resume --out "$tmp/r.json" >/dev/null 2>&1 &&
    [ -n "$(counters "$tmp/u.json")" ] && [ "$(counters "$tmp/u.json")" = "$(counters "$tmp/r.json")" ]; then
  ok "resumed run's dist counters = the uninterrupted run's ($(counters "$tmp/r.json" | grep -c .) figures)"
else bad "resumed run's dist counters"; diff <(counters "$tmp/u.json") <(counters "$tmp/r.json") | head -10; fi
# flags and launches that can never work, or that the run would ignore: exit 2 before the
# data is read (no "events," log line), one message, no output file
g="$tmp/g.dgnn"
"$dgnn" gen --events 3000 --nodes 200 --out "$g" > /dev/null 2>&1 || bad "dgnn gen"
q=(--data "$g" --threads 1 --epochs 1 --max-batches 3 --eval-max-events 300 --quiet)
# --curve under --dist strict (rank 0 writes it): on --resume the lines after the
# checkpoint's last epoch (an interrupted run's, a line cut short) are removed, each epoch
# is there once; a curve that cannot be written fails the trained run, told once
rm -rf "$tmp/cck"; rm -f "$tmp/c.jsonl"; out=
if $mpi -np 2 "$dgnn" train "${q[@]}" --dist strict --checkpoint "$tmp/cck" --curve "$tmp/c.jsonl" >/dev/null 2>&1; then
  sed 's/^{"epoch":1,/{"epoch":2,/' "$tmp/c.jsonl" >> "$tmp/c.jsonl"; printf '{"epoch":3,"train_lo' >> "$tmp/c.jsonl"
  out=$($mpi -np 2 "$dgnn" train "${q[@]}" --epochs 3 --dist strict --checkpoint "$tmp/cck" --curve "$tmp/c.jsonl" --resume 2>&1)
fi
if [ "$(grep -c '' "$tmp/c.jsonl")" = 3 ] && [ "$(grep '^{"epoch":[0-9]*,"train_loss":.*}$' "$tmp/c.jsonl" | grep -o '^{"epoch":[0-9]*' | tr -dc '0-9')" = 123 ] &&
   echo "$out" | grep -q "2 lines after epoch 1, the checkpoint's last, removed"; then
  ok "--dist strict --curve --resume: the checkpoint's epochs, each once"
else bad "--dist strict --curve --resume: $(grep -o '^{"epoch":[0-9]*' "$tmp/c.jsonl" | tr '\n' ' ')"; echo "$out" | tail -3; fi
out=$($mpi -np 2 "$dgnn" train "${q[@]}" --dist strict --curve /dev/full 2>&1); rc=$?
if [ $rc != 0 ] && [ "$(echo "$out" | grep -c -- "--curve /dev/full: 1 epoch line could not be written")" = 1 ] && echo "$out" | grep -q "^test AP"; then
  ok "--dist strict --curve /dev/full: trained, then exit $rc naming the curve"
else bad "--dist strict --curve /dev/full (exit $rc)"; echo "$out" | tail -3; fi
refused() { # WANT, then the command: exit 2, WANT said, no data read, no --out written
  local want=$1; shift
  rm -f "$tmp/x.json"
  out=$(timeout 120 "$@" 2>&1); local rc=$?
  if [ $rc = 2 ] && echo "$out" | grep -qF -- "$want" && ! echo "$out" | grep -q "events, " && [ ! -e "$tmp/x.json" ]; then
    ok "refused: $(echo "$*" | sed "s|.*/dgnn ||; s|${q[*]} ||; s|$tmp/||g")"
  else bad "not refused as '$want' (exit $rc): $*"; echo "$out" | tail -4; fi
}
# mpirun without --dist: each process trained alone and wrote the same --out
refused "this process is one of 2 that an MPI launcher started (OMPI_COMM_WORLD_SIZE=2): without --dist" \
  $mpi -np 2 "$dgnn" train "${q[@]}" --out "$tmp/x.json"
refused "give --dist strict or --dist depbloom" $mpi -np 2 "$dgnn" train "${q[@]}" --dist none --out "$tmp/x.json"
refused "without --dist each would train alone" $mpi -np 2 "$dgnn" bench train "${q[@]:0:8}" --quiet --out "$tmp/x.json"
"$dgnn" train "${q[@]}" --checkpoint "$tmp/ck1" > /dev/null 2>&1 || bad "one-process checkpoint"
refused "dgnn eval runs in one process" $mpi -np 2 "$dgnn" eval --checkpoint "$tmp/ck1" --out "$tmp/x.json"
out=$($mpi -np 2 "$dgnn" train "${q[@]}" 2>&1)
if [ "$(echo "$out" | grep -c "one of 2 that an MPI launcher")" = 1 ]; then ok "the copies' refusal is told once"
else bad "the copies' refusal: $(echo "$out" | grep -c "one of 2") messages"; fi
refused "--dist depbloom needs --partition" $mpi -np 2 "$dgnn" train "${q[@]}" --dist depbloom --out "$tmp/x.json"
refused "give --window-events N or --window-seconds S, not both" $mpi -np 2 "$dgnn" train "${q[@]}" --dist depbloom \
  --partition --window-events 500 --window-seconds 1000 --out "$tmp/x.json"
for k in 0 1 2; do
  if [ $k = 0 ]; then want="--refine must be in 1..1024 (got 0)"; else want="need --dist depbloom"; fi
  refused "$want" "$dgnn" train "${q[@]}" --refine $k --out "$tmp/x.json"
  refused "$want" "$dgnn" train "${q[@]}" --dist strict --refine $k --out "$tmp/x.json"
done
# a --dump-config file of a --window-seconds run (the rule in force only) runs again
if $mpi -np 2 "$dgnn" train "${q[@]}" --dist depbloom --partition --window-seconds 200000 --dump-config "$tmp/ws.yml" \
     --out "$tmp/ws1.json" > /dev/null 2>&1 && ! grep -q "window-events" "$tmp/ws.yml" &&
   $mpi -np 2 "$dgnn" train --config "$tmp/ws.yml" --out "$tmp/ws2.json" > /dev/null 2>&1 &&
   [ "$(python3 -c "import json; d=json.load(open('$tmp/ws2.json'))['dist']; print(d['window_seconds'], d['refine'])")" = "200000 1" ]; then
  ok "--window-seconds: its --dump-config file runs again"
else bad "--window-seconds: its --dump-config file"; fi
# the JSON records what ran: sampling ahead only where it happens (TGN, DyRep, the most-recent
# sampler), refine 1 without --refine
for run in "tgn True" "dyrep True" "jodie False" "apan False" "tgn-uniform False"; do
  set -- $run; m=${1%-uniform}; sa=(); [ "$1" != "$m" ] && sa=(--sampler uniform)
  if $mpi -np 2 "$dgnn" train "${q[@]}" --model $m "${sa[@]}" --dist depbloom --partition --critical-path \
       --out "$tmp/p.json" > /dev/null 2>&1 &&
     [ "$(python3 -c "import json; d=json.load(open('$tmp/p.json'))['dist']; print(d['prefetch'], d['refine'], all((r['prefetch_seconds'] > 0) == d['prefetch'] for r in d['per_rank']))")" = "$2 1 True" ]; then
    ok "--critical-path, $1: dist.prefetch $2 (as its prefetch_seconds)"
  else bad "--critical-path, $1: dist.prefetch should be $2"; fi
done
# one rank sends nothing: no gradient or state bytes
if timeout 120 mpirun --allow-run-as-root -np 1 "$dgnn" train "${q[@]}" --dist strict --out "$tmp/n1.json" > /dev/null 2>&1 &&
   [ "$(python3 -c "import json; d=json.load(open('$tmp/n1.json'))['dist']; print(d['grad_bytes_per_epoch'], d['state_bytes_per_epoch'], d['per_rank'][0]['bytes_sent'])")" = "0 0 0" ]; then
  ok "mpirun -np 1 --dist strict: 0 bytes sent"
else bad "mpirun -np 1 --dist strict: bytes sent by one rank"; fi
# a write that fails names its flag
out=$("$dgnn" train "${q[@]}" --out /dev/full 2>&1)
if [ $? = 1 ] && echo "$out" | grep -q "dgnn train: --out: cannot write /dev/full"; then ok "--out /dev/full names --out"
else bad "--out /dev/full: $(echo "$out" | tail -1)"; fi
out=$($mpi -np 2 "$dgnn" train "${q[@]}" --dist depbloom --partition --window-report /dev/full 2>&1)
if [ $? != 0 ] && echo "$out" | grep -q "\-\-window-report: cannot write /dev/full"; then ok "--window-report /dev/full names it"
else bad "--window-report /dev/full: $(echo "$out" | grep dgnn | tail -1)"; fi
# ranks that read other data, or were given other options (an MPMD launch; nodes holding
# other files under one path): every rank stops with a message naming what differs
"$dgnn" gen --events 3000 --nodes 200 --seed 1 --out "$tmp/a.dgnn" > /dev/null 2>&1
"$dgnn" gen --events 3000 --nodes 200 --seed 2 --out "$tmp/b.dgnn" > /dev/null 2>&1
m=(train --epochs 1 --max-batches 3 --eval-max-events 200 --threads 1 --quiet --dist strict)
out=$(timeout 60 $mpi -np 1 "$dgnn" "${m[@]}" --data "$tmp/a.dgnn" : -np 1 "$dgnn" "${m[@]}" --data "$tmp/b.dgnn" 2>&1)
if [ $? = 1 ] && echo "$out" | grep -q "the processes disagree: rank 1's data and settings differ from rank 0's (data: events hash [0-9a-f]* on rank 0, events hash [0-9a-f]* on rank 1)"; then
  ok "two ranks on other data: refused, naming the data"
else bad "two ranks on other data"; echo "$out" | grep dgnn | tail -3; fi
out=$(timeout 60 $mpi -np 1 "$dgnn" "${m[@]}" --data "$tmp/a.dgnn" : -np 1 "$dgnn" "${m[@]}" --data "$tmp/a.dgnn" \
      --epochs 2 2>&1)
if [ $? = 1 ] && echo "$out" | grep -q "rank 1's distribution options differ from rank 0's (epochs: 1 on rank 0, 2 on rank 1)"; then
  ok "two ranks given other --epochs: refused, naming them"
else bad "two ranks given other --epochs"; echo "$out" | grep dgnn | tail -3; fi
# an option that decides which collectives a rank calls, or whether it stops before
# training, given to one rank only: every rank stops at once (not a crash, nor a wait for
# --comm-timeout), naming it
mmpd() { # WANT, then rank 0's extra options, ":", rank 1's
  local want=$1; shift; local a=() b=()
  while [ $# -gt 0 ] && [ "$1" != : ]; do a+=("$1"); shift; done; shift
  b=("$@")
  local t0=$(date +%s)
  out=$(timeout 100 $mpi -np 1 "$dgnn" "${m[@]}" --data "$tmp/a.dgnn" "${a[@]}" : -np 1 "$dgnn" "${m[@]}" \
        --data "$tmp/a.dgnn" "${b[@]}" 2>&1); local rc=$? dt=$(( $(date +%s) - t0 ))
  if [ $rc = 2 ] && [ $dt -le 30 ] && [ "$(echo "$out" | grep -c -- "$want")" = 1 ]; then ok "one rank given ${a[*]}${b[*]}: refused in $dt s"
  else bad "one rank given ${a[*]}${b[*]} (exit $rc, $dt s)"; echo "$out" | grep -v "^ *$" | tail -4; fi
}
mmpd "the processes disagree: rank 1's command-line options differ from rank 0's (checkpoint: given on rank 0, none on rank 1)" \
  --checkpoint "$tmp/ckm" :
mmpd "(checkpoint: none on rank 0, given on rank 1)" : --checkpoint "$tmp/ckm"
mmpd "(dist: strict on rank 0, depbloom on rank 1; partition: 0 on rank 0, 1 on rank 1)" : --dist depbloom --partition
mmpd "(protocol_tgb: 0 on rank 0, 1 on rank 1; tgb_negatives: none on rank 0, given on rank 1)" : --protocol tgb \
  --tgb-negatives "$tmp/tgbm"
[ -e "$tmp/ckm" ] && bad "the refused runs made their --checkpoint folder" || ok "... no checkpoint folder made"
# a rank that cannot read its file (a damaged copy on its node): every rank stops, rank 0 names it
head -c 2000 "$tmp/a.dgnn" > "$tmp/cut.dgnn"
out=$(timeout 100 $mpi -np 1 "$dgnn" "${m[@]}" --data "$tmp/a.dgnn" : -np 1 "$dgnn" "${m[@]}" --data "$tmp/cut.dgnn" 2>&1)
if [ $? != 0 ] && echo "$out" | grep -q "cut.dgnn" && echo "$out" | grep -q "rank 1 could not use its --data (its message above): every rank stops" &&
   ! echo "$out" | grep -q "MPI_ABORT"; then ok "one rank's damaged file: every rank stops, rank 1 named"
else bad "one rank's damaged file"; echo "$out" | grep -v "^ *$" | tail -4; fi
# ... and one whose copy lacks the split's column (TGL's ext_roll): the same
mkdir -p "$tmp/roll" "$tmp/noroll"
awk 'BEGIN { print ",src,dst,time,ext_roll";
             for (i = 0; i < 400; i++) printf "%d,%d,%d,%d,%d\n", i, i % 20, 20 + (i * 7) % 20, i * 10, (i < 240 ? 0 : i < 320 ? 1 : 2) }' \
  > "$tmp/roll/edges.csv"
cut -d, -f1-4 "$tmp/roll/edges.csv" > "$tmp/noroll/edges.csv"
out=$(timeout 100 $mpi -np 1 "$dgnn" "${m[@]}" --data "$tmp/roll" --split ext_roll : -np 1 "$dgnn" "${m[@]}" \
      --data "$tmp/noroll" --split ext_roll 2>&1)
if [ $? != 0 ] && echo "$out" | grep -q "noroll has no ext_roll column" &&
   echo "$out" | grep -q "rank 1 could not use its --data (its message above): every rank stops" &&
   ! echo "$out" | grep -q "MPI_ABORT"; then ok "one rank's file without ext_roll: every rank stops, rank 1 named"
else bad "one rank's file without ext_roll"; echo "$out" | grep -v "^ *$" | tail -4; fi
# a bad flag on every rank: a clear message and a non-zero exit, no hang
if out=$(timeout 60 $mpi -np 2 "$dgnn" train --dist bogus 2>&1); then bad "--dist bogus accepted"
elif echo "$out" | grep -q "\-\-dist: 'bogus'"; then ok "--dist bogus refused"
else bad "--dist bogus: no clear message"; echo "$out" | tail -5; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
