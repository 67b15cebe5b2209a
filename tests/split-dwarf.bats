#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Objects compiled with -gsplit-dwarf (issue 47): the object holds a
# skeleton unit and the relocated .debug_addr, the DIEs are in the .dwo
# file the skeleton names (docs/design.md, "Split DWARF"). The BTF of such
# an object is the BTF of the same source compiled without -gsplit-dwarf,
# byte for byte: every fixture tests/encoder.bats and tests/clang.bats
# encode, by gcc and clang, DWARF 5 and 4 (GNU's split DWARF), some with
# -gz (compressed .dwo sections). A .dwo that is missing, stale (of another
# compile) or damaged is one error naming the object and the .dwo.
# Fixtures are compiled here; the clang tests skip without clang.

load test_helper

bats_require_minimum_version 1.5.0

# Each test works in $WORK/w: bats keeps files of its own in $WORK.
setup() {
	WORK=$BATS_TEST_TMPDIR
	mkdir -p "$WORK/w"
	cd "$WORK/w" || return 1
}

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc readelf objcopy bpftool cc-btf"

# fixtures FILE VAR: the fixture names tests/FILE lists in VAR="..."
# (tests/encoder.bats' ENCODED_FIXTURES, tests/clang.bats'
# CLANG_FIXTURES): this file encodes every one of them.
fixtures() {
	awk -v v="$2=" 'index($0, v) == 1 { on = 1; $0 = substr($0, length(v) + 1) }
		on { end = /"[ \t]*$/; gsub(/"/, ""); print; if (end) exit }' \
		"$BATS_TEST_DIRNAME/$1"
}

# same_btf CC DWARF NAME [FLAGS...]: tests/fixtures/NAME.c compiled by CC
# with -gDWARF, with and without -gsplit-dwarf, encodes to the same BTF;
# the split object's DWARF really is split (a skeleton and a .dwo).
same_btf() {
	local cc=$1 v=$2 name=$3 base=$1-$2-$3 plain=()
	shift 3
	# clang leaves out DW_OP_convert (and the helper base types it names,
	# "DW_ATE_unsigned_24") from split DWARF 5 tuned for gdb: the plain
	# compile is told to leave it out too, for the same DWARF types
	[ "$cc" = clang ] && [ "$v" = 5 ] && plain=(-mllvm -dwarf-op-convert=Disable)
	# (gcc warns of the btf_*_tag attributes it does not know)
	"$cc" -g -gdwarf-"$v" -O2 "$@" "${plain[@]}" -c "$FIXTURES/$name.c" \
		-o "$base.o" 2>>cc.err
	"$cc" -g -gdwarf-"$v" -O2 "$@" -gsplit-dwarf -c "$FIXTURES/$name.c" \
		-o "$base-s.o" 2>>cc.err
	[ -f "$base-s.dwo" ] || { echo "$base-s.o: no .dwo"; return 1; }
	readelf -SW "$base-s.o" | grep -q ' \.debug_info ' || return 1
	readelf -SW "$base-s.dwo" | grep -q ' \.debug_info\.dwo ' || return 1
	"$CC_BTF" --encode -o "$base.btf" "$base.o"
	"$CC_BTF" --encode -o "$base-s.btf" "$base-s.o"
	cmp "$base.btf" "$base-s.btf" || {
		diff <(bpftool btf dump file "$base.btf") \
		     <(bpftool btf dump file "$base-s.btf") | head -20
		return 1
	}
}

# every_fixture CC: same_btf for each fixture of both files, DWARF 5 and 4.
every_fixture() {
	local name v n=0
	for name in $(fixtures encoder.bats ENCODED_FIXTURES) \
		    $(fixtures clang.bats CLANG_FIXTURES); do
		for v in 5 4; do
			same_btf "$1" "$v" "$name" ||
				{ echo "$1 -gdwarf-$v $name: the BTF differs"; return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 40 ]
}

# dump_has BTF PATTERN...: the bpftool dump of BTF has each (grep -E)
# pattern: the comparison was of BTF with the fixture's point in it.
dump_has() {
	local btf=$1 p
	shift
	bpftool btf dump file "$btf" > "$btf.dump"
	for p in "$@"; do
		grep -Eq "$p" "$btf.dump" || { echo "$btf: no '$p'"; return 1; }
	done
}

@test "split-dwarf: gcc, DWARF 5 and 4: every fixture encodes as without it" {
	need_tools
	every_fixture gcc
	# per-CPU VARs by DW_OP_addrx (DWARF 5) and DW_OP_GNU_addr_index (4)
	# into the object's .debug_addr, FUNCs, a DATASEC
	dump_has gcc-5-percpu-s.btf "^\[[0-9]+\] VAR '" "^\[[0-9]+\] FUNC '" \
		"^\[[0-9]+\] DATASEC '\.data\.\.percpu'"
	dump_has gcc-4-percpu-s.btf "^\[[0-9]+\] VAR '" "^\[[0-9]+\] FUNC '"
}

