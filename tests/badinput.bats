#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# cc-btf on input it cannot encode. Every case: exit status 1, nothing on
# stdout, exactly one line on stderr, "cc-btf: error: " naming the file,
# and the input byte for byte as it was, with no temporary file left next
# to it. Objects are compiled at test time from the sources below.

load test_helper

bats_require_minimum_version 1.5.0

# Each test works in $WORK/w: bats keeps files of its own in $WORK.
setup() {
	WORK=$BATS_TEST_TMPDIR
	mkdir -p "$WORK/w"
	cd "$WORK/w" || return 1
	need_cmd gcc readelf
	cat >t.c <<-'EOF'
	struct point { int x, y; const char *name; };
	struct point origin = { 0, 0, "origin" };
	int t_norm(const struct point *p) { return p->x * p->x + p->y * p->y; }
	EOF
	# BTF cannot express _Complex: the encoder fails, as pahole does.
	cat >bad.c <<-'EOF'
	_Complex double z;
	int n;
	EOF
}

# debug_info_at OBJ [SECTION]: the hex file offset of OBJ's .debug_info
# (or SECTION).
debug_info_at() {
	local sec=${2:-.debug_info}
	readelf -SW "$1" | sed -n "s/^ *\\[ *[0-9]*\\] \\${sec}  *[A-Z]*  *[0-9a-f]*  *\\([0-9a-f]*\\) .*/\\1/p"
}

# refused OBJ WORD...: OBJ, damaged already, is refused by cc-btf --encode
# with one error holding each WORD, and left as it was.
refused() {
	local obj=$1
	shift
	keep "$obj"
	run --separate-stderr "$CC_BTF" --encode "$obj"
	one_error cc-btf 1 "$obj" "$@"
	unchanged "$obj"
}

@test "badinput: not an ELF file" {
	printf 'this is not an object\n' >notelf.o
	keep notelf.o
	run --separate-stderr "$CC_BTF" --encode notelf.o
	one_error cc-btf 1 notelf.o
	unchanged notelf.o
}

@test "badinput: an empty file" {
	: >empty.o
	keep empty.o
	run --separate-stderr "$CC_BTF" --encode empty.o
	one_error cc-btf 1 empty.o
	unchanged empty.o
}

@test "badinput: an ELF file truncated to 100 bytes" {
	gcc -g -c t.c -o full.o
	head -c 100 full.o >trunc.o
	keep trunc.o
	run --separate-stderr "$CC_BTF" --encode trunc.o
	one_error cc-btf 1 trunc.o
	unchanged trunc.o
}

@test "badinput: an ELF file truncated in the middle" {
	gcc -g -c t.c -o full.o
	head -c $(($(stat -c %s full.o) / 2)) full.o >half.o
	keep half.o
	run --separate-stderr "$CC_BTF" --encode half.o
	one_error cc-btf 1 half.o
	unchanged half.o
}

@test "badinput: an object without DWARF" {
	gcc -O2 -c t.c -o nodwarf.o
	keep nodwarf.o
	run --separate-stderr "$CC_BTF" --encode nodwarf.o
	one_error cc-btf 1 nodwarf.o
	[ "$stderr" = "cc-btf: error: nodwarf.o: no DWARF (.debug_info) to encode" ]
	unchanged nodwarf.o
}

@test "badinput: an object whose .debug_info is corrupt" {
	local off
	gcc -g -c t.c -o corrupt.o
	off=$(debug_info_at corrupt.o)
	[ -n "$off" ]
	# the unit header's version (bytes 4-5; no relocation touches them)
	printf '\377\377' | dd of=corrupt.o bs=1 seek=$((0x$off + 4)) \
		conv=notrunc status=none
	keep corrupt.o
	run --separate-stderr "$CC_BTF" --encode corrupt.o
	one_error cc-btf 1 corrupt.o
	unchanged corrupt.o
}

@test "badinput: an object whose .debug_abbrev is corrupt" {
	local off
	gcc -g -c t.c -o abbrev.o
	off=$(debug_info_at abbrev.o .debug_abbrev)
	[ -n "$off" ]
	# the first abbreviation code: a LEB128 that never ends
	printf '\377\377\377\377' | dd of=abbrev.o bs=1 seek=$((0x$off)) \
		conv=notrunc status=none
	keep abbrev.o
	run --separate-stderr "$CC_BTF" --encode abbrev.o
	one_error cc-btf 1 abbrev.o
	[[ $stderr == *"bad abbreviation table"* ]]
	unchanged abbrev.o
}

