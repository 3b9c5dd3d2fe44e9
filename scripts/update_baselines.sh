#!/bin/sh
# update_baselines.sh - `make baseline-update`: rewrite results/baseline/*.json
# from the example runs that `make test` checks against them. Run it only when
# a change of the model is meant to move the figures, and review the diff.
set -e
G=${1:-./gpusim}
T=$(mktemp -d /tmp/gpusim-baseline-XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p results/baseline
run() { name=$1; shift; "$G" run "$@" --out "$T/$name" >/dev/null; cp "$T/$name/report.json" "results/baseline/$name.json"; }
run day.whole --trace workloads/examples/day.csv --policy whole
run day.whole-fifo --trace workloads/examples/day.csv --policy whole --set queue=fifo
run day.vgpu --trace workloads/examples/day.csv --policy vgpu
run inference.whole --trace workloads/examples/inference.csv --policy whole
echo "baselines written: results/baseline/ (review with git diff)"
