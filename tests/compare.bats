#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --compare: the semantic BTF comparison (abtf_btf__compare()).
# Every BTF is made at test time by pahole from tests/fixtures/compare-base.c,
# whose -D macros each change one thing; each change must come out as
# exactly the expected line(s).

load test_helper

bats_require_minimum_version 1.5.0

# The prerequisites need_tools checks. The layouts below are those of an
# LP64 ABI (x86_64, aarch64, ...).
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc pahole"
# shellcheck disable=SC2034
NEED_ARCH="lp64 the expected layouts are LP64"

# variant NAME [GCC FLAGS...]: the fixture built with FLAGS, as NAME.btf.
variant() {
	local name=$1
	shift
	gcc -g -O2 "$@" -c "$FIXTURES/compare-base.c" -o "$WORK/$name.o"
	pahole_btf "$WORK/$name.o" "$WORK/$name.btf"
}

# struct foo of the reference program: FOO_HEAD, then b, c and flags, FOO_TAIL.
FOO_HEAD='size 56 {a int @0'
FOO_TAIL='mode unsigned int @163:2, arr const volatile int [4] @192, cb int (*)(int, char) @320, u union (size 4) {i int @0, f float @0} @384}'
FOO_REF="$FOO_HEAD, b long int @64, c int @128, flags unsigned int @160:3, $FOO_TAIL"
COMPUTE_REF='static int compute(int count, const char *name, ...)'

@test "compare: a BTF equals itself, silently" {
	need_tools
	variant base
	run "$BTF_LINK" --compare base.btf base.btf
	[ "$status" -eq 0 ]
	check_output ""
}

@test "compare: a raw BTF equals the same BTF in an ELF .BTF section" {
	need_tools
	variant base
	pahole -J $PAHOLE_KERNEL_FLAGS base.o
	run "$BTF_LINK" --compare base.btf base.o
	[ "$status" -eq 0 ]
	check_output ""
}

@test "compare: DWARF 4 and DWARF 5 of one source are equal" {
	need_tools
	variant d4 -gdwarf-4
	variant d5 -gdwarf-5
	run "$BTF_LINK" --compare d4.btf d5.btf
	[ "$status" -eq 0 ]
	check_output ""
}

@test "compare: type IDs, type order and qualifier order do not matter" {
	need_tools
	pkg-config --exists libbpf 2>/dev/null || skip "no libbpf headers"
	gcc $(pkg-config --cflags libbpf) "$FIXTURES/compare-shuffle.c" \
		-o shuffle $(pkg-config --libs libbpf)
	variant base
	./shuffle base.btf shuffled.btf
	run ! cmp -s base.btf shuffled.btf
	run "$BTF_LINK" --compare base.btf shuffled.btf
	[ "$status" -eq 0 ]
	check_output ""
	variant enum -DGREEN_VALUE=3
	run "$BTF_LINK" --compare shuffled.btf enum.btf
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == "~ enum color: "* ]]
}

@test "compare: a member type change is one line" {
	need_tools
	variant base
	variant changed '-DB_TYPE=unsigned long'
	run "$BTF_LINK" --compare base.btf changed.btf
	[ "$status" -eq 1 ]
	check_output "~ struct foo: a: $FOO_REF | b: $FOO_HEAD, b long unsigned int @64, c int @128, flags unsigned int @160:3, $FOO_TAIL"
}

@test "compare: a member offset change is one line" {
	need_tools
	variant base
	variant changed -DC_ALIGN=32
	run "$BTF_LINK" --compare base.btf changed.btf
	[ "$status" -eq 1 ]
	check_output "~ struct foo: a: $FOO_REF | b: size 96 {a int @0, b long int @64, c int @256, flags unsigned int @288:3, mode unsigned int @291:2, arr const volatile int [4] @320, cb int (*)(int, char) @448, u union (size 4) {i int @0, f float @0} @512}"
}

