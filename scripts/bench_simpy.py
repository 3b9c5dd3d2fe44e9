#!/usr/bin/python3
"""bench_simpy.py - the same M/M/c replay in SimPy 2 (Debian's python3-simpy), for `make bench`.

Usage: bench_simpy.py TRACE.csv SERVERS
Reads a v1 trace (id,submit,duration,gpus; every job one GPU, as `gpusim gen mmc` writes), replays it
on SERVERS servers in FIFO order (a SimPy Resource), and prints "simpy JOBS jobs CPU_S s mean_wait_s".
CPU seconds are this process's own (time.process_time), the reading of the trace included, as
gpusim's are. The mean wait lets the two replays be checked against each other.
"""
import csv
import sys
import time

sys.path.append("/usr/lib/python3/dist-packages")  # Debian's SimPy 2 beside another interpreter
from SimPy.Simulation import Process, Resource, activate, hold, initialize, now, release, request, simulate  # noqa: E402


class Job(Process):
    def run(self, duration, res, waits):
        t = now()
        yield request, self, res
        waits.append(now() - t)
        yield hold, self, duration
        yield release, self, res


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench_simpy.py TRACE.csv SERVERS")
    t0 = time.process_time()
    initialize()
    res = Resource(capacity=int(sys.argv[2]))
    waits = []
    n = 0
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            j = Job()
            activate(j, j.run(float(row["duration"]), res, waits), at=float(row["submit"]))
            n += 1
    simulate(until=1e18)
    cpu = time.process_time() - t0
    print("simpy %d jobs %.3f s %.6f" % (n, cpu, sum(waits) / max(len(waits), 1)))


if __name__ == "__main__":
    main()
