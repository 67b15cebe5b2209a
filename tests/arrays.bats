#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The shape of multi-dimensional arrays (docs/design.md, "Array shape"):
# cc-btf encodes an ARRAY per dimension, as pahole 1.32 writes them and C
# declares them (u64 m[2][5]: ARRAY(2) of ARRAY(5) of u64); btf-link keeps
# that shape, and with --flat_arrays (what kbuild gives it for a pahole
# before 1.32) makes pahole 1.31's one ARRAY of all the elements, dropping
# the inner ARRAYs. Judged by pahole itself: Debian sid's 1.32 for the
# nested shape, Debian 12's 1.24 for the flat one. btf-link --compare
# labels a difference of array shape only, which the kernel tests'
# classifier accepts after checking that shape itself; [3][2] against
# [2][3] is no such difference.

load test_helper

bats_require_minimum_version 1.5.0

# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc clang ld pahole bpftool python3 cc-btf btf-link"

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_tools
}

# arrays_of BTF: how many ARRAYs BTF has.
arrays_of() {
	bpftool btf dump file "$1" | grep -c "^\[[0-9]*\] ARRAY " || true
}

# linked: prog.o, nested-arrays.c and arrays.c (two units, each with
# multi-dimensional arrays) compiled through cc-btf and linked with ld -r.
linked() {
	local f
	for f in nested-arrays arrays; do
		"$CC_BTF" gcc -g -O2 -c "$FIXTURES/$f.c" -o "$f.o"
	done
	ld -r -o prog.o nested-arrays.o arrays.o
}

@test "arrays: cc-btf writes an ARRAY per dimension, as pahole 1.32 (GCC and clang, DWARF 5 and 4)" {
	need_pahole_sid
	local cc version
	for cc in gcc clang; do
		for version in 5 4; do
			"$cc" -g -gdwarf-$version -O2 -c "$FIXTURES/nested-arrays.c" -o n.o
			"$CC_BTF" --encode -o ours.btf n.o
			"$PAHOLE_SID" -J --btf_features=default --btf_encode_detached=ref.btf n.o
			same_btf ref.btf ours.btf
			nested_arrays ours.btf
			# no ARRAY more or less than pahole's (an unreferenced
			# anonymous one --compare would not see)
			[ "$(arrays_of ours.btf)" -eq "$(arrays_of ref.btf)" ] || {
				echo "$cc, DWARF $version: $(arrays_of ours.btf) ARRAYs, pahole 1.32 $(arrays_of ref.btf)"
				return 1
			}
		done
	done
}

@test "arrays: btf-link keeps the nested shape by default, as pahole 1.32 of the linked object" {
	need_pahole_sid
	linked
	"$BTF_LINK" -o ours.btf prog.o
	"$PAHOLE_SID" -J --btf_features=default --btf_encode_detached=ref.btf prog.o
	same_btf ref.btf ours.btf
	nested_arrays ours.btf
	bpftool btf dump file ours.btf format c | grep -F 'u64 rsvd_bits_mask[2][5];'
}

@test "arrays: btf-link --flat_arrays makes pahole 1.24's one ARRAY of all elements, and no inner ARRAY" {
	linked
	"$BTF_LINK" --flat_arrays -o ours.btf prog.o
	pahole -J --btf_encode_detached=ref.btf prog.o
	same_btf ref.btf ours.btf
	run ! nested_arrays ours.btf
	[ "$(arrays_of ours.btf)" -eq "$(arrays_of ref.btf)" ] || {
		echo "$(arrays_of ours.btf) ARRAYs, pahole 1.24 $(arrays_of ref.btf)"
		return 1
	}
	bpftool btf dump file ours.btf format c | grep -F 'u64 rsvd_bits_mask[10];'
	# the default link of the same object is another BTF
	"$BTF_LINK" -o nested.btf prog.o
	run ! cmp -s ours.btf nested.btf
}

@test "arrays: the same bytes at -j 1 and -j 4, nested and flat, and the input unchanged" {
	linked
	local sum
	sum=$(sha256sum prog.o)
	"$BTF_LINK" -j 1 -o n1.btf prog.o
	"$BTF_LINK" -j 4 --leaf-size 1 -o n4.btf prog.o
	"$BTF_LINK" -j 1 --flat_arrays -o f1.btf prog.o
	"$BTF_LINK" -j 4 --leaf-size 1 --flat_arrays -o f4.btf prog.o
	cmp n1.btf n4.btf
	cmp f1.btf f4.btf
	[ "$(sha256sum prog.o)" = "$sum" ]
}

