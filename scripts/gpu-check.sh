#!/usr/bin/env bash
# gpu-check.sh [OUTFILE]: everything that needs the lent GPU, in one short run (issue 14):
# builds the CUDA tree (build-cuda/), prints the device, runs the tests/cuda programs
# (test_cuda*: every GPU op against its CPU reference), then compute-sanitizer's memcheck
# on each, and writes what it saw to OUTFILE (default build-cuda/gpu-check.txt). With
# GPU_CHECK_RACECHECK=1 it also runs racecheck and synccheck on the programs whose kernels
# use shared memory and barriers (block reductions: layer norm, the loss, the attention);
# off by default, as they are much slower than memcheck and a lent GPU's time is short.
# Exit status: non-zero if the build, a test or a sanitizer fails. Run it on the device machine, e.g. with the
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
# the programs: one per tests/cuda/test_cuda*.c (CMakeLists.txt builds them the same way)
progs=$(cd "$root/tests/cuda" && ls test_cuda*.c | sed 's/\.c$//' | tr '\n' ' ')
shared_mem_progs="test_cuda_layers test_cuda_attention" # block reductions in shared memory
echo "== build ($progs)"
if ! { cmake -S "$root" -B "$root/build-cuda" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA=ON -DDGNN_MPI=OFF \
        -DCMAKE_CUDA_COMPILER="$nvcc" > "$root/build-cuda/build.log" 2>&1 &&
       cmake --build "$root/build-cuda" -j"$(nproc)" --target $progs dgnn >> "$root/build-cuda/build.log" 2>&1; }; then
    grep -E -A3 "error|Error" "$root/build-cuda/build.log" | head -60; exit 1
fi
rc=0
echo "== tests/cuda"
for p in $progs; do
    (cd "$root/build-cuda" && ./"$p"); t=$?
    [ "$t" -eq 0 ] || { echo "$p: exit $t (77: no GPU seen)"; rc=1; }
done
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$san" ] && [ -x "$san" ]; then
    for p in $progs; do
        tools="memcheck"
        if [ "${GPU_CHECK_RACECHECK:-0}" = 1 ]; then
            case " $shared_mem_progs " in *" $p "*) tools="memcheck racecheck synccheck" ;; esac
        fi
        for tool in $tools; do
            echo "== compute-sanitizer $tool $p"
            extra=""
            [ "$tool" = memcheck ] && extra="--leak-check full"
            (cd "$root/build-cuda" && "$san" --tool "$tool" $extra --error-exitcode 9 ./"$p" > "$tool-$p.log" 2>&1)
            m=$?; tail -3 "$root/build-cuda/$tool-$p.log"
            [ "$m" -eq 0 ] || { echo "$tool $p: exit $m (log: build-cuda/$tool-$p.log)"; rc=1; }
        done
    done
else
    echo "compute-sanitizer not found (the CUDA toolkit's cuda-sanitizer package)"; rc=1
fi
echo "== gpu-check: $([ $rc -eq 0 ] && echo passed || echo FAILED)"
exit $rc
