#!/usr/bin/env bash
# gpu-check.sh [OUTFILE]: everything that needs the lent GPU, in one short run (issue 14),
# writing what it saw to OUTFILE (default build-cuda/gpu-check.txt):
#  1. builds the CUDA tree (build-cuda/; CMAKE_CUDA_ARCHITECTURES from GPU_CHECK_ARCH,
#     default 90, the H200's) with the dgnn command; or, with GPU_CHECK_PREBUILT=DIR, takes
#     the programs, libraries and data that scripts/gpu-bundle.sh gathered into DIR on
#     another machine (the lent GPU's image has nvcc and CMake but not this project's Debian
#     libraries, and nothing can be installed there: build here, carry DIR.tar.xz, and give
#     GPU_CHECK_PREBUILT=DIR.tar.xz, which is unpacked first);
#  2. runs the tests/cuda programs (test_cuda*: every GPU op against its CPU reference, the
#     TGN and APAN steps (test_cuda_tgn, test_cuda_apan) against the CPU model's, the
#     trainer against the CPU trainer) and cli_device; where the bundle has MPI (dgnn-mpi and
#     its Open MPI, gpu-bundle.sh), cli_device again with it, whose strict and DepBloom runs
#     (partitioning, --refine, --critical-path, APAN) put 2 ranks on the GPU against 2 CPU
#     ranks, and DepBloom against strict measured on 2 ranks sharing the GPU (wikipedia, one
#     epoch each; GPU_CHECK_MPI=0 skips both);
#  3. the benchmark, side by side with the CPU in the same session, on wikipedia (the shared
#     data): `dgnn bench train --device cuda` with the tgn-paper and tgl presets, APAN's
#     first 50 batches, and the step-time curve at batch 200, 600, 1,200, 2,400 and 4,800,
#     then the CPU's bench;
#     each curve also written as JSON beside OUTFILE (curve-cuda.json, curve-cpu.json), with
#     the rate of applying received state rows and the optimizer's part of a step on that
#     device. DepBloom against strict projected from the GPU's curve (scripts/sim-from-curve.sh:
#     wikipedia with 10,000-, 5,000- and 2,500-event windows and a 10M-event synthetic stream,
#     refinement K = 1 and 4) is CPU work: run it afterwards on any machine,
#     `scripts/sim-from-curve.sh OUTDIR/curve-cuda.json OUTDIR/sim-cuda`, so that it spends no
#     device time (GPU_CHECK_SIM=1 runs it here, into sim-cuda/ beside OUTFILE);
#  4. accuracy: 3 epochs of TGN (tgn-paper) on wikipedia on the GPU and on the CPU with the
#     same seed; every epoch's validation AP and the test AP within 0.005
#     (GPU_CHECK_ACCURACY=0 skips it, for a quick rerun);
#  5. compute-sanitizer's memcheck on each test program but test_cuda_train (whole training
#     runs, too slow under it; its kernels are the other programs'; GPU_CHECK_SANITIZER=0
#     skips it, for a rerun of the rest). With
#     GPU_CHECK_RACECHECK=1 also racecheck and synccheck on the programs whose kernels use
#     shared memory and barriers (block reductions: layer norm, the loss, the attention).
# Exit status: non-zero if the build, a test, the accuracy or a sanitizer fails. Run it on
# the device machine, e.g. with the session's `run` tool: scripts/gpu-check.sh "$OUT/gpu-check.txt".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-cuda/gpu-check.txt}
outdir=$(dirname "$out")
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p "$root/build-cuda" "$(dirname "$out")"
exec > >(tee "$out") 2>&1
echo "== gpu-check $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$nvcc" --version | tail -1
# the programs: one per tests/cuda/test_cuda*.c (CMakeLists.txt builds them the same way)
progs=$(cd "$root/tests/cuda" && ls test_cuda*.c | sed 's/\.c$//' | tr '\n' ' ')
shared_mem_progs="test_cuda_layers test_cuda_attention test_cuda_snap" # block reductions in shared memory
slow_progs="test_cuda_train $(cd "$root/tests/cuda" && ls test_cuda_snaptrain*.c | sed 's/\.c$//' | tr '\n' ' ')" # whole training runs: not under a sanitizer
bindir=$root/build-cuda # where the programs are
if [ -n "${GPU_CHECK_PREBUILT:-}" ] && [ -f "$GPU_CHECK_PREBUILT" ]; then
    # gpu-bundle.sh's DIR.tar.xz: unpacked with Python's tarfile (no xz needed there)
    echo "== unpacking $GPU_CHECK_PREBUILT"
    unpack=$(mktemp -d)
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$GPU_CHECK_PREBUILT" "$unpack" ||
        { echo "GPU_CHECK_PREBUILT=$GPU_CHECK_PREBUILT: cannot unpack it"; exit 1; }
    GPU_CHECK_PREBUILT=$(ls -d "$unpack"/*/ | head -1)
fi
if [ -n "${GPU_CHECK_PREBUILT:-}" ]; then
    bundle=$(cd "$GPU_CHECK_PREBUILT" 2>/dev/null && pwd) ||
        { echo "GPU_CHECK_PREBUILT=$GPU_CHECK_PREBUILT: no such folder (scripts/gpu-bundle.sh makes it)"; exit 1; }
    bindir=$bundle/bin
    export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ompi=""
    if [ -d "$bundle/ompi" ] && [ -x "$bindir/dgnn-mpi" ] && [ "${GPU_CHECK_MPI:-1}" = 1 ]; then
        ompi=$bundle/ompi # gpu-bundle.sh's relocated Open MPI: its tree as under /usr
        mpi_env=(OPAL_PREFIX="$ompi" PMIX_INSTALL_PREFIX="$ompi/lib/x86_64-linux-gnu/pmix2" PATH="$ompi/bin:$PATH"
                 LD_LIBRARY_PATH="$ompi/lib/x86_64-linux-gnu/openmpi/lib:$ompi/lib/x86_64-linux-gnu/pmix2/lib:$ompi/deps:$LD_LIBRARY_PATH"
                 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl="self,vader,tcp" OMPI_MCA_pml=ob1
                 OMPI_MCA_btl_vader_single_copy_mechanism=none) # no CMA in a container
    fi
    [ -d "$bundle/data" ] && export DGNN_DATA_DIR="$bundle/data" # the tests' data too (tests/check.h)
fi
data=""
for d in "${DGNN_DATA_DIR:-}" "$root/../shared/data" "$root/shared/data"; do
    [ -n "$d" ] && [ -f "$d/wikipedia/wikipedia.csv" ] && { data=$d/wikipedia/wikipedia.csv; break; }
done
if [ -n "${GPU_CHECK_PREBUILT:-}" ]; then
    echo "== prebuilt: $bindir ($(ls "$bindir" | tr '\n' ' ')), libraries from $bundle/lib"
    for p in $progs dgnn; do [ -x "$bindir/$p" ] || { echo "$bindir/$p: missing (rerun scripts/gpu-bundle.sh)"; exit 1; }; done
    ldd "$bindir/dgnn" | grep "not found" && { echo "dgnn: libraries not found on this machine"; exit 1; }
else
    echo "== build ($progs dgnn)"
    if ! { cmake -S "$root" -B "$root/build-cuda" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA=ON -DDGNN_MPI=OFF \
            -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${GPU_CHECK_ARCH:-90}" \
            > "$root/build-cuda/build.log" 2>&1 &&
           cmake --build "$root/build-cuda" -j"$(nproc)" --target $progs dgnn >> "$root/build-cuda/build.log" 2>&1; }; then
        grep -E -A3 "error|Error" "$root/build-cuda/build.log" | head -60
        echo "(a machine without this project's libraries: build elsewhere with scripts/gpu-bundle.sh, then GPU_CHECK_PREBUILT=gpu-bundle)"
        exit 1
    fi
fi
rc=0
dgnn=$bindir/dgnn
echo "== tests/cuda"
for p in $progs; do
    (cd "$root/build-cuda" && "$bindir/$p"); t=$?
    [ "$t" -eq 0 ] || { echo "$p: exit $t (77: no GPU seen)"; rc=1; }
done
echo "== cli_device"
bash "$root/tests/cli_device.sh" "$dgnn" | tail -3 || rc=1
if [ -n "${ompi:-}" ]; then
    # the ranks on the GPU: strict's and DepBloom's runs of cli_device with MPI (2 ranks
    # sharing the GPU, the host path, against 2 CPU ranks within 0.01 AP)
    echo "== cli_device with MPI ($bindir/dgnn-mpi, $(env "${mpi_env[@]}" mpirun --version 2>&1 | head -1))"
    env "${mpi_env[@]}" bash "$root/tests/cli_device.sh" "$bindir/dgnn-mpi" | grep -E "FAIL|GPU ranks|passed," | tail -12 || rc=1
fi
if [ -n "$data" ]; then
    echo "== bench: TGN on wikipedia, GPU then CPU (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
    for preset in tgn-paper tgl; do
        echo "-- dgnn bench train --device cuda --preset $preset"
        "$dgnn" bench train --device cuda --preset $preset --data "$data" --quiet 2>&1 | tail -8 || rc=1
    done
    echo "-- dgnn bench train --device cuda --model apan --max-batches 50 (TGL's APAN.yml)"
    "$dgnn" bench train --device cuda --model apan --data "$data" --quiet --max-batches 50 2>&1 | tail -6 || rc=1
    for dev in cuda cpu; do
        echo "-- dgnn bench train --device $dev --step-curve 200,600,1200,2400,4800 --max-batches 30 --out curve-$dev.json"
        "$dgnn" bench train --device $dev --data "$data" --quiet --max-batches 30 \
            --step-curve 200,600,1200,2400,4800 --out "$outdir/curve-$dev.json" 2>&1 | tail -9 || rc=1
    done
    echo "-- dgnn bench train --device cpu --preset tgn-paper (one epoch)"
    "$dgnn" bench train --device cpu --data "$data" --quiet 2>&1 | grep -A2 "^epoch" || rc=1
    ba=$(dirname "$(dirname "$data")")/bitcoin-alpha/soc-sign-bitcoinalpha.csv
    if [ -f "$ba" ]; then
        # issue 18's figure: EvolveGCN-O on bitcoin-alpha, a training epoch and the all-pairs
        # validation (13 snapshots x 14.3M pairs), GPU against CPU, interleaved
        echo "== EvolveGCN-O on bitcoin-alpha, GPU then CPU (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
        for dev in cuda cpu; do
            echo "-- dgnn train --model evolvegcn-o --device $dev --epochs 1 --skip-val-epochs 0"
            "$dgnn" train --model evolvegcn-o --data "$ba" --device $dev --epochs 1 --skip-val-epochs 0 --quiet \
                --out "$outdir/egcn-$dev.json" 2>&1 | grep -E "^epoch|^test|device" || rc=1
        done
        # DyGNeX with GPU costs: the windows' profile on the GPU (3 epochs' medians, wall
        # seconds), written beside OUTFILE; fit, schedule and simulate from it afterwards on any
        # machine: dgnn simulate --family snapshot --data BA --profile OUTDIR/egcn-profile-cuda.csv
        echo "-- dgnn train --model evolvegcn-o --device cuda --epochs 3 --no-eval --profile egcn-profile-cuda.csv"
        "$dgnn" train --model evolvegcn-o --data "$ba" --device cuda --epochs 3 --no-eval --quiet \
            --profile "$outdir/egcn-profile-cuda.csv" 2>&1 | grep -E "^training|device" || rc=1
    else
        echo "== EvolveGCN-O: skipped (no bitcoin-alpha beside wikipedia)"
    fi
    if [ -n "${ompi:-}" ]; then
        # DepBloom against strict on 2 ranks sharing the GPU (not a cluster's figure: the ranks
        # take turns on one device and the collectives go through the host)
        echo "== DepBloom against strict, 2 ranks on the GPU, wikipedia, one epoch (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
        for run in "strict --dist strict" "depbloom --dist depbloom --partition --refine 4 --critical-path"; do
            set -- $run; mode=$1; shift
            env "${mpi_env[@]}" timeout 300 mpirun --oversubscribe -np 2 "$bindir/dgnn-mpi" train --device cuda "$@" \
                --data "$data" --epochs 1 --quiet --out "$outdir/ranks2-$mode.json" 2>&1 | grep -E "^epoch|^test AP|collectives|dgnn train|rror" || rc=1
        done
    fi
    if [ "${GPU_CHECK_SIM:-0}" = 1 ] && [ -f "$outdir/curve-cuda.json" ]; then
        echo "== DepBloom against strict, projected from the GPU's step-time curve (scripts/sim-from-curve.sh)"
        bash "$root/scripts/sim-from-curve.sh" "$outdir/curve-cuda.json" "$outdir/sim-cuda" "$dgnn" || rc=1
    fi
    if [ "${GPU_CHECK_ACCURACY:-1}" = 1 ]; then
        echo "== accuracy: 3 epochs of TGN (tgn-paper) on wikipedia, GPU against CPU, seed 0"
        for dev in cuda cpu; do
            "$dgnn" train --device $dev --data "$data" --epochs 3 --patience 10 --quiet \
                --out "$root/build-cuda/acc-$dev.json" 2>&1 | grep -E "^epoch|^test AP|GPU memory" || rc=1
        done
        python3 - "$root/build-cuda/acc-cuda.json" "$root/build-cuda/acc-cpu.json" <<'PY' || rc=1
import json, sys
g, c = (json.load(open(p)) for p in sys.argv[1:3])
def vals(r):
    return [e["val_ap"] for e in r["epochs"]] + [r["test"]["ap"]]
bad = 0
for i, (a, b) in enumerate(zip(vals(g), vals(c))):
    name = "test AP" if i == len(vals(g)) - 1 else "epoch %d val AP" % (i + 1)
    ok = abs(a - b) <= 0.005
    bad += not ok
    print("%-16s GPU %.4f CPU %.4f  diff %+.4f %s" % (name, a, b, a - b, "" if ok else "OVER 0.005"))
sys.exit(1 if bad else 0)
PY
    fi
else
    echo "== bench and accuracy: skipped (no wikipedia/wikipedia.csv in \$DGNN_DATA_DIR, ../shared/data or shared/data)"; rc=1
fi
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
if [ "${GPU_CHECK_SANITIZER:-1}" != 1 ]; then
    echo "== compute-sanitizer: skipped (GPU_CHECK_SANITIZER=0)"
elif [ -n "$san" ] && [ -x "$san" ]; then
    for p in $progs; do
        case " $slow_progs " in *" $p "*) continue ;; esac
        tools="memcheck"
        if [ "${GPU_CHECK_RACECHECK:-0}" = 1 ]; then
            case " $shared_mem_progs " in *" $p "*) tools="memcheck racecheck synccheck" ;; esac
        fi
        for tool in $tools; do
            echo "== compute-sanitizer $tool $p"
            extra=""
            [ "$tool" = memcheck ] && extra="--leak-check full"
            (cd "$root/build-cuda" && "$san" --tool "$tool" $extra --error-exitcode 9 "$bindir/$p" > "$tool-$p.log" 2>&1)
            m=$?; tail -3 "$root/build-cuda/$tool-$p.log"
            [ "$m" -eq 0 ] || { echo "$tool $p: exit $m (log: build-cuda/$tool-$p.log)"; rc=1; }
        done
    done
else
    echo "compute-sanitizer not found (the CUDA toolkit's cuda-sanitizer package)"; rc=1
fi
echo "== gpu-check: $([ $rc -eq 0 ] && echo passed || echo FAILED)"
exit $rc
