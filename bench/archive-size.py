#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a BTF archive holds: the parser behind bench/archive-size.sh.

Usage: bench/archive-size.py [-m] MANIFEST

MANIFEST has one line per input, tab-separated: a label, the file with the
input's .BTF bytes (a single object's member, or an image's whole archive),
then the input's file size, the size of .debug_btf_addr's relocation section, its
.debug_btf_addr, .debug_info, .debug_str, .debug_abbrev
and .debug_line sizes in bytes. Every .BTF is split into its members
(docs/archive-format.md); each member's header, types and strings are
counted, and across all members:

- strings: the sum of the members' string sections against the bytes of
  the distinct strings (one NUL each), i.e. what one shared string section
  would hold;
- types: an estimate of the types that repeat across members: a type's
  signature is its record with every string replaced by the string and
  every type ID by the signature of the type it names, cut at depth 4 (a
  named struct, union, enum or typedef that a type refers to stands for
  its kind and name); a member's type whose signature an earlier member
  already had is counted as repeated. btf-link's own count (types in
  against types out, -l of archive-size.sh) is exact; this one needs no
  link and is close to it;
- compression: each member alone with `gzip -1` (what ELFCOMPRESS_ZLIB
  in an object would give, close enough) and `zstd -1` (ELFCOMPRESS_ZSTD),
  summed; and the whole archive with `zstd -1`, `zstd -19` and `xz`.

-m prints one line per member too. This is a benchmark, not a test.
"""
import shutil
import struct
import subprocess
import sys

KIND_EXTRA = {  # kind: (fixed extra bytes, bytes per vlen entry)
    1: (4, 0), 2: (0, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
    7: (0, 0), 8: (0, 0), 9: (0, 0), 10: (0, 0), 11: (0, 0), 12: (0, 0),
    13: (0, 8), 14: (4, 0), 15: (0, 12), 16: (0, 0), 17: (4, 0),
    18: (0, 0), 19: (0, 12),
}
KIND_NAMES = {
    1: 'INT', 2: 'PTR', 3: 'ARRAY', 4: 'STRUCT', 5: 'UNION', 6: 'ENUM',
    7: 'FWD', 8: 'TYPEDEF', 9: 'VOLATILE', 10: 'CONST', 11: 'RESTRICT',
    12: 'FUNC', 13: 'FUNC_PROTO', 14: 'VAR', 15: 'DATASEC', 16: 'FLOAT',
    17: 'DECL_TAG', 18: 'TYPE_TAG', 19: 'ENUM64',
}
# Kinds whose 'size_type' field is a type ID.
REF_KINDS = {2, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18}
NAMED_AGG = {4, 5, 6, 7, 8, 19}


def members(data):
    """Yield (offset, bytes) for each member of an archive."""
    pos = 0
    while pos < len(data):
        if data[pos] == 0:
            pos += 1
            continue
        magic, _, _, hdr_len = struct.unpack_from('<HBBI', data, pos)
        if magic != 0xeb9f:
            raise SystemExit(f'archive-size: error: bad magic at byte {pos}')
        _, _, str_off, str_len = struct.unpack_from('<IIII', data, pos + 8)
        end = pos + hdr_len + str_off + str_len
        yield pos, data[pos:end]
        pos = end


class Member:
    """One member: its sizes, strings and type records."""

    def __init__(self, blob):
        hdr_len, = struct.unpack_from('<I', blob, 4)
        t_off, t_len, s_off, s_len = struct.unpack_from('<IIII', blob, 8)
        self.size = len(blob)
        self.hdr = hdr_len
        self.tlen = t_len
        self.slen = s_len
        self.strs = blob[hdr_len + s_off:hdr_len + s_off + s_len]
        types = blob[hdr_len + t_off:hdr_len + t_off + t_len]
        self.recs = [None]          # ID 0: void
        self.nrefs = 0              # string offsets in the type records
        pos = 0
        while pos < len(types):
            _, info, _ = struct.unpack_from('<III', types, pos)
            kind = (info >> 24) & 0x1f
            fixed, per = KIND_EXTRA[kind]
            n = 12 + fixed + per * (info & 0xffff)
            self.nrefs += 1 + (info & 0xffff) * (kind in (4, 5, 6, 13, 19))
            self.recs.append(types[pos:pos + n])
            pos += n
        self.sig_cache = {}

    def string(self, off):
        return self.strs[off:self.strs.index(b'\0', off)]

    def all_strings(self):
        return set(self.strs.split(b'\0'))

    def sig(self, tid, depth):
        """The type's signature, type IDs replaced by signatures."""
        if tid == 0:
            return ('void',)
        if tid >= len(self.recs):
            return ('bad', tid)
        key = (tid, depth)
        if key in self.sig_cache:
            return self.sig_cache[key]
        rec = self.recs[tid]
        name_off, info, st = struct.unpack_from('<III', rec, 0)
        kind = (info >> 24) & 0x1f
        name = self.string(name_off)
        if depth == 0 or (depth < 4 and name and kind in NAMED_AGG):
            res = (kind, name)
        else:
            res = (kind, name, info) + self._body(rec, kind, st, depth - 1)
        self.sig_cache[key] = res
        return res

    def _body(self, rec, kind, st, d):
        if kind in REF_KINDS:
            head = (self.sig(st, d),)
        else:
            head = (st,)
        if kind == 3:
            elem, idx, nelems = struct.unpack_from('<III', rec, 12)
            return head + (self.sig(elem, d), self.sig(idx, d), nelems)
        if kind in (4, 5):
            return head + tuple((self.string(n), self.sig(t, d), o)
                                for n, t, o in
                                struct.iter_unpack('<III', rec[12:]))
        if kind == 15:
            return head + tuple((self.sig(t, d), o, n)
                                for t, o, n in
                                struct.iter_unpack('<III', rec[12:]))
        if kind == 13:
            return head + tuple((self.string(n), self.sig(t, d))
                                for n, t in struct.iter_unpack('<II', rec[12:]))
        if kind == 6:
            return head + tuple((self.string(n), v) for n, v in
                                struct.iter_unpack('<II', rec[12:]))
        if kind == 19:
            return head + tuple((self.string(n), lo, hi) for n, lo, hi in
                                struct.iter_unpack('<III', rec[12:]))
        return head + (rec[12:],)


