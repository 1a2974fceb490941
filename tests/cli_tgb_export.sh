#!/usr/bin/env bash
# cli_tgb_export.sh DGNN DATA_DIR: scripts/tgb_export.py --selftest (the padding and
# writer logic of the TGB negative export, on a fake evaluation set, numpy only).
# Skipped (77) where python3 or numpy is missing; the export itself needs py-tgb and a
# download, so it is not run here.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 > /dev/null || { echo "skip: no python3"; exit 77; }
python3 "$root/scripts/tgb_export.py" --selftest
