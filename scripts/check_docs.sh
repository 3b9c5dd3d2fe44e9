#!/bin/sh
# check_docs.sh GPUSIM [--print-policies] - checks the tables of the READMEs
# against the code, so a doc cannot drift from what it describes:
#   1. policies/README.md's table of policies (between the policies:begin and
#      policies:end markers) equals what `gpusim policies` prints: name, kind,
#      every parameter with its default, in registry order;
#   2. every folder README's file table names only files that exist, and every
#      C source or header of the folder is named in it;
#   3. no code, help text or doc names a project issue by number or a path
#      outside the repository;
#   4. every tracked .md but tests/fixtures/, workloads/traces/ and results/
#      stays under the word budget (25,000 words): each is a map and a
#      contract, and measured figures live in one table (scripts/README.md).
# Prints one "[ok]   docs/<name>" or "[FAIL] docs/<name>" line per check, then
# "N passed, N failed". Run from the repository root. --print-policies prints
# the table as it should be (to paste into policies/README.md).
G=${1:?usage: check_docs.sh GPUSIM [--print-policies]}
pass=0 fail=0
ok() { echo "[ok]   docs/$1"; pass=$((pass + 1)); }
no() { echo "[FAIL] docs/$1"; fail=$((fail + 1)); }

policies_table() {
    echo '| policy | kind | parameters (`--set name=default`) |'
    echo '|---|---|---|'
    "$G" policies | awk '
        /^[a-z]/ && / policy: / { if (name) print row " |"; name = $1; row = "| `" $1 "` | " $2 " | "; sep = ""; next }
        /^core \(any policy\)/ { if (name) print row " |"; name = ""; exit }
        /^    --set / && name { sub(/^    --set /, ""); split($0, a, "\t"); row = row sep "`" a[1] "`"; sep = ", " }
        END { }'
}

if [ "${2:-}" = "--print-policies" ]; then
    policies_table
    exit 0
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# 1. the policies table
policies_table > "$T/want"
sed -n '/<!-- policies:begin -->/,/<!-- policies:end -->/p' policies/README.md | sed '1d;$d' > "$T/have"
if [ -s "$T/want" ] && cmp -s "$T/want" "$T/have"; then ok policies_table_matches_gpusim_policies
else no policies_table_matches_gpusim_policies; diff "$T/have" "$T/want" | head -20; fi

# 2. file tables (a table whose header starts "| file |"): names in the first
#    cell; a{b,c} expands to a.b a.c
for dir in base sim sim/service policies policies/share cli workloads tests; do
    readme=$dir/README.md key=$(echo "$dir" | tr / _)
    [ -f "$readme" ] || { no "files_of_$dir (no $readme)"; continue; }
    awk '/^\| file \|/ { t = 1; next } t && /^\|/ { print; next } { t = 0 }' "$readme" |
        cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`' |
        while read -r name; do
            case $name in
                *'{'*'}'*) base=${name%%\{*}; exts=${name#*\{}; exts=${exts%\}*}
                    for e in $(echo "$exts" | tr ',' ' '); do echo "$base$e"; done ;;
                *) echo "$name" ;;
            esac
        done | sort -u > "$T/listed_$key"
    missing="" unlisted=""
    while read -r f; do
        case $f in */*|*' '*|'') continue ;; esac # not a plain file name of this folder
        [ -e "$dir/$f" ] || missing="$missing $f"
    done < "$T/listed_$key"
    for f in "$dir"/*.c "$dir"/*.h "$dir"/*.sh; do
        [ -e "$f" ] || continue
        b=${f##*/}
        grep -qx "$b" "$T/listed_$key" || unlisted="$unlisted $b"
    done
    if [ -z "$missing$unlisted" ]; then ok "files_of_$key"
    else no "files_of_$key"; echo "    listed but absent:${missing:- none}; present but not listed:${unlisted:- none}"; fi
done

# 3. no issue numbers, no paths outside the repository
hits=$(grep -rn -i -E 'issue ?#?[0-9]+|\.\./shared|/work/shared|[( `]shared/(traces|reference|seeds)' --include='*.c' --include='*.h' --include='*.md' \
       --include='*.sh' --include='*.py' --include='*.gp' --include='*.json' --include=Makefile \
       base cli models policies reference scripts sim tests workloads README.md Makefile 2>/dev/null |
       grep -v '^scripts/check_docs.sh:')
if [ -z "$hits" ]; then ok no_issue_numbers_or_outside_paths
else no no_issue_numbers_or_outside_paths; echo "$hits" | head -10; fi
help=$("$G" --help 2>&1; "$G" run --help 2>&1; "$G" policies 2>&1)
if echo "$help" | grep -q -i -E 'issue ?#?[0-9]+|\.\./shared'; then no help_text_clean; else ok help_text_clean; fi

# 4. the docs' word budget: every tracked .md but the copied data's
#    (tests/fixtures/, workloads/traces/, results/), as the pre-stop check counts
budget=25000
git ls-files '*.md' | grep -v -E '^(tests/fixtures|workloads/traces|results)/' > "$T/docs_md"
words=$(xargs cat < "$T/docs_md" | wc -w)
if [ -s "$T/docs_md" ] && [ "$words" -lt "$budget" ]; then ok "doc_words_under_$budget"
else no "doc_words_under_$budget"; echo "    tracked .md files together: $words words (budget $budget); largest:"
    xargs wc -w < "$T/docs_md" | sort -rn | sed -n '2,6p' | sed 's/^/    /'; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
