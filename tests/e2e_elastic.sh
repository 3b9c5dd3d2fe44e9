#!/bin/sh
# e2e_elastic.sh - elastic capacity end to end on the example day: the bill conserves (the total is the
# sum over groups of node-hours x GPUs x price, and the sum over tiers; the cost object's cluster cost,
# capacity and holders with idle sum to it, and report.html says it), the timeseries has each group's
# nodes by state, a bad autoscale key is an input error naming the field, and plan sizes a template with
# burst groups three ways (all reserved, base + on-demand burst, base + spot burst) cheapest first.
# Usage: tests/e2e_elastic.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
TPL=workloads/examples/cluster-template-burst.json
DAY=workloads/examples/day.csv
need_file elastic/fixtures "$TPL" && need_file elastic/fixtures "$DAY" || { finish; exit; }
# the template at N = 4 is a cluster file
python3 -c "
import json
d = json.load(open('$TPL'))
for g in d['nodes']:
    if g.get('count') == 'N': g['count'] = 4
json.dump(d, open('$T/c.json', 'w'))
"
expect elastic/day_runs 0 'report:' "$G" run --trace "$DAY" --cluster "$T/c.json" --policy whole --out "$T/r"
if python3 -c "
import json
r = json.load(open('$T/r/report.json'))
e = r['elastic']
end_h = r['sim']['end_s'] / 3600
tot, tiers = 0.0, {}
for g in e['groups']:
    usd = g['node_hours'] * g['gpus_per_node'] * g['price_per_gpu_hour_usd']
    assert abs(usd - g['cost_usd']) <= 1e-9 * usd, g
    if g['tier'] == 'reserved':
        assert abs(g['node_hours'] - g['nodes'] * end_h) <= 1e-9 * g['node_hours'], g
    else:
        assert g['peak_nodes'] <= g['autoscale']['max'] and g['scale_outs'] >= g['peak_nodes'], g
    assert g['gpu_hours_used'] + g['gpu_hours_idle'] - g['node_hours'] * g['gpus_per_node'] < 1e-6, g
    tot += usd
    tiers[g['tier']] = tiers.get(g['tier'], 0) + usd
assert abs(tot - e['total']['cost_usd']) <= 1e-9 * tot, (tot, e['total'])
for t, usd in tiers.items():
    assert abs(usd - e['by_tier'][t]['cost_usd']) <= 1e-9 * usd, (t, usd)
assert sum(v['cost_usd'] for v in e['by_tier'].values()) - tot < 1e-6 * tot
c, bh = r['cost'], sum(g['node_hours'] * g['gpus_per_node'] for g in e['groups'])
assert abs(c['cluster_usd'] - tot) <= 1e-9 * tot and abs(c['billed_gpu_hours'] - bh) <= 1e-9 * bh, (c, tot, bh)
assert abs(sum(h['usd'] for h in c['holders']) - tot) <= 1e-9 * tot, c['holders']
assert abs(sum(h['gpu_hours'] for h in c['holders']) - bh) <= 1e-9 * bh, c['holders']
assert abs(sum(h['gpu_hours'] for h in c['holders'] if h['kind'] != 'idle') - r['gpu']['gpu_hours']) <= 1e-9 * bh
assert abs(c['cluster_usd_per_month'] - tot * c['month_scale']) <= 1e-9 * tot
assert e['by_tier']['spot']['scale_outs'] > 0, e['by_tier']
assert abs(e['total']['gpu_hours_used'] - r['gpu']['gpu_hours']) < 1e-6 * r['gpu']['gpu_hours'], (e['total'], r['gpu'])
" 2>"$T/py"; then ok elastic/cost_conserved_on_example_day
else no elastic/cost_conserved_on_example_day "$T/py"; fi
# report.html's who pays says the bill, the same figure as cost.cluster_usd and elastic.total.cost_usd
"$G" plot "$T/r" --out "$T/rh" >/dev/null 2>&1
if python3 - "$T/r/report.json" "$T/rh/report.html" 2>"$T/py" <<'PY'
import html, json, re, sys
c = json.load(open(sys.argv[1]))["cost"]
v = c["cluster_usd"]
usd = "$%.2f" % v if v < 10000 else "$" + format(round(v), ",")
text = html.unescape(re.sub("<[^>]+>", "", open(sys.argv[2]).read()))
assert "the node groups were billed %s over it for %.1f GPU-hours" % (usd, c["billed_gpu_hours"]) in text, usd
assert "(node groups that come and go)" in text
PY
then ok elastic/report_html_says_the_bill; else no elastic/report_html_says_the_bill "$T/py"; fi
if head -1 "$T/r/timeseries.csv" | grep -q ',g3_up,g3_provisioning,g3_draining$'; then ok elastic/timeseries_nodes_by_state
else head -1 "$T/r/timeseries.csv" >"$T/h"; no elastic/timeseries_nodes_by_state "$T/h"; fi
# the same run twice: byte-identical (spot reclaims drawn from the seed)
"$G" run --trace "$DAY" --cluster "$T/c.json" --policy whole --out "$T/r2" >/dev/null 2>&1
if python3 -c "
import json
a, b = (json.load(open(p)) for p in ('$T/r/report.json', '$T/r2/report.json'))
for r in (a, b):
    for k in ('wall_s', 'events_per_s', 'setup_s', 'cpu_s', 'peak_rss_mib'):
        r['sim'].pop(k, None)
