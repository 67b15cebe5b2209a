#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Make crafted bad inputs for tests/hardening.bats from good ones.

Every input starts as an object gcc compiled at test time (or the BTF
cc-btf encoded from one); this script changes a few bytes of it, as each
recipe below says, in place. Nothing here is a stored binary.

  craft.py second-name OBJ
      .debug_abbrev: in the first abbreviation of a DW_TAG_subprogram that
      has DW_AT_name and DW_AT_decl_file (form data1), the decl_file
      attribute becomes a second DW_AT_name of form data1: the same size,
      a name that is no string (gcc -gdwarf-4 writes decl_file as data1).
  craft.py align OBJ SECTION N
      SECTION's sh_addralign becomes N.
  craft.py name OBJ SECTION N
      SECTION's sh_name becomes N (past the section name table: it has
      no name libelf can read).
  craft.py rename OBJ SECTION NEWNAME
      SECTION's sh_name becomes that of the string NEWNAME in the section
      name table (found as a string or as the tail of one: ".debug_info"
      is in ".rela.debug_info"): two sections of one name.
  craft.py type OBJ SECTION N
      SECTION's sh_type becomes N.
  craft.py symndx OBJ SYMBOL N
      SYMBOL's st_shndx in .symtab becomes N.
  craft.py btf BTF RECIPE
      BTF is raw BTF (a .BTF member, as cc-btf -o writes it); RECIPE:
        fwd-type     the first FWD gets type 1 (the kernel wants 0)
        func-int     the first FUNC refers to the first INT
        int-200      the first INT gets nr_bits 200
        self-struct  the first struct's first member gets the struct's type
        ptr-loop     the first PTR points at itself
        const-ptr-loop  a PTR to a CONST: the CONST points at the PTR
        kflag-func, kflag-const  kind_flag on the first FUNC or CONST
        reserved     info bit 16 (reserved) on the first PTR
  craft.py cut-unit OBJ END
      .debug_info (one unit) ends at byte END: its unit_length and the
      section's sh_size say so, and the relocations of .rela.debug_info
      past END become R_*_NONE at offset 0 (no-ops), so that only the DIE
      tree is cut short: END at a DIE of the unit DIE's children leaves
      the list of DIEs without its terminating null entry.
  craft.py zbomb OUT KIND
      OUT becomes a raw archive of one compressed member (cc-btf
      --compress's "BTFz" header) whose zlib stream inflates to 4095 MiB
      of zeros, as its header says, in 4.2 MB (1037 bytes per MiB: a
      block flushed and repeated; the adler32 trailer is left zero, never
      reached). KIND: zeros (no BTF header at all), header (the zeros
      follow a BTF header of 25 bytes that is consistent but for its
      size). Both must be refused from their first inflated bytes.
  craft.py type-loop OBJ self|pair
      .debug_info (gcc, one unit): the first DW_TAG_pointer_type's
      DW_AT_type (DW_FORM_ref4) names the pointer itself (self), or the
      pointer under the first DW_TAG_const_type names that const (pair:
      `int *const cp;`): a type chain that returns to itself.
  craft.py addr-reloc OBJ past|inside
      .debug_btf_addr's first relocation (a RELA table of an ld -r
      object or a module) moves past the section's end (past) or 3 bytes
      into its slot (inside).
  craft.py unit-addr-size OBJ N
      the first unit header of .debug_info says address_size N.
  craft.py debug-addr-size OBJ N
      the first header of .debug_addr says address_size N.
  craft.py reloc-overflow OBJ
      the first R_X86_64_32 relocation of .rela.debug_info gets 2^32 more
      addend: a value its 4-byte place cannot hold.
  craft.py fn-flags OBJ BITS
      .debug_btf_addr's first version 2 group: its first FUNC's flags byte
      gets BITS or'ed in.
  craft.py btf-header BTF RECIPE
      BTF is raw final BTF (btf-link -o): version0, flags1, or
      layout-after (a 32-byte header whose layout table follows the
      strings).
