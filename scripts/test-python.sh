#!/usr/bin/env bash
# test-python.sh [BUILD_DIR]: the Python package's tests (python/tests, pytest) against
# BUILD_DIR's libdgnn.so and dgnn (default build/). Looks for a python3 with numpy and
# pytest (python3 on PATH, then /usr/bin/python3); without one it says so and exits 77
# (skipped). Ends with pytest's summary line.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
py=""
for c in python3 /usr/bin/python3; do
    if command -v "$c" > /dev/null 2>&1 && "$c" -c "import numpy, pytest" > /dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then
    echo "python tests: skipped (no python3 with numpy and pytest; scripts/install-deps.sh installs them)"
    exit 77
fi
[ -e "$build/libdgnn.so" ] || { echo "python tests: no $build/libdgnn.so (scripts/build.sh first)"; exit 1; }
cd "$root"
DGNN_LIBRARY="$build/libdgnn.so" DGNN_BIN="$build/dgnn" OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
    "$py" -m pytest -q -p no:cacheprovider python/tests
