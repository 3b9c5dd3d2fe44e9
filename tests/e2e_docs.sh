#!/bin/sh
# e2e_docs.sh [GPUSIM] - the READMEs agree with the code: the policies table
# with `gpusim policies`, each folder's file table with its files, and no
# code, help text or doc names an issue number or a path outside the
# repository. The checks live in scripts/check_docs.sh (also run by hand);
# each of its verdicts is counted here once.
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-./gpusim}
sh scripts/check_docs.sh "$G" >"$T/docs" 2>&1; rc=$?
n=0
while IFS= read -r line; do
  case $line in
    '[ok]   docs/'*) n=$((n + 1)); ok "docs_${line#\[ok\]   docs/}" ;;
    '[FAIL] docs/'*) n=$((n + 1)); grep -F -A3 -- "$line" "$T/docs" | sed 1d | grep '^    ' >"$T/why"; no "docs_${line#\[FAIL\] docs/}" "$T/why" ;;
  esac
done <"$T/docs"
# the script must have run its checks and agreed with them
if [ "$n" -ge 5 ] && { [ "$rc" -eq 0 ] || [ "$fail" -gt 0 ]; }; then ok docs_script_ran; else no docs_script_ran "$T/docs"; fi
finish