@test "compare: a bitfield width change is one line" {
	need_tools
	variant base
	variant changed -DFLAGS_BITS=5
	run "$BTF_LINK" --compare base.btf changed.btf
	[ "$status" -eq 1 ]
	check_output "~ struct foo: a: $FOO_REF | b: $FOO_HEAD, b long int @64, c int @128, flags unsigned int @160:5, ${FOO_TAIL/@163:2/@165:2}"
}

@test "compare: a parameter type change is one line" {
	need_tools
	variant base
	variant changed -DPARAM_TYPE=long
	run "$BTF_LINK" --compare base.btf changed.btf
	[ "$status" -eq 1 ]
	check_output "~ func compute: a: $COMPUTE_REF | b: static int compute(long int count, const char *name, ...)"
}

@test "compare: a parameter name change is one line" {
	need_tools
	variant base
	variant changed -DPARAM_NAME=n
	run "$BTF_LINK" --compare base.btf changed.btf
	[ "$status" -eq 1 ]
	check_output "~ func compute: a: $COMPUTE_REF | b: static int compute(int n, const char *name, ...)"
}

@test "compare: an enum value change is one line" {
	need_tools
	variant base
	variant changed -DGREEN_VALUE=3
	run "$BTF_LINK" --compare base.btf changed.btf
	[ "$status" -eq 1 ]
	check_output "~ enum color: a: size 4 unsigned {RED = 0, GREEN = 2, BLUE = 4} | b: size 4 unsigned {RED = 0, GREEN = 3, BLUE = 4}"
}

@test "compare: a type only in one BTF is a - or + line" {
	need_tools
	variant base
	variant extra -DEXTRA
	run "$BTF_LINK" --compare base.btf extra.btf
	[ "$status" -eq 1 ]
	check_output "+ enum extra: size 4 unsigned {EXTRA_ONE = 1}
+ func extra_fn: static enum extra extra_fn(void)"
	run "$BTF_LINK" --compare extra.btf base.btf
	[ "$status" -eq 1 ]
	check_output "- enum extra: size 4 unsigned {EXTRA_ONE = 1}
- func extra_fn: static enum extra extra_fn(void)"
}

@test "compare: a renamed percpu variable changes its VAR and its DATASEC" {
	need_tools
	variant base
	variant renamed -DPCPU_NAME=pcpu_total
	run "$BTF_LINK" --compare base.btf renamed.btf
	[ "$status" -eq 1 ]
	check_output "~ datasec .data..percpu: a: size 4 {pcpu_counter @0 size 4} | b: size 4 {pcpu_total @0 size 4}
- var pcpu_counter: global int pcpu_counter
+ var pcpu_total: global int pcpu_total"
	run "$BTF_LINK" --compare renamed.btf base.btf
	[ "$status" -eq 1 ]
	check_output "~ datasec .data..percpu: a: size 4 {pcpu_total @0 size 4} | b: size 4 {pcpu_counter @0 size 4}
+ var pcpu_counter: global int pcpu_counter
- var pcpu_total: global int pcpu_total"
}

@test "compare: --no-vars ignores variables and DATASECs" {
	need_tools
	variant base
	variant renamed -DPCPU_NAME=pcpu_total
	run "$BTF_LINK" --compare --no-vars base.btf renamed.btf
	[ "$status" -eq 0 ]
	check_output ""
	variant changed -DGREEN_VALUE=3
	run "$BTF_LINK" --compare --no-vars base.btf changed.btf
	[ "$status" -eq 1 ]
	[[ $output == "~ enum color: "* ]]
}