Each prints what it changed on stderr (for a failing test's log).
"""
import struct
import subprocess
import sys
import zlib

KIND_INT, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM, \
    KIND_FWD, KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT, \
    KIND_FUNC, KIND_FUNC_PROTO, KIND_VAR, KIND_DATASEC, KIND_FLOAT, \
    KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64 = range(1, 20)


class Elf:
    """A 64-bit little-endian ELF file's section headers."""

    def __init__(self, path):
        self.path = path
        self.b = bytearray(open(path, 'rb').read())
        assert self.b[:4] == b'\x7fELF' and self.b[4] == 2 and self.b[5] == 1
        self.shoff, = struct.unpack_from('<Q', self.b, 0x28)
        self.entsize, self.shnum, self.shstrndx = \
            struct.unpack_from('<HHH', self.b, 0x3a)

    def sh_at(self, i):
        return self.shoff + i * self.entsize

    def sh(self, i):
        return struct.unpack_from('<IIQQQQIIQQ', self.b, self.sh_at(i))

    def name(self, i):
        o = self.sh(self.shstrndx)[4] + self.sh(i)[0]
        return self.b[o:self.b.index(0, o)].decode()

    def index(self, name):
        for i in range(self.shnum):
            if self.name(i) == name:
                return i
        sys.exit('%s: no section %s' % (self.path, name))

    def save(self):
        open(self.path, 'wb').write(self.b)


def uleb(b, at):
    v = shift = 0
    while True:
        c = b[at]
        at += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, at


def second_name(path):
    e = Elf(path)
    s = e.sh(e.index('.debug_abbrev'))
    b, at, end = e.b, s[4], s[4] + s[5]
    while at < end:
        code, at = uleb(b, at)
        if not code:
            continue
        tag, at = uleb(b, at)
        at += 1                         # children
        attrs = []
        while True:
            pos = at
            name, at = uleb(b, at)
            form, at = uleb(b, at)
            if form == 0x21:            # DW_FORM_implicit_const
                _, at = uleb(b, at)
            if not name and not form:
                break
            attrs.append((name, form, pos))
        names = [a[0] for a in attrs]
        if tag != 0x2e or 0x03 not in names:
            continue
        for name, form, pos in attrs:
            if name == 0x3a and form == 0x0b and pos > attrs[
                    names.index(0x03)][2]:
                b[pos] = 0x03           # decl_file -> name, still data1
                e.save()
                print('abbrev %d at 0x%x: second DW_AT_name' % (code, pos),
                      file=sys.stderr)
                return
    sys.exit('%s: no subprogram abbreviation to patch' % path)


def align(path, sec, n):
    e = Elf(path)
    struct.pack_into('<Q', e.b, e.sh_at(e.index(sec)) + 48, n)
    e.save()


def name(path, sec, n):
    e = Elf(path)
    struct.pack_into('<I', e.b, e.sh_at(e.index(sec)), n)
    e.save()


def rename(path, sec, new):
    e = Elf(path)
    tab = e.sh(e.shstrndx)
    at = e.b.find(new.encode() + b'\0', tab[4], tab[4] + tab[5])
    if at < 0:
        sys.exit('%s: no string %s in the section name table' % (path, new))
    struct.pack_into('<I', e.b, e.sh_at(e.index(sec)), at - tab[4])
    e.save()


def sh_type(path, sec, n):
    e = Elf(path)
    struct.pack_into('<I', e.b, e.sh_at(e.index(sec)) + 4, n)
    e.save()


def symndx(path, name, n):
    e = Elf(path)
    sym = e.sh(e.index('.symtab'))
    strs = e.sh(sym[6])[4]
    for at in range(sym[4], sym[4] + sym[5], 24):
        o = strs + struct.unpack_from('<I', e.b, at)[0]
        if e.b[o:e.b.index(0, o)].decode() == name:
            struct.pack_into('<H', e.b, at + 6, n)
            e.save()
            return
    sys.exit('%s: no symbol %s' % (path, name))


def records(b):
    """(id, offset, kind, vlen) of every type record of raw BTF @b."""
    hdr_len, type_off, type_len = struct.unpack_from('<III', b, 4)
    at, end, tid = hdr_len + type_off, hdr_len + type_off + type_len, 1
    sizes = {KIND_INT: 4, KIND_ARRAY: 12, KIND_STRUCT: 12, KIND_UNION: 12,
             KIND_ENUM: 8, KIND_FUNC_PROTO: 8, KIND_VAR: 4, KIND_DATASEC: 12,
             KIND_DECL_TAG: 4, KIND_ENUM64: 12}
    while at < end:
        info, = struct.unpack_from('<I', b, at + 4)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        yield tid, at, kind
        per = sizes.get(kind, 0)
        at += 12 + (per * vlen if kind in (KIND_STRUCT, KIND_UNION,
                                           KIND_ENUM, KIND_FUNC_PROTO,
                                           KIND_DATASEC, KIND_ENUM64)
                    else per)
        tid += 1


def first(b, kind):
    for rec in records(b):
        if rec[2] == kind:
            return rec
    sys.exit('no record of kind %d' % kind)


def btf(path, recipe):
    b = bytearray(open(path, 'rb').read())
    if recipe == 'fwd-type':
        tid, at, _ = first(b, KIND_FWD)
        struct.pack_into('<I', b, at + 8, 1)
    elif recipe == 'func-int':
        tid, at, _ = first(b, KIND_FUNC)
        struct.pack_into('<I', b, at + 8, first(b, KIND_INT)[0])
    elif recipe == 'int-200':
        tid, at, _ = first(b, KIND_INT)
        enc, = struct.unpack_from('<I', b, at + 12)
        struct.pack_into('<I', b, at + 12, (enc & ~0xff) | 200)
    elif recipe == 'self-struct':
        tid, at, _ = first(b, KIND_STRUCT)
        struct.pack_into('<I', b, at + 12 + 4, tid)
    elif recipe == 'ptr-loop':      # the first PTR points at itself
        tid, at, _ = first(b, KIND_PTR)
        struct.pack_into('<I', b, at + 8, tid)
    elif recipe == 'const-ptr-loop':    # a PTR to a CONST, the CONST to it
        recs = {r[0]: r for r in records(b)}
        tid, at, _ = next(r for r in recs.values() if r[2] == KIND_PTR and
                          recs.get(struct.unpack_from('<I', b, r[1] + 8)[0],
                                   (0, 0, 0))[2] == KIND_CONST)
        cid, = struct.unpack_from('<I', b, at + 8)
        struct.pack_into('<I', b, recs[cid][1] + 8, tid)
    elif recipe in ('kflag-func', 'kflag-const'):
        tid, at, _ = first(b, KIND_FUNC if recipe == 'kflag-func'
                           else KIND_CONST)
        b[at + 7] |= 0x80
    elif recipe == 'reserved':      # info bit 16, between vlen and kind
        tid, at, _ = first(b, KIND_PTR)
        b[at + 6] |= 1
    else:
        sys.exit('unknown recipe ' + recipe)
    print('%s: type [%d]' % (recipe, tid), file=sys.stderr)
    open(path, 'wb').write(b)


def cut_unit(path, end):
    e = Elf(path)
    i = e.index('.debug_info')
    s = e.sh(i)
    struct.pack_into('<I', e.b, s[4], end - 4)
    struct.pack_into('<Q', e.b, e.sh_at(i) + 32, end)
    r = e.sh(e.index('.rela.debug_info'))
    for at in range(r[4], r[4] + r[5], 24):
        off, = struct.unpack_from('<Q', e.b, at)
        if off + 4 > end:
            struct.pack_into('<QQq', e.b, at, 0, 0, 0)
    e.save()
    print('unit cut at byte 0x%x' % end, file=sys.stderr)


def dies(path):
    """[(offset, tag, {attr: (attr offset, value)})] of readelf's dump."""
    out = subprocess.run(['readelf', '--debug-dump=info', path], check=True,
                         capture_output=True, text=True).stdout
    res = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0].startswith('<') and f[1] == 'Abbrev':
            res.append((int(f[0].split('><')[1].rstrip('>:'), 16),
                        f[-1].strip('()'), {}))
        elif res and len(f) >= 4 and f[0].startswith('<') and \
                f[1].startswith('DW_AT_'):
            res[-1][2][f[1]] = (int(f[0].strip('<>'), 16), f[-1])
    return res