@test "arrays: --compare labels a difference of array shape only; the classifier checks it; [3][2] is not [2][3]" {
	need_pahole_sid
	local a b
	gcc -g -O2 -c "$FIXTURES/nested-arrays.c" -o n.o
	pahole -J --btf_encode_detached=flat.btf n.o
	"$PAHOLE_SID" -J --btf_features=default --btf_encode_detached=nested.btf n.o
	# pahole 1.24 against pahole 1.32: every difference is array shape
	run "$BTF_LINK" --compare flat.btf nested.btf
	[ "$status" -eq 1 ]
	a=$(grep -c . <<< "$output")
	b=$(grep -c '^~ [a-z]* [^ ]*: array shape: a: ' <<< "$output")
	[ "$a" -ge 4 ] && [ "$a" -eq "$b" ] || { echo "$output"; return 1; }
	grep -F '~ struct nested: array shape: a: ' <<< "$output"
	grep -F '~ typedef mat_t: array shape: a: int [9] | b: int [3][3]' <<< "$output"
	echo "$output" > shape.diff
	: > none
	run "$ABTF_TOP/tests/kernel/e2e-classify" shape.diff none none none none none none
	[ "$status" -eq 0 ] && [[ $output == *"$a  a multi-dimensional array as one ARRAY"* ]] ||
		{ echo "$output"; return 1; }
	# the same element count in another shape is another type: not
	# labelled, and refused
	printf 'typedef int g_t[2][3];\ng_t g;\n' > a.c
	printf 'typedef int g_t[3][2];\ng_t g;\n' > b.c
	gcc -g -c a.c -o a.o
	gcc -g -c b.c -o b.o
	"$PAHOLE_SID" -J --btf_encode_detached=a.btf a.o
	"$CC_BTF" --encode -o b.btf b.o
	run "$BTF_LINK" --compare a.btf b.btf
	[ "$status" -eq 1 ]
	[ "$output" = "~ typedef g_t: a: int [2][3] | b: int [3][2]" ] || { echo "$output"; return 1; }
	echo "$output" > other.diff
	run "$ABTF_TOP/tests/kernel/e2e-classify" other.diff none none none none none none
	[ "$status" -eq 1 ]
	# nor does a made-up label make a wrong line one
	printf '%s\n' '~ typedef m: array shape: a: int [3][2] | b: int [2][3]' \
		'~ typedef n: array shape: a: long int [6] | b: int [2][3]' \
		'~ typedef o: array shape: a: int [6][2] | b: int [2][3][2]' > wrong.diff
	run "$ABTF_TOP/tests/kernel/e2e-classify" wrong.diff none none none none none none
	[ "$status" -eq 1 ]
	[[ $output == *"3  not a deliberate difference:"* ]] || { echo "$output"; return 1; }
}

@test "arrays: --flat_arrays refuses more elements than BTF's 32-bit count holds, naming the member" {
	gcc -g -O2 -c "$FIXTURES/nested-arrays.c" -o n.o
	"$CC_BTF" --encode -o n.btf n.o
	# struct empty none[2][3] as none[0x10000][0x10000]: no bytes, 2^32
	# elements
	python3 - n.btf huge.btf <<-'EOF'
	import struct, sys
	b = bytearray(open(sys.argv[1], 'rb').read())
	hdr_len, type_off, type_len, str_off = struct.unpack_from('<IIII', b, 4)
	at, end = hdr_len + type_off, hdr_len + type_off + type_len
	strs = hdr_len + str_off
	fixed = {1: 4, 3: 12, 14: 4, 17: 4}
	per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
	recs = []
	while at < end:
	    name, info, size = struct.unpack_from('<III', b, at)
	    kind, vlen = (info >> 24) & 0x1f, info & 0xffff
	    recs.append((at, kind, name, size))
	    at += 12 + fixed.get(kind, 0) + per.get(kind, 0) * vlen
	def name_of(r):
	    s = strs + r[2]
	    return bytes(b[s:b.index(0, s)]).decode()
	empty = next(i + 1 for i, r in enumerate(recs)
	             if r[1] == 4 and name_of(r) == 'empty')
	elem = lambda r: struct.unpack_from('<I', b, r[0] + 12)[0]
	inner = next(i + 1 for i, r in enumerate(recs)
	             if r[1] == 3 and elem(r) == empty)
	outer = next(r for r in recs if r[1] == 3 and elem(r) == inner)
	for r in (recs[inner - 1], outer):
	    struct.pack_into('<I', b, r[0] + 20, 0x10000)
	open(sys.argv[2], 'wb').write(b)
	EOF
	sha256sum huge.btf > sum
	# the nested shape holds it
	"$BTF_LINK" -f -o ok.btf huge.btf
	run "$BTF_LINK" -f --flat_arrays -o out.btf huge.btf
	[ "$status" -eq 2 ]
	[ "$output" = "btf-link: error: huge.btf: .BTF member 0 at byte 0: --flat_arrays: an array of more elements than BTF's 32-bit nelems holds" ] ||
		{ echo "$output"; return 1; }
	[ ! -e out.btf ]
	sha256sum -c sum
}

@test "arrays: kbuild gives btf-link --flat_arrays for a pahole before 1.32, and nothing for 1.32" {
	local v top tree=$WORK/tree want
	[ -f /usr/src/linux-source-7.3.tar.xz ] ||
		unavailable "no /usr/src/linux-source-7.3.tar.xz (tests/install-deps.sh installs linux-source-7.3)"
	top=$(tar -tJf /usr/src/linux-source-7.3.tar.xz | head -n 1)
	top=${top%%/*}
	linked
	mkdir "$tree"
	tar -xJf /usr/src/linux-source-7.3.tar.xz -C "$tree" --strip-components=1 \
		"$top/scripts/Makefile.btf" "$top/scripts/Kbuild.include"
	GIT_CEILING_DIRECTORIES=$WORK git -C "$tree" apply --include=scripts/Makefile.btf \
		"$ABTF_TOP"/kbuild-patches/v7.3/0001-*.patch
	for v in 0 124 126 131 132 140; do
		echo "CONFIG_PAHOLE_VERSION=$v" > auto.conf
		make -s --no-print-directory -f - srctree="$tree" auto="$WORK/auto.conf" \
			> flags <<-'MK'
		include $(auto)
		include $(srctree)/scripts/Kbuild.include
		include $(srctree)/scripts/Makefile.btf
		all: ; @echo "$(BTF_LINK_FLAGS)"
		MK
		want=no
		[ "$v" -ge 132 ] || want=yes
		if grep -q -- '--flat_arrays' flags; then
			[ "$want" = yes ] || { echo "pahole $v: $(cat flags)"; return 1; }
		else
			[ "$want" = no ] || { echo "pahole $v: $(cat flags)"; return 1; }
		fi
		# btf-link takes what the tree gives it
		# shellcheck disable=SC2046 # the flags are words
		"$BTF_LINK" $(cat flags) -o x.btf prog.o
	done
}
