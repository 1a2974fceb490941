#!/usr/bin/env bash
# cli_install.sh DGNN DATA_DIR: dgnn as an installed library (issue 17, docs/c-library.md).
# Installs the build tree DGNN was built in (its folder) into a scratch prefix with
# `cmake --install`, checks what lands there (the command, libdgnn.so and its soname
# links, every public header, dgnn.pc), compiles each installed header on its own against
# the prefix alone, then builds docs/examples/train_tgn.c with
# `pkg-config --cflags --libs dgnn` and runs it: on its built-in stream (one TGN epoch,
# test AP above 0.6; it gets about 0.93) and on a file written by the installed `dgnn gen`.
# A sanitizer build's libdgnn.so needs the sanitizers' runtime first, so the example is
# then built with them too. Skipped (77) where cmake, pkg-config or cc is missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib_cli.sh"
bin=$1
build=$(cd "$(dirname "$bin")" && pwd)
for tool in cmake pkg-config cc; do
  command -v "$tool" > /dev/null || { echo "skip: no $tool"; exit 77; }
done
[ -f "$build/cmake_install.cmake" ] || { echo "FAIL: $build is not a CMake build tree"; exit 1; }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
libdir=$(cache CMAKE_INSTALL_LIBDIR); libdir=${libdir:-lib}
p=$tmp/p

expect_rc 0 cmake --install "$build" --prefix "$p"
# the files
[ -x "$p/bin/dgnn" ] && ok || bad "no $p/bin/dgnn"
expect_rc 0 "$p/bin/dgnn" --help
so=$(cd "$p/$libdir" 2> /dev/null && ls libdgnn.so.*.*.* 2> /dev/null | head -1)
[ -n "$so" ] && [ -f "$p/$libdir/$so" ] && ok || bad "no libdgnn.so.X.Y.Z in $p/$libdir"
soname=$(objdump -p "$p/$libdir/libdgnn.so" 2> /dev/null | awk '$1 == "SONAME" { print $2 }')
[ -n "$soname" ] && [ -L "$p/$libdir/$soname" ] && ok || bad "soname link '${soname:-?}' missing in $p/$libdir"
[ -L "$p/$libdir/libdgnn.so" ] && ok || bad "no libdgnn.so link in $p/$libdir"
for h in "$root"/include/dgnn/*.h; do
  [ -f "$p/include/dgnn/$(basename "$h")" ] && ok || bad "header $(basename "$h") not installed"
done
[ -f "$p/$libdir/pkgconfig/dgnn.pc" ] && ok || bad "no $p/$libdir/pkgconfig/dgnn.pc"
# every installed header compiles alone against the prefix (it includes only what is there)
for h in "$p"/include/dgnn/*.h; do
  base=$(basename "$h" .h)
  printf '#include <dgnn/%s.h>\n#include <dgnn/%s.h>\n' "$base" "$base" > "$tmp/include_$base.c"
  expect_rc 0 cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$p/include" "$tmp/include_$base.c"
done

# pkg-config: what a program needs, and nothing of the build tree
export PKG_CONFIG_PATH=$p/$libdir/pkgconfig
expect_rc 0 pkg-config --cflags --libs dgnn
has "-I$p/include"
has "-L$p/$libdir"
has "-ldgnn"
if grep -qF -- "$root" "$tmp/out" || grep -qF -- "$build" "$tmp/out"; then bad "pkg-config points into the source or build tree"; cat "$tmp/out"; else ok; fi
flags=$(pkg-config --cflags --libs dgnn)

# the example, built and run as docs/c-library.md says
san=
[ "$(cache DGNN_SANITIZE)" = ON ] && san="-fsanitize=address,undefined"
# shellcheck disable=SC2086
expect_rc 0 cc -std=c11 -Wall -Wextra -Werror $san "$root/docs/examples/train_tgn.c" $flags -o "$tmp/train_tgn"
export LD_LIBRARY_PATH=$p/$libdir OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
if [ -x "$tmp/train_tgn" ]; then
  # it loads the installed library, not one of the build tree
  ldd "$tmp/train_tgn" > "$tmp/out" 2>&1
  has "$p/$libdir/libdgnn.so"
  expect_rc 0 "$tmp/train_tgn"
  has "5000 events, 300 nodes (bipartite)"
  has "test AP"
  ap=$(sed -n 's/^test AP \([0-9.]*\),.*/\1/p' "$tmp/out")
  if [ -n "$ap" ] && awk -v a="$ap" 'BEGIN { exit !(a > 0.6 && a <= 1) }'; then ok; else bad "test AP '$ap' not in (0.6, 1]"; fi
  expect_rc 0 "$p/bin/dgnn" gen --events 3000 --nodes 200 --bipartite 1 --seed 4 --out "$tmp/g.csv"
  expect_rc 0 "$tmp/train_tgn" "$tmp/g.csv"
  has "3000 events"
  has "test AP"
  expect_rc 1 "$tmp/train_tgn" "$tmp/missing.csv"
  has "missing.csv"
else
  bad "docs/examples/train_tgn.c did not build"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
