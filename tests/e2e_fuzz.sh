#!/bin/sh
# e2e_fuzz.sh [GPUSIM] - replays the committed fuzz corpus (tests/fuzz/
# corpus/<target>/: seeds, every input a fuzzer ever failed on, the coverage
# kept from the last runs) through the sanitized build: the harness
# of each target with tests/fuzz/replay.c, built beside GPUSIM by make
# build-test. One check per target; a crash, a sanitizer report or a
# failure without a message fails it, naming the input.
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
B=$(dirname "$G")
# every target with a corpus (make's FUZZ_TARGETS; each keeps at least one input)
for t in $(ls tests/fuzz/corpus); do
  [ -d "tests/fuzz/corpus/$t" ] || continue
  if ! need_file "fuzz_${t}_replay" "$B/fuzz_${t}_replay"; then continue; fi
  n=$(ls tests/fuzz/corpus/$t 2>/dev/null | grep -vc README.md)
  if "$B/fuzz_${t}_replay" "tests/fuzz/corpus/$t" >"$T/out" 2>"$T/err" && [ "$n" -gt 0 ]; then
    ok "fuzz_corpus_${t}_$n"
  else
    { cat "$T/out"; tail -5 "$T/err"; echo "    ($n inputs)"; } >"$T/msg"; no "fuzz_corpus_$t" "$T/msg"
  fi
done
finish
