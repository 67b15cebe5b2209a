#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the FUNC and VAR rules of PAHOLE-NOTES.md against pahole itself.

    pahole-rules.py OBJ.o PAHOLE.btf

Predicts, from the object's ELF symbols and DWARF alone, which FUNCs and
VARs (with their DATASEC entries) pahole 1.24 puts in its BTF, then reads
what pahole really wrote (`bpftool btf dump file`) and prints every
disagreement. Exit 0 when the prediction is exact, 1 otherwise.

The rules predicted here (see PAHOLE-NOTES.md, "Functions", "Variables"):
  FUNC  for each name N such that
        - the object has an STT_FUNC symbol named N (any binding, any
          section), and
        - some DW_TAG_subprogram that is not a declaration is named N
          (directly or through DW_AT_abstract_origin/DW_AT_specification),
          and every one of its DW_TAG_formal_parameter children has a name;
        one FUNC per name, linkage static.
  VAR   for each STT_OBJECT symbol of non-zero size in the section named
        exactly ".data..percpu", whose address a DW_TAG_variable's
        DW_OP_addr names, when that variable's type has a non-zero size;
        named after the *symbol*, linkage global iff the DWARF variable is
        DW_AT_external; the DATASEC entry is (symbol value, symbol size),
        the DATASEC size the section size.
