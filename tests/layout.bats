#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The layout feature (pahole 1.31 and later with libbpf 1.8, asked for by
# Linux 7.x's scripts/Makefile.btf): base BTF gets a 32-byte header, whose
# two new words place a table of the kinds' record sizes between the types
# and the strings; split BTF gets none. libbpf 1.8's btf.c defines the
# table (its `layouts` array): the expectations below are that
# definition, not figures measured off our own output. btf/layout.c writes
# it; parse.c reads it back in either byte order.

load test_helper

bats_require_minimum_version 1.5.0

# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc ld cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 link.lds is x86-64's"

# Linux 7.3's list for pahole 1.31 (scripts/Makefile.btf), as kbuild gives
# it to btf-link
F73="encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,layout,reproducible_build"

# btf_header FILE: the BTF header's fields, "name=value" a line, read in
# the byte order of its magic; then "table=HEX" (the bytes between
# layout_off and its end) and "rest=HEX" of the types and the strings.
btf_header() {
	python3 - "$1" <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read()
	order = '<' if d[:2] == b'\x9f\xeb' else '>'
	magic, ver, flags, hdr_len = struct.unpack_from(order + 'HBBI', d)
	names = ['type_off', 'type_len', 'str_off', 'str_len']
	if hdr_len >= 32:
	    names += ['layout_off', 'layout_len']
	vals = dict(zip(names, struct.unpack_from(order + 'I' * len(names), d, 8)))
	print('order=%s' % ('le' if order == '<' else 'be'))
	print('hdr_len=%d' % hdr_len)
	for n in names:
	    print('%s=%d' % (n, vals[n]))
	if vals.get('layout_len'):
	    lo = hdr_len + vals['layout_off']
	    print('table=%s' % d[lo:lo + vals['layout_len']].hex())
	t = hdr_len + vals['type_off']
	s = hdr_len + vals['str_off']
	print('types=%s' % d[t:t + vals['type_len']].hex())
	print('strs=%s' % d[s:s + vals['str_len']].hex())
	print('size=%d' % len(d))
	EOF
}

# field FILE NAME: one field of btf_header FILE
field() {
	btf_header "$1" | sed -n "s/^$2=//p"
}

