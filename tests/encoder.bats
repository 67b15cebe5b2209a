#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The DWARF -> BTF encoder (cc-btf --encode) against Debian's pahole 1.24.
#
# Each fixture in tests/fixtures/ is compiled here with `gcc -g -O2`, once
# as DWARF 5 (GCC 12's default) and once with -gdwarf-4. Both cc-btf and
# pahole (with the kernel's flags) encode the object, and
# `btf-link --compare` must find them semantically equal, except for the
# differences we chose, each spelled out below line for line:
#
#  - percpu.c: pahole on one object encodes only the per-CPU variables of
#    the section named exactly ".data..percpu"; we also encode those of its
#    subsections (".data..percpu..first", ...), one DATASEC per input
#    section, named after it;
#  - atomic.c: pahole 1.24 turns members of _Atomic type into void under
#    DWARF 5; we keep their type.
#
# Why pahole does what it does: tests/kernel/PAHOLE-NOTES.md.

load test_helper

bats_require_minimum_version 1.5.0

# Every fixture this file encodes; the last test checks none is forgotten.
# (Other fixtures, compare-*.c say, belong to other bats files.)
ENCODED_FIXTURES="anon-members arrays atomic bitfields dedup enums float-types
	forward-decls func-protos functions int-types packed-aligned percpu
	percpu-alias percpu-local qualifiers recursive typedefs vectors"
UNSUPPORTED_FIXTURES="unsupported-complex"

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc pahole bpftool readelf objcopy cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 the expected layouts and sections are those of x86-64"

# build NAME DWARF: tests/fixtures/NAME.c as $WORK/NAME-dDWARF.o, with
# DWARF 5 as the compiler's default (no -g flag) and 4 with -gdwarf-4, and
# make sure the object really has that DWARF version.
build() {
	local name=$1 version=$2 flags=() obj=$WORK/$1-d$2.o
	[ "$version" = 4 ] && flags=(-gdwarf-4)
	gcc -g -O2 "${flags[@]}" -c "$FIXTURES/$name.c" -o "$obj"
	readelf --debug-dump=info "$obj" | grep "Version: *$version\$" >/dev/null || {
		echo "$obj: not DWARF $version"
		return 1
	}
}

# encode_both NAME DWARF: build, then ours-NAME-dDWARF.btf (cc-btf) and
# ref-NAME-dDWARF.btf (pahole); both must be valid BTF with content.
encode_both() {
	local name=$1 version=$2 base=$1-d$2
	build "$name" "$version"
	encode_as_pahole124 "$base.o" "ours-$base.btf"
	pahole_btf "$base.o" "ref-$base.btf" 2>"pahole-$base.err"
	bpftool btf dump file "ours-$base.btf" > "ours-$base.dump"
	bpftool btf dump file "ref-$base.btf" > "ref-$base.dump"
	# Guard against comparing two empty BTFs: every fixture has a function.
	grep -q "^\[[0-9]*\] FUNC '" "ours-$base.dump"
	grep -q "^\[[0-9]*\] FUNC '" "ref-$base.dump"
}

# compare_both NAME DWARF: btf-link --compare pahole's BTF with ours.
compare_both() {
	run "$BTF_LINK" --compare "ref-$1-d$2.btf" "ours-$1-d$2.btf"
}

# same_as_pahole NAME MARKER...: for DWARF 5 and 4, NAME encodes as pahole
# encodes it, and each MARKER (a line start of `bpftool btf dump`, minus
# the type ID) is in both BTFs, so that the fixture's point was compared.
same_as_pahole() {
	local name=$1 version marker
	shift
	for version in 5 4; do
		encode_both "$name" "$version"
		for marker in "$@"; do
			grep -qF "] $marker" "ours-$name-d$version.dump" || {
				echo "DWARF $version: ours lacks: $marker"
				return 1
			}
			grep -qF "] $marker" "ref-$name-d$version.dump" || {
				echo "DWARF $version: pahole's lacks: $marker"
				return 1
			}
		done
		compare_both "$name" "$version"
		if [ "$status" -ne 0 ] || [ -n "$output" ]; then
			echo "DWARF $version: btf-link --compare exit $status:"
			echo "$output"
			return 1
		fi
	done
}

# funcs FILE: the names of the FUNCs in a `bpftool btf dump`, sorted.
funcs() {
	sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" "$1" | LC_ALL=C sort | tr '\n' ' '
}

