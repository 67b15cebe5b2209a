#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# gen.py: random multi-file C programs for the differential BTF
# deduplication test in tests/dedup/.
#
#   python3 tests/dedup/gen.py --seed S --files N --out DIR \
#           [--clang-tags] [--max-types K] [--stats]
#
# writes DIR/tu0.c .. DIR/tu{N-1}.c.  The output is a function of the seed
# and the options only (one random.Random(seed), no set or hash order).
#
# Why: tests/dedup/ compiles such a program's files (gcc and clang), gives
# each object its BTF and checks that btf-link's deduplication of the
# objects' BTF agrees with libbpf's btf__dedup() on the same input.  The
# interesting inputs for a deduplicator are many translation units that
# declare the same named types, mostly with the same body (so the types
# must merge), sometimes with a different body under the same name (so
# they must not), sometimes only as a forward declaration (so the FWD must
# resolve to the one definition, or stay a FWD when the definitions
# disagree), with cycles through pointers and with by-value containment
# that carries a difference from one type to all that embed it.
#
# What is generated:
#
#  - a pool of global type names: struct sK / union sK (sK is always the
#    same keyword in every file), enum eK, typedef tK, where K is the
#    name's index in the pool.  Each name has 1 to 3 bodies; the first is
#    chosen most often, the others are small mutations of it (a member
#    retyped, added, removed or swapped, a bitfield width, an attribute,
#    an enumerator's value) or fresh bodies;
#  - each file picks a subset of the names (at most --max-types, default
#    12, plus what these need by value) and a body for each; a name's body
#    may use by value only names of a lower index, so the by-value graph
#    is a DAG, and each file defines its types in index order; struct and
#    union names reached only through pointers are left as forward
#    declarations (all struct/union names a file mentions are declared
#    at its top, so prototypes never declare them in their own scope);
#  - struct and union members: base types (char, short, int, long,
#    long long, their signed/unsigned variants, _Bool, float, double),
#    pointers (to base types, void, any struct/union including the
#    containing one and ones defined later or nowhere, enums, typedefs,
#    pointers, arrays), const/volatile/restrict on members, pointers and
#    pointees, arrays (1 to 3 dimensions, of base types, pointers,
#    records, enums, typedefs, function pointers; a zero-length array as a
#    struct's last member), bitfields (int/unsigned int 1..31, unsigned
#    long long and long 1..63, char, short, _Bool; unnamed and zero-width
#    ones), anonymous struct/union members and named members of anonymous
#    record type (nesting depth at most 2), function pointer members
#    (parameters of the types above, variadic ones, returning pointers),
#    enum, struct, union and typedef members by value;
#    __attribute__((packed)) and __attribute__((aligned(N))) on some
#    records and some members;
#  - enums with implicit, negative, duplicate (literal or by reference to
#    an earlier enumerator) and 64-bit values (0x100000000ULL,
#    -0x8000000000LL, 0xffffffffffffffffULL: beyond int, a GCC and clang
#    extension), some __attribute__((packed));
#  - typedefs of base types, qualified types, records (named, anonymous,
#    and "opaque" ones of a struct that a file may leave undefined, or of
#    void, only ever used through pointers), enums, pointers, function
#    pointers, arrays, and chains of typedefs;
#  - per file: global variables of the defined types and of pointers to
#    undefined ones, non-static functions taking and returning the types
#    (by value and by pointer), and a non-static use_tuN() whose
#    parameters point to every type the file defines, so clang as well as
#    gcc puts each defined type into the DWARF (gcc wants
#    -fno-eliminate-unused-debug-types for the rest);
#  - with --clang-tags, btf_type_tag on pointees (members, typedefs,
#    function pointer parameters, globals, function parameters) and
#    btf_decl_tag on records, members, typedefs, functions, parameters and
#    globals (clang 14 refuses it on enums), through macros (TTAG, DTAG)
#    that expand to nothing unless __clang__ is defined, so gcc compiles
#    the same files.
#
# Every file compiles without errors under gcc 12 and clang 14 at -O0 and
# -O2 (and without warnings at their default warning levels).

import argparse
import os
import random
import sys

BASE_TYPES = [
    'char', 'signed char', 'unsigned char', 'short', 'unsigned short',
    'int', 'unsigned int', 'long', 'unsigned long', 'long long',
    'unsigned long long', '_Bool', 'float', 'double',
]
# Common ones more often.
BASE_WEIGHTS = [4, 1, 3, 2, 2, 6, 5, 4, 4, 2, 3, 1, 1, 1]

# (type, widest named bitfield): the spec's int/unsigned int 1..31 and
# unsigned long long up to 63, and a few more.
BITFIELD_TYPES = [
    ('int', 31), ('unsigned int', 31), ('unsigned long long', 63),
    ('unsigned int', 31), ('unsigned long long', 63), ('long', 63),
    ('unsigned char', 8), ('short', 15), ('_Bool', 1), ('signed int', 31),
]

