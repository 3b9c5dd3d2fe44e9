#!/bin/sh
# test_harness.sh - the test harness fails on every failure. In a scratch
# directory: a unit runner built from deliberately broken cases (a crash, a
# heap overflow, a leak, an abort, undefined behaviour, a failed check), an
# end-to-end script with the right exit code and the wrong message, and one
# that dies before its closing line; each must be counted as failed, by the
# runner and by tests/run_all.sh, and the whole run must exit non-zero.
# Usage: tests/test_harness.sh [GPUSIM]  (the binary is not used)
. "$(dirname "$0")/lib_e2e.sh"
CC=${CC:-cc}
SAN="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"

# 1. the unit runner counts each broken case as a failure, by name
if $CC -std=c11 -D_GNU_SOURCE $SAN -O1 -g -o "$T/bad_runner" tests/run.c tests/harness/bad_cases.c \
     $(pkg-config --cflags --libs gsl) >"$T/cc.log" 2>&1; then
  ASAN_OPTIONS=detect_leaks=1 "$T/bad_runner" >"$T/unit.log" 2>&1; rc=$?
  good=1
  for c in check_fails segfault heap_overflow leaks aborts signed_overflow float_cast_overflow; do
    grep -q "^\[FAIL\] harness/$c" "$T/unit.log" || { good=0; echo "    $c not counted as failed" >>"$T/unit.log"; }
  done
  grep -q '^\[ok\]   harness/passes' "$T/unit.log" && grep -q '^1 passed, 7 failed$' "$T/unit.log" && [ "$rc" -ne 0 ] || good=0
  if [ "$good" = 1 ]; then ok harness/unit_runner_counts_crash_leak_ub_as_failed
  else no harness/unit_runner_counts_crash_leak_ub_as_failed "$T/unit.log"; fi
else
  no harness/unit_runner_counts_crash_leak_ub_as_failed "$T/cc.log"
fi

# 2. an end-to-end check with the right exit code and the wrong message fails
cat >"$T/e2e_wrong_message.sh" <<'S'
. tests/lib_e2e.sh
expect right_code_wrong_message 0 "a message gpusim never prints" sh -c 'echo something else; exit 0'
expect right_code_right_message 0 "something" sh -c 'echo something; exit 0'
finish
S
# 3. a script that dies before its closing line (or exits 0 with a failure)
cat >"$T/e2e_dies.sh" <<'S'
. tests/lib_e2e.sh
ok before_the_crash
kill -SEGV $$
S
sh "$T/e2e_wrong_message.sh" >"$T/w.log" 2>&1; rc=$?
if [ "$rc" -ne 0 ] && grep -q '^\[FAIL\] e2e/right_code_wrong_message' "$T/w.log" &&
   grep -q '^1 passed, 1 failed$' "$T/w.log"; then ok harness/e2e_wrong_message_is_a_failure
else no harness/e2e_wrong_message_is_a_failure "$T/w.log"; fi

# 4. run_all.sh sums them all: every broken piece is a failure, exit non-zero
if [ -x "$T/bad_runner" ]; then
  RUN_TESTS="$T/bad_runner" E2E_SCRIPTS="$T/e2e_wrong_message.sh $T/e2e_dies.sh" sh tests/run_all.sh >"$T/all.log" 2>&1
  rc=$?
  last=$(tail -1 "$T/all.log")
  f=${last#*passed, }; f=${f%% failed}
  # 7 broken unit cases + 1 wrong message + 1 script that died = 9 at least
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -ge 9 ] 2>/dev/null && grep -q "\[FAIL\] e2e_dies: ended" "$T/all.log"; then
    ok harness/run_all_fails_on_every_failure
  else echo "    last line: $last (exit $rc)" >>"$T/all.log"; no harness/run_all_fails_on_every_failure "$T/all.log"; fi
else
  no harness/run_all_fails_on_every_failure "$T/cc.log"
fi
finish
