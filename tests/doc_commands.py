#!/usr/bin/env python3
"""doc_commands.py GPUSIM - every gpusim command line the documentation
shows, one a line as KIND<TAB>WHERE<TAB>COMMAND, in the order a reader meets
them (tests/e2e_doc_commands.sh runs them in that order in one scratch
directory, so a line may read what an earlier one wrote).

Where lines come from:
- every README.md the repository tracks (git ls-files): in a fenced block, a
  line whose first word (after an optional "$ ") is gpusim or ./gpusim,
  joined with the lines a trailing backslash continues; in a table row,
  every backquoted span that starts with gpusim or ./gpusim;
- the help texts: `gpusim --help`, and `--help` of every command, import
  format, generator and sweep step it lists (read from the help itself, not
  from a list here), and in each help text every line or quoted span that
  starts with gpusim.

What is done with a line (KIND):
- run: a command line with real arguments: run as written (sh -c), exit 0
  expected;
- help: a reference to a command (no argument: `gpusim run`, 'gpusim
  models') or a synopsis with placeholders (FILE, N, MODEL:N, ...): its
  command words with --help are run, exit 0 expected: what it names exists;
- download: a line that reads a public trace the repository does not ship
  ($DL/..., or the output of such an import): reported, not run;
- not a command (a sample of output, "gpusim  0.10 s = 29x faster"): left out.
"""
import re
import subprocess
import sys

GPUSIM = sys.argv[1] if len(sys.argv) > 1 else "./gpusim"
START = re.compile(r"^\s*(?:\$\s+)?(\./gpusim|gpusim)(\s|$)")
# a placeholder: an upper-case word (FILE, N, E, MODEL:N, PODS.csv; not a model name such as
# H100-SXM5-80GB), "..", "...", a bracket of options, <angle words>
PLACEHOLDER = re.compile(r"(?<![\w-])[A-Z][A-Z0-9_]*(?=$|[\s.:,\]\[)'\"|])|\.\.(\s|$)|\.\.\.|\[--|<[a-z]+>")
# a table cell is a command line when it names a file (a path or a trace or cluster file);
# otherwise it refers to the command ("`gpusim run --mode fill`: the fill-up driver")
NAMES_FILE = re.compile(r"\s\S*(/|\.csv|\.json|\.jsonl)(\s|$)")
# the outputs of imports of public downloads, and the downloads themselves
DOWNLOAD = re.compile(r"\$DL/|--trace (mc|sd|dl)\.csv")


def help_text(*words):
    r = subprocess.run([GPUSIM, *words, "--help"], capture_output=True, text=True)
    return r.stdout


def listed(text, heading):
    """Names listed under a heading of `gpusim --help` (two-space indent)."""
    names, on = [], False
    for line in text.split("\n"):
        if line.startswith(heading):
            on = True
            continue
        if on:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s", line)
            if not m:
                if names:
                    break
                continue
            names.append(m.group(1))
    return names


TOP = help_text()
COMMANDS = listed(TOP, "commands:")
SUBS = {
    "import": listed(TOP, "import formats"),
    "gen": listed(TOP, "generators"),
    "sweep": re.findall(r"^  ([a-z]+)\s", help_text("sweep").split("\n\n")[1], re.M) if COMMANDS else [],
}


def words_of(cmd):
    """The command words of a line: gpusim, its command, a family or step."""
    w = cmd.split()
    out = [w[0]]
    if len(w) > 1 and w[1] in COMMANDS:
        out.append(w[1])
        if len(w) > 2 and w[2] in SUBS.get(w[1], []):
            out.append(w[2])
    return out


def classify(cmd, table=False):
    cmd = re.sub(r"\s+#.*$", "", cmd).strip()  # a trailing comment
    w = cmd.split()
    if len(w) > 1 and w[1] not in COMMANDS and not w[1].startswith("-"):
        return None  # a sample of output, not a command
    if DOWNLOAD.search(cmd):
        return ("download", cmd)
    cw = words_of(cmd)
    first = cmd.split(";")[0].split("|")[0].split(">")[0].split()
    if len(first) == len(cw) or PLACEHOLDER.search(cmd) or (table and not NAMES_FILE.search(cmd)):
        if len(cw) == 1 and len(first) > 1 and first[1].startswith("-"):
            return ("run", cmd)  # gpusim --help, gpusim --version
        return ("help", " ".join(cw) + " --help")
    return ("run", cmd)


def from_readmes():
    files = subprocess.run(["git", "ls-files", "README.md", "*/README.md"], capture_output=True,
                           text=True).stdout.split()
    for f in files:
        lines = open(f, encoding="utf-8").read().split("\n")
        fence, i = False, 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                fence = not fence
            elif fence and START.match(line):
                cmd, at = line.strip(), i + 1
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
                yield "%s:%d" % (f, at), re.sub(r"^\$\s+", "", cmd), False
            elif not fence and line.lstrip().startswith("|"):
                for m in re.finditer(r"`([^`]*)`", line):
                    if START.match(m.group(1)):
                        yield "%s:%d" % (f, i + 1), m.group(1), True
            i += 1


def from_help():
    texts = [("gpusim --help", TOP)]
    for c in COMMANDS:
        texts.append(("gpusim %s --help" % c, help_text(c)))
        for s in SUBS.get(c, []):
            texts.append(("gpusim %s %s --help" % (c, s), help_text(c, s)))
    for where, text in texts:
        yield where, where, False  # the help itself must print, exit 0
        for line in text.split("\n"):
            spans = re.findall(r"'(gpusim [^']*)'", line)
            t = line.strip()
            if t.startswith("gpusim ") and not spans:
                spans = [re.split(r"\s{3,}", t)[0]]  # the command, not the words beside it
            for s in spans:
                yield where, s, False


def main():
    seen = set()
    for where, cmd, table in list(from_readmes()) + list(from_help()):
        c = classify(cmd, table)
        if not c:
            continue
        kind, line = c
        # a reference or a help text's line once; a README's command lines each time they are shown
        if (kind == "help" or where.startswith("gpusim ")) and (kind, line) in seen:
            continue
        seen.add((kind, line))
        print("%s\t%s\t%s" % (kind, where, line))


main()
