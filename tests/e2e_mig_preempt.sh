#!/bin/sh
# e2e_mig_preempt.sh [GPUSIM] - preemption under the MIG policies on a
# stress trace: 600 jobs of mixed requests (named profiles, GPU memory,
# whole cards; 1 to 4 GPUs; priorities 0 and 5, half preemptible) on a
# cluster of MIG and whole-card nodes (one with a layout schedule) and on an
# all-MIG one (tests/fixtures/mig-preempt). Under dynmig a preemptor can be
# placed while its instances are created, before or during its hand-over;
# it used to be placed a second time there (an abort in all but one of
# these runs). Every run must end cleanly, with preemptions (the runs do
# exercise the hand-over) and the job accounting adding up (the core checks
# it at the end of every run).
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-./gpusim}
FX=tests/fixtures/mig-preempt
need_file mig_preempt_trace "$FX/stress600.csv" || { finish; exit 1; }

for cl in mixed mig; do
  for pol in dynmig mig; do
    for v in default short; do
      name=${pol}_preempt_${cl}_$v
      set -- --set preempt=on
      [ "$v" = short ] && set -- "$@" --set min_runtime=60 --set grace_period=5
      if check_rc "$name" 0 "$G" run --trace "$FX/stress600.csv" --cluster "$FX/cluster-$cl.json" \
           --policy "$pol" "$@" --json --out "$T/$name"; then
        if grep -q '"preemptions":[[:space:]]*[1-9]' "$T/out" && grep -q '"arrived":[[:space:]]*600' "$T/out"; then
          ok "$name"
        else
          no "$name" "$T/out"
        fi
      fi
    done
  done
done
finish
