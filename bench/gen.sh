#!/usr/bin/env bash
# gen.sh: synthetic generator throughput and peak memory: 10M events (default) streamed
# to a temporary .dgnn file that is deleted afterwards.
#   bench/gen.sh [--events 100M --nodes 1M ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/build/dgnn" ] || "$root/scripts/build.sh" build
"$root/build/dgnn" bench gen --events 10M --nodes 100000 "$@"