@test "badinput: a unit whose length cuts its DIEs short" {
	local off
	gcc -g -c t.c -o short.o
	off=$(debug_info_at short.o)
	[ -n "$off" ]
	# unit_length 16: the unit DIE's attributes run past the unit's end
	printf '\020\000\000\000' | dd of=short.o bs=1 seek=$((0x$off)) \
		conv=notrunc status=none
	keep short.o
	run --separate-stderr "$CC_BTF" --encode short.o
	one_error cc-btf 1 short.o
	unchanged short.o
}

@test "badinput: DWARF 5: a unit that ends before its DIE tree does" {
	local at first last null
	need_cmd python3
	cat >u.c <<-'EOF'
	struct point { int x, y; };
	struct point origin;
	int one(struct point *p) { return p->x; }
	int two(int a) { return a * 2; }
	EOF
	gcc -g -gdwarf-5 -O2 -c u.c -o u.o
	readelf --debug-dump=info u.o >info
	sed -n 's/^ <1><\([0-9a-f]*\)>.*/\1/p' info >dies
	first=$(sed -n 1p dies)		# right after the unit DIE
	null=$(tail -n 1 dies)		# the list's terminating null entry
	# at two(), which nothing refers to: it would be lost unsaid
	last=$(sed -n 's/^ <1><\([0-9a-f]*\)>.*subprogram.*/\1/p' info | tail -n 1)
	for at in "$first" "$last" "$null"; do
		cp u.o cut.o
		python3 "$BATS_TEST_DIRNAME/crafted/craft.py" cut-unit cut.o "0x$at"
		keep cut.o
		run --separate-stderr "$CC_BTF" --encode cut.o
		one_error cc-btf 1 cut.o
		[[ $stderr == "cc-btf: error: cut.o: DIE 0x"*"the unit ends before "* ]]
		unchanged cut.o
		rm cut.o
	done
}

# poke OBJ SECTION OFFSET VALUE [WAS]: set the byte at OFFSET of OBJ's
# SECTION to VALUE, in place; with WAS, only if it was WAS (else the test
# fails: the compiler laid the fixture out otherwise).
poke() {
	python3 - "$@" <<-'EOF'
	import subprocess, sys
	obj, name, off, val = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 0)
	was = int(sys.argv[5], 0) if len(sys.argv) > 5 else None
	for line in subprocess.run(["readelf", "-SW", obj], capture_output=True,
	                           text=True).stdout.splitlines():
	    f = line.replace("[ ", "[").split()
	    if len(f) > 5 and f[1] == name:
	        at = int(f[4], 16) + off
	        break
	else:
	    sys.exit("poke: %s has no %s" % (obj, name))
	d = bytearray(open(obj, "rb").read())
	if was is not None and d[at] != was:
	    sys.exit("poke: byte 0x%x of %s is 0x%x, not 0x%x" % (off, name, d[at], was))
	d[at] = val
	open(obj, "wb").write(d)
	EOF
}

# issue36_mutants: bf.o and ar.o (two fixtures) and the issue's three
# mutants of them: dup.o, nochild.o, early.o.
issue36_mutants() {
	gcc -gdwarf-4 -O0 -c "$FIXTURES/bitfields.c" -o bf.o
	gcc -g -O2 -c "$FIXTURES/arrays.c" -o ar.o
	# the member's abbreviation takes the unit's code, 1
	cp bf.o dup.o
	poke dup.o .debug_abbrev 120 1
	# the unit's abbreviation without its children flag
	cp bf.o nochild.o
	poke nochild.o .debug_abbrev 2 0 1
	# one DIE read with the next abbreviation: its list ends early
	cp ar.o early.o
	poke early.o .debug_info 0xbc 0x12 0x11
}

# Issue 36: DWARF that libdw walks to another tree than its unit holds,
# which the encoder read as far as it went and encoded with exit 0 (fewer
# types, or none, in place no .BTF at all). Each is now one error naming
# the object, the unit and where its tree goes wrong; the object is left.
@test "badinput: a duplicate abbreviation code, a child-less unit DIE, a tree that ends early" {
	need_tools
	need_cmd python3 readelf
	issue36_mutants
	keep dup.o nochild.o early.o
	run --separate-stderr "$CC_BTF" --encode dup.o
	one_error cc-btf 1 dup.o
	[[ $stderr == "cc-btf: error: dup.o: .debug_info: unit at 0x0: "*"an abbreviation code defined twice" ]]
	run --separate-stderr "$CC_BTF" --encode nochild.o
	one_error cc-btf 1 nochild.o
	[[ $stderr == "cc-btf: error: nochild.o: .debug_info: unit at 0x0: 0x"*": the unit DIE has no children, but DIEs follow it" ]]
	run --separate-stderr "$CC_BTF" --encode early.o
	one_error cc-btf 1 early.o
	[[ $stderr == "cc-btf: error: early.o: .debug_info: unit at 0x0: 0x"*": the DIE tree ends before its unit does, with more DIEs after it" ]]
	unchanged dup.o nochild.o early.o
	# found by the fuzzer's oracle: a children flag of 2, which libdw
	# reads as "no children" and this reader read as "children"
	cp bf.o flag2.o
	poke flag2.o .debug_abbrev 2 2 1
	refused flag2.o "a children flag that is neither DW_CHILDREN_no nor DW_CHILDREN_yes"
	# the objects they were made of encode
	run --separate-stderr "$CC_BTF" --encode bf.o ar.o
	[ "$status" -eq 0 ]
}

