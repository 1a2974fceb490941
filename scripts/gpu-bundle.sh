#!/usr/bin/env bash
# gpu-bundle.sh [DIR]: everything scripts/gpu-check.sh needs on the lent GPU machine, built
# and gathered HERE, into DIR (default gpu-bundle/, ignored by git) for the device tool to
# carry. That machine starts bare from a CUDA image: it has nvcc, CMake and the CUDA
# libraries, but not this project's Debian dependencies (OpenBLAS, METIS, GLPK, cJSON,
# libyaml), and nothing can be installed there; the shared data beside the checkout
# (../shared) does not travel either. So:
#  - builds the CUDA tree (build-cuda/, Release, sm_90 or GPU_CHECK_ARCH, without MPI) with
#    the dgnn command and every tests/cuda program, as gpu-check.sh's own build does;
#  - DIR/bin: those programs; DIR/lib: the shared libraries they load that are neither the C
#    runtime's nor CUDA's (the device's own toolkit provides libcudart, libcublas and
#    libcusparse: carrying them would pass the 64 MiB the tool carries);
#  - DIR/data/wikipedia/wikipedia.csv from the shared data folder (bench and accuracy), with
#    bitcoin-alpha (the snapshot models' bench) and pgt/england_covid.json (the node task's
#    test, test_cuda_snaptrain_node) when there.
#  - where this machine has Open MPI (mpirun and its headers): a second CUDA tree with MPI
#    (build-cuda-mpi/) for DIR/bin/dgnn-mpi, and Debian's Open MPI runtime, made relocatable,
#    in DIR/ompi (mpirun, its components, PMIx, and the libraries they load, as the tree they
#    have under /usr: gpu-check.sh points OPAL_PREFIX and PMIX_INSTALL_PREFIX at it), so that
#    gpu-check.sh runs strict's and DepBloom's ranks on the GPU there (GPU_BUNDLE_MPI=0 leaves
#    them out);
# and packs DIR into DIR.tar.xz (the folder is past 64 MiB; the archive is about 9 MiB
# without MPI, 15 MiB with it).
# Then, with the device tool: carry ["gpu-bundle.tar.xz"], command
#   GPU_CHECK_PREBUILT=gpu-bundle.tar.xz scripts/gpu-check.sh "$OUT/gpu-check.txt"
# Prints the bundle's size; exit 1 if the build fails or the bundle would not fit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/gpu-bundle}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "gpu-bundle: no nvcc (the CUDA toolkit) on this machine" >&2; exit 1; }
progs=$(cd "$root/tests/cuda" && ls test_cuda*.c | sed 's/\.c$//' | tr '\n' ' ')
mkdir -p "$root/build-cuda"
echo "== build-cuda ($progs dgnn)"
if ! { cmake -S "$root" -B "$root/build-cuda" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA=ON -DDGNN_MPI=OFF \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${GPU_CHECK_ARCH:-90}" \
        > "$root/build-cuda/build.log" 2>&1 &&
       cmake --build "$root/build-cuda" -j"$(nproc)" --target $progs dgnn >> "$root/build-cuda/build.log" 2>&1; }; then
    grep -E -A3 "error|Error" "$root/build-cuda/build.log" | head -40; exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/data/wikipedia" "$dir/data/bitcoin-alpha" "$dir/data/pgt"
for p in dgnn $progs; do cp "$root/build-cuda/$p" "$dir/bin/"; done
# the libraries to carry: what ldd resolves, less the C runtime and CUDA's own
for p in "$dir"/bin/*; do ldd "$p"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so|/cuda[^/]*/' |
    grep -v -E '/lib(cudart|cublas|cublasLt|cusparse|nvJitLink|nccl)\.so' |
    while read -r lib; do cp -L "$lib" "$dir/lib/"; done
