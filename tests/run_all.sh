#!/bin/sh
# run_all.sh [BUILD_DIR] - every test: the unit/validation runner, each
# end-to-end script tests/e2e*.sh (on BUILD_DIR/gpusim), and the harness's
# own checks. Ends with the total line "N passed, N failed" and exits
# non-zero on any failure.
#
# Suites run side by side (TEST_JOBS at once), each one's output to a file, never
# through a pipe (a pipe's status is its last command's, and a crash
# upstream would pass). A suite that exits
# non-zero without counting a failure, or ends without its closing
# "N passed, N failed" line (a crash, an abort, a sanitizer report), counts
# as one failure more. Everything runs with TMPDIR pointed at a scratch
# directory removed at the end; the repository's results/ must be as it
# was.
#
# For the harness's own test (tests/test_harness.sh) the suites can be
# swapped: RUN_TESTS (the unit runner) and E2E_SCRIPTS (a list of scripts).
B=${1:-build/test}
RUN_TESTS=${RUN_TESTS:-$B/run_tests}
# the Slurm sweep first: it mostly waits on its daemons, so it shares a slot well
E2E_SCRIPTS=${E2E_SCRIPTS:-$(ls tests/e2e_sweep.sh 2>/dev/null; ls tests/e2e*.sh tests/test_harness.sh 2>/dev/null | grep -v e2e_sweep)}
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
total_pass=0
total_fail=0

# launch NAME CMD... : starts one suite in the background, its output, exit
# status and wall seconds into files; at most TEST_JOBS run at once (3: two
# cores, and the Slurm suite mostly waits), a new one starting as soon as
# any finishes
launch() {
  name=$1; shift
  while [ "$(running_count)" -ge "${TEST_JOBS:-3}" ]; do sleep 0.2; done
  names="$names $name"
  (
    t0=$(date +%s)
    TMPDIR="$scratch" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$@" >"$scratch/$name.log" 2>&1
    rc=$?
    echo $(($(date +%s) - t0)) >"$scratch/$name.secs"
    echo $rc >"$scratch/$name.rc" # last: its presence says the suite is over
  ) &
}
# suites started and not yet over
running_count() {
  n=0
  for x in $names; do [ -e "$scratch/$x.rc" ] || n=$((n + 1)); done
  echo $n
}

# collect NAME : prints one suite's output and adds its counts
collect() {
  name=$1
  log="$scratch/$name.log"
  rc=$(cat "$scratch/$name.rc" 2>/dev/null || echo 255)
  cat "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  if [ -z "$line" ]; then
    p=0; f=1
    echo "[FAIL] $name: ended (exit $rc) without its 'N passed, N failed' line"
  else
    p=${line%% passed*}
    f=${line#*passed, }; f=${f%% failed}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
      f=1; echo "[FAIL] $name: exited $rc but counted no failure"
    elif [ "$rc" -eq 0 ] && [ "$f" -ne 0 ]; then
      echo "[FAIL] $name: counted $f failures but exited 0"
    fi
  fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
}

# a check of the harness itself, counted like any other
harness_check() {
  if [ "$2" = 0 ]; then total_pass=$((total_pass + 1)); echo "[ok]   harness/$1"
  else total_fail=$((total_fail + 1)); echo "[FAIL] harness/$1${3:+: $3}"; fi
}

before_results=$(ls -A results 2>/dev/null)

names=""
if [ -x "$RUN_TESTS" ]; then
  launch unit "$RUN_TESTS"
else
  harness_check unit_runner_built 1 "no executable $RUN_TESTS"
fi
for s in $E2E_SCRIPTS; do
  launch "$(basename "$s" .sh)" sh "$s" "$B/gpusim"
done
wait
for n in $names; do collect "$n"; done
# where the time went (wall seconds per suite, side by side two at a time)
for n in $names; do printf '%s %ss; ' "$n" "$(cat "$scratch/$n.secs" 2>/dev/null)"; done; echo

after_results=$(ls -A results 2>/dev/null)
[ "$before_results" = "$after_results" ]; harness_check results_untouched $? "tests wrote into results/"
# scratch files go under $TMPDIR (mktemp -d, tu_tmp_dir), which is removed: a
# path written out as /tmp would escape it and stay behind
tmp_paths=$(grep -n '/tmp' tests/*.c tests/*.h tests/e2e*.sh tests/lib_e2e.sh 2>/dev/null)
[ -z "$tmp_paths" ]; harness_check no_fixed_tmp_paths $? "$tmp_paths"

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