# More the oracle found (issue 36), each encoded with exit 0 before: a unit
# version of 261 (5 in its low byte), and a DW_AT_sibling pointing backwards
# inside an inlined copy, a subtree the encoder jumped over unread.
@test "badinput: a unit version of 261, type 9, a type offset in its header; a bad DW_AT_sibling deep in an inlined copy" {
	local at
	need_tools
	need_cmd python3 readelf
	gcc -g -O2 -c "$FIXTURES/arrays.c" -o ver.o
	poke ver.o .debug_info 5 1 0
	keep ver.o
	run --separate-stderr "$CC_BTF" --encode ver.o
	one_error cc-btf 1 ver.o
	[[ $stderr == "cc-btf: error: ver.o: .debug_info: unknown DWARF version" ]]
	unchanged ver.o
	# a unit type past DW_UT_split_type; a type unit whose type offset
	# points into its own header (libdw refuses both)
	gcc -g -O2 -c "$FIXTURES/arrays.c" -o utype.o
	cp utype.o toff.o
	poke utype.o .debug_info 6 9 1
	poke toff.o .debug_info 6 2 1
	# header: length 4, version 2, type 1, address size 1, abbrev 4,
	# signature 8, then the type offset: 0
	for f in 20 21 22 23; do
		poke toff.o .debug_info $f 0
	done
	keep utype.o toff.o
	for f in utype.o toff.o; do
		run --separate-stderr "$CC_BTF" --encode $f
		one_error cc-btf 1 $f
		[[ $stderr == "cc-btf: error: $f: .debug_info: bad unit header" ]]
	done
	unchanged utype.o toff.o
	gcc -g -O2 -c "$FIXTURES/compare-shuffle.c" -o sib.o
	# the first DW_AT_sibling of a DIE at depth 3 or more: its ref4 -> 0x10
	at=$(readelf --debug-dump=info sib.o | awk '
		/^ <[0-9]+><[0-9a-f]+>/ { split($1, a, "[<>]"); d = a[2] }
		/DW_AT_sibling/ && d >= 3 { gsub(/[<>]/, "", $1); print $1; exit }')
	[ -n "$at" ]
	cp sib.o fwd.o
	poke sib.o .debug_info "0x$at" 0x10
	poke sib.o .debug_info "$((0x$at + 1))" 0
	keep sib.o
	run --separate-stderr "$CC_BTF" --encode sib.o
	one_error cc-btf 1 sib.o
	[[ $stderr == *"DW_AT_sibling does not point past the DIE's subtree" ]]
	unchanged sib.o
	# one past its subtree: libdw jumps over what lies between, and the
	# encoder did too (the oracle's "tree ends before its unit")
	# the ref4's low byte + 1: another place than its subtree's end
	v=$(od -An -tu1 -j $((0x$(debug_info_at fwd.o) + 0x$at)) -N1 fwd.o)
	poke fwd.o .debug_info "0x$at" $(((v + 1) & 255)) "$v"
	refused fwd.o "DW_AT_sibling does not point past the DIE's subtree"
}

# The oracle (issue 36): a DW_AT_sibling of form DW_FORM_ref_addr (of the
# size of ref4, so the reader stays in step), which libdw does not follow
# (dwarf_formref()) and this reader did.
@test "badinput: a DW_AT_sibling of form DW_FORM_ref_addr" {
	need_tools
	need_cmd python3
	gcc -g -O2 -c "$FIXTURES/functions.c" -o refaddr.o
	# the last attribute of an abbreviation: sibling (0x01), ref4 (0x13)
	elf_patch refaddr.o bytes .debug_abbrev 01130000 01100000
	refused refaddr.o "DW_AT_sibling of form DW_FORM_ref_addr"
}

# The oracle (issue 36): a typedef inside an enum's children (a mutant's
# enumerator abbreviation turned DW_TAG_typedef), which no member refers
# to, was lost with exit 0: the walk went over a type's children unread.
# It now walks every type among them, as any other.
@test "badinput: a type among a type's children is encoded, not lost" {
	need_tools
	need_cmd python3 bpftool
	gcc -gdwarf-4 -O0 -c "$FIXTURES/enums.c" -o en.o
	# enumerator (0x28), name strp, const_value data1 -> typedef (0x16)
	elf_patch en.o bytes .debug_abbrev 032800030e1c0b 031600030e1c0b
	run --separate-stderr "$CC_BTF" --encode -o en.btf en.o
	[ "$status" -eq 0 ]
	bpftool btf dump file en.btf > dump
	grep -q "TYPEDEF 'P_ZERO' type_id=0" dump
	dwarf_oracle_prog ./oracle
	run ./oracle en.o en.btf
	echo "$output"
	[ "$status" -eq 0 ]
}

# The encoder fuzzer's oracle (tests/fuzz/dwarf_oracle.h), as a command:
# it must find each mutant above (which encoded with exit 0 before the
# reader was fixed), a type lost from the BTF, and nothing on the fixtures.
@test "badinput: the encoder fuzzer's DWARF oracle: the issue's mutants found, every fixture agrees" {
	local f o cc n=0 checked=0
	need_tools
	need_cmd python3 gcc pkg-config
	dwarf_oracle_prog ./oracle
	issue36_mutants
	run ./oracle dup.o
	[ "$status" -eq 1 ]
	[[ $output == "dup.o: unit DIE 0xb: the encoder's reader fails (bad abbreviation table: an abbreviation code defined twice), libdw's does not" ]]
	run ./oracle nochild.o
	[ "$status" -eq 1 ]
	[[ $output == "nochild.o: the tree libdw walks ends at 0x"*", before its unit (to 0x"*")" ]]
	run ./oracle early.o
	[ "$status" -eq 1 ]
	[[ $output == "early.o: the tree libdw walks ends at 0x"*", before its unit (to 0x"*")" ]]
	# a type libdw finds and the BTF lacks: another object's BTF
	"$CC_BTF" --encode -o ar.btf ar.o
	run ./oracle bf.o ar.btf
	[ "$status" -eq 1 ]
	[[ $output == "bf.o: DIE 0x"*": type '"*"' is not in the BTF" ]]
	for f in "$FIXTURES"/*.c; do
		for cc in "gcc -g -O2" "gcc -gdwarf-4 -O0" "clang -g -O2"; do
			o=$(basename "$f" .c).$n.o
			n=$((n + 1))
			command -v "${cc%% *}" >/dev/null || continue
			$cc -c "$f" -o "$o" 2>/dev/null || continue
			"$CC_BTF" --encode -o "$o.btf" "$o" 2>/dev/null || continue
			run ./oracle "$o" "$o.btf"
			echo "$cc: $output"
			[ "$status" -eq 0 ]
			checked=$((checked + 1))
		done
	done
	echo "$checked objects checked"
	[ "$checked" -gt 100 ]
}

@test "badinput: a parameter's location list cut short (.debug_loclists, .debug_loc)" {
	local v sec
	for v in 5 4; do
		sec=.debug_loclists
		[ "$v" = 4 ] && sec=.debug_loc
		gcc -g -gdwarf-$v -O2 -c "$FIXTURES/funcs-opt.c" -o lists$v.o
		objcopy --dump-section "$sec=lists.bin" lists$v.o /dev/null ||
			skip "gcc wrote no $sec"
		head -c 24 lists.bin > short.bin
		objcopy --update-section "$sec=short.bin" lists$v.o short$v.o
		keep short$v.o
		run --separate-stderr "$CC_BTF" --encode short$v.o
		one_error cc-btf 1 short$v.o
		[[ $stderr == *"location list runs past the end of its section"* ]]
		unchanged short$v.o
	done
}

@test "badinput: DWARF type units (-fdebug-types-section) are refused" {
	local v
	for v in 4 5; do
		gcc -g -gdwarf-$v -fdebug-types-section -c t.c -o types$v.o
		keep types$v.o
		run --separate-stderr "$CC_BTF" --encode types$v.o
		one_error cc-btf 1 types$v.o
		[[ $stderr == *"type unit"* ]]
		unchanged types$v.o
	done
}

@test "badinput: DWARF that BTF cannot express (_Complex)" {
	gcc -g -c bad.c -o complex.o
	keep complex.o
	run --separate-stderr "$CC_BTF" --encode complex.o
	one_error cc-btf 1 complex.o
	# the library's message names the file and the DIE; not twice
	[[ $stderr == "cc-btf: error: complex.o: DIE "* ]]
	unchanged complex.o
}

# ---- clang's DWARF 5: .debug_addr and .debug_str_offsets ----

# clang_obj OBJ: a per-CPU variable addressed through DW_OP_addrx, its
# names through DW_FORM_strx (clang's DWARF 5), as OBJ.
clang_obj() {
	need_cmd clang python3
	cat >p.c <<-'EOF'
	struct point { int x, y; };
	__attribute__((section(".data..percpu"))) struct point pcpu_pt;
	int get(void) { return pcpu_pt.x; }
	EOF
	clang -g -O2 -c p.c -o "$1"
	readelf --debug-dump=info "$1" | grep -q DW_OP_addrx
}

# elf_patch OBJ OP ARGS...: corrupt a 64-bit little-endian ELF object:
#   size SECTION N          SECTION's sh_size becomes N (truncated)
#   addend SECTION TARGET N the addend of SECTION's first relocation
#                           against TARGET's section symbol becomes N
#   bytes SECTION OLD NEW   the first OLD bytes (hex) in SECTION become NEW
#   symidx SECTION N        the symbol of SECTION's first relocation
#                           becomes index N
elf_patch() {
	python3 - "$@" <<-'EOF'
	import struct, sys
	path, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
	b = bytearray(open(path, 'rb').read())
	shoff, = struct.unpack_from('<Q', b, 0x28)
	entsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
	def sh(i):
	    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * entsize)
	def name(i):
	    o = sh(shstrndx)[4] + sh(i)[0]
	    return b[o:b.index(0, o)].decode()
	idx = {name(i): i for i in range(shnum)}
	if op == 'size':
	    struct.pack_into('<Q', b, shoff + idx[args[0]] * entsize + 32,
	                     int(args[1]))
	elif op == 'addend':
	    rs = sh(idx['.rela' + args[0]])
	    syms = sh(rs[6])[4]
	    for k in range(rs[5] // 24):
	        at = rs[4] + k * 24
	        info, = struct.unpack_from('<Q', b, at + 8)
	        sym = syms + (info >> 32) * 24
	        if info >> 32 and \
	           struct.unpack_from('<H', b, sym + 6)[0] == idx[args[1]]:
	            struct.pack_into('<q', b, at + 16, int(args[2]))
	            break
	    else:
	        sys.exit('no relocation against ' + args[1])
	elif op == 'symidx':
	    at = sh(idx['.rela' + args[0]])[4] + 8
	    info, = struct.unpack_from('<Q', b, at)
	    struct.pack_into('<Q', b, at, (int(args[1]) << 32) | (info & 0xffffffff))
	elif op == 'bytes':
	    s = sh(idx[args[0]])
	    old, new = bytes.fromhex(args[1]), bytes.fromhex(args[2])
	    at = b.find(old, s[4], s[4] + s[5])
	    if at < 0:
	        sys.exit('not found: ' + args[1])
	    b[at:at + len(new)] = new
	open(path, 'wb').write(b)
	EOF
}

@test "badinput: clang: a DW_OP_addrx index past the end of .debug_addr" {
	clang_obj addrx.o
	# the variable's location: exprloc of 2 bytes, DW_OP_addrx 0 -> 127
	elf_patch addrx.o bytes .debug_info 02a100 02a17f
	keep addrx.o
	run --separate-stderr "$CC_BTF" --encode addrx.o
	one_error cc-btf 1 addrx.o
	[[ $stderr == *"DIE 0x"*"(variable pcpu_pt)"*"address index past the end of .debug_addr"* ]]
	unchanged addrx.o
}

@test "badinput: clang: DW_AT_addr_base past the end of .debug_addr" {
	clang_obj base.o
	elf_patch base.o addend .debug_info .debug_addr 1000000
	keep base.o
	run --separate-stderr "$CC_BTF" --encode base.o
	one_error cc-btf 1 base.o
	[[ $stderr == *"DIE 0x"*"address index past the end of .debug_addr"* ]]
	unchanged base.o
}

@test "badinput: clang: a truncated .debug_addr or .debug_str_offsets" {
	local sec
	for sec in .debug_addr .debug_str_offsets; do
		clang_obj trunc.o
		# the header only: the relocations now point past the end
		elf_patch trunc.o size $sec 8
		keep trunc.o
		run --separate-stderr "$CC_BTF" --encode trunc.o
		one_error cc-btf 1 trunc.o
		unchanged trunc.o
	done
}

@test "badinput: clang: a string index past the end of .debug_str_offsets" {
	clang_obj strx.o
	elf_patch strx.o addend .debug_info .debug_str_offsets 1000000
	keep strx.o
	run --separate-stderr "$CC_BTF" --encode strx.o
	one_error cc-btf 1 strx.o
	[[ $stderr == *"string offset or index past the end of its section"* ]]
	unchanged strx.o
}

# Found by the encoder fuzzer's DWARF oracle (issue 36): a base of 0 was
# taken for "none given", where libdw reads the table's header as offsets.
@test "badinput: clang: DW_AT_str_offsets_base or DW_AT_addr_base inside its section's header" {
	local sec attr
	for sec in .debug_str_offsets .debug_addr; do
		clang_obj inhdr.o
		elf_patch inhdr.o addend .debug_info $sec 0
		keep inhdr.o
		run --separate-stderr "$CC_BTF" --encode inhdr.o
		one_error cc-btf 1 inhdr.o
		attr=DW_AT_str_offsets_base
		[ $sec = .debug_addr ] && attr=DW_AT_addr_base
		[[ $stderr == *"unit at 0x0: DIE 0xc: $attr inside $sec"*" first header" ]]
		unchanged inhdr.o
	done
}

# The oracle again: DW_AT_str_offsets_base renamed away (clang's unit
# DIE), the strings were read past the table's header, libdw's from 0.
@test "badinput: clang: DW_FORM_strx in a unit without DW_AT_str_offsets_base" {
	clang_obj nobase.o
	# the unit abbreviation's DW_AT_str_offsets_base (0x72, sec_offset
	# 0x17) becomes DW_AT_frame_base (0x40), of the same form
	elf_patch nobase.o bytes .debug_abbrev 7217 4017
	refused nobase.o "or a string index in a unit without DW_AT_str_offsets_base"
}

@test "badinput: clang: a DW_OP_addrx whose operand is cut short" {
	clang_obj cut.o
	# exprloc of 1 byte: DW_OP_addrx with its LEB128 index beyond it
	elf_patch cut.o bytes .debug_info 02a100 01a180
	keep cut.o
	run --separate-stderr "$CC_BTF" --encode cut.o
	one_error cc-btf 1 cut.o
	[[ $stderr == *"(variable pcpu_pt)"*"DW_OP_addrx: truncated operand"* ]]
	unchanged cut.o
}

@test "badinput: clang: DW_AT_low_pc's form widened in .debug_abbrev: the DIE reader out of step" {
	local code n=0
	need_cmd clang python3
	clang -g -O2 -c "$FIXTURES/functions.c" -o fn.o
	# each subprogram abbreviation that starts "low_pc addrx": addrx
	# (one byte for these indices) becomes addrx4, and the DIEs after
	# are read four bytes out of step
	for code in $(od -An -v -tx1 fn.o | tr -d ' \n' |
		      grep -o '..2e01111b' | cut -c1-2 | sort -u); do
		cp fn.o step.o
		elf_patch step.o bytes .debug_abbrev "${code}2e01111b" "${code}2e01112c"
		keep step.o
		run --separate-stderr "$CC_BTF" --encode step.o
		one_error cc-btf 1 step.o
		[[ $stderr == "cc-btf: error: step.o: DIE 0x"*"the DIE at 0x"*"DW_AT_low_pc: address index past the end of .debug_addr"* ]]
		unchanged step.o
		rm step.o
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

@test "badinput: a .debug_str cut short: an error, not anonymous types" {
	need_cmd python3
	gcc -g -c t.c -o str.o
	elf_patch str.o size .debug_str 4
	keep str.o
	run --separate-stderr "$CC_BTF" --encode str.o
	one_error cc-btf 1 str.o
	[[ $stderr == *"string offset or index past the end of its section"* ]]
	unchanged str.o
}

@test "badinput: clang: a btf_decl_tag annotation whose value is no string" {
	need_cmd clang python3
	cat >tag.c <<-'EOF'
	struct s { int a; } __attribute__((btf_decl_tag("t")));
	int f(struct s *p) { return p->a; }
	EOF
	clang -g -O2 -c tag.c -o tag.o
	# the annotation's abbreviation (tag 0x6000, no children, name strx1,
	# const_value strx1): const_value becomes data1, of the same size
	elf_patch tag.o bytes .debug_abbrev 80c0010003251c25 80c0010003251c0b
	keep tag.o
	run --separate-stderr "$CC_BTF" --encode tag.o
	one_error cc-btf 1 tag.o
	[[ $stderr == *"DIE 0x"*"(annotation btf_decl_tag)"*"without a string value"* ]]
	unchanged tag.o
}

@test "badinput: a FILE that does not exist" {
	keep
	run --separate-stderr "$CC_BTF" --encode missing.o
	one_error cc-btf 1 missing.o
	unchanged
}

@test "badinput: -o in a directory that does not exist" {
	gcc -g -c t.c -o t.o
	keep t.o
	run --separate-stderr "$CC_BTF" --encode -o no/such/dir/t.btf t.o
	one_error cc-btf 1 no/such/dir/t.btf
	unchanged t.o
}

@test "badinput: -o where even root cannot create a file (/proc)" {
	gcc -g -c t.c -o t.o
	keep t.o
	run --separate-stderr "$CC_BTF" --encode -o /proc/version t.o
	one_error cc-btf 1 /proc/version
	unchanged t.o
}

@test "badinput: a name of 244 to 255 bytes: the temporary file fits NAME_MAX" {
	local n244 n255
	n244=$(printf '%0244d' 0)
	n255=$(printf '%0253d.o' 0)
	# gcc writes such an object; the wrapper must keep it, with BTF
	gcc -g -c t.c -o ref.o
	run --separate-stderr "$CC_BTF" gcc -g -c t.c -o "$n244"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	readelf -SW "$n244" | grep -q ' \.BTF '
	gcc -g -c t.c -o "$n255"
	run --separate-stderr "$CC_BTF" --encode "$n255"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	readelf -SW "$n255" | grep -q ' \.BTF '
	run --separate-stderr "$BTF_LINK" -o "${n255%.o}.b" "$n255"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -s "${n255%.o}.b" ]
	# nothing else left: no temporary file
	ls -A >listing
	[ "$(wc -l <listing)" -eq 7 ]	# and listing, t.c, bad.c, ref.o
}

@test "badinput: one bad FILE among good ones: the others are encoded" {
	gcc -g -c t.c -o good.o
	printf 'junk' >junk.o
	keep junk.o
	run --separate-stderr "$CC_BTF" --encode junk.o good.o
	one_error cc-btf 1 junk.o
	readelf -SW good.o | grep -q ' \.BTF '
	cmp "$(kept junk.o)" junk.o
}

@test "badinput: usage errors exit 2" {
	gcc -g -c t.c -o t.o
	keep t.o
	run --separate-stderr "$CC_BTF" --encode
	[ "$status" -eq 2 ]
	run --separate-stderr "$CC_BTF" --encode -o x.btf t.o t.o
	[ "$status" -eq 2 ]
	run --separate-stderr "$CC_BTF" -o x.btf gcc -c t.c
	[ "$status" -eq 2 ]
	[[ $stderr == "cc-btf: error: "* ]]
	unchanged t.o
}

@test "badinput: --encode: an option after a FILE, -o twice: refused before any FILE" {
	gcc -g -c t.c -o a.o
	gcc -g -c t.c -o b.o
	keep a.o b.o
	run --separate-stderr "$CC_BTF" --encode a.o -v b.o
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "cc-btf: error: an option after a FILE"*"'-v'"* ]]
	unchanged a.o b.o
	run --separate-stderr "$CC_BTF" --encode -o x.btf -o y.btf a.o
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "cc-btf: error: -o given twice ('x.btf', 'y.btf')"* ]]
	unchanged a.o b.o
	# after --, a FILE may start with '-'
	cp a.o ./-c.o
	"$CC_BTF" --encode -- -c.o
	readelf -SW ./-c.o | grep -q ' \.BTF '
}

# ---- wrapper mode ----

@test "badinput: wrapper: an object that cannot be encoded is deleted" {
	gcc -g -c bad.c -o bad.o	# a stale object make would trust
	run --separate-stderr "$CC_BTF" gcc -g -c bad.c
	one_error cc-btf 1 bad.o
	[[ $stderr == "cc-btf: error: bad.o: DIE "* ]]
	[ ! -e bad.o ]
	[ -z "$(ls -A | grep -v -e '^bad\.c$' -e '^t\.c$')" ]
}

@test "badinput: wrapper: with -o in another directory" {
	mkdir obj
	run --separate-stderr "$CC_BTF" gcc -g -c bad.c -o obj/bad.o
	one_error cc-btf 1 obj/bad.o
	[ -z "$(ls -A obj)" ]
}

@test "badinput: wrapper --warn: a warning, the object kept without BTF" {
	gcc -g -c bad.c -o ref.o
	run --separate-stderr "$CC_BTF" --warn gcc -g -c bad.c
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "cc-btf: warning: bad.o: DIE "* ]]
	cmp ref.o bad.o
}

@test "badinput: wrapper --detached: a failure leaves neither object nor .btf" {
	run --separate-stderr "$CC_BTF" --detached gcc -g -c bad.c
	one_error cc-btf 1 bad.o
	[ ! -e bad.o ]
	[ ! -e bad.o.btf ]
}

@test "badinput: a relocation naming a symbol past its table: cc-btf refuses, btf-link only where it reads" {
	need_cmd gcc python3
	cat >r.c <<-'EOF'
	int v;
	int callee(int x) { return x + v; }
	int caller(int x) { return callee(x) * 2; }
	EOF
	"$CC_BTF" gcc -g -O0 -c r.c -o r.o
	# .rela.text: cc-btf copies the object, so it checks every relocation
	cp r.o text.o
	elf_patch text.o symidx .text 99999
	keep text.o
	run --separate-stderr "$CC_BTF" --encode text.o
	one_error cc-btf 1 text.o
	[[ $stderr == *"relocation 0: symbol 99999 is past the last of its table"* ]]
	unchanged text.o
	# btf-link reads no relocation but .debug_btf_addr's
	"$BTF_LINK" -o text.btf text.o
	"$BTF_LINK" -o r.btf r.o
	cmp r.btf text.btf
	rm text.btf r.btf
	cp r.o addr.o
	elf_patch addr.o symidx .debug_btf_addr 99999
	keep addr.o
	run --separate-stderr "$BTF_LINK" -o out.btf addr.o
	echo "$stderr"
	[ "$status" -ne 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "btf-link: error: addr.o: section "*": relocation 0: symbol 99999 is past the last of its table"* ]]
	unchanged addr.o
}

# ---- issue 49: hostile inputs, round 4 ----

CRAFT=$BATS_TEST_DIRNAME/crafted/craft.py

@test "badinput: a type loop in DWARF: a pointer to itself, a const and a pointer naming each other" {
	need_cmd python3 readelf
	cat >loop.c <<-'EOF'
	int *ip;
	int *const cp = 0;
	EOF
	gcc -g -c loop.c -o self.o
	cp self.o pair.o
	python3 "$CRAFT" type-loop self.o self
	python3 "$CRAFT" type-loop pair.o pair
	for o in self.o pair.o; do
		refused "$o" "$o: DIE 0x" "(pointer type <anon>): bad DWARF: a chain of pointers, qualifiers or typedefs that returns to this DIE" \
			"Loop detected"
	done
}

@test "badinput: clang: a unit's address size other than the machine's, or than .debug_addr's" {
	need_cmd clang python3
	cat >pc.c <<-'EOF'
	__attribute__((section(".data..percpu"))) int pcpu_a;
	__attribute__((section(".data..percpu"))) long pcpu_b;
	int f(int x) { return x + pcpu_a; }
	EOF
	clang -g -gdwarf-5 -O2 -c pc.c -o pc.o
	"$CC_BTF" --encode -o good.o pc.o
	cp pc.o unit.o
	cp pc.o addr.o
	python3 "$CRAFT" unit-addr-size unit.o 4
	python3 "$CRAFT" debug-addr-size addr.o 4
	refused unit.o "unit.o: .debug_info: unit at 0x0: address size 4, not the machine's 8"
	refused addr.o "addr.o: .debug_info: unit at 0x0: DIE 0x" \
		".debug_addr's header at 0x6: address size 4, not the unit's 8"
}

@test "badinput: an R_X86_64_32 whose value does not fit 32 bits is an error, not cut" {
	need_cmd python3
	[ "$(gcc -dumpmachine)" = x86_64-linux-gnu ] || skip "not x86-64"
	gcc -g -c t.c -o over.o
	python3 "$CRAFT" reloc-overflow over.o
	refused over.o "over.o: cannot read DWARF: .rela.debug_info: relocation " \
		"value 0x1" "does not fit its 4-byte place, type 10"
}

@test "badinput: an array count past BTF's 32 bits, at any depth" {
	printf 'char one[0x100000005];\n' >one.c
	printf 'char two[2][0x80000003];\n' >two.c
	printf 'char fits[2][0x7fffffff];\n' >fits.c
	# no bytes, so GCC takes it, but a count BTF cannot hold (an ARRAY
	# per dimension: the product alone is no guard)
	printf 'struct s { int n; char z[0][0x100000005UL]; } zero;\n' >zero.c
	for f in one two zero; do
		gcc -g -c $f.c -o $f.o
		refused $f.o "$f.o: DIE 0x" "(array <anon>): an array of more elements than BTF's 32-bit nelems holds"
	done
	gcc -g -c fits.c -o fits.o
	"$CC_BTF" --encode fits.o
	if command -v clang >/dev/null; then
		clang -g -c one.c -o one-clang.o
		refused one-clang.o "an array of more elements than BTF's 32-bit nelems holds"
	fi
}
