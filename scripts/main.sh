#!/usr/bin/env bash
# main.sh: the main job on its built-in default, from a fresh machine: installs what is
# missing, builds, then trains TGN (the TGN code's settings) for 3 epochs on the
# built-in synthetic stream (60,000 events, no download; about a minute on 2 cores)
# and prints its validation per epoch and its test AP.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" build
exec "$root/build/dgnn" train --model tgn --epochs 3 "$@"
