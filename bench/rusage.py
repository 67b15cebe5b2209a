#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run one command per object and add up what the processes cost.

    rusage.py [-j JOBS] OBJECTS OUTDIR -- COMMAND...

COMMAND is run once for each line (an object path) of the file OBJECTS, at
most JOBS at a time, with "{obj}" in its arguments replaced by the object
and "{out}" by OUTDIR/N.btf (N: the line number). Each child is reaped with
os.wait4(), whose rusage is exact to the microsecond -- GNU time's
per-process "%U %S" are truncated to 10 ms, more than a whole encoding of a
small object. A child's output goes to OUTDIR/N.log.

Prints one line: OBJECTS FAILED CPU_SECONDS MAX_RSS_KIB BTF_BYTES WALL_SECONDS
where CPU is user+sys summed over all children and MAX_RSS the largest peak
RSS of any one child; then, on stderr, the first lines of the log of up to
five failures.
"""
import os
import sys
import time


def main():
    args = sys.argv[1:]
    jobs = 1
    if args[:1] == ["-j"]:
        jobs = max(1, int(args[1]))
        args = args[2:]
    if len(args) < 4 or args[2] != "--":
        sys.exit(__doc__)
    objects_file, outdir, cmd = args[0], args[1], args[3:]
    with open(objects_file) as f:
        objects = [line.rstrip("\n") for line in f if line.strip()]

    running = {}            # pid -> index
    failed = []
    cpu = 0.0
    max_rss = 0
    t0 = time.monotonic()
    todo = list(enumerate(objects, 1))
    todo.reverse()
    while todo or running:
        while todo and len(running) < jobs:
            i, obj = todo.pop()
            out = os.path.join(outdir, "%d.btf" % i)
            argv = [a.replace("{obj}", obj).replace("{out}", out) for a in cmd]
            log = os.open(os.path.join(outdir, "%d.log" % i),
                          os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            pid = os.fork()
            if pid == 0:
                try:
                    os.dup2(log, 1)
                    os.dup2(log, 2)
                    os.execvp(argv[0], argv)
                finally:
                    os._exit(127)
            os.close(log)
            running[pid] = i
        pid, status, ru = os.wait4(-1, 0)
        i = running.pop(pid)
        cpu += ru.ru_utime + ru.ru_stime
        max_rss = max(max_rss, ru.ru_maxrss)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            failed.append(i)
    wall = time.monotonic() - t0

    size = 0
    for i in range(1, len(objects) + 1):
        try:
            size += os.path.getsize(os.path.join(outdir, "%d.btf" % i))
        except OSError:
            pass
    print("%d %d %.3f %d %d %.2f" % (len(objects), len(failed), cpu, max_rss,
                                     size, wall))
    for i in sorted(failed)[:5]:
        with open(os.path.join(outdir, "%d.log" % i)) as f:
            head = "".join(f.readlines()[:3])
        sys.stderr.write("%s failed on %s:\n%s" % (cmd[0], objects[i - 1], head))


if __name__ == "__main__":
    main()
