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

# C++: the headers have extern "C" guards, so a C++ program includes them (nn.h's
# designated initializer was C++20 only); skipped where there is no C++ compiler
if command -v c++ > /dev/null; then
  for std in c++11 c++17; do
    for h in "$p"/include/dgnn/*.h; do
      printf '#include <dgnn/%s.h>\nint main() { return 0; }\n' "$(basename "$h" .h)" > "$tmp/include_cxx.cpp"
      expect_rc 0 c++ -std=$std -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"$p/include" "$tmp/include_cxx.cpp"
    done
  done
else
  echo "skip: no c++ (the headers' C++ check)"
fi

# the library exports its public API only (a version script): internal names such as
# args_parse or cmd_train would otherwise bind to, or be replaced by, a program's own
if command -v nm > /dev/null; then
  nm -D --defined-only "$p/$libdir/libdgnn.so" > "$tmp/syms" 2>&1
  n_pub=$(awk 'NF >= 3 && $3 ~ /^dgnn_/' "$tmp/syms" | wc -l)
  others=$(awk 'NF >= 3 && $3 !~ /^dgnn_/ { print $3 }' "$tmp/syms" | head -5 | tr '\n' ' ')
  [ "$n_pub" -gt 100 ] && [ -z "$others" ] && ok || bad "libdgnn.so exports names other than dgnn_* ($others) or too few dgnn_* ($n_pub)"
  grep -qw dgnn_capi_train "$tmp/syms" && grep -qw dgnn_event_train "$tmp/syms" && ok || bad "libdgnn.so lacks its public API"
fi
# no static library, so no static link promised: dgnn.pc has no Libs.private
[ ! -e "$p/$libdir/libdgnn.a" ] && ! grep -q '^Libs.private' "$p/$libdir/pkgconfig/dgnn.pc" && ok ||
  bad "dgnn.pc offers a static link (Libs.private) or a libdgnn.a is installed: docs/c-library.md says neither"

# pkg-config: what a program needs, and nothing of the build tree
export PKG_CONFIG_PATH=$p/$libdir/pkgconfig
expect_rc 0 pkg-config --cflags --libs dgnn
has "-I$p/include"
has "-L$p/$libdir"
has "-ldgnn"
if grep -qF -- "$root" "$tmp/out" || grep -qF -- "$build" "$tmp/out"; then bad "pkg-config points into the source or build tree"; cat "$tmp/out"; else ok; fi
flags=$(pkg-config --cflags --libs dgnn)

# every function the installed headers declare links against the installed library: a
# program that compiles also links (the CUDA backend's dgnn_cuda_*, declared through
# tgnn_cuda.h and comm_dev.h, are not in the CPU build's library; they are declared only
# where DGNN_HAVE_CUDA is set). The names: every "TYPE dgnn_NAME(" of dgnn.h preprocessed
# as a program's, static inline ones included; each one's address is taken.
{
  printf '#include <dgnn/dgnn.h>\nvoid *const dgnn_all_functions[] = {\n'
  printf '#include <dgnn/dgnn.h>\n' | cc -std=c11 -E -P -I"$p/include" -x c - | tr -s ' \t\n' ' ' |
    grep -oE '[A-Za-z_0-9*]+ +\**dgnn_[A-Za-z0-9_]+ *\(' | grep -vE '^(return|if|while|for|sizeof) ' |
    sed -E 's/.*(dgnn_[A-Za-z0-9_]+) *\($/\1/' | sort -u | sed 's/.*/  (void *)\&&,/'
  printf '};\nint main(void) { return dgnn_all_functions[0] == 0; }\n'
} > "$tmp/all_functions.c"
n_fn=$(grep -c '(void \*)&' "$tmp/all_functions.c")
[ "$n_fn" -gt 300 ] && ok || bad "only $n_fn functions found in dgnn.h"
san_link=
[ "$(cache DGNN_SANITIZE)" = ON ] && san_link="-fsanitize=address,undefined"
# shellcheck disable=SC2046,SC2086
expect_rc 0 cc -std=c11 -w $san_link "$tmp/all_functions.c" $(pkg-config --cflags --libs dgnn) -o "$tmp/all_functions"
grep -q "undefined reference" "$tmp/out" && grep -o "undefined reference to .[A-Za-z0-9_]*" "$tmp/out" | sort -u | head -5

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