assert a == b
" 2>"$T/py" && cmp -s "$T/r/timeseries.csv" "$T/r2/timeseries.csv"; then ok elastic/deterministic
else no elastic/deterministic "$T/py"; fi
printf '{"nodes": [{"model": "H100-SXM5-80GB", "gpus": 8, "autoscale": {"min": 2, "max": 1}}]}\n' >"$T/bad.json"
expect elastic/bad_autoscale_named 3 "nodes\[0\].autoscale: expected integers min <= max" \
  "$G" run --trace "$DAY" --cluster "$T/bad.json" --policy whole --out "$T/rb"
expect elastic/sharing_policy_refused 2 "space policy 'vgpu' does not support nodes that fail or come and go" \
  "$G" run --trace "$DAY" --cluster "$T/c.json" --policy vgpu --out "$T/rv"
# plan: three answers, cheapest first, the burst rows billed by their runs
"$G" plan --trace "$DAY" --policy whole --cluster-template "$TPL" --slo 'queue_p99<=900' --jobs 2 --out "$T/p" >"$T/plan" 2>&1
if python3 -c "
import json
p = json.load(open('$T/p/plan.json'))
es = {e['candidate']: e for e in p['policies']}
assert set(es) == {'h100-burst (reserved)', 'h100-burst (+on-demand burst)', 'h100-burst (+spot burst)'}, list(es)
for e in es.values():
    assert e['verdict'] == 'met', e['verdict']
r, od, sp = (es['h100-burst ' + k] for k in ('(reserved)', '(+on-demand burst)', '(+spot burst)'))
assert 'burst_peak_nodes' not in r and od['burst_peak_nodes'] >= 1 and sp['burst_peak_nodes'] >= 1
assert sp['cost_per_month_usd'] < od['cost_per_month_usd'] < r['cost_per_month_usd']
assert od['base_cost_per_hour_usd'] < od['cost_per_hour_usd']
for e in (od, sp):  # the cheapest bill among the bases run, none cheaper left unrun
    met = [pt for pt in e['points'] if pt['met']]
    assert all(e['cost_per_hour_usd'] <= pt['cost_per_hour_usd'] for pt in met), e['points']
    assert e['scale'] >= e['smallest_scale']
" 2>"$T/py" && grep -A4 "buyer's table" "$T/plan" | sed -n 3p | grep -q '(+spot burst).*burst peak'; then
  ok elastic/plan_three_ways
else cat "$T/plan" >>"$T/py"; no elastic/plan_three_ways "$T/py"; fi
finish
