#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Predict which FUNCs the consistent_func feature leaves out.

    funcs-rules.py PROG DEFAULT.btf OBJ.o...

PROG is a linked program whose objects OBJ.o (link order, each with its
.BTF from cc-btf) were linked without --gc-sections; DEFAULT.btf is
btf-link's BTF of PROG without the feature. Prints, one per line, the
FUNC names of DEFAULT.btf that pahole 1.31's rules (docs/design.md,
"optimized_func and consistent_func") leave out:
  - ambiguous address: PROG's function symbols named N, or N followed by
    '.' and a suffix (not a ".cold" or ".part" piece), lie at more than
    one address (read with nm);
  - inconsistent prototypes: two objects define N with prototypes that
    differ by pahole's loose comparison: pointers, qualifiers and arrays
    followed down to a named type compared by kind and name (an INT also
    by size and encoding), CONST ignored except in front of void, FWD
    equal to its struct/union (read with bpftool).
"""
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def btf_types(path):
    """id -> (kind, name, attrs, [param type ids])"""
    types, cur = {}, None
    for line in run("bpftool", "btf", "dump", "file", path).splitlines():
        m = re.match(r"\[(\d+)\] (\w+) '([^']*)'(.*)", line)
        if m:
            attrs = dict(re.findall(r"(\w+)=(\S+)", m.group(4)))
            cur = [m.group(2), m.group(3), attrs, []]
            types[int(m.group(1))] = cur
            continue
        m = re.match(r"\s+'[^']*' type_id=(\d+)", line)
        if m and cur is not None and cur[0] == "FUNC_PROTO":
            cur[3].append(int(m.group(1)))
    return types


def sig(types, tid, depth=0):
    consts, out = 0, ""
    while depth < 8:
        if tid == 0:
            return out + "c" * consts + "0"
        kind, name, attrs, params = types[tid]
        if kind == "CONST":
            consts += 1
            tid = int(attrs["type_id"])
            continue
        consts = 0
        if kind == "INT":
            return out + "i%s:%s:%s" % (attrs["size"], attrs["encoding"], name)
        if kind == "FLOAT":
            return out + "f%s:%s" % (attrs["size"], name)
        if kind == "FWD":
            return out + ("u" if attrs["fwd_kind"] == "union" else "s") + name
        if kind in ("TYPEDEF", "STRUCT", "UNION", "ENUM", "ENUM64"):
            return out + kind[0] + name
        if kind in ("PTR", "VOLATILE", "RESTRICT", "TYPE_TAG"):
            out += kind[0]
            tid = int(attrs["type_id"])
            continue
        if kind == "ARRAY":
            out += "[%s]" % attrs["nr_elems"]
            tid = int(attrs["type_id"])
            continue
        if kind == "FUNC_PROTO":
            return out + "(" + ",".join(
                sig(types, t, depth + 1)
                for t in [int(attrs["ret_type_id"])] + params) + ")"
        return out + "!" + kind
    return out + "?"


def main():
    prog, default, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
    funcs = {t[1] for t in btf_types(default).values() if t[0] == "FUNC"}
    addrs = {}
    for line in run("nm", prog).splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            key = f[2].split(".")[0]
            if ".cold" not in f[2] and ".part" not in f[2]:
                addrs.setdefault(key, set()).add(f[0])
    protos = {}
    for obj in objs:
        types = btf_types(obj)
        for t in types.values():
            if t[0] == "FUNC":
                protos.setdefault(t[1], set()).add(
                    sig(types, int(t[2]["type_id"])))
    for name in sorted(funcs):
        if len(addrs.get(name, ())) > 1 or len(protos.get(name, ())) > 1:
            print(name)


main()
