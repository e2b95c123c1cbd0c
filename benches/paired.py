#!/usr/bin/env python3
"""Times commands as processes, interleaved, and prints their medians and ratios.

    python3 benches/paired.py [--runs N] [--warmup W] NAME=COMMAND...

Each round runs every command once, in the order given, so a busy moment of the machine
hits them alike. For each command: the median wall time, the median CPU time (user +
system, of the process and its children) and the peak resident memory over the runs; then
each command's ratio to the first one (wall and CPU). A command's output is discarded; an
exit status other than 0 or 1 (1 is "findings") stops the run.
"""

import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(argv):
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"error: `{shlex.join(argv)}` exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main():
    args = sys.argv[1:]
    runs, warmup = 5, 1
    while args and args[0].startswith("--"):
        flag, value = args[0], int(args[1])
        if flag == "--runs":
            runs = value
        elif flag == "--warmup":
            warmup = value
        else:
            sys.exit(f"error: unknown option {flag}")
        args = args[2:]
    commands = []
    for a in args:
        name, _, command = a.partition("=")
        commands.append((name, shlex.split(command)))
    if not commands:
        sys.exit(__doc__)
    for _ in range(warmup):
        for _, argv in commands:
            run_once(argv)
    times = {name: [] for name, _ in commands}
    for _ in range(runs):
        for name, argv in commands:
            times[name].append(run_once(argv))
    width = max(len(name) for name, _ in commands)
    medians = {}
    for name, _ in commands:
        wall = statistics.median(t[0] for t in times[name])
        cpu = statistics.median(t[1] for t in times[name])
        rss = max(t[2] for t in times[name])
        medians[name] = (wall, cpu)
        print(
            f"  {name:<{width}}  wall {wall:8.3f} s  cpu {cpu:8.3f} s  "
            f"peak RSS {rss / 1024:7.1f} MB  (medians of {runs})"
        )
    base, (bw, bc) = commands[0][0], medians[commands[0][0]]
    for name, _ in commands[1:]:
        w, c = medians[name]
        print(f"  {name} / {base}: wall {w / bw:.2f}x, cpu {c / bc:.2f}x")


if __name__ == "__main__":
    main()
