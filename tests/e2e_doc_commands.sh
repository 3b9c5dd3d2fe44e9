#!/bin/sh
# e2e_doc_commands.sh - every gpusim command line the READMEs and the help
# texts show runs, with the example files, and exits 0.
# tests/doc_commands.py lists them (how lines are found and classed is
# written there): "run" lines run as written, "help" lines (a reference to
# a command, or a synopsis with placeholders) run their command's --help,
# "download" lines (a public trace the repository does not ship) are listed
# as not run and not counted. All run in order in one scratch directory that
# mirrors the checkout (files linked, results/ empty but for the shipped
# baselines), gpusim on the PATH and ./gpusim both the binary under test, so
# a line may read what an earlier one wrote and nothing lands in the
# repository. The release binary (./gpusim, built by make test) is used
# when it is there: this checks the docs, the sanitized build is checked
# elsewhere, and it keeps the suite's time down.
# Usage: tests/e2e_doc_commands.sh [GPUSIM]   (default ./gpusim, else build/test/gpusim)
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-build/test/gpusim}
[ -x ./gpusim ] && G=./gpusim
case $G in /*) ;; *) G=$PWD/$G ;; esac
S=$T/w
mkdir -p "$S/bin" "$S/results"
for d in workloads models scripts reference tests; do cp -rs "$PWD/$d" "$S/$d"; done
cp -r results/baseline "$S/results/baseline"
ln -s "$G" "$S/gpusim"
ln -s "$G" "$S/bin/gpusim"
if ! python3 tests/doc_commands.py "$G" >"$T/lines" 2>"$T/err" || [ "$(grep -c '^run' "$T/lines")" -lt 40 ]; then
  no doc_commands_listed "$T/err"
else
  ok doc_commands_listed
fi
tab=$(printf '\t')
downloads=0
while IFS="$tab" read -r kind where cmd; do
  name="doc_cmd:$where:$(echo "$cmd" | cut -c1-60 | tr ' ' '_')"
  case $kind in
    download)
      downloads=$((downloads + 1))
      echo "note: not run (needs a public download the repository does not ship): $where: $cmd"
      continue ;;
  esac
  (cd "$S" && PATH="$S/bin:$PATH" timeout 300 sh -c "$cmd") >"$T/out" 2>&1 </dev/null
  rc=$?
  if [ "$rc" -eq 0 ]; then ok "$name"; else echo "    exit $rc: $cmd" >>"$T/out"; no "$name" "$T/out"; fi
done <"$T/lines"
echo "note: $downloads lines need public downloads (listed above, not counted)"
finish