@test "encoder: int-types.c (char, _Bool, __int128, ...) as pahole" {
	need_tools
	same_as_pahole int-types "STRUCT 'all_ints' size=96 vlen=14" \
		"INT '_Bool' size=1 bits_offset=0 nr_bits=8 encoding=BOOL" \
		"INT '__int128' size=16 bits_offset=0 nr_bits=128 encoding=SIGNED" \
		"INT 'char' size=1 bits_offset=0 nr_bits=8 encoding=SIGNED"
}

@test "encoder: float-types.c (float, double, long double) as pahole" {
	need_tools
	same_as_pahole float-types "FLOAT 'long double' size=16" \
		"FLOAT 'float' size=4" "FLOAT 'double' size=8"
}

@test "encoder: arrays.c (multi-dim, zero-length, flexible) as pahole" {
	need_tools
	same_as_pahole arrays "STRUCT 'with_arrays' size=616 vlen=11" \
		"STRUCT 'with_flex' size=8 vlen=2" \
		"STRUCT 'with_zero_len' size=4 vlen=2"
}

@test "encoder: bitfields.c (straddling, 64-bit, unnamed) as pahole" {
	need_tools
	same_as_pahole bitfields "STRUCT 'small_bits' size=8 vlen=7" \
		"STRUCT 'crossing' size=7 vlen=4" \
		"STRUCT 'wide_bits' size=32 vlen=5" \
		"UNION 'bits_union' size=8 vlen=3"
}

@test "encoder: anon-members.c (anonymous struct/union members) as pahole" {
	need_tools
	same_as_pahole anon-members "STRUCT 'page_like' size=40 vlen=5"
}

@test "encoder: packed-aligned.c (packed, aligned, empty) as pahole" {
	need_tools
	same_as_pahole packed-aligned "STRUCT 'packed_hdr' size=15 vlen=4" \
		"STRUCT 'aligned_member' size=128 vlen=3" \
		"STRUCT 'empty' size=0 vlen=0" "UNION 'packed_union' size=5 vlen=2"
}

@test "encoder: enums.c (ENUM, ENUM64, signedness, big values) as pahole" {
	need_tools
	same_as_pahole enums "ENUM 'with_negative' encoding=SIGNED size=4 vlen=6" \
		"ENUM64 'u64_values' encoding=UNSIGNED size=8 vlen=3" \
		"ENUM64 's64_values' encoding=SIGNED size=8 vlen=3" \
		"ENUM 'tiny' encoding=UNSIGNED size=1 vlen=2"
	# The values GCC writes as DW_FORM_data1/2/4 with the top bit set.
	grep -qx "	'N_200' val=200" ours-enums-d5.dump
	grep -qx "	'N_40000' val=40000" ours-enums-d5.dump
	grep -qx "	'S_3G' val=3000000000LL" ours-enums-d5.dump
}

@test "encoder: forward-decls.c (FWD struct and union) as pahole" {
	need_tools
	same_as_pahole forward-decls "FWD 'opaque_s' fwd_kind=struct" \
		"FWD 'opaque_u' fwd_kind=union" "STRUCT 'later' size=4 vlen=1"
}

@test "encoder: typedefs.c (typedef chains) as pahole" {
	need_tools
	same_as_pahole typedefs "TYPEDEF 'my_id_t'" "TYPEDEF 'handler_fn'" \
		"STRUCT 'typedef_user' size=80 vlen=9"
}

@test "encoder: qualifiers.c (const, volatile, restrict) as pahole" {
	need_tools
	same_as_pahole qualifiers "STRUCT 'quals' size=64 vlen=9" "RESTRICT"
}

@test "encoder: func-protos.c (varargs, function pointers) as pahole" {
	need_tools
	same_as_pahole func-protos "STRUCT 'ops' size=80 vlen=8" \
		"FUNC 'log_it'" "FUNC 'pick_handler'"
}

@test "encoder: recursive.c (self and mutual references) as pahole" {
	need_tools
	same_as_pahole recursive "STRUCT 'task' size=24 vlen=3" \
		"STRUCT 'mm' size=16 vlen=2" "UNION 'node_or_leaf' size=8 vlen=2"
}

@test "encoder: vectors.c (vector_size types as ARRAY) as pahole" {
	need_tools
	same_as_pahole vectors "STRUCT 'simd_state' size=128 vlen=6" \
		"TYPEDEF 'v4si'"
}

# count PATTERN FILE: how many lines of FILE match the extended regex.
count() {
	grep -cE "$1" "$2" || true
}

