#!/usr/bin/python3
"""bench_cpu.py - CPU seconds of whole processes, measured one way for both sides of a comparison.

Usage: bench_cpu.py [--out FILE] REPEAT CMD [ARG...]
Runs CMD REPEAT times (stdout and stderr to /dev/null; with --out, the first run's stdout to FILE)
and prints the median and the minimum of
its user + system CPU seconds, from wait4's resource usage (microseconds; GNU time prints
hundredths, 10% of a 0.1 s run). The whole process counts: start-up, for Python the interpreter
and its imports, reading the input, writing the output. Exits 1 if any run fails.
"""
import os
import statistics
import sys


def cpu_once(argv, out):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if out else fd, 1)
        os.dup2(fd, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        sys.exit("bench_cpu: '%s' failed (status %d)" % (" ".join(argv), status))
    return ru.ru_utime + ru.ru_stime


def main():
    args, out = sys.argv[1:], None
    if args[:1] == ["--out"] and len(args) > 1:
        out, args = args[1], args[2:]
    if len(args) < 2 or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit("usage: bench_cpu.py [--out FILE] REPEAT CMD [ARG...]")
    t = [cpu_once(args[1:], out if i == 0 else None) for i in range(int(args[0]))]
    print("%.4f %.4f" % (statistics.median(t), min(t)))


if __name__ == "__main__":
    main()