def compressed(data, cmd):
    if not shutil.which(cmd[0]):
        return None
    return len(subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                              check=True).stdout)


def mib(n):
    return f'{n / 1048576:.2f} MiB'


def pct(a, b):
    return f'{100 * a / b:.1f} %' if b else '-'


def main(argv):
    per_member = '-m' in argv
    args = [a for a in argv if a != '-m']
    if len(args) != 1:
        raise SystemExit('usage: archive-size.py [-m] MANIFEST')
    tot = dict(n=0, size=0, hdr=0, tlen=0, slen=0, nt=0, addr=0,
               info=0, str=0, abbrev=0, line=0, gz=0, zst=0,
               rep_t=0, rep_tb=0, file=0, rela=0, refs=0,
               kind_b={}, kind_rep={})
    seen_str, seen_sig, whole = set(), set(), []
    if per_member:
        print('member\tbytes\thdr\ttypes\tstrings\tstr%\tnr_types\t'
              'addr\tinfo+str+abbrev+line\tgzip-1\tzstd-1')
    with open(args[0]) as manifest:
        for line in manifest:
            label, path, *sizes = line.rstrip('\n').split('\t')
            fsize, rela, addr, info, dstr, abbrev, dline = \
                (int(s) for s in sizes)
            for k, v in zip(('file', 'rela', 'addr', 'info', 'str', 'abbrev',
                             'line'),
                            (fsize, rela, addr, info, dstr, abbrev, dline)):
                tot[k] += v
            with open(path, 'rb') as f:
                data = f.read()
            whole.append(data)
            mems = list(members(data))
            for i, (off, blob) in enumerate(mems):
                m = Member(blob)
                gz = compressed(blob, ['gzip', '-1', '-c'])
                zs = compressed(blob, ['zstd', '-1', '-c', '-q'])
                tot['gz'] += gz or 0
                tot['zst'] += zs or 0
                for k in ('size', 'hdr', 'tlen', 'slen'):
                    tot[k] += getattr(m, k)
                tot['n'] += 1
                tot['nt'] += len(m.recs) - 1
                tot['refs'] += m.nrefs
                seen_str |= m.all_strings()
                sigs = set()
                for tid in range(1, len(m.recs)):
                    s = m.sig(tid, 4)
                    kind = (struct.unpack_from('<I', m.recs[tid], 4)[0]
                            >> 24) & 0x1f
                    n = len(m.recs[tid])
                    tot['kind_b'][kind] = tot['kind_b'].get(kind, 0) + n
                    if s in seen_sig:
                        tot['rep_t'] += 1
                        tot['rep_tb'] += n
                        tot['kind_rep'][kind] = \
                            tot['kind_rep'].get(kind, 0) + n
                    sigs.add(s)
                seen_sig |= sigs
                if per_member:
                    name = label if len(mems) == 1 else f'{label}#{i}@{off}'
                    dbg = (info + dstr + abbrev + dline) if len(mems) == 1 \
                        else '-'
                    print(f'{name}\t{m.size}\t{m.hdr}\t{m.tlen}\t{m.slen}\t'
                          f'{pct(m.slen, m.size)}\t{len(m.recs) - 1}\t'
                          f'{addr if len(mems) == 1 else "-"}\t{dbg}\t'
                          f'{gz}\t{zs}')
    report(tot, seen_str, seen_sig, b''.join(whole))


