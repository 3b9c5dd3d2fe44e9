# bench_lib.sh - shell pieces the `make bench` scripts share (sourced, not run).
# SPDX-License-Identifier: MIT

# val FIELD FILE: the first "FIELD": value of a JSON report, as printed
val() { grep "\"$1\"" "$2" | head -1 | sed 's/.*:[[:space:]]*//; s/,$//'; }

# in_turn RUN SIZE...: REPS rounds (default 5), each running "RUN SIZE" for every size in turn, so that
# the sizes see the same spells of a shared machine's load (one size's runs back to back can all land in
# a slow one). RUN writes its report to $BL_JSON and fails on error or timeout; a size that failed once
# is not run again. Afterwards, per size g: bl_eps_g, the best events per CPU second of the event loop
# (events / sim.cpu_s), and that run's bl_setup_g (sim.setup_s), bl_rss_g (peak_rss_mib) and bl_ev_g
# (events); bl_fail_g is 1 when a run failed.
in_turn() {
  bl_fn=$1; shift
  for bl_g in "$@"; do eval "bl_eps_$bl_g=''; bl_setup_$bl_g=''; bl_rss_$bl_g=''; bl_ev_$bl_g=''; bl_fail_$bl_g=''"; done
  bl_i=0
  while [ "$bl_i" -lt "${REPS:-5}" ]; do
    bl_i=$((bl_i + 1))
    for bl_g in "$@"; do
      eval "bl_f=\$bl_fail_$bl_g"
      [ -z "$bl_f" ] || continue
      if "$bl_fn" "$bl_g"; then
        bl_e=$(awk -v n="$(val events "$BL_JSON")" -v c="$(val cpu_s "$BL_JSON")" 'BEGIN {print (c > 0 ? n / c : 0)}')
        eval "bl_b=\$bl_eps_$bl_g"
        if [ -z "$bl_b" ] || awk -v a="$bl_b" -v b="$bl_e" 'BEGIN {exit !(b + 0 > a + 0)}'; then
          eval "bl_eps_$bl_g=$bl_e; bl_setup_$bl_g=$(val setup_s "$BL_JSON"); bl_rss_$bl_g=$(val peak_rss_mib "$BL_JSON")"
          eval "bl_ev_$bl_g=$(val events "$BL_JSON")"
        fi
      else
        eval "bl_fail_$bl_g=1"
      fi
    done
  done
}

# bl_size SIZE: after in_turn, the size's figures in eps, setup, rss and ev, its us/event in us, and
# base set to the first us seen (reset base="" before a table's first size); fails (returns 1) when
# the size failed or timed out.
bl_size() {
  eval "eps=\$bl_eps_$1; setup=\$bl_setup_$1; rss=\$bl_rss_$1; ev=\$bl_ev_$1; bl_f=\$bl_fail_$1"
  [ -n "$eps" ] && [ -z "$bl_f" ] || return 1
  us=$(awk -v e="$eps" 'BEGIN {printf "%.3f", 1e6 / e}')
  [ -n "$base" ] || base=$us
}
