#!/bin/sh
# bench_infer.sh - `make bench`: inference services at scale, printed (never asserted in tests).
#  1. routing: one service with R replicas held fixed (ROUTE_REPLICAS, default 20 100 1000), the same
#     load per replica and the same number of generated requests (ROUTE_REQUESTS, default 1,000,000):
#     a token service (continuous batching, about 8 sequences a replica) and a token-less one (4 slots
#     of 100 ms at load 0.75), and a token service of 20,000-token prompts offered more than it serves
#     (kv: KV memory binds on the least-loaded replica at most arrivals, the queue fills and drops).
#     CPU seconds, events, us/event and the ratio to the smallest size (goal: within 2x). Cold starts
#     are set to 0 so every replica is ready from the first request.
#  2. a day of four services (two token services, two token-less; diurnal and Poisson traffic) whose
#     generated requests total INFER_REQUESTS (default 100,000,000; goal: under 2 minutes on one core).
#     The trace is four rows: the services generate their own requests. Rates scale with
#     INFER_REQUESTS and the day stays 24 h, so a smaller run has fewer replicas, not a shorter day.
#     CPU seconds, requests/s, peak RSS (the report's sim.peak_rss_mib).
#  3. memory per service: SVC_MANY tiny services (default 16,000), each scaled from zero by two
#     requests, under whole+dualpod, against 1,000 of them: bytes per service from the peak RSS.
# A run past INFER_TIMEOUT seconds (default 600) prints "timeout". GPUSIM names another binary (default
# ./gpusim), e.g. a build of an earlier commit for a before/after table. CPU seconds are user + system of
# one run on a shared machine: compare ratios, not absolutes.
set -e
D=build/bench
mkdir -p "$D"
REPS=${ROUTE_REPLICAS:-20 100 1000}
RREQ=${ROUTE_REQUESTS:-1000000}
DREQ=${INFER_REQUESTS:-100000000}
MANY=${SVC_MANY:-16000}
TMO=${INFER_TIMEOUT:-600}
G=${GPUSIM:-./gpusim}
MODEL=A100-SXM4-80GB
COLD0="--set svc_pod_start_s=0 --set svc_import_s=0 --set svc_compile_s=0 --set svc_graph_s=0"
. scripts/bench_lib.sh # val
# run NAME TRACE ARGS...: one run, its report kept in $D/infer-NAME/; sets cpu (user + system s), events,
# rss (MiB); fails on error or timeout
run() {
  o=$1; t=$2; shift 2
  # shellcheck disable=SC2086
  /usr/bin/time -f "%U %S" -o "$D/infer-time.txt" timeout "$TMO" "$G" run --trace "$t" "$@" --sample-s 0 \
    --out "$D/infer-$o" --json >"$D/infer.json" 2>/dev/null || return 1
  cpu=$(awk '{print $1 + $2}' "$D/infer-time.txt")
  events=$(val events "$D/infer.json")
  rss=$(val peak_rss_mib "$D/infer.json")
}

# --- 1. routing over R replicas ---
route_trace() { # $1 kind (tokens|time), $2 replicas, $3 requests -> trace on stdout
  awk -v k="$1" -v n="$2" -v r="$3" 'BEGIN {
    if (k == "tokens") {
      rate = 5 * n   # about 8 sequences of 50 output tokens a replica at 29.8 ms an iteration
      print "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,max_batch,slo_ms,weights_gib,rate,pattern,input_tokens,output_tokens"
      printf "svc,0,%.6f,1,service,%d,%d,%d,16,20000,0,%.6f,poisson,200,50\n", r / rate, n, n, n, rate
    } else if (k == "kv") {
      rate = 1.2 * n   # 20,000-token prompts offered past what the replicas serve: KV memory binds
      print "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,max_batch,slo_ms,weights_gib,rate,pattern,input_tokens,output_tokens"
      printf "svc,0,%.6f,1,service,%d,%d,%d,16,20000,0,%.6f,poisson,20000,50\n", r / rate, n, n, n, rate
    } else {
      rate = 0.75 * n * 4 / 0.1   # load 0.75 on 4 slots of 100 ms
      print "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,max_batch,slo_ms,weights_gib,rate,pattern,svc_mean_ms"
      printf "svc,0,%.6f,1,service,%d,%d,%d,4,1000,0,%.6f,poisson,100\n", r / rate, n, n, n, rate
    } }'
}
echo "bench: inference routing, one service, replicas held fixed, $RREQ requests at the same load per replica"
printf "  %-7s %9s %8s %11s %9s %8s\n" kind replicas "CPU s" events us/event "x first"
for kind in tokens time kv; do
  base=""
  for n in $REPS; do
    T="$D/route-$kind-$n-$RREQ.csv"
    route_trace "$kind" "$n" "$RREQ" >"$T"
    g=$((n < 1024 ? 1024 : n))
    # shellcheck disable=SC2086
    if run "route-$kind-$n" "$T" --policy whole --gpus "$MODEL:$g" $COLD0; then
      us=$(awk -v c="$cpu" -v e="$events" 'BEGIN {printf "%.3f", c * 1e6 / e}')
      [ -n "$base" ] || base=$us
      # too short to time (0.00 s) prints "-" for the ratio
      awk -v k="$kind" -v n="$n" -v c="$cpu" -v e="$events" -v us="$us" -v b="$base" \
        'BEGIN {printf "  %-7s %9d %8.2f %11d %9.3f %8s\n", k, n, c, e, us, (b > 0 ? sprintf("%.2f", us / b) : "-")}'
    else
      printf "  %-7s %9d %8s\n" "$kind" "$n" "timeout (> ${TMO} s) or error"
    fi
  done
