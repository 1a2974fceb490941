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
# a bad flag on every rank: a clear message and a non-zero exit, no hang
if out=$(timeout 60 $mpi -np 2 "$dgnn" train --dist bogus 2>&1); then bad "--dist bogus accepted"
elif echo "$out" | grep -q "\-\-dist: 'bogus'"; then ok "--dist bogus refused"
else bad "--dist bogus: no clear message"; echo "$out" | tail -5; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
