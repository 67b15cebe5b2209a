#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write C with N variables, each in a section of its own under gcc
-fdata-sections: with N > 65535, an object of extended section numbering
(e_shnum 0, e_shstrndx SHN_XINDEX, symbols' sections through
SHT_SYMTAB_SHNDX). A per-CPU variable and a function come first (gcc numbers
sections in the reverse order of definition), so that their sections are numbered past SHN_LORESERVE (0xff00).

  many-sections.py N > many.c
"""
import sys

n = int(sys.argv[1])
out = sys.stdout
out.write('struct rec { int a; long b; };\n')
# gcc numbers sections in the reverse order of definition: first is last
out.write('__attribute__((section(".data..percpu"))) struct rec pcpu_last;\n')
out.write('int last_func(struct rec *r) { return r->a + pcpu_last.a; }\n')
for i in range(n):
    out.write('int v%d = %d;\n' % (i, i + 1))
