# lib_cli.sh: what the tests/cli_*.sh scripts share (sourced, not a test itself: ctest
# runs tests/cli_*.sh only). A scratch folder $tmp removed on exit, pass/fail counters,
# and two checks: expect_rc RC CMD... runs CMD and checks its exit status (output kept in
# $tmp/out), has TEXT checks that output for TEXT. Failures print the output's head.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_rc() {
  local want=$1; shift
  "$@" > "$tmp/out" 2>&1; local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "exit $rc (want $want): $*"; sed 's/^/    /' "$tmp/out" | head -8; fi
}
has() { if grep -qF -- "$1" "$tmp/out"; then ok; else bad "output lacks '$1'"; sed 's/^/    /' "$tmp/out" | head -8; fi; }
