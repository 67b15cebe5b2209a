#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Objects built by clang (Debian 12: clang 14, as `make LLVM=1` builds a
# kernel), against Debian's pahole 1.24 on the same object.
#
# clang's DWARF differs from GCC's where the encoder must follow it:
#  - DWARF 5 (its default) names strings and addresses by index:
#    DW_FORM_strx*, DW_AT_str_offsets_base, DW_OP_addrx into .debug_addr
#    from DW_AT_addr_base, every .debug_addr entry 0 plus a relocation;
#  - __attribute__((btf_type_tag)) and btf_decl_tag come as
#    DW_TAG_LLVM_annotation children and become TYPE_TAG and DECL_TAG;
#  - helper base types of odd sizes ("DW_ATE_unsigned_24") for
#    DW_OP_convert;
#  - -flto writes LLVM bitcode, with no DWARF to encode.
# Fixtures are compiled here by clang, as DWARF 5 (no -g flag) and with
# -gdwarf-4. Every test skips without clang.

load test_helper

bats_require_minimum_version 1.5.0

# The fixtures of this file; the loop test also runs every other one.
CLANG_FIXTURES="btf-tags btf-tags-b odd-ints"

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="clang pahole bpftool readelf objcopy cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 the expected layouts and sections are those of x86-64"

# cbuild NAME DWARF [CFLAGS...]: tests/fixtures/NAME.c as NAME-dDWARF.o by
# clang -g -O2, DWARF 5 as its default and 4 with -gdwarf-4, checked.
cbuild() {
	local name=$1 version=$2 flags=() obj=$1-d$2.o
	shift 2
	[ "$version" = 4 ] && flags=(-gdwarf-4)
	clang -g -O2 "${flags[@]}" "$@" -c "$FIXTURES/$name.c" -o "$obj"
	readelf --debug-dump=info "$obj" | grep "Version: *$version\$" >/dev/null || {
		echo "$obj: not DWARF $version"
		return 1
	}
}

# cencode NAME DWARF: cbuild, then ours-NAME-dDWARF.btf and ref-...btf
# (pahole 1.24, the kernel's flags) and their bpftool dumps.
cencode() {
	local base=$1-d$2
	cbuild "$1" "$2"
	encode_as_pahole124 "$base.o" "ours-$base.btf"
	pahole_btf "$base.o" "ref-$base.btf" 2>"pahole-$base.err"
	bpftool btf dump file "ours-$base.btf" > "ours-$base.dump"
	bpftool btf dump file "ref-$base.btf" > "ref-$base.dump"
}

# kind_count DUMP KIND: how many types of KIND a bpftool dump has.
kind_count() {
	grep -c "^\[[0-9]*\] $2 " "$1" || true
}

# subsection_syms OBJ: the symbols of OBJ in a .data..percpu..* section.
subsection_syms() {
	readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \(\.data\.\.percpu\.\.[^ ]*\) .*/\1/p' |
	while read -r ndx; do
		readelf -sW "$1" | awk -v n="$ndx" '$7 == n { print $8 }'
	done
}

# section_size_dec OBJ NAME: the size of section NAME of OBJ, in decimal.
section_size_dec() {
	local hex
	hex=$(readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i < NF; i++) if ($i == s) print $(i + 4) }')
	echo $((0x$hex))
}