@test "compare: split BTF over --base compares the split types" {
	need_tools
	printf 'int base_fn(int x) { return x; }\n' > base.c
	gcc -g -O2 -c base.c -o base.o
	pahole_btf base.o base.btf
	variant one
	variant two -DGREEN_VALUE=3
	pahole -J $PAHOLE_KERNEL_FLAGS --btf_base=base.btf \
		--btf_encode_detached=one.split one.o
	pahole -J $PAHOLE_KERNEL_FLAGS --btf_base=base.btf \
		--btf_encode_detached=two.split two.o
	run "$BTF_LINK" --compare --base base.btf one.split one.split
	[ "$status" -eq 0 ]
	check_output ""
	run "$BTF_LINK" --compare --base base.btf one.split two.split
	[ "$status" -eq 1 ]
	check_output "~ enum color: a: size 4 unsigned {RED = 0, GREEN = 2, BLUE = 4} | b: size 4 unsigned {RED = 0, GREEN = 3, BLUE = 4}"
}

# Issue 36: a split BTF read without its base, or given as the base, is
# said to be one (it was "not a BTF file", "cannot read base BTF").
@test "compare: split BTF without --base, or as --base, is named as such" {
	need_tools
	printf 'int base_fn(int x) { return x; }\n' > base.c
	gcc -g -O2 -c base.c -o base.o
	pahole_btf base.o base.btf
	variant one
	pahole -J $PAHOLE_KERNEL_FLAGS --btf_base=base.btf \
		--btf_encode_detached=one.split one.o
	run --separate-stderr "$BTF_LINK" --compare one.split one.split
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: one.split: split BTF: compare it with --base, the BTF it was made on" ]
	run --separate-stderr "$BTF_LINK" --compare --base one.split one.split one.split
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: one.split: cannot be a base: it is split BTF (a module's, made on a base of its own)" ]
	run --separate-stderr "$BTF_LINK" --base one.split -o out.btf base.btf
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: one.split: cannot be a base: it is split BTF (a module's, made on a base of its own)" ]
	[ ! -e out.btf ]
	# what is not split BTF keeps its message
	echo 'not BTF' > junk.txt
	run --separate-stderr "$BTF_LINK" --base junk.txt -o out.btf base.btf
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: junk.txt: "* ]]
	[[ $stderr != *"split BTF"* ]]
}

# One rule for names outside printable ASCII: \xNN in a link's messages
# and in --compare's lines alike (docs/reliability.md, "Messages").
@test "compare: a non-ASCII name reads the same in --compare and in a link's error" {
	need_cmd gcc
	printf 'struct caf\303\251 { int x; } v1;\n' > u1.c
	printf 'struct caf\303\251 { long x; } v1;\n' > u2.c
	gcc -g -c u1.c -o u1.o
	gcc -g -c u2.c -o u2.o
	"$CC_BTF" --encode -o u1.btf u1.o
	"$CC_BTF" --encode -o u2.btf u2.o
	run --separate-stderr "$BTF_LINK" --compare u1.btf u2.btf
	[ "$status" -eq 1 ]
	[[ $output == *"~ struct caf\xc3\xa9: a: size 4 {x int @0} | b: size 8 {x long int @0}"* ]]
	run --separate-stderr "$BTF_LINK" -o out.btf u1.btf
	[ "$status" -eq 2 ]
	[[ $stderr == *"STRUCT 'caf\xc3\xa9': a name that is no C identifier" ]]
}

@test "compare: the output is the same on every run" {
	need_tools
	variant base
	variant changed -DFLAGS_BITS=5 -DPCPU_NAME=pcpu_total -DPARAM_NAME=n
	"$BTF_LINK" --compare base.btf changed.btf > first || [ $? -eq 1 ]
	"$BTF_LINK" --compare base.btf changed.btf > second || [ $? -eq 1 ]
	[ "$(wc -l < first)" -eq 5 ]
	cmp first second
	cut -d: -f1 first | cut -c3- | LC_ALL=C sort -c
}

@test "compare: a file that is not BTF is an error" {
	need_tools
	variant base
	echo 'not BTF' > junk.txt
	run --separate-stderr "$BTF_LINK" --compare base.btf junk.txt
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "btf-link: error: junk.txt: "* ]]
	run --separate-stderr "$BTF_LINK" --compare base.o base.btf
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: base.o: no .BTF section" ]
	run --separate-stderr "$BTF_LINK" --compare base.btf missing.btf
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: missing.btf: cannot open: No such file or directory" ]
}

