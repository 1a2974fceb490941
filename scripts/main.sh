#!/usr/bin/env bash
# main.sh: the main job on its built-in default, from a fresh machine: installs what is
# missing, builds, generates the default synthetic dataset and prints its `dgnn info`.
# (Training replaces the last step once the model issues land.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" build
dgnn="$root/build/dgnn"
data="$root/build/default.dgnn"
"$dgnn" gen --events 200000 --nodes 5000 --seed 1 --out "$data"
"$dgnn" info "$data"
