#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Damage the first STRUCT with members of a final BTF file.

    damage-struct.py IN OUT WHAT

WHAT: member-type, member 0's type set past every type ID (0x100002);
name, the struct's name offset set past the string section. IN is read in
the byte order of its magic and written to OUT with that one change, as a
fuzzer's mutant of a base or of a compared BTF would be: libbpf parses it
(bpftool btf dump reads it), the kernel's rules refuse it.
"""
import struct
import sys

ONE = {1: 4, 3: 12, 14: 8, 17: 4}               # INT, ARRAY, VAR, DECL_TAG
EACH = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}


def main():
    src, dst, what = sys.argv[1:4]
    d = bytearray(open(src, 'rb').read())
    o = '<' if d[:2] == b'\x9f\xeb' else '>'
    hdr_len, type_off, type_len, _, str_len = struct.unpack_from(o + '5I', d, 4)
    p = hdr_len + type_off
    end = p + type_len
    while p < end:
        _, info, _ = struct.unpack_from(o + '3I', d, p)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        if kind == 4 and vlen:
            if what == 'member-type':
                struct.pack_into(o + 'I', d, p + 12 + 4, 0x100002)
            else:
                struct.pack_into(o + 'I', d, p, str_len + 0x100)
            open(dst, 'wb').write(d)
            return
        p += 12 + ONE.get(kind, 0) + EACH.get(kind, 0) * vlen
    sys.exit('damage-struct.py: %s: no STRUCT with members' % src)


main()