# the multi-rank runs: dgnn with MPI, and Open MPI's runtime laid out as under /usr
ompi_libdir=/usr/lib/x86_64-linux-gnu/openmpi pmix_dir=/usr/lib/x86_64-linux-gnu/pmix2
if [ "${GPU_BUNDLE_MPI:-1}" = 1 ] && command -v mpirun > /dev/null && [ -d "$ompi_libdir/lib" ] && [ -d "$pmix_dir" ]; then
    echo "== build-cuda-mpi (dgnn with MPI, for the ranks on the GPU)"
    mkdir -p "$root/build-cuda-mpi"
    if ! { cmake -S "$root" -B "$root/build-cuda-mpi" -DCMAKE_BUILD_TYPE=Release -DDGNN_CUDA=ON -DDGNN_MPI=ON \
            -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${GPU_CHECK_ARCH:-90}" \
            > "$root/build-cuda-mpi/build.log" 2>&1 &&
           cmake --build "$root/build-cuda-mpi" -j"$(nproc)" --target dgnn >> "$root/build-cuda-mpi/build.log" 2>&1; }; then
        grep -E -A3 "error|Error" "$root/build-cuda-mpi/build.log" | head -40; exit 1
    fi
    cp "$root/build-cuda-mpi/dgnn" "$dir/bin/dgnn-mpi"
    o=$dir/ompi
    mkdir -p "$o/bin" "$o/lib/x86_64-linux-gnu" "$o/share" "$o/etc" "$o/deps"
    cp -L "$(command -v orterun)" "$o/bin/orterun" && cp -L "$(command -v orted)" "$o/bin/orted" && ln -s orterun "$o/bin/mpirun"
    cp -a "$ompi_libdir" "$pmix_dir" "$o/lib/x86_64-linux-gnu/"
    rm -rf "$o/lib/x86_64-linux-gnu/openmpi/include"
    cp -a /usr/share/openmpi "$o/share/"
    [ -d /etc/openmpi ] && cp -a /etc/openmpi "$o/etc/"
    # the libraries mpirun, dgnn-mpi and the components load, but the C runtime's and their own
    { ldd "$o/bin/orterun"; ldd "$dir/bin/dgnn-mpi"; find "$o/lib" -name "*.so*" -type f -exec ldd {} \; ; } 2>/dev/null |
        awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
        grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+|libutil|libresolv)\.so' |
        grep -v -E '/cuda[^/]*/|/lib(cudart|cublas|cublasLt|cusparse|nvJitLink|nccl)\.so' |
        while read -r lib; do
            case "$(readlink -f "$lib")" in */openmpi/*|*/pmix2/*) ;; *) [ -e "$dir/lib/$(basename "$lib")" ] || cp -L "$lib" "$o/deps/" ;; esac
        done
    echo "== $o: Open MPI $(mpirun --version 2>&1 | head -1 | awk '{print $NF}'), $(ls "$o/deps" | wc -l) libraries beside it"
else
    echo "== no Open MPI here (or GPU_BUNDLE_MPI=0): gpu-check.sh will not run ranks on the GPU"
fi
data=""
for d in "${DGNN_DATA_DIR:-}" "$root/../shared/data" "$root/shared/data"; do
    [ -n "$d" ] && [ -f "$d/wikipedia/wikipedia.csv" ] && { data=$d/wikipedia/wikipedia.csv; break; }
done
if [ -n "$data" ]; then
    cp "$data" "$dir/data/wikipedia/"
    ba=$(dirname "$(dirname "$data")")/bitcoin-alpha/soc-sign-bitcoinalpha.csv # the snapshot models' bench
    [ -f "$ba" ] && cp "$ba" "$dir/data/bitcoin-alpha/"
    covid=$(dirname "$(dirname "$data")")/pgt/england_covid.json # the node task's test (1.4 MB)
    [ -f "$covid" ] && cp "$covid" "$dir/data/pgt/"
else echo "gpu-bundle: no wikipedia/wikipedia.csv in \$DGNN_DATA_DIR, ../shared/data or shared/data: gpu-check.sh will skip its bench and accuracy"; fi
echo "== $dir: $(ls "$dir/bin" | wc -l) programs, libraries: $(ls "$dir/lib" | tr '\n' ' ')"
# the folder itself passed the 64 MiB the device tool carries (OpenBLAS alone is 35 MiB):
# it travels as DIR.tar.xz (about a seventh of it), which gpu-check.sh unpacks with Python's
# tarfile there (the device's image has python3)
echo "== $dir.tar.xz"
tar -C "$(dirname "$dir")" -cf - "$(basename "$dir")" | xz -T0 -6 > "$dir.tar.xz"
kb=$(du -sk "$dir.tar.xz" | cut -f1)
tree_kb=$(cd "$root" && git ls-files -z | xargs -0 du -ck 2>/dev/null | tail -1 | cut -f1)
echo "== size: bundle $((kb / 1024)) MiB packed ($(du -sk "$dir" | cut -f1) KiB unpacked), tracked tree $((tree_kb / 1024)) MiB (the device tool carries at most 64 MiB)"
[ $((kb + tree_kb)) -le $((64 * 1024)) ] || { echo "gpu-bundle: too large to carry" >&2; exit 1; }
