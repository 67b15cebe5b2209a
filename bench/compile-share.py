#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: the CPU cc-btf's encoding costs next to the compile.

Usage: bench/compile-share.py [-n N] TREE CC_BTF...

TREE is a built kernel tree (kbuild's .cmd files next to the objects).
For every Nth C object with a .debug_info section (default: all), in C
sort order, it runs the object's compile command again from its .cmd file
(the compiler only, no objtool; its output and dependency file go to a
temporary directory, nothing is written under TREE), then each CC_BTF
--encode on the object, three times, keeping the least. CPU is user + sys
of each process, from wait4(). Prints the totals and each encoder's share
of the compile.

This is a benchmark, not a test: it never fails on a slow result.
"""
import os
import re
import subprocess
import sys
import tempfile


def cpu(argv, cwd, shell=False):
    """User + sys seconds of one process, and its exit code."""
    p = subprocess.Popen(argv, cwd=cwd, shell=shell,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)


def objects(tree):
    """Objects with .debug_info, as bench/encode.sh lists them."""
    found = []
    for top, dirs, files in os.walk(tree):
        rel = os.path.relpath(top, tree)
        if rel in ('tools', 'scripts'):
            dirs[:] = []
            continue
        for f in files:
            if f.endswith('.o') and f != 'vmlinux.o':
                found.append(os.path.normpath(os.path.join(rel, f)))
    for o in sorted(found, key=lambda s: s.encode()):
        out = subprocess.run(['readelf', '-S', '--wide', os.path.join(tree, o)],
                             capture_output=True, text=True, errors='replace')
        if ' .debug_info ' in out.stdout:
            yield o


def compile_command(tree, obj, tmp):
    """The compiler command of @obj, writing into @tmp; None if not C."""
    d, b = os.path.split(obj)
    try:
        with open(os.path.join(tree, d, '.' + b + '.cmd')) as f:
            line = f.readline()
    except OSError:
        return None
    m = re.match(r'cmd_\S+ := (.*)', line)
    if not m:
        return None
    cmd = re.split(r'\s;\s|;\s', m.group(1))[0].strip()
    if ' -c ' not in cmd or not cmd.endswith('.c'):
        return None
    cmd = cmd.replace(' -o ' + obj + ' ', ' -o %s/x.o ' % tmp)
    return re.sub(r'-Wp,-MMD,\S+', '-Wp,-MMD,%s/x.d' % tmp, cmd)


def main(argv):
    every = 1
    if len(argv) > 2 and argv[1] == '-n':
        every = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 3 or every < 1:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    tree, ccs = os.path.abspath(argv[1]), [os.path.abspath(c) for c in argv[2:]]
    compile_cpu, encode_cpu, n = 0.0, [0.0] * len(ccs), 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, obj in enumerate(objects(tree)):
            cmd = compile_command(tree, obj, tmp) if i % every == 0 else None
            if not cmd:
                continue
            c, rc = cpu(cmd, tree, shell=True)
            if rc:
                print('compile-share.py: %s: the compile failed' % obj,
                      file=sys.stderr)
                continue
            n += 1
            compile_cpu += c
            for k, cc in enumerate(ccs):
                encode_cpu[k] += min(cpu([cc, '--encode', '-o', tmp + '/x.btf',
                                          obj], tree)[0] for _ in range(3))
    print('%d objects: compile %.2f s' % (n, compile_cpu))
    for cc, e in zip(ccs, encode_cpu):
        print('%s: encode %.3f s, %.2f %% of the compile' %
              (cc, e, 100 * e / compile_cpu if compile_cpu else 0))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
