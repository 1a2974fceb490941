#!/usr/bin/env bash
# build.sh [DIR] [cmake options...]: configures and builds dgnn (Release by default) in DIR
# (default build/; a relative DIR is inside the repository, an absolute one where it says),
# installing missing dependencies first. Prints warnings and errors only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}; shift || true
case $dir in /*) out=$dir ;; *) out=$root/$dir ;; esac
"$root/scripts/install-deps.sh"
mkdir -p "$out"
log="$out/build.log"
if ! cmake -S "$root" -B "$out" -DCMAKE_BUILD_TYPE=Release "$@" > "$log" 2>&1; then
  cat "$log"; exit 1
fi
if ! cmake --build "$out" -j"$(nproc)" >> "$log" 2>&1; then
  grep -E -A3 "error|Error" "$log" | head -80; exit 1
fi
grep -E "warning:" "$log" | sort -u || true
echo "built $dir"
