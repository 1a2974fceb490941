#!/usr/bin/env bash
# cli_mpi.sh: runs test_comm under mpirun with 2 and 4 ranks (skipped without mpirun).
set -u
bindir=$(dirname "$1")
t="$bindir/test_comm"
if ! command -v mpirun >/dev/null 2>&1; then echo "skip: mpirun not found"; exit 77; fi
if [ ! -x "$t" ]; then echo "skip: $t not built"; exit 77; fi
fail=0
for np in 2 4; do
  if out=$(mpirun --allow-run-as-root --oversubscribe -np $np "$t" 2>&1); then
    echo "np=$np: $(echo "$out" | tail -1)"
  else
    echo "np=$np FAILED:"; echo "$out"; fail=1
  fi
done
[ $fail = 0 ] && echo "2 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
