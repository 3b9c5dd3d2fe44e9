#!/bin/sh
# deps.sh - install the Debian packages gpusim needs, only those missing.
# Uses apt-get directly as root, through sudo otherwise.
# deps.sh --check: install nothing; name what is missing and exit 1 (a plain
# `make` runs this: a build target never installs system packages).
# deps.sh --fuzz: clang and its libFuzzer runtime, for `make fuzz` only.
set -e
need=""
if [ "${1:-}" = "--fuzz" ]; then
  command -v clang >/dev/null 2>&1 || need="$need clang"
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer*.a >/dev/null 2>&1 || need="$need libclang-rt-dev"
  [ -z "$need" ] && exit 0
  echo "deps: installing$need (make fuzz)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq $need >&2
  exit 0
fi
pkg-config --exists gsl 2>/dev/null || need="$need libgsl-dev"
pkg-config --exists libcjson 2>/dev/null || need="$need libcjson-dev"
[ -f /usr/include/csv.h ] || need="$need libcsv-dev"
command -v pkg-config >/dev/null 2>&1 || need="pkg-config $need"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
# gnuplot draws the figures (gpusim plot, make demo, make test); the build needs none of it
[ "${1:-}" = "--check" ] || command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
# the sweep tests run a one-node Slurm and GNU parallel (tests/e2e_sweep.sh); the build needs none of it
[ "${1:-}" = "--check" ] || command -v slurmctld >/dev/null 2>&1 || need="$need slurm-wlm"
[ "${1:-}" = "--check" ] || command -v munged >/dev/null 2>&1 || need="$need munge"
[ "${1:-}" = "--check" ] || command -v parallel >/dev/null 2>&1 || need="$need parallel"
# the report tests render report.html in a headless browser (tests/e2e_report.sh) and read JSON and the
# DOM with python3; the build needs neither
[ "${1:-}" = "--check" ] || command -v chromium >/dev/null 2>&1 || need="$need chromium chromium-driver"
[ "${1:-}" = "--check" ] || command -v python3 >/dev/null 2>&1 || need="$need python3"
# make bench times the same replay in SimPy 2 (scripts/bench_simpy.py); the build needs none of it
[ "${1:-}" = "--check" ] || /usr/bin/python3 -c 'import sys; sys.path.append("/usr/lib/python3/dist-packages")
import SimPy.Simulation' >/dev/null 2>&1 || need="$need python3-simpy"
[ -z "$need" ] && exit 0
if [ "${1:-}" = "--check" ]; then
  echo "gpusim: missing Debian packages:$need" >&2
  echo "gpusim: install them with 'make deps' (or: sudo apt-get install$need)" >&2
  exit 1
fi
echo "deps: installing$need" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq $need >&2