def set_type(e, die, target):
    at = e.sh(e.index('.debug_info'))[4] + die[2]['DW_AT_type'][0]
    struct.pack_into('<I', e.b, at, target)      # the unit starts at 0


def type_loop(path, how):
    e, ds = Elf(path), dies(path)
    by_off = {d[0]: d for d in ds}
    if how == 'self':
        p = next(d for d in ds if d[1] == 'DW_TAG_pointer_type' and
                 'DW_AT_type' in d[2])
        set_type(e, p, p[0])
    else:
        c = next(d for d in ds if d[1] == 'DW_TAG_const_type' and
                 by_off.get(int(d[2].get('DW_AT_type', (0, '<0x0>'))[1]
                                .strip('<>'), 16), (0, ''))[1] ==
                 'DW_TAG_pointer_type')
        p = by_off[int(c[2]['DW_AT_type'][1].strip('<>'), 16)]
        set_type(e, p, c[0])
    e.save()
    print('type-loop %s: DIE 0x%x' % (how, p[0]), file=sys.stderr)


def addr_reloc(path, how):
    e = Elf(path)
    sec = e.sh(e.index('.debug_btf_addr'))
    r = e.sh(e.index('.rela.debug_btf_addr'))
    off, = struct.unpack_from('<Q', e.b, r[4])
    new = sec[5] + 16 if how == 'past' else off + 3
    struct.pack_into('<Q', e.b, r[4], new)
    e.save()
    print('relocation 0: offset %d -> %d' % (off, new), file=sys.stderr)


