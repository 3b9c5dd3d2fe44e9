#!/bin/sh
# e2e_docs.sh GPUSIM - the READMEs' tables agree with the code (the policies
# table with `gpusim policies`, each folder's file table with its files) and
# no code, help text or doc names an issue number or a path outside the
# repository. The checks live in scripts/check_docs.sh (also run by hand).
G=${1:?usage: e2e_docs.sh GPUSIM}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if sh scripts/check_docs.sh "$G" > "$T/out" 2>&1; then status=0; else status=1; fi
cat "$T/out"
# a crash before the total line still fails
grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$T/out" || { echo "[FAIL] docs/check_docs_ran"; echo "0 passed, 1 failed"; exit 1; }
exit $status