@test "encoder: dedup.c (types equal in BTF merged within the object) as pahole" {
	need_tools
	same_as_pahole dedup "STRUCT 'node' size=16 vlen=2" \
		"ENUM 'level' encoding=UNSIGNED size=4 vlen=2" \
		"FUNC 'same_proto_a' type_id=" "FUNC 'other_names' type_id="
	local version d
	for version in 5 4; do
		d=ours-dedup-d$version.dump
		# the two int-valued "node"s through their cycle, not the long one
		[ "$(count "^\[[0-9]+\] STRUCT 'node' " "$d")" -eq 2 ]
		[ "$(count "^\[[0-9]+\] STRUCT '\(anon\)' size=16 " "$d")" -eq 1 ]
		# (int x, long y) once, (int x, long z) and (void) apart
		[ "$(count "^\[[0-9]+\] FUNC_PROTO " "$d")" -eq 3 ]
		# the declaration of enum level resolved to f1()'s definition
		[ "$(count "^\[[0-9]+\] ENUM 'level' " "$d")" -eq 1 ]
		# nothing left for libbpf's btf__dedup() (btf-link runs it)
		"$BTF_LINK" -o relinked.btf "ours-dedup-d$version.btf"
		bpftool btf dump file relinked.btf > relinked.dump
		[ "$(count '^\[' relinked.dump)" -eq "$(count '^\[' "$d")" ]
	done
}

@test "encoder: functions.c (which functions become FUNC) as pahole" {
	need_tools
	same_as_pahole functions "FUNC 'global_fn' type_id="
	# The rules of PAHOLE-NOTES.md, by name: a definition with an ELF
	# symbol of its own name and named parameters, in any section, any
	# binding; never inline-only, unnamed-parameter, alias, declaration
	# or clone (.constprop/.isra/.part) functions.
	local expected="alias_target counter_fn die_fn entry global_fn init_fn noinstr_fn static_fn weak_fn "
	for version in 5 4; do
		[ "$(funcs ours-functions-d$version.dump)" = "$expected" ]
		[ "$(funcs ref-functions-d$version.dump)" = "$expected" ]
		# pahole 1.24 writes linkage static for every function.
		run ! grep "FUNC '.*linkage=global" ref-functions-d$version.dump
	done
}

@test "encoder: percpu.c differs from pahole by the per-CPU subsections only" {
	need_tools
	# Exactly the subsection variables, as VARs and one DATASEC per input
	# section; .data..percpu itself (with its weak, declared-first and
	# flexible-array variables) and every type are equal.
	local expected='+ datasec .data..percpu..first: size 8 {pcpu_first @0 size 8}
+ datasec .data..percpu..page_aligned: size 4096 {pcpu_gdt @0 size 4096}
+ datasec .data..percpu..read_mostly: size 8 {pcpu_static_read_mostly @0 size 4, pcpu_read_mostly @4 size 4}
+ datasec .data..percpu..shared_aligned: size 24 {pcpu_shared @0 size 24}
+ var pcpu_first: global long unsigned int pcpu_first
+ var pcpu_gdt: global struct gdt_like pcpu_gdt
+ var pcpu_read_mostly: global int pcpu_read_mostly
+ var pcpu_shared: global struct counters pcpu_shared
+ var pcpu_static_read_mostly: static unsigned int pcpu_static_read_mostly'
	local version
	for version in 5 4; do
		encode_both percpu "$version"
		# The object really has the four subsections, and pahole's
		# .data..percpu has its variables (the comparison is not empty).
		local sec
		for sec in first page_aligned read_mostly shared_aligned; do
			readelf -SW "percpu-d$version.o" |
				grep -F " .data..percpu..$sec " >/dev/null
		done
		grep -q "^\[[0-9]*\] DATASEC '.data..percpu' size=.* vlen=8\$" \
			"ref-percpu-d$version.dump"
		[ "$(grep -c "^\[[0-9]*\] DATASEC" "ref-percpu-d$version.dump")" -eq 1 ]
		compare_both percpu "$version"
		[ "$status" -eq 1 ]
		check_output "$expected"
	done
}

@test "encoder: percpu.c: DATASEC entry sizes are symbol sizes" {
	need_tools
	encode_both percpu 5
	# pcpu_flex's initialiser makes its symbol 16 bytes, its type 4.
	readelf -sW percpu-d5.o | grep " 16 OBJECT .* pcpu_flex\$" >/dev/null
	grep -q "offset=[0-9]* size=16 (VAR 'pcpu_flex')" ours-percpu-d5.dump
	grep -q "^\[[0-9]*\] STRUCT 'flex_pcpu' size=4 " ours-percpu-d5.dump
	# No VAR for the empty (size 0) per-CPU variable nor for non-per-CPU data.
	run ! grep -E "VAR '(pcpu_empty|plain_data|plain_bss|plain_rodata|local_static[.0-9]*)'" \
		ours-percpu-d5.dump
}

