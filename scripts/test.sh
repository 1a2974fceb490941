#!/usr/bin/env bash
# test.sh: the whole test suite, from a fresh machine: installs what is missing, runs
# every test under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, without
# MPI, whose runtime the sanitizers flag: the mpirun tests cli_mpi, cli_dist, cli_dist_snap
# run in the second pass only), then, where nvcc is, builds the CUDA path (build-cuda/) and
# runs tests/cuda (which skip without a GPU) and cli_device (--device cuda from the command),
# then, everywhere, builds the CUDA path over the host emulation of the CUDA layer
# (build-hostemu/, tests/hostemu/: no GPU, no nvcc; with MPI, for cli_device's 2-rank DyGNeX
# run on the one emulated GPU) and runs the device steps', the GPU trainers' and
# cli_device's tests on it against the CPU path,
# then builds the Release tree (build/) and runs
# the full suite there, multi-rank tests included, then the Python package's tests
# (scripts/test-python.sh; skipped without a python3 that has numpy and pytest). Ends with
# one summary line: ctest's, and the Python tests' verdict.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
echo "== sanitizer build (ASan + UBSan) =="
"$root/scripts/build.sh" build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDGNN_SANITIZE=ON -DDGNN_MPI=OFF
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$jobs" -E '^cli_(mpi|dist|dist_snap)$')
nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
if [ -n "$nvcc" ]; then
  # the GPU path must build wherever nvcc is (issue 14); its tests skip without a GPU
  echo "== CUDA build ($nvcc) =="
  "$root/scripts/install-deps.sh"
  log="$root/build-cuda/build.log"; mkdir -p "$root/build-cuda"
  if ! { cmake -S "$root" -B "$root/build-cuda" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA=ON -DDGNN_MPI=OFF \
           -DCMAKE_CUDA_COMPILER="$nvcc" &&
         cmake --build "$root/build-cuda" -j"$jobs" --target dgnn $(cd "$root/tests/cuda" && ls test_cuda*.c | sed 's/\.c$//'); } \
       > "$log" 2>&1; then
    grep -E -A3 "error|Error" "$log" | head -80; exit 1
  fi
  (cd "$root/build-cuda" && ctest --output-on-failure -R '^(test_cuda|cli_device$)')
else
  echo "== CUDA build: skipped (no nvcc) =="
fi
# the device steps' composition (tgn_step.cu, apan_step.cu), tgnn_cuda.c and the trainer's device path
# on the host emulation (tests/hostemu/hostemu.cpp): they run, and agree with the CPU,
# on every machine; the kernels are left to the GPU's own tests
echo "== CUDA host emulation (build-hostemu/) =="
t_emu=$(date +%s)
log="$root/build-hostemu/build.log"; mkdir -p "$root/build-hostemu"
if ! { cmake -S "$root" -B "$root/build-hostemu" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA_HOSTEMU=ON -DDGNN_MPI=ON &&
       cmake --build "$root/build-hostemu" -j"$jobs" --target dgnn test_cuda_tgn test_cuda_apan test_cuda_train test_cuda_snaptrain test_cuda_snaptrain_tgcn test_cuda_snaptrain_node test_cuda_snaptrain_wdgcn; } > "$log" 2>&1; then
  grep -E -A3 "error|Error" "$log" | head -80; exit 1
fi
grep -E "warning:" "$log" | sort -u || true
(cd "$root/build-hostemu" && ctest --output-on-failure -R '^(test_cuda_tgn|test_cuda_apan|test_cuda_train|test_cuda_snaptrain|test_cuda_snaptrain_tgcn|test_cuda_snaptrain_node|test_cuda_snaptrain_wdgcn|cli_device)$')
echo "CUDA host emulation: $(( $(date +%s) - t_emu )) s (build and tests)"
echo "== release build =="
"$root/scripts/build.sh" build
ctest_rc=0
(cd "$root/build" && ctest --output-on-failure -j"$jobs") 2>&1 | tee "$root/build/ctest.log" || ctest_rc=$?
echo "== python package (python/tests) =="
py_rc=0
"$root/scripts/test-python.sh" "$root/build" || py_rc=$?
summary=$(grep -E '^[0-9]+% tests passed' "$root/build/ctest.log" || echo "ctest: no summary")
case $py_rc in
0) py_summary="python tests passed" ;;
77) py_summary="python tests skipped" ;;
*) py_summary="python tests FAILED" ;;
esac
echo "$summary; $py_summary"
[ "$ctest_rc" -eq 0 ] && { [ "$py_rc" -eq 0 ] || [ "$py_rc" -eq 77 ]; }
