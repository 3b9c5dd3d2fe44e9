# lib_e2e.sh - sourced by every tests/e2e*.sh: a scratch directory removed on
# exit, and checks that are each counted exactly once, as passed or failed.
# A check is one call of `expect` or one `ok`/`no` pair; never write
# `cmd && ok NAME` without `|| no NAME`: a check that neither passes nor fails
# disappears from the count.
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "[ok]   e2e/$1"; }
no() { fail=$((fail + 1)); echo "[FAIL] e2e/$1"; [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/    /' "$2" | head -20; return 0; }
has() { grep -q -- "$2" "$1"; }
# check_rc NAME RC CMD... : runs CMD (output in $T/out); a wrong exit code is
# the check NAME failing (counted here, returns 1); the right one returns 0
# and leaves the verdict to the caller, who must count it (ok or no).
check_rc() {
  name=$1; want=$2; shift 2
  "$@" >"$T/out" 2>&1; rc=$?
  if [ "$rc" -eq "$want" ]; then return 0; fi
  echo "    exit $rc, expected $want: $*" >>"$T/out"; no "$name" "$T/out"; return 1
}
# expect NAME RC PATTERN CMD... : one whole check: CMD exits RC and its output
# (stdout and stderr, in $T/out) matches the grep pattern PATTERN.
expect() {
  name=$1; want=$2; pat=$3; shift 3
  "$@" >"$T/out" 2>&1; rc=$?
  if [ "$rc" -eq "$want" ] && grep -q -- "$pat" "$T/out"; then ok "$name"; return 0; fi
  echo "    exit $rc (expected $want), output should match: $pat" >>"$T/out"
  no "$name" "$T/out"; return 1
}
# need_file NAME FILE: a fixture the suite needs; missing is a failure, never a skip
need_file() { [ -e "$2" ] && return 0; echo "    missing fixture $2" >"$T/msg"; no "$1" "$T/msg"; return 1; }
# the closing line that tests/run_all.sh reads, and the exit status
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