@test "encoder: percpu-local.c (a function-local per-CPU static) as pahole" {
	need_tools
	same_as_pahole percpu-local "VAR 'hits.0' type_id=" \
		"VAR 'file_scope_pcpu' type_id="
}

@test "encoder: percpu-alias.c (a per-CPU variable with an alias) as pahole" {
	need_tools
	same_as_pahole percpu-alias "VAR 'gdt_pg' type_id=" \
		"VAR 'other_pcpu' type_id="
	! grep -q "VAR '__pi_gdt_pg'" ours-percpu-alias-d5.dump
}

@test "encoder: atomic.c: _Atomic keeps its type (pahole 1.24: void under DWARF 5)" {
	need_tools
	encode_both atomic 4
	compare_both atomic 4
	[ "$status" -eq 0 ]
	check_output ""
	encode_both atomic 5
	# pahole does not know DW_TAG_atomic_type (0x47)...
	grep -q "tag not supported 0x47" pahole-atomic-d5.err
	compare_both atomic 5
	[ "$status" -eq 1 ]
	check_output "~ struct atomics: a: size 24 {counter void @0, next void @64, plain int @128} | b: size 24 {counter int @0, next struct atomics * @64, plain int @128}"
}

@test "encoder: _Complex is an error, as in pahole" {
	need_tools
	local version die
	for version in 5 4; do
		build unsupported-complex "$version"
		run pahole_btf "unsupported-complex-d$version.o" ref.btf
		[ "$status" -ne 0 ]
		[[ $output == *"Complex, interval and imaginary float types are not supported"* ]]

		# The DIE of the base type "complex double", as eu-readelf or
		# readelf prints its offset.
		die=$(readelf --debug-dump=info "unsupported-complex-d$version.o" |
			grep -B3 'DW_AT_name .*: complex double$' |
			sed -n 's/^ *<[0-9]*><\([0-9a-f]*\)>: .*DW_TAG_base_type.*/\1/p')
		[ -n "$die" ]

		run --separate-stderr "$CC_BTF" --encode -o ours.btf \
			"unsupported-complex-d$version.o"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		echo "stderr: $stderr; DIE $die"
		[[ $stderr == "cc-btf: error: "*"unsupported-complex-d$version.o: DIE 0x$die "* ]]
		[[ $stderr == *complex* ]]
		[ ! -e ours.btf ]

		# In place: the same error, and the object is left as it was.
		cp "unsupported-complex-d$version.o" before.o
		run --separate-stderr "$CC_BTF" --encode "unsupported-complex-d$version.o"
		[ "$status" -eq 1 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "cc-btf: error: "*"unsupported-complex-d$version.o: DIE 0x$die "* ]]
		cmp before.o "unsupported-complex-d$version.o"
	done
}

# The encoder reads DWARF itself (libarchive-btf/encode/dwarf_read.c): every
# version GCC writes and 64-bit DWARF give the BTF that DWARF 5 gives.
@test "encoder: DWARF 2, 3 and 64-bit DWARF encode as DWARF 5 does" {
	need_tools
	local name flags
	for name in bitfields enums func-protos percpu recursive; do
		gcc -g -O2 -c "$FIXTURES/$name.c" -o "$name-d5.o"
		"$CC_BTF" --encode -o "$name-d5.btf" "$name-d5.o"
		for flags in -gdwarf-2 -gdwarf-3 "-gdwarf-4 -gdwarf64" \
			     "-gdwarf-5 -gdwarf64"; do
			# shellcheck disable=SC2086
			gcc -g -O2 $flags -c "$FIXTURES/$name.c" -o v.o
			"$CC_BTF" --encode -o v.btf v.o
			run "$BTF_LINK" --compare "$name-d5.btf" v.btf
			if [ "$status" -ne 0 ] || [ -n "$output" ]; then
				echo "$name.c with $flags:"
				echo "$output"
				return 1
			fi
		done
	done
	# so percpu.c's variables were found through DWARF 2's and 3's
	# location blocks as well: they are there to compare
	bpftool btf dump file percpu-d5.btf > percpu-d5.dump
	grep -q "^\[[0-9]*\] DATASEC '.data..percpu' " percpu-d5.dump
	grep -q "^\[[0-9]*\] VAR " percpu-d5.dump
}

