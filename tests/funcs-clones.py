#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Predict which GCC clones get a FUNC with the optimized_func feature.

    funcs-clones.py [--relocatable] PROG

PROG is a linked x86-64 program with DWARF. For every function whose only
code is a clone (a symbol "NAME.suffix" with .isra or .constprop in it,
no symbol NAME), prints "NAME keep" or "NAME drop: why", by pahole 1.31's
rules (docs/design.md, "optimized_func and consistent_func") applied to
the clone's concrete DWARF instance (DW_AT_abstract_origin, and code:
DW_AT_low_pc, or DW_AT_ranges alone where GCC split it into hot and .cold
parts):
  - reordered: a parameter's abstract origin is not the origin's
    parameter of the same position;
  - unexpected register: a parameter's register (first location entry
    DW_OP_regN, or DW_OP_entry_value(DW_OP_regN) in any entry) is not
    rdi, rsi, rdx, rcx, r8, r9 in turn;
  - optimized: a parameter with a location but no register, or with no
    location (DW_AT_const_value or nothing), and either DW_CC_nocall or
    a .isra/.constprop symbol at the instance's address; with
    --relocatable (PROG is an `ld -r` output, a module) only
    DW_CC_nocall: pahole compares the addresses libdwfl gives the DWARF
    with symbol values that are section offsets, so no symbol is found
    at the clone's address; nor is one for an instance without
    DW_AT_low_pc, whose address pahole takes as 0;
  - ambiguous address: NAME's symbols (.cold/.part pieces aside), in
    symbol table order, change address, an address of 0 counting as none
    yet (pahole's test).
Parameters must be scalars or pointers (one register each); anything
else is reported as unsupported (exit 2). Reads readelf only.
"""
import re
import subprocess
import sys

ARG_REGS = [5, 4, 1, 2, 8, 9]


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def dies(prog):
    out, stack = {}, []
    cur = None
    for line in run("readelf", "--debug-dump=info", prog).splitlines():
        m = re.match(r"\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)"
                     r"(?: \((\w+)\))?", line)
        if m:
            depth, off = int(m.group(1)), int(m.group(2), 16)
            if not m.group(4):
                cur = None
                continue
            cur = {"off": off, "tag": m.group(4), "attrs": {}, "kids": []}
            del stack[depth:]
            if stack:
                stack[-1]["kids"].append(cur)
            stack.append(cur)
            out[off] = cur
            continue
        m = re.match(r"\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)$", line)
        if m and cur is not None:
            cur["attrs"][m.group(1)] = m.group(2).strip()
    return out


def loclists(prog):
    """list offset -> [expression text, ...]"""
    lists, entries, last = {}, [], None
    for line in run("readelf", "--debug-dump=loc", prog).splitlines():
        m = re.match(r"\s+([0-9a-f]{8}) (.*)$", line)
        if m:
            last = int(m.group(1), 16)
            entries.append((last, None))
            rest = m.group(2)
        else:
            rest = line
        if "<End of list>" in rest:
            entries.append((None, "END"))
            continue
        e = re.search(r"\((DW_OP.*)\)\s*$", rest)
        if e and last is not None:
            entries.append((last, e.group(1)))
    for i, (off, expr) in enumerate(entries):
        if off is None or expr is not None or off in lists:
            continue
        exprs = []
        for o, x in entries[i:]:
            if x == "END":
                break
            if x is not None and x != "END":
                exprs.append(x)
        lists[off] = exprs
    return lists


def ref(d, all_dies, attr):
    m = re.match(r"<0x([0-9a-f]+)>", d["attrs"].get(attr, ""))
    return all_dies.get(int(m.group(1), 16)) if m else None


def reg_of(exprs):
    for i, x in enumerate(exprs):
        m = re.match(r"DW_OP_reg(\d+)\b", x)
        if i == 0 and m and ";" not in x:
            return int(m.group(1))
        m = re.match(r"DW_OP_breg(\d+)\b.*DW_OP_stack_value", x)
        if i == 0 and m:
            return int(m.group(1))
        m = re.match(r"DW_OP_(?:GNU_)?entry_value: \(DW_OP_reg(\d+)\b", x)
        if m:
            return int(m.group(1))
    return None


def scalar(d, all_dies):
    for _ in range(16):
        if d is None or d["tag"] in ("DW_TAG_base_type", "DW_TAG_pointer_type",
                                     "DW_TAG_enumeration_type"):
            return True
        if d["tag"] not in ("DW_TAG_typedef", "DW_TAG_const_type",
                            "DW_TAG_volatile_type"):
            return False
        d = ref(d, all_dies, "DW_AT_type")
    return False


def judge(fn, origin, all_dies, lists, sym):
    oparams = [k["off"] for k in origin["kids"]
               if k["tag"] == "DW_TAG_formal_parameter"]
    params = [k for k in fn["kids"] if k["tag"] == "DW_TAG_formal_parameter"]
    optimized = unexpected = reordered = False
    for i, p in enumerate(params):
        o = ref(p, all_dies, "DW_AT_abstract_origin")
        if o is not None and (i >= len(oparams) or oparams[i] != o["off"]):
            reordered = True
        if not scalar(ref(o or p, all_dies, "DW_AT_type"), all_dies):
            print("unsupported parameter type in", sym, file=sys.stderr)
            sys.exit(2)
        loc = p["attrs"].get("DW_AT_location")
        if loc is None:
            optimized = True
            continue
        if "location list" in loc:
            exprs = lists.get(int(loc.split()[0], 16), [])
        else:
            m = re.search(r"\((DW_OP.*)\)\s*$", loc)
            exprs = [m.group(1)] if m else []
        reg = reg_of(exprs)
        if i >= len(ARG_REGS):
            continue
        if reg is None:
            optimized = True
        elif reg != ARG_REGS[i]:
            unexpected = True
    if unexpected:
        return "drop: unexpected register"
    if reordered:
        return "drop: reordered parameters"
    nocall = any("DW_AT_calling_convention" in d["attrs"] and
                 "nocall" in d["attrs"]["DW_AT_calling_convention"]
                 for d in (fn, origin))
    opt_sym = not RELOCATABLE and "DW_AT_low_pc" in fn["attrs"] and \
        (".isra" in sym or ".constprop" in sym)
    if optimized and (nocall or opt_sym):
        return "drop: optimized parameters"
    return "keep"


def ambiguous(addrs):
    last = 0
    for a in addrs:
        if last and last != a:
            return True
        last = a
    return False


RELOCATABLE = False


def main():
    global RELOCATABLE
    args = sys.argv[1:]
    if args and args[0] == "--relocatable":
        RELOCATABLE = True
        args = args[1:]
    prog = args[0]
    syms = {}
    for line in run("readelf", "-sW", prog).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" \
                and f[6] != "UND" and ".cold" not in f[7] \
                and ".part" not in f[7]:
            syms.setdefault(f[7].split(".")[0], []).append(
                (f[7], int(f[1], 16)))
    all_dies = dies(prog)
    lists = loclists(prog)
    for fn in all_dies.values():
        if fn["tag"] != "DW_TAG_subprogram" or \
                not ({"DW_AT_low_pc", "DW_AT_ranges"} & set(fn["attrs"])):
            continue
        origin = ref(fn, all_dies, "DW_AT_abstract_origin")
        if origin is None or "DW_AT_name" not in origin["attrs"]:
            continue
        name = origin["attrs"]["DW_AT_name"].split(":")[-1].strip()
        own = syms.get(name, [])
        clones = [s for s, _ in own if ".isra" in s or ".constprop" in s]
        if not clones or any(s == name for s, _ in own):
            continue
        if ambiguous([a for _, a in own]):
            print(name, "drop: ambiguous address")
            continue
        print(name, judge(fn, origin, all_dies, lists, clones[0]))


main()