def unit_addr_size(path, n):
    e = Elf(path)
    at = e.sh(e.index('.debug_info'))[4]
    version, = struct.unpack_from('<H', e.b, at + 4)
    e.b[at + (7 if version >= 5 else 10)] = n
    e.save()


def debug_addr_size(path, n):
    e = Elf(path)
    e.b[e.sh(e.index('.debug_addr'))[4] + 6] = n
    e.save()


def reloc_overflow(path):
    e = Elf(path)
    r = e.sh(e.index('.rela.debug_info'))
    for at in range(r[4], r[4] + r[5], 24):
        off, info, add = struct.unpack_from('<QQq', e.b, at)
        if info & 0xffffffff == 10:             # R_X86_64_32
            struct.pack_into('<q', e.b, at + 16, add + (1 << 32))
            e.save()
            print('relocation %d: addend 0x%x' % ((at - r[4]) // 24,
                  add + (1 << 32)), file=sys.stderr)
            return
    sys.exit('%s: no R_X86_64_32 in .rela.debug_info' % path)


def fn_flags(path, bits):
    e = Elf(path)
    sec = e.sh(e.index('.debug_btf_addr'))
    at = sec[4]
    assert e.b[at:at + 4] == b'BTFB', 'not a version 2 group'
    nr_slots, _, _, nr_extra, tlen, slen, nr_flags = \
        struct.unpack_from('<7I', e.b, at + 4)
    assert nr_flags, 'a group without FUNCs'
    fl = at + 32 + (nr_slots + nr_extra) * 8 + tlen + slen
    e.b[fl] |= bits
    e.save()
    print('flags byte at 0x%x: 0x%02x' % (fl - at, e.b[fl]), file=sys.stderr)


def btf_header(path, recipe):
    b = bytearray(open(path, 'rb').read())
    hdr_len, type_off, type_len, str_off, str_len = \
        struct.unpack_from('<5I', b, 4)
    if recipe == 'version0':
        b[2] = 0
    elif recipe == 'flags1':
        b[3] = 1
    elif recipe == 'layout-after':
        assert hdr_len == 24
        body = b[24:]
        b = b[:24] + struct.pack('<II', str_off + str_len, 80) + body + \
            bytes(80)
        struct.pack_into('<I', b, 4, 32)
    else:
        sys.exit('unknown recipe ' + recipe)
    open(path, 'wb').write(b)


def zbomb(path, kind):
    mib = 4095
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = b''
    if kind == 'header':    # magic, version 1, hdr_len 24, one string NUL
        head = struct.pack('<HBBIIIII', 0xeb9f, 1, 0, 24, 0, 0, 0, 1) + \
            b'\0'
    elif kind != 'zeros':
        sys.exit('unknown zbomb kind ' + kind)
    z = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    stream = b'\x78\x01' + z + block * mib + b'\x03\x00' + bytes(4)
    raw = len(head) + (mib << 20)
    out = b'BTFz' + struct.pack('<III', 1, raw, len(stream)) + stream
    open(path, 'wb').write(out)
    print('zbomb %s: %d bytes, %d inflated' % (kind, len(out), raw),
          file=sys.stderr)


def main(argv):
    if argv[1] == 'second-name':
        second_name(argv[2])
    elif argv[1] == 'align':
        align(argv[2], argv[3], int(argv[4], 0))
    elif argv[1] == 'name':
        name(argv[2], argv[3], int(argv[4], 0))
    elif argv[1] == 'rename':
        rename(argv[2], argv[3], argv[4])
    elif argv[1] == 'type':
        sh_type(argv[2], argv[3], int(argv[4], 0))
    elif argv[1] == 'symndx':
        symndx(argv[2], argv[3], int(argv[4], 0))
    elif argv[1] == 'btf':
        btf(argv[2], argv[3])
    elif argv[1] == 'cut-unit':
        cut_unit(argv[2], int(argv[3], 0))
    elif argv[1] == 'type-loop':
        type_loop(argv[2], argv[3])
    elif argv[1] == 'addr-reloc':
        addr_reloc(argv[2], argv[3])
    elif argv[1] == 'unit-addr-size':
        unit_addr_size(argv[2], int(argv[3], 0))
    elif argv[1] == 'debug-addr-size':
        debug_addr_size(argv[2], int(argv[3], 0))
    elif argv[1] == 'reloc-overflow':
        reloc_overflow(argv[2])
    elif argv[1] == 'fn-flags':
        fn_flags(argv[2], int(argv[3], 0))
    elif argv[1] == 'btf-header':
        btf_header(argv[2], argv[3])
    elif argv[1] == 'zbomb':
        zbomb(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
