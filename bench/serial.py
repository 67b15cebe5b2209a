#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""How much of a run was serial: one thread busy, the others waiting.

    serial.py FREQ BUCKET_MS < "perf script -F tid,time" output

Reads the samples perf record -F FREQ took of one process (all its
threads), cuts the run into buckets of BUCKET_MS milliseconds and counts,
in each, the threads busy for at least half of it (FREQ * BUCKET_MS / 2000
samples or more). Prints one line:

    WALL SERIAL PARALLEL CPU

in seconds: the span of the samples, the buckets with one busy thread,
those with two or more, and the CPU the samples add up to. A bucket with
no busy thread (the process waiting for I/O, or descheduled) counts in
neither SERIAL nor PARALLEL. This is a benchmark's tool: cpu-clock
samples, not a tracer's exact switches.
"""
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    freq, bucket_ms = float(sys.argv[1]), float(sys.argv[2])
    per_bucket = defaultdict(lambda: defaultdict(int))
    first = last = None
    nr = 0
    for line in sys.stdin:
        f = line.split()
        if len(f) < 2:
            continue
        try:
            tid, t = int(f[0]), float(f[1].rstrip(":"))
        except ValueError:
            continue
        first = t if first is None else first
        last = t
        nr += 1
        per_bucket[int((t - first) * 1000 / bucket_ms)][tid] += 1
    if first is None:
        sys.exit("serial.py: no samples")
    busy = freq * bucket_ms / 2000
    serial = parallel = 0
    for tids in per_bucket.values():
        k = sum(1 for n in tids.values() if n >= busy)
        if k == 1:
            serial += 1
        elif k > 1:
            parallel += 1
    b = bucket_ms / 1000
    print(f"{last - first:.3f} {serial * b:.3f} {parallel * b:.3f} "
          f"{nr / freq:.3f}")


if __name__ == "__main__":
    main()