# Found by fuzzing (issue 36): a 26-byte header, its two extra bytes zero,
# which libbpf reads; every type record then lay misaligned (UBSan).
@test "compare: a BTF whose types are not 4-byte aligned is refused" {
	need_tools
	variant base
	python3 - base.btf odd.btf <<-'EOF'
	import struct, sys
	b = open(sys.argv[1], 'rb').read()
	assert struct.unpack_from('<I', b, 4)[0] == 24
	out = bytearray(b[:24]) + bytes(2) + b[24:]
	struct.pack_into('<I', out, 4, 26)
	open(sys.argv[2], 'wb').write(out)
	EOF
	run --separate-stderr "$BTF_LINK" --compare odd.btf base.btf
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: odd.btf: "* ]]
	run --separate-stderr "$BTF_LINK" --base odd.btf -o out.btf base.btf
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: odd.btf: "* ]]
	[ ! -e out.btf ]
}

@test "compare: kind_flag on a FUNC or CONST, a reserved info bit, a PTR loop: refused, not equal" {
	need_tools
	need_cmd python3
	variant base
	local r msg
	for r in kflag-func kflag-const reserved ptr-loop; do
		cp base.btf $r.btf
		python3 "$BATS_TEST_DIRNAME/crafted/craft.py" btf $r.btf $r
		case $r in
		reserved) msg="reserved bits of the info word set" ;;
		ptr-loop) msg="a loop of pointers, qualifiers or typedefs that returns to itself" ;;
		*) msg="kind_flag set on a kind that has no use for it" ;;
		esac
		run --separate-stderr "$BTF_LINK" --compare base.btf $r.btf
		[ "$status" -eq 2 ] && [ -z "$output" ] &&
			[ "${#stderr_lines[@]}" -eq 1 ] ||
			{ echo "$r: exit $status: $output $stderr"; return 1; }
		[[ $stderr == "btf-link: error: $r.btf: its BTF cannot be read: type ["*"]"*": $msg"* ]]
		run --separate-stderr "$BTF_LINK" --base $r.btf -o out.btf base.btf
		[ "$status" -eq 2 ]
		[[ $stderr == "btf-link: error: $r.btf: the base BTF breaks the kernel's BTF rules: type ["*": $msg"* ]]
		[ ! -e out.btf ]
	done
}

@test "btf-link: usage errors and a missing file exit 2" {
	run --separate-stderr "$BTF_LINK" --compare only-one.btf
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: "* ]]
	run --separate-stderr "$BTF_LINK" --frobnicate
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: "* ]]
	run --separate-stderr "$BTF_LINK" no-such-vmlinux
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: no-such-vmlinux: cannot open: No such file or directory" ]
	run --separate-stderr "$BTF_LINK" --compare -o x.btf a.btf b.btf
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: "* ]]
	run "$BTF_LINK" --version
	[ "$status" -eq 0 ]
	[[ $output =~ ^btf-link\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "btf-link: --help and the man page list the same options, in the same words" {
	local man=$ABTF_TOP/btf-link/btf-link.1 desc
	run "$BTF_LINK" --help
	[ "$status" -eq 0 ]
	local opts=$(sed -n '/^Options:/,/^$/p' <<< "$output")
	local man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' "$man" |
			 sed 's/\\-/-/g')
	diff <(grep -oE -- '(^| )--?[a-z][-a-z]*' <<< "$opts" | tr -d ' ' |
	       sort -u) \
	     <(grep -oE -- '(^| )--?[a-z][-a-z]*' <<< "$man_opts" | tr -d ' ' |
	       sort -u)
	while read -r desc; do
		grep -qxF -- "$desc" <<< "$man_opts" ||
			{ echo "not in the man page: $desc"; return 1; }
	done < <(sed -E -n 's/^  [^ ]+( [^ ]+)? {2,}(.*)$/\2/p' <<< "$opts")
}
