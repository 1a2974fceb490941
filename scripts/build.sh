#!/usr/bin/env bash
# build.sh [DIR] [cmake options...]: configures and builds dgnn (Release by default) in DIR
# (default build/), installing missing dependencies first. Prints warnings and errors only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}; shift || true
"$root/scripts/install-deps.sh"
mkdir -p "$root/$dir"
log="$root/$dir/build.log"
if ! cmake -S "$root" -B "$root/$dir" -DCMAKE_BUILD_TYPE=Release "$@" > "$log" 2>&1; then
  cat "$log"; exit 1
fi
if ! cmake --build "$root/$dir" -j"$(nproc)" >> "$log" 2>&1; then
  grep -E -A3 "error|Error" "$log" | head -80; exit 1
fi
grep -E "warning:" "$log" | sort -u || true
echo "built $dir"