@test "encoder: encoding is deterministic, raw and in place" {
	need_tools
	local name
	for name in $ENCODED_FIXTURES; do
		build "$name" 5
		# Raw BTF: the same bytes every run.
		"$CC_BTF" --encode -o one.btf "$name-d5.o"
		"$CC_BTF" --encode -o two.btf "$name-d5.o"
		cmp one.btf two.btf
		bpftool btf dump file one.btf > /dev/null

		# In place: two copies encoded apart are byte-identical, and
		# encoding again (replacing .BTF) changes nothing.
		cp "$name-d5.o" a.o
		cp "$name-d5.o" b.o
		"$CC_BTF" --encode a.o
		"$CC_BTF" --encode b.o
		cmp a.o b.o
		"$CC_BTF" --encode a.o
		cmp a.o b.o

		# The .BTF section is the BTF of the raw output, the code is
		# untouched, and bpftool reads the object.
		# (--compare takes final BTF: the section, not the object
		# with its .debug_btf_addr group)
		section_bytes a.o .BTF a.btf
		cmp one.btf a.btf
		run "$BTF_LINK" --compare one.btf a.btf
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		section_bytes "$name-d5.o" .text text.orig
		section_bytes a.o .text text.new
		cmp text.orig text.new
		bpftool btf dump file a.o > /dev/null
	done
}

# gas's DWARF 5 for a .S file: a unit of DW_LANG_Mips_Assembler whose
# subprograms have DW_TAG_unspecified_type and no parameters. pahole 1.24
# encodes that as a FUNC "void asm_save_fl(void)", which the function is
# not; cc-btf encodes no assembler unit, and the link's FUNC, if any, is
# the C units' (here: none, the C namesake is inlined everywhere).
@test "encoder: asm-func.S: an assembler unit gives no FUNC, nor a void(void) one in the link with asm-func-user.c" {
	need_tools
	need_cmd ld
	gcc -g -c "$FIXTURES/asm-func.S" -o asm.o
	readelf --debug-dump=info asm.o > asm.info
	# the DWARF the rule is about (binutils 2.40 and later)
	grep -q 'DW_AT_language *: 32769' asm.info ||
		skip "this assembler ($(as --version | head -n 1)) writes no DWARF 5 subprograms"
	grep -q DW_TAG_unspecified_type asm.info
	pahole_btf asm.o ref-asm.btf
	bpftool btf dump file ref-asm.btf | grep -q "FUNC 'asm_save_fl'"
	"$CC_BTF" --encode -o ours-asm.btf asm.o
	run bpftool btf dump file ours-asm.btf
	[ "$status" -eq 0 ]
	[[ $output != *FUNC* ]]
	# through the wrapper and a link, beside the C inline of the name
	"$CC_BTF" gcc -g -c "$FIXTURES/asm-func.S" -o asm2.o
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/asm-func-user.c" -o user.o
	ld -r -o both.o asm2.o user.o
	"$BTF_LINK" -o both.btf both.o
	bpftool btf dump file both.btf > both.dump
	grep -q "FUNC 'flags_now'" both.dump
	run ! grep -q "FUNC 'asm_save_fl'" both.dump
}

@test "encoder: every fixture of this file exists and has its test" {
	local f name
	for name in $ENCODED_FIXTURES $UNSUPPORTED_FIXTURES; do
		f=$FIXTURES/$name.c
		[ -f "$f" ] || {
			echo "tests/fixtures/$name.c is missing"
			return 1
		}
		head -3 "$f" | grep '^/\*' >/dev/null || {
			echo "tests/fixtures/$name.c: no header comment"
			return 1
		}
	done
	for name in $ENCODED_FIXTURES; do
		grep "^@test .*$name\.c" "$BATS_TEST_FILENAME" >/dev/null || {
			echo "tests/fixtures/$name.c has no @test of its own"
			return 1
		}
	done
}

# Compressed debug sections are inflated before they are relocated and
# read: the BTF must be the same bytes.
@test "encoder: compressed DWARF gives the same BTF bytes" {
	need_tools
	gcc -g -O2 -c "$FIXTURES/percpu.c" -o plain.o
	gcc -g -O2 -gz=zlib -c "$FIXTURES/percpu.c" -o gz.o
	readelf -SW gz.o | grep -E ' \.debug_info .* [A-Z]*C[A-Z]* ' ||
		skip "gcc did not compress .debug_info"
	run "$CC_BTF" --encode -o plain.btf plain.o
	[ "$status" -eq 0 ]
	run "$CC_BTF" --encode -o gz.btf gz.o
	[ "$status" -eq 0 ]
	cmp plain.btf gz.btf
}