@test "split-dwarf: clang, DWARF 5 and 4: every fixture encodes as without it" {
	need_tools
	need_cmd clang
	every_fixture clang
	dump_has clang-5-percpu-s.btf "^\[[0-9]+\] VAR '" "^\[[0-9]+\] FUNC '"
	dump_has clang-4-percpu-s.btf "^\[[0-9]+\] VAR '" "^\[[0-9]+\] FUNC '"
	# btf_type_tag and btf_decl_tag come from the .dwo's annotations
	dump_has clang-5-btf-tags-s.btf "^\[[0-9]+\] TYPE_TAG '" \
		"^\[[0-9]+\] DECL_TAG '"
}

@test "split-dwarf: -gz, compressed .dwo sections" {
	local cc v
	need_tools
	for cc in gcc clang; do
		command -v "$cc" >/dev/null || continue
		for v in 5 4; do
			same_btf "$cc" "$v" percpu -gz
			# the .dwo's sections really are compressed (flag C)
			readelf -SW "$cc-$v-percpu-s.dwo" |
				grep -q '\.debug_info\.dwo .* [A-Z]*C[A-Z]* '
		done
	done
	dump_has gcc-5-percpu-s.btf "^\[[0-9]+\] VAR '"
}

@test "split-dwarf: the wrapper leaves x.o with .BTF and x.dwo beside it" {
	need_tools
	cp "$FIXTURES/percpu.c" x.c
	"$CC_BTF" gcc -g -O2 -c x.c -o plain.o
	run --separate-stderr "$CC_BTF" gcc -g -gsplit-dwarf -O2 -c x.c -o x.o
	[ "$status" -eq 0 ]
	[ -z "$output" ] && [ -z "$stderr" ]
	[ -f x.dwo ]
	# the same .BTF, and the same .debug_btf_addr (slots, FUNC flags
	# from the .dwo's parameter locations) but for its relocations
	section_bytes plain.o .BTF plain.btf
	section_bytes x.o .BTF x.btf
	cmp plain.btf x.btf
	section_bytes plain.o .debug_btf_addr plain.addr
	section_bytes x.o .debug_btf_addr x.addr
	cmp plain.addr x.addr
}

# split OBJ: x.c (tests/fixtures/percpu.c) compiled by gcc -gsplit-dwarf
# as OBJ, its .dwo beside it.
split() {
	cp "$FIXTURES/percpu.c" x.c
	gcc -g -O2 -gsplit-dwarf -c x.c -o "$1"
}

# refused OBJ WORD...: cc-btf --encode OBJ in place fails with one error
# naming OBJ and holding each WORD, and leaves OBJ and the directory as
# they were: no BTF from the skeleton alone.
refused() {
	local obj=$1
	shift
	keep "$obj"
	run --separate-stderr "$CC_BTF" --encode "$obj"
	one_error cc-btf 1 "$obj: " "$@"
	unchanged "$obj"
}

@test "split-dwarf: a missing .dwo is an error naming the object and the .dwo" {
	need_tools
	split x.o
	rm x.dwo
	refused x.o "$PWD/x.dwo: cannot open the split DWARF file: No such file or directory"
}

@test "split-dwarf: a stale .dwo (of another compile) is an error" {
	need_tools
	split x.o
	mv x.dwo old.dwo
	echo 'int added_later;' >>x.c
	gcc -g -O2 -gsplit-dwarf -c x.c -o x.o
	mv old.dwo x.dwo
	refused x.o "$PWD/x.dwo: stale split DWARF file: its dwo_id 0x" \
		"is not the object's 0x"
}

@test "split-dwarf: a damaged .dwo is an error" {
	local at
	need_tools
	split x.o
	cp x.dwo good.dwo
	truncate -s 600 x.dwo
	refused x.o "$PWD/x.dwo: " "truncated"
	: >x.dwo
	refused x.o "$PWD/x.dwo: bad split DWARF file: not ELF"
	# the unit length of .debug_info.dwo past its end
	cp good.dwo x.dwo
	at=$(readelf -SW x.dwo | sed -n 's/^ *\[ *[0-9]*\] \.debug_info\.dwo  *[A-Z]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	printf '\377\377\377\177' | dd of=x.dwo bs=1 seek=$((0x$at)) conv=notrunc status=none
	refused x.o "$PWD/x.dwo: bad split DWARF file: .debug_info.dwo: unit length past the end"
	# the unit DIE's abbreviation code (past the 20-byte header) one
	# that the table does not have
	cp good.dwo x.dwo
	printf '\177' | dd of=x.dwo bs=1 seek=$((0x$at + 20)) conv=notrunc status=none
	refused x.o "$PWD/x.dwo: " "unknown abbreviation code"
}

@test "split-dwarf: in wrapper mode a failure removes the object for make" {
	need_tools
	cp "$FIXTURES/percpu.c" x.c
	# a compiler that loses the .dwo it wrote
	cat >cc.sh <<-'EOF'
	#!/bin/sh
	gcc "$@" && rm -f x.dwo
	EOF
	chmod +x cc.sh
	run --separate-stderr "$CC_BTF" ./cc.sh -g -gsplit-dwarf -O2 -c x.c -o x.o
	one_error cc-btf 1 "x.o: $PWD/x.dwo: cannot open the split DWARF file"
	[ ! -e x.o ]
}
