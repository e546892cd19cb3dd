#!/usr/bin/env python3
"""Runs a command and prints the CPU seconds (user + system) that it and all its descendants used,
sampling /proc every second: a fuzzer's harness processes are killed rather than waited for, so
the rusage of `time` misses them. With --limit, the command gets SIGINT (AFL++ stops and writes
its statistics) once they reach LIMIT CPU seconds.
usage: fuzz/cpu_of.py OUT_FILE [--limit SECONDS] -- COMMAND ..."""
import os
import signal
import subprocess
import sys
import time

TICK = os.sysconf('SC_CLK_TCK')


def stat(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(')') + 2:].split()
    # fields[1] is ppid; utime, stime, cutime, cstime are fields 14-17 of stat (here 11-14)
    return int(fields[1]), sum(int(x) for x in fields[11:15])


def tree_cpu(root):
    parent, cpu = {}, {}
    for name in os.listdir('/proc'):
        if name.isdigit():
            st = stat(int(name))
            if st:
                parent[int(name)], cpu[int(name)] = st
    total = 0
    for pid in cpu:
        p = pid
        while p in parent and p != root:
            p = parent[p]
        if p == root:
            total += cpu[pid]
    return total / TICK


def main():
    out, cmd = sys.argv[1], sys.argv[sys.argv.index('--') + 1:]
    head = sys.argv[2:sys.argv.index('--')]
    limit = float(head[head.index('--limit') + 1]) if '--limit' in head else None
    proc = subprocess.Popen(cmd)
    best = 0.0
    stopped = False
    while proc.poll() is None:
        best = max(best, tree_cpu(proc.pid))
        if limit is not None and best >= limit and not stopped:
            proc.send_signal(signal.SIGINT)
            stopped = True
        time.sleep(1)
    with open(out, 'w') as f:
        f.write('%.0f\n' % best)
    return proc.returncode


if __name__ == '__main__':
    sys.exit(main())