ALIGNS = [1, 2, 4, 8, 16, 32, 64]
TYPE_TAGS = ['tag0', 'tag1', 'tag2', 'user', 'rcu']
DECL_TAGS = ['d0', 'd1', 'd2', 'dx']

# 64-bit enumerator values (and ones at the edges of int).
ENUM64_SIGNED = [0x100000000, -0x8000000000, 0x7fffffffffffffff,
                 -0x100000001, -0x7fffffffffffffff, 0x7fffffff, -0x80000000,
                 0x123456789a]
ENUM64_UNSIGNED = [0xffffffffffffffff, 0x8000000000000000, 0x100000000,
                   0xffffffff, 0xfffffffffffffffe]

INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1

# Type expressions are tuples:
#   ('base', name)                     int, unsigned long, void...
#   ('rec', kw, k)                     struct sK / union sK
#   ('enum', k)                        enum eK
#   ('tdef', k)                        tK
#   ('q', quals, inner)                qualifiers on a base/named/anon type
#   ('ptr', target, quals, tags)       quals on the pointer, tags on the
#                                      pointee (btf_type_tag)
#   ('arr', elem, n)
#   ('func', ret, params, variadic)    params: tuple of types
#   ('anon', kw, members, attrs)       anonymous struct/union definition
# A member is (type, name or None, bits or None, attrs, dtags).


def lit(v):
    """An enumerator value as a C literal both compilers take."""
    if INT_MIN <= v <= INT_MAX:
        return str(v)
    if v < 0:
        return '-0x%xLL' % -v
    if v <= 0x7fffffffffffffff:
        return '0x%xLL' % v
    return '0x%xULL' % v


def attr_str(attrs):
    if not attrs:
        return ''
    return '__attribute__((%s))' % ', '.join(attrs)


def dtag_str(dtags):
    return ' '.join('DTAG("%s")' % d for d in dtags)


def join(*parts):
    return ' '.join(p for p in parts if p)


