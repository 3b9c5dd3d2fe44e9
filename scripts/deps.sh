#!/bin/sh
# deps.sh - install the Debian packages gpusim needs, only those missing.
# Uses apt-get directly as root, through sudo otherwise.
set -e
need=""
pkg-config --exists gsl 2>/dev/null || need="$need libgsl-dev"
pkg-config --exists libcjson 2>/dev/null || need="$need libcjson-dev"
[ -f /usr/include/csv.h ] || need="$need libcsv-dev"
command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
command -v pkg-config >/dev/null 2>&1 || need="pkg-config $need"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
# the sweep tests run a one-node Slurm and GNU parallel (tests/e2e_sweep.sh)
command -v slurmctld >/dev/null 2>&1 || need="$need slurm-wlm"
command -v munged >/dev/null 2>&1 || need="$need munge"
command -v parallel >/dev/null 2>&1 || need="$need parallel"
[ -z "$need" ] && exit 0
echo "deps: installing$need" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq $need >&2
