#!/usr/bin/env bash
# test.sh: the whole test suite, from a fresh machine: installs what is missing, runs
# every test under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, without
# MPI, whose runtime the sanitizers flag: the mpirun tests cli_mpi, cli_dist, cli_dist_snap
# run in the second pass only), then builds the Release tree (build/) and runs
# the full suite there, multi-rank tests included. Ends with ctest's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
echo "== sanitizer build (ASan + UBSan) =="
"$root/scripts/build.sh" build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDGNN_SANITIZE=ON -DDGNN_MPI=OFF
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$jobs" -E '^cli_(mpi|dist|dist_snap)$')
echo "== release build =="
"$root/scripts/build.sh" build
cd "$root/build" && ctest --output-on-failure -j"$jobs"