done

# --- 2. the inference day ---
T="$D/infer-day-$DREQ.csv"
awk -v r="$DREQ" 'BEGIN {
  k = r / 100e6   # the rates below sum to 1157.4/s: 100M requests in 86,400 s
  print "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,max_batch,slo_ms,weights_gib,rate,pattern,input_tokens,output_tokens,svc_mean_ms"
  printf "chat,0,86400,1,service,1,3000,2,64,20000,16,%.6f,diurnal,500,100,\n", 300 * k
  printf "code,0,86400,1,service,1,3000,2,32,10000,16,%.6f,diurnal,1000,40,\n", 200 * k
  printf "embed,0,86400,1,service,1,3000,2,16,300,1,%.6f,diurnal,,,20\n", 500 * k
  printf "classify,0,86400,1,service,1,3000,2,8,100,1,%.6f,poisson,,,5\n", 157.4 * k }' >"$T"
echo "bench: inference day, 4 services generating about $DREQ requests over 24 h, 8,192 GPUs, policy whole"
if run day "$T" --policy whole --gpus "$MODEL:8192"; then
  # arrived in the report's "requests" object (over all services)
  req=$(sed -n '/"requests":[[:space:]]*{/,/}/p' "$D/infer.json" | grep '"arrived"' | tail -1 |
        sed 's/.*:[[:space:]]*//; s/,$//')
  awk -v c="$cpu" -v e="$events" -v r="$req" -v m="$rss" 'BEGIN {
    if (c <= 0) c = 0.01   # below the timer'"'"'s resolution
    printf "  %d requests, %d events in %.1f CPU s: %.0f requests/s, %.3f us/request, peak RSS %.1f MiB\n",
      r, e, c, r / c, c * 1e6 / r, m
    x = c * 100e6 / r
    printf "  at 100M requests: %.0f CPU s (goal < 120 s: %s)\n", x, (x < 120 ? "met" : "MISSED") }'
else
  echo "  timeout (> ${TMO} s) or error"
fi

# --- 3. memory per service ---
tiny_trace() { # $1 services -> N services scaled from zero, two requests each over an hour
  awk -v n="$1" 'BEGIN {
    print "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,max_batch,slo_ms,weights_gib,service,output_tokens,input_tokens"
    for (i = 0; i < n; i++) printf "m%d,0,3600,1,service,0,1,0,8,5000,1,,,\n", i
    for (k = 0; k < 2 * n; k++) printf "q%d,%.3f,,,request,,,,,,,m%d,20,100\n", k, 1 + k * 3000.0 / (2 * n), k % n }'
}
echo "bench: memory per service, tiny services scaled from zero (two requests each), whole+dualpod, 256 H100"
rss1=""
for n in 1000 "$MANY"; do
  tiny_trace "$n" >"$D/tiny-$n.csv"
  if run "tiny-$n" "$D/tiny-$n.csv" --policy whole+dualpod --gpus H100-SXM5-80GB:256; then
    printf "  %6d services: peak RSS %7.1f MiB, %.2f CPU s\n" "$n" "$rss" "$cpu"
    [ -n "$rss1" ] || { rss1=$rss; continue; }
    [ "$n" -gt 1000 ] || continue
    awk -v a="$rss1" -v b="$rss" -v n="$n" 'BEGIN {
      printf "  %.0f bytes per service (peak RSS difference over %d services more)\n", (b - a) * 1048576 / (n - 1000), n - 1000 }'
  else
    printf "  %6d services: timeout (> ${TMO} s) or error\n" "$n"
  fi
done
