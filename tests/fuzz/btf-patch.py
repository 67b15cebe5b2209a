#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""btf-patch.py IN OUT KIND NAME FIELD VALUE

Set FIELD ("info" or "type", the second and third words of a BTF type
record) of the first type of KIND named NAME in the one BTF blob IN (a
little-endian .BTF as cc-btf writes it), and write the result to OUT. For
tests/fuzz/known-crashes.sh: a crafted input made from a real fixture.
"""
import struct
import sys

KINDS = {"INT": 1, "PTR": 2, "ARRAY": 3, "STRUCT": 4, "UNION": 5,
         "ENUM": 6, "FWD": 7, "TYPEDEF": 8, "VOLATILE": 9, "CONST": 10,
         "FUNC": 12, "FUNC_PROTO": 13, "VAR": 14, "DATASEC": 15}
# bytes after the 12-byte head: fixed, or per vlen item
FIXED = {1: 4, 3: 12, 14: 4, 17: 4}
PER_ITEM = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}


def main():
    src, dst, kind, name, field, value = sys.argv[1:]
    d = bytearray(open(src, "rb").read())
    hdr_len, type_off, type_len, str_off, _ = struct.unpack_from("<5I", d, 4)
    types, strs = hdr_len + type_off, hdr_len + str_off
    off = types
    while off < types + type_len:
        name_off, info, _ = struct.unpack_from("<3I", d, off)
        k, vlen = info >> 24 & 0x1f, info & 0xffff
        end = d.index(b"\0", strs + name_off)
        if k == KINDS[kind] and d[strs + name_off:end] == name.encode():
            struct.pack_into("<I", d, off + (4 if field == "info" else 8),
                             int(value, 0))
            open(dst, "wb").write(d)
            return 0
        off += 12 + FIXED.get(k, 0) + PER_ITEM.get(k, 0) * vlen
    sys.exit(f"{src}: no {kind} {name}")


if __name__ == "__main__":
    sys.exit(main())
