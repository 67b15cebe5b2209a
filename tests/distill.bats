#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --base --btf_features=...,distilled_base: a module's split BTF
# on a distilled base in .BTF.base, as pahole 1.28+ makes it with libbpf
# 1.5's btf__distill_base() (docs/design.md, "Split BTF for modules").
#
# tests/fixtures/distill.c is the "vmlinux" (-DBASE, linked with link.lds)
# and the module (-DMOD, `ld -r`). The distilled base's rules are checked
# on bpftool's dumps; the upstream tier compares with pahole itself.

load test_helper

bats_require_minimum_version 1.5.0

CFLAGS_DISTILL="-g -O2 -ffunction-sections -fdata-sections"
FEATS="--btf_features=+distilled_base"

# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc ld objcopy bpftool cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 link.lds is the layout of x86-64"

# distill_fixture: vmlinux and mod.o (its archive, not linked yet).
distill_fixture() {
	"$CC_BTF" gcc $CFLAGS_DISTILL -DBASE -c "$FIXTURES/distill.c" -o base.o
	ld -T "$FIXTURES/link.lds" -o vmlinux base.o 2>/dev/null
	"$BTF_LINK" vmlinux
	"$CC_BTF" gcc $CFLAGS_DISTILL -DMOD -c "$FIXTURES/distill.c" -o m.o
	ld -r -o mod.o m.o
	cp mod.o mod-archive.o
}

# dump_sections OBJ PREFIX: PREFIX.base.raw, PREFIX.split.raw and the
# dumps PREFIX.base (the distilled base) and PREFIX.split (split on it).
dump_sections() {
	objcopy --dump-section .BTF="$2.split.raw" \
		--dump-section .BTF.base="$2.base.raw" "$1" "$2.junk"
	bpftool btf dump file "$2.base.raw" > "$2.base"
	bpftool -B "$2.base.raw" btf dump file "$2.split.raw" > "$2.split"
}

@test "distill: .BTF.base holds what the split BTF names, reduced" {
	need_tools
	distill_fixture
	"$BTF_LINK" --base vmlinux "$FEATS" mod.o
	dump_sections mod.o ours
	cat ours.base
	# a struct embedded by value, one only pointed to: sized, no members
	grep -qx "\[[0-9]*\] STRUCT 'embedded' size=16 vlen=0" ours.base
	grep -qx "\[[0-9]*\] STRUCT 'opaque' size=24 vlen=0" ours.base
	grep -qx "\[[0-9]*\] UNION 'word' size=4 vlen=0" ours.base
	# enums without values, an ENUM64 as a sized ENUM; ints in full
	grep -qx "\[[0-9]*\] ENUM 'state' encoding=UNSIGNED size=4 vlen=0" ours.base
	grep -qx "\[[0-9]*\] ENUM 'big' encoding=UNSIGNED size=8 vlen=0" ours.base
	grep -qx "\[[0-9]*\] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED" ours.base
	# nothing else: no typedef, pointer, array or anonymous type
	[ "$(grep -c '^\[' ours.base)" -eq 8 ]
	# those are copied into the split BTF
	[ "$(count_kind ours.split TYPEDEF u32_t)" -eq 1 ]
	[ "$(count_kind ours.split TYPEDEF point_t)" -eq 1 ]
	[ "$(count_kind ours.split TYPEDEF visit_t)" -eq 1 ]
	grep -q "^\[[0-9]*\] STRUCT '(anon)' size=8 vlen=2" ours.split
	grep -q "^\[[0-9]*\] ARRAY '(anon)' .* nr_elems=4" ours.split
	# the module's struct refers to the distilled base's struct
	local emb
	emb=$(id_of ours.base STRUCT embedded)
	sed -n "/^\[[0-9]*\] STRUCT 'holder' /,/^\[/p" ours.split |
		grep -qx "	'e' type_id=$emb bits_offset=0"
}

@test "distill: the same split BTF by meaning, in place and in an --object" {
	need_tools
	distill_fixture
	cp mod.o plain.o
	"$BTF_LINK" --base vmlinux plain.o
	"$BTF_LINK" --base vmlinux "$FEATS" --object obj.o mod-archive.o
	"$BTF_LINK" --base vmlinux "$FEATS" mod.o
	# the typedefs the split BTF names, now its own, are all it adds
	run -1 "$BTF_LINK" --compare --base vmlinux plain.o mod.o
	echo "$output"
	[ "$output" = "+ typedef point_t: struct (size 8) {x int @0, y int @32}
+ typedef u32_t: unsigned int
+ typedef visit_t: int (*)(struct opaque *, void *)" ]
	same_btf mod.o obj.o
	dump_sections mod.o a
	dump_sections obj.o b
	cmp a.base.raw b.base.raw
	cmp a.split.raw b.split.raw
	# listed, as pahole lists it
	"$BTF_LINK" --supported_btf_features | grep -q '\(^\|,\)distilled_base\(,\|$\)'
}

@test "distill: refused without --base, with -o, and for a linked image" {
	need_tools
	distill_fixture
	run -2 "$BTF_LINK" "$FEATS" mod.o
	[[ "$output" == *"distilled_base is for a module's split BTF: it needs a base"* ]]
	run -2 "$BTF_LINK" --base vmlinux "$FEATS" -o out.raw mod.o
	[[ "$output" == *"not with -o"* ]]
	[ ! -e out.raw ]
	cmp mod.o mod-archive.o
	cp vmlinux v2
	run -2 "$BTF_LINK" -f --base vmlinux "$FEATS" v2
	[[ "$output" == *"distilled_base is for modules"* ]]
	cmp vmlinux v2
}

# bats test_tags=upstream
@test "distill: the lab's upstream pahole writes the same .BTF.base and means the same" {
	local P
	need_lab_pahole
	P=$LAB_PAHOLE
	need_tools
	"$P" --supported_btf_features | grep -q distilled_base ||
		skip "$P has no distilled_base (built on libbpf < 1.5)"
	distill_fixture
	# pahole reads the DWARF; cc-btf's address slots must go
	objcopy -R .debug_btf_addr -R .rela.debug_btf_addr mod.o lab.o
	"$P" -J --btf_base vmlinux --btf_features=default,distilled_base lab.o
	"$BTF_LINK" --base vmlinux --btf_features=default,distilled_base mod.o
	dump_sections lab.o lab
	dump_sections mod.o ours
	diff -u lab.base ours.base
	cmp lab.base.raw ours.base.raw
	same_btf lab.o mod.o
}