# pi_alias OBJ X: OBJ defines X and __pi_X at one address.
pi_alias() {
	local a b
	a=$(nm "$1" | awk -v n="$2" '$3 == n { print $1 }')
	b=$(nm "$1" | awk -v n="__pi_$2" '$3 == n { print $1 }')
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# pi_entries OBJ A B: DATASEC entries A and B are the same but where A
# names an alias __pi_X of OBJ's X.
pi_entries() {
	local obj=$1 a=$2 x
	for x in $(grep -o '__pi_[A-Za-z0-9_]*' <<< "$a" | sort -u); do
		pi_alias "$obj" "${x#__pi_}" || return 1
		a=${a//$x @/${x#__pi_} @}
	done
	[ "$a" = "$3" ] && [ "$2" != "$3" ]
}

# expected_line OBJ PAHOLE_ERR LINE: LINE of `btf-link --compare ref ours`
# is one of the differences we chose (docs/design.md), by rule:
#  - a VAR or DATASEC of a .data..percpu subsection only we have (pahole on
#    one object knows ".data..percpu" alone);
#  - a DATASEC whose entries agree but whose size is, in ours, the
#    section's (pahole sizes it to its last variable's end; they differ
#    when clang split a static into pieces, one symbol each);
#  - under DWARF 5, when pahole said it does not know DW_TAG_atomic_type,
#    a struct whose _Atomic members it made void;
#  - a per-CPU variable X with an alias __pi_X at its address (Linux 7.x's
#    SYM_PIC_ALIAS): pahole 1.24 names the VAR and the DATASEC entry after
#    the alias, which the object's symbol table (clang's) lists first; we
#    after the variable. The object must have both symbols at one address.
expected_line() {
	local obj=$1 perr=$2 line=$3 name re
	case $line in
	"+ datasec .data..percpu.."*) return 0 ;;
	"- var __pi_"*)
		name=${line#- var __pi_}
		name=${name%%:*}
		pi_alias "$obj" "$name" && return 0 ;;
	"+ var "*)
		name=${line#+ var }
		name=${name%%:*}
		pi_alias "$obj" "$name" && return 0
		subsection_syms "$obj" | grep -qx "$name" && return 0 ;;
	"~ datasec "*)
		name=${line#\~ datasec }
		name=${name%%:*}
		re="^~ datasec [^:]*: a: size ([0-9]+) (\{.*\}) \| b: size ([0-9]+) (\{.*\})\$"
		# the same entries but for __pi_X for an alias X
		[[ $line =~ $re ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[3]}" ] &&
			pi_entries "$obj" "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]}" &&
			return 0
		re="^~ datasec [^:]*: a: size [0-9]+ (\{.*\}) \| b: size ([0-9]+) (\{.*\})\$"
		[[ $line =~ $re ]] &&
			[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[3]}" ] &&
			[ "${BASH_REMATCH[2]}" = "$(section_size_dec "$obj" "$name")" ] &&
			return 0 ;;
	"~ struct "*" void @"*)
		grep -q "tag not supported 0x47" "$perr" && return 0 ;;
	esac
	return 1
}

@test "clang: every C fixture, DWARF 5 and 4, as pahole 1.24 (chosen differences only)" {
	need_tools
	local f name version line bad=0 n=0
	for f in "$FIXTURES"/*.c; do
		name=$(basename "$f" .c)
		[ "$name" = unsupported-complex ] && continue	# an error, badinput
		case $name in	# programs over the library, not fixtures
		features-api|dedup-diff) continue ;;
		esac
		for version in 5 4; do
			cencode "$name" "$version"
			run "$BTF_LINK" --compare "ref-$name-d$version.btf" \
				"ours-$name-d$version.btf"
			[ "$status" -le 1 ] || { echo "$name: $output"; return 1; }
			while IFS= read -r line; do
				[ -n "$line" ] || continue
				expected_line "$name-d$version.o" \
					"pahole-$name-d$version.err" "$line" && continue
				echo "$name, DWARF $version: $line"
				bad=1
			done <<< "$output"
			n=$((n + 1))
		done
	done
	[ "$bad" -eq 0 ]
	[ "$n" -gt 0 ]
}

@test "clang: DWARF 5 per-CPU variables (DW_OP_addrx into .debug_addr) as pahole" {
	need_tools
	local name version
	for name in percpu percpu-local; do
		for version in 5 4; do
			cencode "$name" "$version"
			# pahole's .data..percpu VARs are all ours, and there are some.
			sed -n "s/^\[[0-9]*\] VAR '\([^']*\)'.*/\1/p" "ref-$name-d$version.dump" |
				sort > ref.vars
			sed -n "s/^\[[0-9]*\] VAR '\([^']*\)'.*/\1/p" "ours-$name-d$version.dump" |
				sort > ours.vars
			[ -s ref.vars ]
			comm -23 ref.vars ours.vars > missing
			[ ! -s missing ] || { echo "DWARF $version: no VAR for:"; cat missing; return 1; }
		done
		# DWARF 5 addresses them by index, DWARF 4 by DW_OP_addr.
		readelf --debug-dump=info "$name-d5.o" | grep -q "DW_OP_addrx"
		readelf --debug-dump=info "$name-d4.o" | grep -q "DW_OP_addr:"
	done
	grep -q "^\[[0-9]*\] VAR 'count_hit.hits' " ours-percpu-local-d5.dump
}

@test "clang: the DWARF 5 index forms (strx, addrx, loclistx, rnglistx, the bases)" {
	need_tools
	cencode btf-tags 5
	readelf --debug-dump=info btf-tags-d5.o > info
	local what
	for what in DW_AT_str_offsets_base DW_AT_addr_base "DW_FORM_strx1" DW_OP_addrx; do
		grep -q "$what" info || readelf --debug-dump=abbrev btf-tags-d5.o | grep -q "$what" || {
			echo "the object has no $what"
			return 1
		}
	done
	same_btf ref-btf-tags-d5.btf ours-btf-tags-d5.btf
	# With -ffunction-sections: DW_FORM_rnglistx (the unit's ranges) and
	# DW_FORM_loclistx (a parameter's locations), read over.
	clang -g -O2 -ffunction-sections -c "$FIXTURES/btf-tags.c" -o fs.o
	readelf --debug-dump=abbrev fs.o > abbrev
	grep -q DW_FORM_rnglistx abbrev
	grep -q DW_FORM_loclistx abbrev
	"$CC_BTF" --encode -o fs.btf fs.o
	pahole_btf fs.o fs-ref.btf
	same_btf fs-ref.btf fs.btf
	# Two units of one object (ld -r), each with its own bases.
	cbuild percpu-local 5
	ld -r -o two.o btf-tags-d5.o percpu-local-d5.o
	[ "$(readelf --debug-dump=info two.o | grep -c 'DW_AT_addr_base')" -eq 2 ]
	"$CC_BTF" --encode -o two.btf two.o
	pahole_btf two.o two-ref.btf
	same_btf two-ref.btf two.btf
	bpftool btf dump file two.btf > two.dump
	grep -q "^\[[0-9]*\] VAR 'count_hit.hits' " two.dump
	grep -q "^\[[0-9]*\] VAR 'pcpu_tagged' " two.dump
}

@test "clang: btf-tags.c: TYPE_TAG and DECL_TAG as pahole, as many" {
	need_tools
	local version kind
	for version in 5 4; do
		cencode btf-tags "$version"
		same_btf "ref-btf-tags-d$version.btf" "ours-btf-tags-d$version.btf"
		for kind in TYPE_TAG DECL_TAG; do
			[ "$(kind_count "ours-btf-tags-d$version.dump" $kind)" -gt 0 ]
			[ "$(kind_count "ours-btf-tags-d$version.dump" $kind)" -eq \
			  "$(kind_count "ref-btf-tags-d$version.dump" $kind)" ] || {
				echo "DWARF $version: $kind counts differ"
				return 1
			}
		done
	done
	# Every place of the fixture: a member (component 2: "three"), a
	# parameter (component 3 of tagfunc), a struct, a typedef, a VAR, a
	# function-local static, a static FUNC; never a non-per-CPU variable.
	local d=ours-btf-tags-d5.dump id
	grep -q "DECL_TAG 'm2' type_id=[0-9]* component_idx=2\$" $d
	id=$(sed -n "s/^\[\([0-9]*\)\] FUNC 'tagfunc'.*/\1/p" $d)
	grep -q "DECL_TAG 'param_tag' type_id=$id component_idx=3\$" $d
	grep -q "DECL_TAG 'struct_tag2' type_id=[0-9]* component_idx=-1\$" $d
	grep -q "DECL_TAG 'typedef_tag' " $d
	id=$(sed -n "s/^\[\([0-9]*\)\] VAR 'static_func.hits'.*/\1/p" $d)
	grep -q "DECL_TAG 'local_var_tag' type_id=$id " $d
	id=$(sed -n "s/^\[\([0-9]*\)\] FUNC 'static_func'.*/\1/p" $d)
	grep -q "DECL_TAG 'n_tag' type_id=$id component_idx=1\$" $d
	run ! grep -q "not_percpu" $d
	# two and three tags on one pointee: the last nearest the pointer
	grep -q "TYPE_TAG 'percpu' type_id=" $d
}

@test "clang: a C type gets one tag shape in every object, which btf-link merges" {
	need_tools
	cbuild btf-tags 5
	cbuild btf-tags-b 5
	"$CC_BTF" --encode btf-tags-d5.o btf-tags-b-d5.o
	section_bytes btf-tags-d5.o .BTF a.btf
	section_bytes btf-tags-b-d5.o .BTF b.btf
	# the same struct, byte for byte the same shape, in both objects
	bpftool btf dump file a.btf format c | sed -n '/^struct tagged {/,/^};/p' > a.c
	bpftool btf dump file b.btf format c | sed -n '/^struct tagged {/,/^};/p' > b.c
	[ -s a.c ]
	diff -u a.c b.c
	# linked: each tagged pointer type once, as in one object
	ld -r -o ab.o btf-tags-d5.o btf-tags-b-d5.o
	"$BTF_LINK" -o ab.btf ab.o
	bpftool btf dump file ab.btf > ab.dump
	bpftool btf dump file a.btf > a.dump
	[ "$(grep -c "STRUCT 'tagged'" ab.dump)" -eq 1 ]
	[ "$(kind_count ab.dump TYPE_TAG)" -eq "$(kind_count a.dump TYPE_TAG)" ]
}

@test "clang: tags through btf-link: as pahole on the image (ld, ld.lld), with --gc-sections too" {
	need_tools
	need_cmd ld
	local o gc
	for o in btf-tags btf-tags-b; do
		"$CC_BTF" clang -g -O2 -ffunction-sections -fdata-sections \
			-c "$FIXTURES/$o.c" -o "$o.o"
	done
	local linker linkers=ld
	# make LLVM=1 links with ld.lld
	command -v ld.lld >/dev/null && linkers="ld ld.lld"
	for linker in $linkers; do
	for gc in "" --gc-sections; do
		$linker -T "$FIXTURES/link.lds" -e tags_entry -u tags_b_entry $gc \
			-o prog btf-tags.o btf-tags-b.o
		"$BTF_LINK" -o ours.btf prog
		pahole -J --btf_gen_floats --lang_exclude=rust \
			--btf_encode_detached=ref.btf prog 2>/dev/null
		same_btf ref.btf ours.btf
		bpftool btf dump file ours.btf > ours.dump
		bpftool btf dump file ref.btf > ref.dump
		[ "$(kind_count ours.dump DECL_TAG)" -eq "$(kind_count ref.dump DECL_TAG)" ]
		[ "$(kind_count ours.dump TYPE_TAG)" -eq "$(kind_count ref.dump TYPE_TAG)" ]
		# the second static_func is not kept, nor are its tags
		run ! grep -q "other_static_tag\|other_n_tag" ours.dump
		# tagfunc and its tag, where the link keeps it (clang 19
		# calls a specialized copy instead, and --gc-sections drops
		# the global one there)
		if [ -z "$gc" ] || nm prog | grep -q ' T tagfunc$'; then
			grep -q "DECL_TAG 'func_tag'" ours.dump
		fi
	done
	done
	# --gc-sections dropped gc_tagged() and pcpu_gc_tagged, and their tags
	run nm prog
	[[ $output != *gc_tagged* ]]
	run ! grep -q "gc_func_tag\|gc_param\|gc_var_tag" ours.dump
}

@test "clang: tags in a module's split BTF, as pahole --btf_base" {
	need_tools
	need_cmd ld
	local o
	for o in btf-tags btf-tags-b; do
		"$CC_BTF" clang -g -O2 -c "$FIXTURES/$o.c" -o "$o.o"
	done
	ld -T "$FIXTURES/link.lds" -e tags_entry -o vmlinux btf-tags.o
	"$BTF_LINK" vmlinux
	ld -r -o mod.o btf-tags-b.o
	cp mod.o mod-ref.o
	pahole -J --btf_gen_floats --lang_exclude=rust --btf_base vmlinux \
		--btf_encode_detached=ref.btf mod-ref.o 2>/dev/null
	"$BTF_LINK" --base vmlinux -o mod.btf mod.o
	# pahole 1.24 leaves some types the base has (struct tagged, its
	# typedef, their tags, a FUNC of them) in the split BTF again; we refer
	# to the base's. So: nothing we have that pahole lacks, and whatever
	# pahole has more, the base has.
	run "$BTF_LINK" --compare --base vmlinux ref.btf mod.btf
	[ "$status" -le 1 ]
	bpftool btf dump file vmlinux > base.dump
	local line kind name
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		[[ $line == "- "* ]] || { echo "we have more: $line"; return 1; }
		kind=${line#- }
		name=${kind#* }
		name=${name%%:*}
		kind=${kind%% *}
		kind=$(echo "$kind" | tr a-z A-Z)
		grep -q "^\[[0-9]*\] $kind '$name'" base.dump ||
			{ echo "not in the base either: $line"; return 1; }
	done <<< "$output"
	# the module's own tags are in its split part, the shared ones not
	bpftool btf dump file mod.btf -B vmlinux > mod.dump
	grep -q "DECL_TAG 'gc_func_tag'" mod.dump
	grep -q "DECL_TAG 'gc_param'" mod.dump
	run ! grep -q "DECL_TAG 'struct_tag'" mod.dump
}

@test "clang: odd-ints.c: odd-size base types are pahole's __SANITIZED_FAKE_INT__" {
	need_tools
	cencode odd-ints 5
	# the object has a base type of a size BTF cannot express
	readelf --debug-dump=info odd-ints-d5.o |
		awk '/DW_TAG_base_type/ { b = 1; next } /DW_TAG/ { b = 0 }
		     b && /DW_AT_byte_size/ && $NF != 1 && $NF != 2 && $NF != 4 &&
		     $NF != 8 && $NF != 16 { found = 1 } END { exit !found }'
	same_btf ref-odd-ints-d5.btf ours-odd-ints-d5.btf
	grep -q "INT '__SANITIZED_FAKE_INT__' size=4 " ours-odd-ints-d5.dump
	grep -q "INT '__SANITIZED_FAKE_INT__' size=4 " ref-odd-ints-d5.dump
}

@test "clang: -flto and -flto=thin: an error naming LTO, the object deleted; --warn keeps it" {
	need_tools
	local lto
	for lto in -flto -flto=thin; do
		run --separate-stderr "$CC_BTF" clang $lto -g -O2 -c "$FIXTURES/percpu.c" -o f.o
		[ "$status" -eq 1 ]
		[[ $stderr == "cc-btf: error: f.o: LLVM bitcode (clang -flto): an LTO object carries no DWARF to encode"* ]]
		[ ! -e f.o ]
		run --separate-stderr "$CC_BTF" --warn clang $lto -g -O2 -c "$FIXTURES/percpu.c" -o f.o
		[ "$status" -eq 0 ]
		[[ $stderr == "cc-btf: warning: f.o: LLVM bitcode"* ]]
		[ -e f.o ]
		run --separate-stderr "$CC_BTF" --encode f.o
		[ "$status" -eq 1 ]
		[[ $stderr == *"LTO object carries no DWARF"* ]]
	done
}

@test "clang: GCC's -flto -g is an error too; -flto without -g is left alone" {
	need_cmd gcc
	need_built
	run --separate-stderr "$CC_BTF" gcc -flto -g -O2 -c "$FIXTURES/percpu.c" -o f.o
	[ "$status" -eq 1 ]
	[[ $stderr == "cc-btf: error: f.o: a GCC LTO object (-flto): an LTO object carries no DWARF to encode"* ]]
	[ ! -e f.o ]
	run --separate-stderr "$CC_BTF" gcc -flto -O2 -c "$FIXTURES/percpu.c" -o f.o
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

# tests/split-dwarf.bats compares every fixture; this is the wrapper's way.
@test "clang: -gsplit-dwarf (DWARF 5 skeleton units) is encoded from the .dwo" {
	need_tools
	"$CC_BTF" clang -g -O2 -c "$FIXTURES/percpu.c" -o p.o
	run --separate-stderr "$CC_BTF" clang -g -gsplit-dwarf -O2 -c "$FIXTURES/percpu.c" -o s.o
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -f s.dwo ]
	section_bytes p.o .BTF p.btf
	section_bytes s.o .BTF s.btf
	cmp p.btf s.btf
}

@test "clang: encoding is deterministic" {
	need_tools
	cbuild btf-tags 5
	"$CC_BTF" --encode -o one.btf btf-tags-d5.o
	"$CC_BTF" --encode -o two.btf btf-tags-d5.o
	cmp one.btf two.btf
}

@test "clang: every fixture of this file exists" {
	local name
	for name in $CLANG_FIXTURES; do
		[ -f "$FIXTURES/$name.c" ] || { echo "no tests/fixtures/$name.c"; return 1; }
	done
}