# libbpf 1.8's table, kind by kind from UNKN to ENUM64: { info_sz,
# elem_sz, flags (u16, 0) }: INT 4; ARRAY 12; STRUCT, UNION 12 a member;
# ENUM 8 a value; FUNC_PROTO 8 a parameter; VAR 4; DATASEC 12 a variable;
# DECL_TAG 4; ENUM64 12 a value; the others nothing.
TABLE=$(python3 -c '
k = [(0,0),(4,0),(0,0),(12,0),(0,12),(0,12),(0,8),(0,0),(0,0),(0,0),
     (0,0),(0,0),(0,0),(0,8),(4,0),(0,12),(0,0),(4,0),(0,0),(0,12)]
print("".join("%02x%02x0000" % e for e in k))')

# prog (x86-64) or prog.s390x: tests/fixtures/features.c through cc-btf,
# linked; mod.ko a module of tests/fixtures/arrays.c on it.
make_prog() {
	local cross=${1:-} lds=()
	[ -n "$cross" ] || lds=(-T "$FIXTURES/link.lds")
	"$CC_BTF" "${cross}gcc" -g -O2 -c "$FIXTURES/features.c" -o f.o
	"${cross}ld" "${lds[@]}" -o prog f.o 2>/dev/null
	"$CC_BTF" "${cross}gcc" -g -O2 -c "$FIXTURES/arrays.c" -o m.o
	"${cross}ld" -r -o mod.ko m.o
}

@test "layout: base BTF gets libbpf 1.8's header and table, the types and strings as without it" {
	need_tools
	need_cmd python3 bpftool
	make_prog
	"$BTF_LINK" --btf_features=$F73 -o lay.btf prog
	"$BTF_LINK" --btf_features=${F73/layout,/} -o plain.btf prog
	btf_header lay.btf > lay.h
	btf_header plain.btf > plain.h
	grep -qx 'hdr_len=32' lay.h
	grep -qx 'type_off=0' lay.h
	grep -qx 'layout_len=80' lay.h
	local tl
	tl=$(field lay.btf type_len)
	[ "$(field lay.btf layout_off)" -eq "$tl" ]
	[ "$(field lay.btf str_off)" -eq $((tl + 80)) ]
	[ "$(field lay.btf table)" = "$TABLE" ]
	[ "$(field lay.btf size)" -eq $(($(field plain.btf size) + 8 + 80)) ]
	# the layout adds the table and two words of header, nothing else
	grep -qx 'hdr_len=24' plain.h
	[ "$(field lay.btf types)" = "$(field plain.btf types)" ]
	[ "$(field lay.btf strs)" = "$(field plain.btf strs)" ]
	# libbpf 1.1's bpftool and btf-link --compare read it
	bpftool btf dump file lay.btf > lay.dump
	bpftool btf dump file plain.btf > plain.dump
	diff -u plain.dump lay.dump
	run "$BTF_LINK" --compare plain.btf lay.btf
	[ "$status" -eq 0 ]
	# in place into a relocatable file, and as kbuild's BTF object
	ld -r -o rel.o f.o
	"$BTF_LINK" --btf_features=$F73 rel.o
	objcopy --dump-section .BTF=in.btf rel.o /dev/null
	"$BTF_LINK" --btf_features=$F73 -o rel.btf f.o
	cmp rel.btf in.btf
	[ "$(field in.btf table)" = "$TABLE" ]
	"$BTF_LINK" --btf_features=$F73 --object obj.o prog
	objcopy --dump-section .BTF=obj.btf obj.o /dev/null
	cmp lay.btf obj.btf
}

@test "layout: split BTF gets no table; a base with one links modules as one without" {
	need_tools
	need_cmd python3 bpftool
	make_prog
	"$BTF_LINK" --btf_features=$F73 -o base-lay prog
	"$BTF_LINK" --btf_features=${F73/layout,/} -o base-plain prog
	"$BTF_LINK" --btf_features=$F73 --base base-lay -o mod-lay.btf mod.ko
	"$BTF_LINK" --btf_features=${F73/layout,/} --base base-plain -o mod-plain.btf mod.ko
	[ "$(field mod-lay.btf hdr_len)" -eq 24 ]
	cmp mod-lay.btf mod-plain.btf
	bpftool -B base-lay btf dump file mod-lay.btf > /dev/null
	run "$BTF_LINK" --compare --base base-lay mod-plain.btf mod-lay.btf
	[ "$status" -eq 0 ]
}

@test "layout: a big-endian (s390x) image: the header in its order, read back" {
	need_tools
	need_cmd python3 s390x-linux-gnu-gcc s390x-linux-gnu-ld
	make_prog s390x-linux-gnu-
	"$BTF_LINK" --btf_features=$F73 -o lay.btf prog
	"$BTF_LINK" --btf_features=${F73/layout,/} -o plain.btf prog
	[ "$(field lay.btf order)" = be ]
	[ "$(field lay.btf hdr_len)" -eq 32 ]
	[ "$(field lay.btf table)" = "$TABLE" ]
	[ "$(field lay.btf types)" = "$(field plain.btf types)" ]
	# libbpf 1.1 reads the other byte order with a 24-byte header only:
	# parse.c cuts the header, the table stays a gap
	run "$BTF_LINK" --compare plain.btf lay.btf
	[ "$status" -eq 0 ]
	"$BTF_LINK" --btf_features=$F73 --base lay.btf -o mod.btf mod.ko
	[ "$(field mod.btf order)" = be ]
	[ "$(field mod.btf hdr_len)" -eq 24 ]
}

@test "layout: a table that is not between the types and the strings is refused in the other byte order" {
	need_tools
	need_cmd python3 s390x-linux-gnu-gcc s390x-linux-gnu-ld
	make_prog s390x-linux-gnu-
	"$BTF_LINK" --btf_features=$F73 -o lay.btf prog
	# layout_off moved past the strings
	python3 - <<-'EOF'
	import struct
	d = bytearray(open('lay.btf', 'rb').read())
	struct.pack_into('>I', d, 24, 0x7ffffff0)
	open('bad.btf', 'wb').write(d)
	EOF
	cp lay.btf lay.orig
	run "$BTF_LINK" --compare lay.btf bad.btf
	[ "$status" -eq 2 ]
	[[ $output == *bad.btf* ]]
	cmp lay.btf lay.orig
}

# bats test_tags=upstream
@test "layout: the lab's upstream pahole writes the same header and table, and means the same" {
	need_lab_pahole
	need_tools
	need_cmd python3
	make_prog
	"$LAB_PAHOLE" -J --btf_features=${F73%,reproducible_build} \
		--btf_encode_detached=up.btf prog
	"$BTF_LINK" --btf_features=$F73 -o ours.btf prog
	[ "$(field up.btf hdr_len)" -eq 32 ]
	[ "$(field up.btf table)" = "$(field ours.btf table)" ]
	[ "$(field up.btf layout_off)" -eq "$(field up.btf type_len)" ]
	run "$BTF_LINK" --compare up.btf ours.btf
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}
