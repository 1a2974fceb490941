#!/usr/bin/env bash
# sampler.sh: temporal neighbour sampler throughput on wikipedia, k=10, 1 and 2 threads
# (root queries per second, most-recent and uniform samplers). Not a test: it prints
# figures; docs/results.md keeps the measured ones.
#   bench/sampler.sh [DATA] [extra dgnn bench sampler flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-$root/../shared/data/wikipedia/wikipedia.csv}; shift || true
[ -x "$root/build/dgnn" ] || "$root/scripts/build.sh" build
if [ ! -e "$data" ]; then echo "skip: $data not found (shared data folder absent)"; exit 0; fi
"$root/build/dgnn" bench sampler --k 10 --threads 2 --seconds 3 "$data" "$@"
