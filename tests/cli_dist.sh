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
# a bad flag on every rank: a clear message and a non-zero exit, no hang
if out=$(timeout 60 $mpi -np 2 "$dgnn" train --dist bogus 2>&1); then bad "--dist bogus accepted"
elif echo "$out" | grep -q "\-\-dist: 'bogus'"; then ok "--dist bogus refused"
else bad "--dist bogus: no clear message"; echo "$out" | tail -5; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
