#!/bin/sh
# e2e_install.sh - building and installing as a user does: a plain `make`
# installs no system package and names what is missing; `make install
# PREFIX=...` lays out a gpusim that runs, finds its models, example cluster
# and figure scripts, and plots, from any directory, with no checkout.
# Usage: tests/e2e_install.sh [GPUSIM]  (the binary is not used: make builds ./gpusim)
. "$(dirname "$0")/lib_e2e.sh"
top=$(pwd)

# 1. make never installs: with a package missing (a pkg-config that finds
# nothing), the build stops, names the packages and `make deps`, and
# apt-get (stubbed here, recording any call) is never run
mkdir -p "$T/fakebin"
printf '#!/bin/sh\nexit 1\n' >"$T/fakebin/pkg-config"
printf '#!/bin/sh\necho "$0 $*" >>"%s/installs"\n' "$T" >"$T/fakebin/apt-get"
cp "$T/fakebin/apt-get" "$T/fakebin/sudo"
chmod +x "$T/fakebin/"*
PATH="$T/fakebin:$PATH" make --no-print-directory all >"$T/out" 2>&1; rc=$?
if [ "$rc" -ne 0 ] && [ ! -e "$T/installs" ] && has "$T/out" "missing Debian packages: libgsl-dev libcjson-dev" &&
   has "$T/out" "make deps"; then ok make_installs_nothing_names_missing_packages
else echo "    exit $rc; apt-get calls: $(cat "$T/installs" 2>/dev/null)" >>"$T/out"; no make_installs_nothing_names_missing_packages "$T/out"; fi

# 2. make install PREFIX lays out the binary and its data
if make --no-print-directory install PREFIX="$T/p" >"$T/out" 2>&1 && [ -x "$T/p/bin/gpusim" ] &&
   [ -f "$T/p/share/gpusim/models/gpu/H100-SXM5-80GB.json" ] && [ -f "$T/p/share/gpusim/scripts/fig_common.gp" ] &&
   [ -f "$T/p/share/gpusim/workloads/examples/cluster.json" ]; then ok install_prefix_layout
else no install_prefix_layout "$T/out"; fi

# 3. the installed binary, run from elsewhere: version, models, the default
# cluster, a run and its figures
mkdir -p "$T/elsewhere"
cd "$T/elsewhere" || exit 1
expect installed_version 0 '^gpusim [0-9][0-9.]*$' "$T/p/bin/gpusim" --version
expect installed_models 0 "H200-SXM5-141GB" "$T/p/bin/gpusim" models
if "$T/p/bin/gpusim" run --trace "$top/workloads/examples/day.csv" --policy whole --out run >"$T/out" 2>&1 &&
   "$T/p/bin/gpusim" plot run --no-svg >>"$T/out" 2>&1 && [ -s run/fig_gpus.png ] && [ -s run/report.html ] &&
   grep -q '"name":[[:space:]]*"example-64"' run/report.json; then ok installed_runs_and_plots_outside_checkout
else no installed_runs_and_plots_outside_checkout "$T/out"; fi
cd "$top" || exit 1
finish