def report(t, seen_str, seen_sig, whole):
    uniq = sum(len(s) + 1 for s in seen_str)
    dbg = t['info'] + t['str'] + t['abbrev'] + t['line']
    print(f"members:               {t['n']}")
    print(f".BTF total:            {t['size']} ({mib(t['size'])})")
    print(f"  headers:             {t['hdr']}")
    print(f"  types:               {t['tlen']} ({pct(t['tlen'], t['size'])}),"
          f" {t['nt']} types")
    print(f"  strings:             {t['slen']} ({pct(t['slen'], t['size'])})")
    print(f"  distinct strings:    {uniq} ({pct(uniq, t['slen'])} of the"
          f" string sections; {len(seen_str)} strings)")
    print(f"  string offsets in the type records: {t['refs']}")
    print(f"  types seen in an earlier member (estimate): {t['rep_t']}"
          f" ({pct(t['rep_t'], t['nt'])}), {t['rep_tb']} bytes"
          f" ({pct(t['rep_tb'], t['tlen'])} of the type sections);"
          f" distinct: {len(seen_sig)}")
    print('  type bytes by kind (repeated):',
          ', '.join(f"{KIND_NAMES.get(k, k)} {b}"
                    f" ({pct(b, t['tlen'])}; {pct(t['kind_rep'].get(k, 0), b)})"
                    for k, b in sorted(t['kind_b'].items(),
                                       key=lambda kb: -kb[1])))
    print(f".debug_btf_addr:       {t['addr']}, its relocations {t['rela']}")
    added = t['size'] + t['addr'] + t['rela']
    print(f"files:                 {t['file']} ({mib(t['file'])}); .BTF,"
          f" .debug_btf_addr and relocations {added}: growth"
          f" {pct(added, t['file'] - added)}, of which .BTF"
          f" {pct(t['size'], t['file'] - added)}")
    print(f"DWARF: .debug_info {t['info']}, .debug_str {t['str']},"
          f" .debug_abbrev {t['abbrev']}, .debug_line {t['line']}")
    print(f"  sum:                 {dbg} ({mib(dbg)});"
          f" .BTF is {pct(t['size'], dbg)} of it,"
          f" {pct(t['size'], t['info'])} of .debug_info")
    print(f"per member, summed:    gzip -1 {t['gz']}"
          f" ({pct(t['gz'], t['size'])}), zstd -1 {t['zst']}"
          f" ({pct(t['zst'], t['size'])})")
    for name, cmd in (('gzip -1', ['gzip', '-1', '-c']),
                      ('zstd -1', ['zstd', '-1', '-c', '-q']),
                      ('zstd -19', ['zstd', '-19', '-c', '-q']),
                      ('xz', ['xz', '-c'])):
        n = compressed(whole, cmd)
        if n is not None:
            print(f"whole archive, {name + ':':9} {n} ({pct(n, t['size'])})")


if __name__ == '__main__':
    main(sys.argv[1:])