class Gen:
    def __init__(self, seed, nfiles, max_types, clang_tags):
        self.rng = random.Random(seed)
        self.seed = seed
        self.nfiles = nfiles
        self.max_types = max(1, max_types)
        self.tags = clang_tags
        self.make_pool()

    # ---- random helpers -------------------------------------------------

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def wpick(self, items, weights):
        return self.rng.choices(items, weights=weights)[0]

    def base(self):
        return ('base', self.wpick(BASE_TYPES, BASE_WEIGHTS))

    def type_tags(self):
        if not self.tags or not self.chance(0.3):
            return ()
        n = 1 if self.chance(0.75) else 2
        return tuple(self.rng.sample(TYPE_TAGS, n))

    def decl_tags(self, p):
        if not self.tags or not self.chance(p):
            return ()
        n = 1 if self.chance(0.8) else 2
        return tuple(self.rng.sample(DECL_TAGS, n))

    # ---- the pool -------------------------------------------------------

    def make_pool(self):
        m = self.max_types
        n = max(5, m + m // 2 + self.rng.randint(0, 3))
        self.pool = []
        for k in range(n):
            kind = self.wpick(['struct', 'union', 'enum', 'typedef'],
                              [45, 15, 15, 25])
            opaque = kind == 'typedef' and self.chance(0.2)
            self.pool.append({'kind': kind, 'opaque': opaque, 'bodies': []})
        self.recs = [k for k in range(n)
                     if self.pool[k]['kind'] in ('struct', 'union')]
        for k in range(n):
            self.make_bodies(k)

    def kw(self, k):
        return self.pool[k]['kind']

    def lower(self, owner, kinds, byval=False):
        out = []
        for j in range(owner):
            e = self.pool[j]
            if e['kind'] in kinds and not (byval and e['opaque']):
                out.append(j)
        return out

    def make_bodies(self, k):
        e = self.pool[k]
        nb = self.wpick([1, 2, 3], [4, 4, 2])
        first = self.fresh_body(k)
        bodies = [first]
        texts = [self.render_def(k, first)]
        for _ in range(nb - 1):
            for _try in range(6):
                if self.chance(0.75):
                    b = self.mutate(k, first)
                else:
                    b = self.fresh_body(k)
                t = self.render_def(k, b)
                if t not in texts:
                    bodies.append(b)
                    texts.append(t)
                    break
        e['bodies'] = bodies
        w = {1: [1], 2: [3, 1], 3: [5, 2, 1]}[len(bodies)]
        e['weights'] = w

    def fresh_body(self, k):
        kind = self.kw(k)
        if kind in ('struct', 'union'):
            return self.record_body(k, kind)
        if kind == 'enum':
            return self.enum_body(k)
        return self.typedef_body(k, self.pool[k]['opaque'])

    # ---- records --------------------------------------------------------

    def record_attrs(self):
        attrs = []
        if self.chance(0.15):
            attrs.append('packed')
        if self.chance(0.12):
            attrs.append('aligned(%d)' % self.pick(ALIGNS))
        return tuple(attrs)

    def record_body(self, k, kind):
        b = {'nid': 0, 'attrs': self.record_attrs(),
             'dtags': self.decl_tags(0.25)}
        b['members'] = self.members(k, kind, 0, b, self.rng.randint(1, 6))
        if kind == 'struct' and self.chance(0.1):
            b['members'].append(self.zla_member(k, b))
        return b

    def new_name(self, b):
        name = 'm%d' % b['nid']
        b['nid'] += 1
        return name

    def members(self, k, kind, depth, b, n):
        return [self.member(k, depth, b) for _ in range(n)]

    def zla_member(self, k, b):
        elem = self.elem_type(k)
        return (('arr', elem, 0), self.new_name(b), None, (), ())

    def member(self, k, depth, b):
        choices = ['base', 'qbase', 'ptr', 'arr', 'bf', 'fptr', 'enum',
                   'rec', 'tdef', 'anon']
        weights = [18, 4, 20, 8, 10, 5, 5, 9, 6, 6 if depth < 2 else 0]
        what = self.wpick(choices, weights)
        bits = None
        if what == 'base':
            t = self.base()
        elif what == 'qbase':
            t = ('q', self.quals(), self.base())
        elif what == 'ptr':
            t = self.ptr(k, 0)
        elif what == 'arr':
            t = self.arr(k)
        elif what == 'bf':
            bt, wmax = self.pick(BITFIELD_TYPES)
            t = ('base', bt)
            if self.chance(0.1):
                # Unnamed padding bitfield, sometimes zero-width.
                w = 0 if self.chance(0.4) else self.rng.randint(1, wmax)
                return (t, None, w, (), ())
            bits = self.rng.randint(1, wmax)
        elif what == 'fptr':
            t = ('ptr', self.func(k), ('const',) if self.chance(0.1) else (),
                 ())
        elif what in ('enum', 'rec', 'tdef'):
            kinds = {'enum': ('enum',), 'rec': ('struct', 'union'),
                     'tdef': ('typedef',)}[what]
            cand = self.lower(k, kinds, byval=True)
            if not cand:
                t = self.base()
            else:
                j = self.pick(cand)
                t = self.named(j)
                if self.chance(0.1):
                    t = ('q', self.quals(), t)
        else:  # anon
            akw = self.pick(['struct', 'union'])
            mem = self.members(k, akw, depth + 1, b, self.rng.randint(1, 4))
            attrs = ('packed',) if self.chance(0.1) else ()
            t = ('anon', akw, tuple(mem), attrs)
            if self.chance(0.65):
                return (t, None, None, (), ())
        name = self.new_name(b)
        attrs = ()
        if bits is None and self.chance(0.08):
            attrs = ('aligned(%d)' % self.pick(ALIGNS),)
        elif bits is None and self.chance(0.04) and self.packable(t):
            attrs = ('packed',)
        return (t, name, bits, attrs, self.decl_tags(0.15))

    def packable(self, t):
        """gcc ignores (and warns about) packed on a field of alignment
        1: keep it to types that surely have more."""
        if t[0] == 'q':
            t = t[2]
        if t[0] == 'ptr':
            return True
        return t[0] == 'base' and t[1] in ('short', 'unsigned short', 'int',
                                           'unsigned int', 'long',
                                           'unsigned long', 'long long',
                                           'unsigned long long', 'float',
                                           'double')

    def named(self, j):
        kind = self.kw(j)
        if kind in ('struct', 'union'):
            return ('rec', kind, j)
        if kind == 'enum':
            return ('enum', j)
        return ('tdef', j)

    def quals(self):
        return self.wpick([('const',), ('volatile',), ('const', 'volatile')],
                          [6, 3, 1])

    def ptr(self, k, depth):
        """A pointer type usable in a body of name k."""
        what = self.wpick(['base', 'void', 'rec', 'enum', 'tdef', 'ptr',
                           'arr'],
                          [20, 6, 30, 5, 8, 6 if depth < 1 else 0, 3])
        if what == 'base':
            t = self.base()
        elif what == 'void':
            t = ('base', 'void')
        elif what == 'rec' and self.recs:
            # Any struct/union: itself, later ones, ones never defined.
            if self.kw(k) in ('struct', 'union') and self.chance(0.2):
                j = k
            else:
                j = self.pick(self.recs)
            t = self.named(j)
        elif what in ('enum', 'tdef'):
            cand = self.lower(k, ('enum',) if what == 'enum'
                              else ('typedef',))
            t = self.named(self.pick(cand)) if cand else self.base()
        elif what == 'ptr':
            t = self.ptr(k, depth + 1)
        elif what == 'arr':
            t = ('arr', self.base(), self.rng.randint(1, 8))
        else:
            t = self.base()
        if t[0] in ('base', 'rec', 'enum', 'tdef') and self.chance(0.2):
            t = ('q', self.quals(), t)
        pq = []
        if self.chance(0.06):
            pq.append('const')
        if self.chance(0.04):
            pq.append('volatile')
        if self.chance(0.05):
            pq.append('restrict')
        tags = self.type_tags() if t[0] != 'arr' else ()
        return ('ptr', t, tuple(pq), tags)

    def elem_type(self, k):
        what = self.wpick(['base', 'ptr', 'rec', 'enum', 'tdef', 'fptr'],
                          [40, 15, 15, 5, 8, 3])
        if what == 'base':
            return self.base()
        if what == 'ptr':
            return self.ptr(k, 0)
        if what == 'fptr':
            return ('ptr', self.func(k), (), ())
        kinds = {'enum': ('enum',), 'rec': ('struct', 'union'),
                 'tdef': ('typedef',)}[what]
        cand = self.lower(k, kinds, byval=True)
        return self.named(self.pick(cand)) if cand else self.base()

    def arr(self, k):
        t = self.elem_type(k)
        ndim = self.wpick([1, 2, 3], [7, 3, 1])
        for _ in range(ndim):
            t = ('arr', t, self.rng.randint(1, 8))
        return t

    def param_type(self, k):
        what = self.wpick(['base', 'ptr', 'enum', 'rec', 'tdef'],
                          [30, 45, 8, 8, 9])
        if what == 'base':
            return self.base()
        if what == 'ptr':
            return self.ptr(k, 0)
        kinds = {'enum': ('enum',), 'rec': ('struct', 'union'),
                 'tdef': ('typedef',)}[what]
        cand = self.lower(k, kinds, byval=True)
        return self.named(self.pick(cand)) if cand else self.base()

    def func(self, k):
        r = self.wpick(['void', 'base', 'ptr'], [3, 2, 5])
        if r == 'void':
            ret = ('base', 'void')
        elif r == 'base':
            ret = self.base()
        else:
            ret = self.ptr(k, 0)
        n = self.wpick([0, 1, 2, 3], [2, 4, 3, 2])
        params = tuple(self.param_type(k) for _ in range(n))
        variadic = n > 0 and self.chance(0.15)
        return ('func', ret, params, variadic)

    # ---- enums ----------------------------------------------------------

    def enum_body(self, k):
        n = self.rng.randint(1, 6)
        mode = self.wpick(['seq', 'small', 'neg', 'signed64', 'unsigned64'],
                          [4, 4, 3, 3, 2])
        vals = []   # (value, text or None for implicit)
        for i in range(n):
            prev = vals[-1][0] if vals else -1
            if i > 0 and self.chance(0.15):
                # A duplicate: by reference or by literal.
                j = self.rng.randrange(i)
                if self.chance(0.5):
                    vals.append((vals[j][0], 'E%d_%d' % (k, j)))
                else:
                    vals.append((vals[j][0], lit(vals[j][0])))
                continue
            implicit_ok = INT_MIN <= prev < INT_MAX
            if mode == 'seq' or (implicit_ok and self.chance(0.3)):
                if implicit_ok:
                    vals.append((prev + 1, None))
                    continue
            if mode in ('seq', 'small'):
                v = self.rng.randint(0, 1000)
            elif mode == 'neg':
                v = self.rng.randint(-1000, 1000)
            elif mode == 'signed64':
                v = self.pick(ENUM64_SIGNED) if self.chance(0.6) \
                    else self.rng.randint(-100, 100)
            else:
                v = self.pick(ENUM64_UNSIGNED) if self.chance(0.6) \
                    else self.rng.randint(0, 100)
            vals.append((v, lit(v)))
        # No btf_decl_tag: clang takes it on no enum.
        return {'vals': vals, 'packed': self.chance(0.12), 'dtags': ()}

    # ---- typedefs -------------------------------------------------------

    def typedef_body(self, k, opaque):
        if opaque:
            what = self.wpick(['rec', 'void', 'tdef'], [8, 1, 1])
            cand = self.lower(k, ('typedef',))
            cand = [j for j in cand if self.pool[j]['opaque']]
            if what == 'tdef' and cand:
                t = ('tdef', self.pick(cand))
            elif what == 'void' or not self.recs:
                t = ('base', 'void')
            else:
                t = self.named(self.pick(self.recs))
            if self.chance(0.1):
                t = ('q', ('const',), t)
        else:
            what = self.wpick(['base', 'qbase', 'rec', 'enum', 'ptr', 'fptr',
                               'arr', 'tdef', 'qtdef', 'anon'],
                              [12, 3, 10, 4, 12, 10, 8, 8, 3, 8])
            if what == 'base':
                t = self.base()
            elif what == 'qbase':
                t = ('q', self.quals(), self.base())
            elif what in ('rec', 'enum', 'tdef', 'qtdef'):
                kinds = {'rec': ('struct', 'union'), 'enum': ('enum',),
                         'tdef': ('typedef',), 'qtdef': ('typedef',)}[what]
                cand = self.lower(k, kinds, byval=True)
                t = self.named(self.pick(cand)) if cand else self.base()
                if what == 'qtdef':
                    t = ('q', ('const',), t)
            elif what == 'ptr':
                t = self.ptr(k, 0)
            elif what == 'fptr':
                t = ('ptr', self.func(k), (), ())
            elif what == 'arr':
                t = self.arr(k)
            else:
                akw = self.pick(['struct', 'union'])
                b = {'nid': 0}
                mem = self.members(k, akw, 1, b, self.rng.randint(1, 5))
                t = ('anon', akw, tuple(mem), self.record_attrs())
        return {'type': t, 'dtags': self.decl_tags(0.15)}

    # ---- mutations (the other bodies of a name) -------------------------

    def mutate(self, k, b0):
        kind = self.kw(k)
        if kind in ('struct', 'union'):
            b = {'nid': b0['nid'], 'attrs': b0['attrs'],
                 'dtags': b0['dtags'], 'members': list(b0['members'])}
            for _ in range(1 if self.chance(0.7) else 2):
                self.mutate_record(k, kind, b)
            return b
        if kind == 'enum':
            b = {'vals': list(b0['vals']), 'packed': b0['packed'],
                 'dtags': b0['dtags']}
            self.mutate_enum(k, b)
            return b
        if self.pool[k]['opaque'] or self.chance(0.5):
            return self.typedef_body(k, self.pool[k]['opaque'])
        t = b0['type']
        if t[0] == 'base' and t[1] != 'void':
            t = self.base()
        elif t[0] in ('base', 'q', 'rec', 'enum', 'tdef') and \
                not (t[0] == 'q' and t[1] == ('const',)):
            t = ('q', ('const',), t if t[0] != 'q' else t[2])
        else:
            return self.typedef_body(k, False)
        return {'type': t, 'dtags': b0['dtags']}

    def mutate_record(self, k, kind, b):
        mem = b['members']
        zla = [m for m in mem if m[0][0] == 'arr' and m[0][2] == 0]
        body = [m for m in mem if not (m[0][0] == 'arr' and m[0][2] == 0)]
        ops = ['retype', 'retype', 'add', 'del', 'swap', 'attr', 'bits']
        if self.tags:
            ops.append('tag')
        op = self.pick(ops)
        if op == 'retype' and body:
            i = self.rng.randrange(len(body))
            old = body[i]
            new = self.member(k, 0, b)
            if old[1] is not None and new[1] is not None:
                new = (new[0], old[1]) + new[2:]
            body[i] = new
        elif op == 'add' or (op == 'del' and len(body) < 2):
            body.insert(self.rng.randint(0, len(body)), self.member(k, 0, b))
        elif op == 'del':
            del body[self.rng.randrange(len(body))]
        elif op == 'swap' and len(body) >= 2:
            i, j = self.rng.sample(range(len(body)), 2)
            body[i], body[j] = body[j], body[i]
        elif op == 'bits' and any(m[2] for m in body):
            idx = [i for i, m in enumerate(body) if m[2] and m[1]]
            if idx:
                i = self.pick(idx)
                m = body[i]
                wmax = dict((t, w) for t, w in BITFIELD_TYPES)[m[0][1]]
                nb = self.rng.randint(1, wmax)
                body[i] = (m[0], m[1], nb, m[3], m[4])
            else:
                body.append(self.member(k, 0, b))
        elif op == 'tag':
            named = [i for i, m in enumerate(body)
                     if m[1] is not None and m[0][0] != 'anon']
            if named and self.chance(0.6):
                i = self.pick(named)
                m = body[i]
                nt = () if m[4] else (self.pick(DECL_TAGS),)
                body[i] = m[:4] + (nt,)
            else:
                b['dtags'] = () if b['dtags'] else (self.pick(DECL_TAGS),)
        else:  # attr, or an op that did not apply
            a = list(b['attrs'])
            if 'packed' in a and self.chance(0.5):
                a.remove('packed')
            elif 'packed' not in a and self.chance(0.5):
                a.append('packed')
            else:
                a = [x for x in a if not x.startswith('aligned')]
                a.append('aligned(%d)' % self.pick(ALIGNS))
            b['attrs'] = tuple(a)
        if kind == 'struct' and zla and len(body) >= 1:
            body.append(zla[0])
        if not body:
            body.append(self.member(k, 0, b))
        b['members'] = body

    def mutate_enum(self, k, b):
        vals = b['vals']
        op = self.pick(['value', 'add', 'del', 'packed'])
        if op == 'value':
            i = self.rng.randrange(len(vals))
            # Keep later implicit values in range: rewrite the tail too.
            v = vals[i][0] + self.pick([1, 2, -1, 7]) \
                if INT_MIN < vals[i][0] < INT_MAX - 8 else self.rng.randint(0, 9)
            mixed = [x[0] for x in vals[:i] + vals[i + 1:]]
            if v < 0 and any(x > 0x7fffffffffffffff for x in mixed):
                v = 1
            vals[i] = (v, lit(v))
            for j in range(i + 1, len(vals)):
                if vals[j][1] is None:
                    p = vals[j - 1][0]
                    if INT_MIN <= p < INT_MAX:
                        vals[j] = (p + 1, None)
                    else:
                        vals[j] = (0, '0')
                elif vals[j][1].startswith('E'):
                    r = int(vals[j][1].split('_')[1])
                    vals[j] = (vals[r][0], vals[j][1])
        elif op == 'add' or (op == 'del' and len(vals) < 2):
            p = vals[-1][0]
            if INT_MIN <= p < INT_MAX and self.chance(0.5):
                vals.append((p + 1, None))
            else:
                v = self.rng.randint(0, 50)
                vals.append((v, lit(v)))
        elif op == 'del':
            vals.pop()
        else:
            b['packed'] = not b['packed']
        b['vals'] = vals

    # ---- dependencies ---------------------------------------------------

    def deps(self, t, need, fwd, byval=True):
        """need: names that must be defined earlier; fwd: struct/union
        names mentioned (declared at the top of the file)."""
        c = t[0]
        if c == 'rec':
            fwd[t[2]] = True
            if byval:
                need[t[2]] = True
        elif c in ('enum', 'tdef'):
            need[t[1]] = True
        elif c == 'q':
            self.deps(t[2], need, fwd, byval)
        elif c == 'ptr':
            self.deps(t[1], need, fwd, False)
        elif c == 'arr':
            self.deps(t[1], need, fwd, byval)
        elif c == 'func':
            self.deps(t[1], need, fwd, False)
            # a parameter of a struct type, even in a function pointer's
            # prototype, must be complete: BTF has no size for a FWD, and
            # the kernel's verifier refuses such a FUNC_PROTO
            for p in t[2]:
                self.deps(p, need, fwd, True)
        elif c == 'anon':
            for m in t[2]:
                self.deps(m[0], need, fwd, byval)

    def body_deps(self, k, b):
        need, fwd = {}, {}
        kind = self.kw(k)
        if kind in ('struct', 'union'):
            for m in b['members']:
                self.deps(m[0], need, fwd, True)
        elif kind == 'typedef':
            self.deps(b['type'], need, fwd, not self.pool[k]['opaque'])
        return need, fwd

    # ---- rendering ------------------------------------------------------

    def render(self, t, decl, ind=0):
        c = t[0]
        if c == 'base':
            return join(t[1], decl)
        if c == 'rec':
            return join('%s s%d' % (t[1], t[2]), decl)
        if c == 'enum':
            return join('enum e%d' % t[1], decl)
        if c == 'tdef':
            return join('t%d' % t[1], decl)
        if c == 'q':
            return join(' '.join(t[1]), self.render(t[2], decl, ind))
        if c == 'ptr':
            target, quals, tags = t[1], t[2], t[3]
            inner = '*' + ' '.join(quals)
            if decl:
                inner = inner + (' ' if quals else '') + decl
            if tags:
                inner = join(*['TTAG("%s")' % x for x in tags]) + ' ' + inner
            if target[0] in ('arr', 'func'):
                inner = '(' + inner + ')'
            return self.render(target, inner, ind)
        if c == 'arr':
            return self.render(t[1], '%s[%d]' % (decl, t[2]), ind)
        if c == 'func':
            ps = [self.render(p, '', ind) for p in t[2]]
            if t[3]:
                ps.append('...')
            if not ps:
                ps = ['void']
            return self.render(t[1], '%s(%s)' % (decl, ', '.join(ps)), ind)
        if c == 'anon':
            lines = [join(t[1], attr_str(t[3]), '{')]
            lines += self.render_members(t[2], ind + 1)
            lines.append('\t' * ind + join('}', decl))
            return '\n'.join(lines)
        raise ValueError(t)

    def render_members(self, members, ind):
        out = []
        for t, name, bits, attrs, dtags in members:
            s = self.render(t, name or '', ind)
            if bits is not None:
                s += (' : %d' if name else ': %d') % bits
            s = join(s, attr_str(attrs), dtag_str(dtags))
            out.append('\t' * ind + s + ';')
        return out

    def render_def(self, k, b):
        kind = self.kw(k)
        if kind in ('struct', 'union'):
            lines = ['%s s%d {' % (kind, k)]
            lines += self.render_members(b['members'], 1)
            lines.append(join('}', attr_str(b['attrs']),
                              dtag_str(b['dtags'])) + ';')
            return '\n'.join(lines)
        if kind == 'enum':
            lines = [join('enum', attr_str(('packed',) if b['packed']
                                           else ()), 'e%d {' % k)]
            for i, (v, text) in enumerate(b['vals']):
                if text is None:
                    lines.append('\tE%d_%d,' % (k, i))
                else:
                    lines.append('\tE%d_%d = %s,' % (k, i, text))
            lines.append(join('}', dtag_str(b['dtags'])) + ';')
            return '\n'.join(lines)
        return 'typedef ' + join(self.render(b['type'], 't%d' % k),
                                 dtag_str(b['dtags'])) + ';'

    # ---- categories (what a file may do with a type by value) ------------

    def cat(self, t, chosen):
        c = t[0]
        if c == 'base':
            return 'void' if t[1] == 'void' else 'scalar'
        if c in ('rec', 'anon'):
            return 'record'
        if c == 'enum':
            return 'scalar'
        if c == 'q':
            return self.cat(t[2], chosen)
        if c == 'ptr':
            return 'pointer'
        if c == 'arr':
            return 'array'
        if c == 'tdef':
            if self.pool[t[1]]['opaque']:
                return 'opaque'
            b = self.pool[t[1]]['bodies'][chosen[t[1]]]
            return self.cat(b['type'], chosen)
        return 'func'

    def big_align(self, t, chosen):
        """Whether a type holds by value an alignment of 32 or more, which
        gcc notes (the ABI for passing it changed in GCC 4.6) when one is
        passed by value."""
        c = t[0]
        if c == 'q':
            return self.big_align(t[2], chosen)
        if c == 'arr':
            return self.big_align(t[1], chosen)
        if c in ('enum', 'base', 'ptr', 'func'):
            return False
        if c == 'tdef':
            if self.pool[t[1]]['opaque']:
                return False
            b = self.pool[t[1]]['bodies'][chosen[t[1]]]
            return self.big_align(b['type'], chosen)
        if c == 'rec':
            b = self.pool[t[2]]['bodies'][chosen[t[2]]]
            attrs, members = b['attrs'], b['members']
        else:
            attrs, members = t[3], t[2]
        for a in attrs + tuple(x for m in members for x in m[3]):
            if a.startswith('aligned(') and int(a[8:-1]) >= 32:
                return True
        return any(self.big_align(m[0], chosen) for m in members)

    # ---- files ----------------------------------------------------------

    def choose_body(self, k):
        e = self.pool[k]
        return self.wpick(list(range(len(e['bodies']))), e['weights'])

    def close(self, k, chosen, tent):
        bi = self.choose_body(k)
        tent[k] = bi
        need, _ = self.body_deps(k, self.pool[k]['bodies'][bi])
        for j in sorted(need):
            if j not in chosen and j not in tent:
                self.close(j, chosen, tent)

    def make_file(self, f):
        rng = self.rng
        n = len(self.pool)
        target = rng.randint(max(1, self.max_types // 3), self.max_types)
        order = list(range(n))
        rng.shuffle(order)
        chosen = {}
        for k in order:
            if k in chosen:
                continue
            tent = {}
            self.close(k, chosen, tent)
            if chosen and len(chosen) + len(tent) > target:
                continue
            chosen.update(tent)
            if len(chosen) >= target:
                break
        defined = sorted(chosen)
        fwd = {}
        for k in defined:
            _, fw = self.body_deps(k, self.pool[k]['bodies'][chosen[k]])
            fwd.update(fw)

        # File-level declarations.
        tu = 'tu%d' % f
        fwd_only = [j for j in self.recs if j not in chosen]

        def file_ptr():
            what = self.wpick(['def', 'fwd', 'base'], [5, 3, 2])
            if what == 'def' and defined:
                t = self.named(self.pick(defined))
            elif what == 'fwd' and fwd_only:
                t = self.named(self.pick(fwd_only))
            else:
                t = self.base()
            if t[0] != 'base' or self.chance(0.3):
                if self.chance(0.15):
                    t = ('q', ('const',), t)
            return ('ptr', t, (), self.type_tags())

        byval = [k for k in defined
                 if self.cat(self.named(k), chosen) not in ('opaque', 'void')]
        passable = [k for k in byval
                    if not self.big_align(self.named(k), chosen)]

        def file_type(ret):
            what = self.wpick(['base', 'ptr', 'named', 'void'],
                              [3, 4, 4, 2 if ret else 0])
            if what == 'void':
                return ('base', 'void')
            if what == 'named' and passable:
                t = self.named(self.pick(passable))
                if ret and self.cat(t, chosen) in ('array', 'func'):
                    return file_ptr()
                return t
            if what == 'ptr':
                return file_ptr()
            return self.base()

        globs = []
        for k in byval:
            if self.chance(0.4):
                globs.append((self.named(k), '%s_g%d' % (tu, k)))
        for i in range(self.rng.randint(0, 2)):
            globs.append((file_ptr(), '%s_p%d' % (tu, i)))
        if fwd_only and self.chance(0.5):
            # A struct that this file only ever declares.
            j = self.pick(fwd_only)
            globs.append((('ptr', self.named(j), (), ()), '%s_f%d' % (tu, j)))
        glob_lines = []
        for t, name in globs:
            self.deps(t, {}, fwd, False)
            glob_lines.append(join(self.render(t, name),
                                   dtag_str(self.decl_tags(0.2))) + ';')

        func_lines = []
        for i in range(self.rng.randint(1, 3)):
            ret = file_type(True)
            params = []
            c = self.cat(ret, chosen)
            if c == 'record':
                params.append(('ptr', ret, (), ()))
                stmt = 'return *a0;'
            elif c in ('scalar', 'pointer'):
                stmt = 'return 0;'
            else:
                stmt = ''
            for _ in range(self.rng.randint(0, 3)):
                params.append(file_type(False))
            ps = []
            for j, p in enumerate(params):
                self.deps(p, {}, fwd, False)
                ps.append(join(self.render(p, 'a%d' % j),
                               dtag_str(self.decl_tags(0.15))))
            self.deps(ret, {}, fwd, False)
            head = self.render(ret, '%s_fn%d(%s)' % (tu, i,
                                                     ', '.join(ps) or 'void'))
            func_lines.append(join(dtag_str(self.decl_tags(0.25)), head))
            func_lines.append('{' + (' ' + stmt + ' ' if stmt else '') + '}')
            func_lines.append('')

        # use_tuN(): a pointer to every defined type, and to some only
        # declared ones.
        uses = [self.named(k) for k in defined]
        for j in fwd_only:
            if j in fwd and self.chance(0.3):
                uses.append(self.named(j))
        ps = ['%s' % self.render(('ptr', t, (), ()), 'a%d' % i)
              for i, t in enumerate(uses)]
        use_line = 'void use_%s(%s)\n{\n}' % (tu, ', '.join(ps) or 'void')

        out = ['/* Generated by tests/dedup/gen.py --seed %d --files %d'
               ' --max-types %d%s: %s.c */'
               % (self.seed, self.nfiles, self.max_types,
                  ' --clang-tags' if self.tags else '', tu), '']
        if self.tags:
            out += ['#if defined(__clang__)',
                    '#define TTAG(x) __attribute__((btf_type_tag(x)))',
                    '#define DTAG(x) __attribute__((btf_decl_tag(x)))',
                    '#else',
                    '#define TTAG(x)',
                    '#define DTAG(x)',
                    '#endif', '']
        for j in sorted(fwd):
            out.append('%s s%d;' % (self.kw(j), j))
        out.append('')
        for k in defined:
            out.append(self.render_def(k, self.pool[k]['bodies'][chosen[k]]))
            out.append('')
        out += glob_lines
        out.append('')
        out += func_lines
        out.append(use_line)
        return '\n'.join(out) + '\n', chosen, fwd

    def stats(self, files):
        """Per name: in how many files defined, with how many bodies."""
        shared = differ = fwd_only = 0
        for k in range(len(self.pool)):
            used = [ch[k] for ch, _ in files if k in ch]
            if len(used) >= 2 and any(used.count(b) >= 2 for b in used):
                shared += 1
            if len(set(used)) >= 2:
                differ += 1
            if any(k in fw and k not in ch for ch, fw in files):
                fwd_only += 1
        return ('names %d, shared body in >=2 files %d, different bodies '
                'across files %d, forward-only in some file %d'
                % (len(self.pool), shared, differ, fwd_only))


def main():
    ap = argparse.ArgumentParser(
        description='Random multi-file C programs for tests/dedup/.')
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--files', type=int, required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--clang-tags', action='store_true',
                    help='add btf_type_tag/btf_decl_tag (clang only)')
    ap.add_argument('--max-types', type=int, default=12,
                    help='types a file picks (before what they need)')
    ap.add_argument('--stats', action='store_true',
                    help='print how the names are shared to stderr')
    a = ap.parse_args()
    if a.files < 1:
        ap.error('--files must be at least 1')
    g = Gen(a.seed, a.files, a.max_types, a.clang_tags)
    os.makedirs(a.out, exist_ok=True)
    info = []
    for f in range(a.files):
        text, chosen, fwd = g.make_file(f)
        info.append((chosen, fwd))
        with open(os.path.join(a.out, 'tu%d.c' % f), 'w') as fh:
            fh.write(text)
    if a.stats:
        print(g.stats(info), file=sys.stderr)


if __name__ == '__main__':
    main()