Only standard tools are used: readelf, eu-readelf (elfutils) and bpftool.
"""
import re
import subprocess
import sys

PERCPU = ".data..percpu"


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def elf_sections(obj):
    """index -> (name, size)"""
    secs = {}
    for line in run("readelf", "-SW", obj).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)",
                     line)
        if m:
            secs[int(m.group(1))] = (m.group(2), int(m.group(3), 16))
    return secs


def elf_symbols(obj):
    syms = []
    for line in run("readelf", "-sW", obj).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] in ("FUNC", "OBJECT"):
            size = int(f[2], 0) if not f[2].startswith("0x") else int(f[2], 16)
            syms.append(dict(value=int(f[1], 16), size=size, type=f[3],
                             bind=f[4], shndx=f[6], name=f[7]))
    return syms


class Die:
    __slots__ = ("off", "depth", "tag", "attrs", "children", "parent")

    def __init__(self, off, depth, tag, parent):
        self.off, self.depth, self.tag = off, depth, tag
        self.attrs, self.children, self.parent = {}, [], parent


def dwarf_dies(obj):
    """Parse eu-readelf -N --debug-dump=info into a flat offset -> Die map."""
    dies = {}
    stack = []
    cur = None
    tag_re = re.compile(r"^ \[\s*([0-9a-f]+)\]( +)(\w+)\s+abbrev:")
    attr_re = re.compile(r"^\s+(\w+)\s+\((\w+)\)\s?(.*)$")
    for line in run("eu-readelf", "-N", "--debug-dump=info", obj).splitlines():
        m = tag_re.match(line)
        if m:
            depth = len(m.group(2))
            while stack and stack[-1].depth >= depth:
                stack.pop()
            parent = stack[-1] if stack else None
            cur = Die(int(m.group(1), 16), depth, m.group(3), parent)
            if parent:
                parent.children.append(cur)
            dies[cur.off] = cur
            stack.append(cur)
            continue
        m = attr_re.match(line)
        if m and cur is not None:
            cur.attrs[m.group(1)] = m.group(3).strip()
            continue
        m = re.match(r"^\s+\[\s*\d+\] addr (\S+)", line)
        if m and cur is not None and "location" in cur.attrs:
            cur.attrs["addr"] = m.group(1)
    return dies


def ref(d, dies, attr):
    m = re.match(r"\[\s*([0-9a-f]+)\]", d.attrs.get(attr, ""))
    return dies.get(int(m.group(1), 16)) if m else None


def die_name(d, dies):
    seen = 0
    while d is not None and seen < 8:
        if "name" in d.attrs:
            return d.attrs["name"].strip('"')
        d = ref(d, dies, "abstract_origin") or ref(d, dies, "specification")
        seen += 1
    return None


def type_size(d, dies):
    """Byte size of a type DIE (None: void or unknown)."""
    seen = 0
    while d is not None and seen < 32:
        if "byte_size" in d.attrs:
            return int(d.attrs["byte_size"].split()[0], 0)
        if d.tag == "array_type":
            n = 1
            for c in d.children:
                if c.tag == "subrange_type":
                    if "upper_bound" in c.attrs:
                        n *= int(c.attrs["upper_bound"].split()[0], 0) + 1
                    elif "count" in c.attrs:
                        n *= int(c.attrs["count"].split()[0], 0)
                    else:
                        n = 0
            es = type_size(ref(d, dies, "type"), dies)
            return n * es if es is not None else None
        if d.tag == "pointer_type":
            return 8
        d = ref(d, dies, "type")
        seen += 1
    return None


def predict(obj):
    secs = elf_sections(obj)
    syms = elf_symbols(obj)
    dies = dwarf_dies(obj)
    func_syms = {s["name"] for s in syms if s["type"] == "FUNC"}

    funcs = set()
    for d in dies.values():
        if d.tag != "subprogram" or "declaration" in d.attrs:
            continue
        name = die_name(d, dies)
        if name is None or name not in func_syms:
            continue
        params = [c for c in d.children if c.tag == "formal_parameter"]
        if all(die_name(p, dies) for p in params):
            funcs.add(name)

    pcpu_idx = [i for i, (n, _) in secs.items() if n == PERCPU]
    pcpu = {}
    sec_size = None
    if pcpu_idx:
        sec_size = secs[pcpu_idx[0]][1]
        for s in syms:
            if (s["type"] == "OBJECT" and s["shndx"] == str(pcpu_idx[0])
                    and s["size"] > 0):
                pcpu[s["value"]] = s
    varsp = {}
    for d in dies.values():
        if d.tag != "variable" or "addr" not in d.attrs:
            continue
        m = re.match(re.escape(PERCPU) + r"(?:\+(0x[0-9a-f]+|\d+))?$",
                     d.attrs["addr"])
        if not m:
            continue
        off = int(m.group(1) or "0", 0)
        s = pcpu.get(off)
        if s is None:
            continue
        decl = ref(d, dies, "specification") or d
        if not type_size(ref(decl, dies, "type"), dies):
            continue
        linkage = "global" if "external" in decl.attrs else "static"
        varsp[s["name"]] = (linkage, s["value"], s["size"])
    return funcs, varsp, sec_size


def actual(btf):
    funcs, varsd, secs = set(), {}, {}
    cur = None
    for line in run("bpftool", "btf", "dump", "file", btf).splitlines():
        m = re.match(r"\[(\d+)\] (\w+) '([^']*)'(.*)", line)
        if m:
            kind, name, rest = m.group(2), m.group(3), m.group(4)
            cur = None
            if kind == "FUNC":
                funcs.add(name)
            elif kind == "VAR":
                varsd[name] = re.search(r"linkage=(\w+)", rest).group(1)
            elif kind == "DATASEC":
                cur = secs.setdefault(name, {"size": int(
                    re.search(r"size=(\d+)", rest).group(1)), "vars": {}})
            continue
        m = re.match(r"\s+type_id=\d+ offset=(\d+) size=(\d+) \(VAR '([^']*)'\)",
                     line)
        if m and cur is not None:
            cur["vars"][m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return funcs, varsd, secs


def main():
    obj, btf = sys.argv[1], sys.argv[2]
    pf, pv, psz = predict(obj)
    af, av, asecs = actual(btf)
    bad = []
    bad += ["FUNC %s: predicted, pahole has none" % n for n in sorted(pf - af)]
    bad += ["FUNC %s: pahole has it, not predicted" % n for n in sorted(af - pf)]
    for n in sorted(set(pv) | set(av)):
        if n not in av:
            bad.append("VAR %s: predicted, pahole has none" % n)
        elif n not in pv:
            bad.append("VAR %s: pahole has it, not predicted" % n)
        elif pv[n][0] != av[n]:
            bad.append("VAR %s: linkage %s predicted, pahole %s" %
                       (n, pv[n][0], av[n]))
    if set(asecs) - {PERCPU}:
        bad.append("DATASECs other than %s: %s" % (PERCPU, sorted(asecs)))
    ds = asecs.get(PERCPU)
    if pv and not ds:
        bad.append("no DATASEC %s" % PERCPU)
    if ds:
        if ds["size"] != psz:
            bad.append("DATASEC size %d, section size %s" % (ds["size"], psz))
        for n, (off, size) in ds["vars"].items():
            if n in pv and (off, size) != pv[n][1:]:
                bad.append("DATASEC entry %s: (%d, %d), symbol (%d, %d)" %
                           (n, off, size, pv[n][1], pv[n][2]))
    for b in bad:
        print("%s: %s" % (obj, b))
    print("%s: %d FUNC, %d VAR predicted; %d FUNC, %d VAR in pahole's BTF; %s"
          % (obj, len(pf), len(pv), len(af), len(av),
             "rules hold" if not bad else "%d disagreements" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
