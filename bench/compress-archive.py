#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark helper: an archive's members, compressed as cc-btf --compress
writes them (docs/archive-format.md, "Compressed members").

    bench/compress-archive.py IN.BTF OUT.BTF

IN.BTF is a BTF archive as `objcopy --dump-section .BTF=IN.BTF IMAGE`
gives it (plain members, zero padding between). Each member is deflated
with zlib level 1 behind the 16-byte "BTFz" header, at a 4-byte boundary,
as a linker would concatenate the objects' compressed sections; a member
that is already compressed is copied. Prints the members, and the bytes in
and out. bench/compress.sh puts OUT.BTF back into a copy of the image.
"""
import struct
import sys
import zlib


def members(d):
    """(offset, size, compressed) of each member of archive d."""
    off = 0
    while off < len(d):
        if d[off:off + 4] == b"BTFz":
            size = 16 + struct.unpack_from("<I", d, off + 12)[0]
            yield off, size, True
        else:
            magic, _, _, hdr_len, _, _, str_off, str_len = \
                struct.unpack_from("<HBBIIIII", d, off)
            if magic != 0xeB9F:
                sys.exit(f"byte {off}: not a BTF member")
            size = hdr_len + str_off + str_len
            yield off, size, False
        off += size
        while off < len(d) and d[off] == 0:
            off += 1


def main():
    src, dst = sys.argv[1:3]
    d = open(src, "rb").read()
    out = bytearray()
    n = 0
    for off, size, packed in members(d):
        blob = d[off:off + size]
        if not packed:
            z = zlib.compress(blob, 1)
            blob = b"BTFz" + struct.pack("<III", 1, size, len(z)) + z
        out += blob
        out += bytes(-len(out) % 4)
        n += 1
    open(dst, "wb").write(out)
    print(f"{n} members: {len(d)} bytes in, {len(out)} out "
          f"({100 * len(out) / len(d):.1f} %)")


if __name__ == "__main__":
    main()
