#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Set one field of a real input, for tests/fuzz/known-crashes.sh.

patch.py btf IN OUT KIND NAME FIELD VALUE
    IN is one BTF blob (a little-endian .BTF as cc-btf writes it): set
    FIELD ("info" or "type", the second and third words of a type record)
    of the first type of KIND named NAME.
patch.py shdr IN OUT SECTION FIELD VALUE
    IN is a 64-bit little-endian ELF file: set FIELD ("type", "flags",
    "offset", "size", "link", "info", "addralign", "entsize") of the
    header of the section named SECTION.
patch.py abbrev IN OUT
    IN is a 64-bit little-endian ELF object with DWARF: .debug_abbrev
    becomes one abbreviation, that of the first unit's DIE, with no
    attribute (the rest of the section is zeroed).

patch.py reloc-offset IN OUT DELTA
    IN is a 64-bit little-endian ELF object: the first relocation of
    .rela.debug_info moves DELTA bytes (into its place, or past it).
patch.py flags IN OUT BITS
    IN is a seed of fuzz-archive (features, .BTF, "=ADDR=", groups): the
    first FUNC flags byte of the first version 2 group gets BITS.

The result is written to OUT; IN is left as it was.
"""
import struct
import sys

KINDS = {"INT": 1, "PTR": 2, "ARRAY": 3, "STRUCT": 4, "UNION": 5,
         "ENUM": 6, "FWD": 7, "TYPEDEF": 8, "VOLATILE": 9, "CONST": 10,
         "FUNC": 12, "FUNC_PROTO": 13, "VAR": 14, "DATASEC": 15}
# bytes after a type record's 12-byte head: fixed, or per vlen item
FIXED = {1: 4, 3: 12, 14: 4, 17: 4}
PER_ITEM = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
# Elf64_Shdr: name, type (I), flags, addr, offset, size (Q), link, info
# (I), addralign, entsize (Q)
SHDR = struct.Struct("<IIQQQQIIQQ")
SHDR_FIELDS = {"type": 1, "flags": 2, "offset": 4, "size": 5, "link": 6,
               "info": 7, "addralign": 8, "entsize": 9}


def patch_btf(d, kind, name, field, value):
    hdr_len, type_off, type_len, str_off, _ = struct.unpack_from("<5I", d, 4)
    types, strs = hdr_len + type_off, hdr_len + str_off
    off = types
    while off < types + type_len:
        name_off, info, _ = struct.unpack_from("<3I", d, off)
        k, vlen = info >> 24 & 0x1f, info & 0xffff
        end = d.index(b"\0", strs + name_off)
        if k == KINDS[kind] and d[strs + name_off:end] == name.encode():
            struct.pack_into("<I", d, off + (4 if field == "info" else 8),
                             value)
            return
        off += 12 + FIXED.get(k, 0) + PER_ITEM.get(k, 0) * vlen
    sys.exit(f"no {kind} {name}")


def patch_shdr(d, section, field, value):
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    strtab = SHDR.unpack_from(d, shoff + shstrndx * shentsize)[4]
    for i in range(shnum):
        at = shoff + i * shentsize
        sh = list(SHDR.unpack_from(d, at))
        end = d.index(b"\0", strtab + sh[0])
        if d[strtab + sh[0]:end] == section.encode():
            sh[SHDR_FIELDS[field]] = value
            SHDR.pack_into(d, at, *sh)
            return
    sys.exit(f"no section {section}")


def section(d, name):
    """The (offset, size) of the section named NAME of ELF file D."""
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    strtab = SHDR.unpack_from(d, shoff + shstrndx * shentsize)[4]
    for i in range(shnum):
        sh = SHDR.unpack_from(d, shoff + i * shentsize)
        end = d.index(b"\0", strtab + sh[0])
        if d[strtab + sh[0]:end] == name.encode():
            return sh[4], sh[5]
    sys.exit(f"no section {name}")


def patch_abbrev(d):
    off, size = section(d, ".debug_abbrev")
    info, _ = section(d, ".debug_info")
    version, = struct.unpack_from("<H", d, info + 4)
    code = d[info + (12 if version >= 5 else 11)]   # the unit DIE's
    if code & 0x80 or code == 0:
        sys.exit("the unit DIE's abbreviation code is not one byte")
    table = bytes([code, 0x11, 1, 0, 0])   # DW_TAG_compile_unit, children
    d[off:off + size] = table + bytes(size - len(table))


def patch_reloc_offset(d, delta):
    off, size = section(d, ".rela.debug_info")
    if not size:
        sys.exit("no .rela.debug_info")
    r_offset, = struct.unpack_from("<Q", d, off)
    struct.pack_into("<Q", d, off, r_offset + delta)


def patch_flags(d, bits):
    at = d.index(b"BTFB", d.index(b"=ADDR="))
    nr_slots, _, _, nr_extra, tlen, slen, nr_flags = \
        struct.unpack_from("<7I", d, at + 4)
    if not nr_flags:
        sys.exit("a group without FUNCs")
    d[at + 32 + (nr_slots + nr_extra) * 8 + tlen + slen] |= bits


def main():
    what, src, dst, *args = sys.argv[1:]
    d = bytearray(open(src, "rb").read())
    if what == "reloc-offset":
        patch_reloc_offset(d, int(args[0], 0))
    elif what == "flags":
        patch_flags(d, int(args[0], 0))
    elif what == "btf":
        patch_btf(d, args[0], args[1], args[2], int(args[3], 0))
    elif what == "abbrev":
        patch_abbrev(d)
    else:
        patch_shdr(d, args[0], args[1], int(args[2], 0))
    open(dst, "wb").write(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
