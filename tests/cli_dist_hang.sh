#!/usr/bin/env bash
# cli_dist_hang.sh: a rank that stops answering (kill -STOP) ends the job with a message
# naming it, within --comm-timeout plus a margin, with a non-zero exit, and leaves no
# stopped or orphaned process behind (skipped without mpirun, or when dgnn is built without
# MPI), and the flag is in both trainers' --help and refuses a negative value:
#  - 2 ranks, rank 1 stopped: rank 0 names rank 1;
#  - 3 ranks, rank 0 stopped: the others say that rank 0 does not answer.
# The margins are generous (a loaded 2-core CI machine): the job must end after the stop
# within the timeout + the roll call's grace + 40 s, not before the timeout.
set -u
dgnn="$1"
mpi="mpirun --allow-run-as-root --oversubscribe"
timeout_s=5
tmp=$(mktemp -d)
job="" victim=""
# whatever happens, nothing we started stays stopped or running
cleanup() {
  [ -n "$victim" ] && kill -CONT $victim 2>/dev/null && kill -KILL $victim 2>/dev/null
  [ -n "$job" ] && kill -KILL "$job" 2>/dev/null
  for p in $(pgrep -f -- "dgnn-hang-$$-" 2>/dev/null); do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
# the flag, on both trainers: in --help, and a negative value refused
for m in tgn evolvegcn-o; do
  if ! "$dgnn" train --model $m --help 2>&1 | grep -q -- "--comm-timeout S .*0: wait forever"; then
    echo "FAILED: dgnn train --model $m --help lacks --comm-timeout"; exit 1; fi
  out=$("$dgnn" train --model $m --data "$tmp/none.csv" --comm-timeout -2 2>&1)
  if [ $? -ne 2 ] || ! echo "$out" | grep -q -- "--comm-timeout must be in"; then
    echo "FAILED: --model $m --comm-timeout -2 not refused: $out"; exit 1; fi
done
if ! command -v mpirun >/dev/null 2>&1; then echo "skip: mpirun not found"; exit 77; fi
# a dgnn built without MPI (the sanitizer pass) runs each mpirun process alone: nothing to test
$mpi -np 2 "$dgnn" train --dist strict --epochs 1 --max-batches 1 --no-eval --threads 1 --quiet --mem-dim 8 \
    --time-dim 4 --emb-dim 8 --out "$tmp/probe.json" >/dev/null 2>&1
if ! tr -d ' \t\n' <"$tmp/probe.json" 2>/dev/null | grep -q '"ranks":2,'; then
  echo "skip: $dgnn does not run as 2 ranks under mpirun (built without MPI?)"; exit 77
fi
pass=0; fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAILED: $1"; fail=$((fail + 1)); }

# the pid of rank R of the job tagged TAG (each rank's environment holds its rank)
rank_pid() {
  for p in $(pgrep -f -- "$1" 2>/dev/null); do
    if tr '\0' '\n' </proc/"$p"/environ 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then echo "$p"; return; fi
  done
}

# hang NP RANK WANT: runs NP ranks of short epochs without evaluation (an epoch line every
# 20 steps), stops rank RANK once 3 epochs have ended, and checks the end of the job
hang() {
  # the tag, in the --out path, tells this job's processes from any other's
  local np=$1 rank=$2 want=$3 tag="dgnn-hang-$$-$1-$2" out="$tmp/hang-$1-$2.out"
  timeout 300 $mpi -np "$np" "$dgnn" train --dist strict --epochs 1000 --max-batches 20 --no-eval --threads 1 \
      --quiet --mem-dim 16 --time-dim 8 --emb-dim 16 --comm-timeout $timeout_s --out "$tmp/$tag.json" >"$out" 2>&1 &
  job=$!
  for i in $(seq 1 600); do grep -q "^epoch 3:" "$out" 2>/dev/null && break; sleep 0.1; done
  victim=$(rank_pid "$tag" "$rank")
  if [ -z "$victim" ] || ! grep -q "^epoch 3:" "$out"; then
    bad "$np ranks: training did not start or rank $rank not found"; tail -5 "$out"; kill -KILL "$job"; wait "$job"
    job="" victim=""; return
  fi
  kill -STOP "$victim"
  local t0; t0=$(date +%s.%N)
  wait "$job"; local rc=$?
  local dt; dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  job=""
  # every rank is gone (a zombie, already dead, waits for init to reap it) within 10 s
  local left="" p
  for i in $(seq 1 100); do
    left=""
    for p in $victim $(pgrep -f -- "$tag"); do
      [ -r /proc/"$p"/stat ] && [ "$(cut -d' ' -f3 /proc/"$p"/stat 2>/dev/null)" != Z ] && left="$left $p"
    done
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    left="processes left:$left"
    for p in $left; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  fi
  victim=""
  local max=$((timeout_s + 30 + 40))
  # the stopped rank, resumed by mpirun to be killed, must not report the others' silence
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z "$left" ] && grep -q "$want" "$out" && grep -q -- "--comm-timeout" "$out" &&
      ! grep -q "yet every rank answers" "$out" &&
      awk -v d="$dt" -v lo="$timeout_s" -v hi="$max" 'BEGIN { exit !(d >= lo - 1 && d <= hi) }'; then
    ok "$np ranks, rank $rank stopped: exit $rc after $dt s, \"$want\""
  else
    bad "$np ranks, rank $rank stopped: exit $rc after $dt s (want non-zero within $max s), message '$want' ${left:+, $left}"
    grep -v "^\[" "$out" | tail -8
  fi
}

hang 2 1 "rank 1 did not answer"
hang 3 0 "rank 0 did not answer"

# the whole job suspended (every rank stopped, as by Ctrl-Z) for longer than the timeout,
# then resumed: the time a rank itself did not run is not a peer's silence, so it finishes
tag="dgnn-hang-$$-suspend" out="$tmp/suspend.out"
timeout 300 $mpi -np 2 "$dgnn" train --dist strict --epochs 8 --max-batches 20 --no-eval --threads 1 \
    --quiet --mem-dim 16 --time-dim 8 --emb-dim 16 --comm-timeout $timeout_s --out "$tmp/$tag.json" >"$out" 2>&1 &
job=$!
for i in $(seq 1 600); do grep -q "^epoch 2:" "$out" 2>/dev/null && break; sleep 0.1; done
r0=$(rank_pid "$tag" 0) r1=$(rank_pid "$tag" 1)
victim="$r0 $r1"
kill -STOP $r0 $r1 2>/dev/null
sleep $((timeout_s + 4))
kill -CONT $r0 $r1 2>/dev/null
wait "$job"; rc=$?
job="" victim=""
if [ -n "$r0" ] && [ -n "$r1" ] && [ $rc = 0 ] && grep -q "^epoch 8:" "$out" && ! grep -q "did not answer\|every rank answers" "$out"; then
  ok "2 ranks suspended for $((timeout_s + 4)) s, then resumed: finished (exit 0)"
else
  bad "2 ranks suspended for $((timeout_s + 4)) s, then resumed: exit $rc (want 0 and 8 epochs)"; grep -v "^\[" "$out" | tail -8
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
