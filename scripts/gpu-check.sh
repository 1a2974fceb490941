#!/usr/bin/env bash
# gpu-check.sh [OUTFILE]: everything that needs the lent GPU, in one short run (issue 14):
# builds the CUDA tree (build-cuda/), prints the device, runs tests/cuda (every GPU op
# against its CPU reference), then compute-sanitizer's memcheck on the same program, and
# writes what it saw to OUTFILE (default build-cuda/gpu-check.txt). Exit status: non-zero
# if the build, a test or the memcheck fails. Run it on the device machine, e.g. with the
# session's `run` tool: scripts/gpu-check.sh "$OUT/gpu-check.txt".
# (The model benchmark joins it once the GPU training path exists; README, "GPU".)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-cuda/gpu-check.txt}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p "$root/build-cuda" "$(dirname "$out")"
exec > >(tee "$out") 2>&1
echo "== gpu-check $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$nvcc" --version | tail -1
echo "== build"
if ! { cmake -S "$root" -B "$root/build-cuda" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA=ON -DDGNN_MPI=OFF \
        -DCMAKE_CUDA_COMPILER="$nvcc" > "$root/build-cuda/build.log" 2>&1 &&
       cmake --build "$root/build-cuda" -j"$(nproc)" --target test_cuda dgnn >> "$root/build-cuda/build.log" 2>&1; }; then
    grep -E -A3 "error|Error" "$root/build-cuda/build.log" | head -60; exit 1
fi
rc=0
echo "== tests/cuda"
(cd "$root/build-cuda" && ./test_cuda); t=$?
[ "$t" -eq 0 ] || { echo "test_cuda: exit $t (77: no GPU seen)"; rc=1; }
echo "== compute-sanitizer memcheck"
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$san" ] && [ -x "$san" ]; then
    (cd "$root/build-cuda" && "$san" --tool memcheck --leak-check full --error-exitcode 9 ./test_cuda > memcheck.log 2>&1)
    m=$?; tail -3 "$root/build-cuda/memcheck.log"
    [ "$m" -eq 0 ] || { echo "memcheck: exit $m (log: build-cuda/memcheck.log)"; rc=1; }
else
    echo "compute-sanitizer not found (the CUDA toolkit's cuda-sanitizer package)"; rc=1
fi
echo "== gpu-check: $([ $rc -eq 0 ] && echo passed || echo FAILED)"
exit $rc
