#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Cross-compiled objects: arm64, riscv64 and s390x (big-endian), as
# distributions build them on an x86-64 machine. Debian's cross GCCs
# compile tests/fixtures/link-*.c through cc-btf; the targets' own ld links
# the "vmlinux" of tests/link.bats (tests/fixtures/link.lds) and its
# module. pahole 1.24, serially, on the same objects and images is the
# reference: it encodes each target in that target's byte order, and so
# must cc-btf and btf-link.

load test_helper

bats_require_minimum_version 1.5.0

PROG_OBJS="main a gc b"
MOD_OBJS="mod1 mod2"
# tests/encoder.bats's fixtures, but atomic.c and percpu.c, whose
# differences from pahole that file states (the same on every target).
OBJ_FIXTURES="anon-members arrays bitfields dedup enums float-types
	forward-decls func-protos functions int-types packed-aligned
	percpu-local qualifiers recursive typedefs vectors"
CROSS_CFLAGS="-g -O2 -ffunction-sections -fdata-sections"

# need_cross ARCH: ARCH's cross GCC and binutils, and the tools compared.
need_cross() {
	need_cmd "$1-linux-gnu-gcc" "$1-linux-gnu-ld" "$1-linux-gnu-objcopy" \
		pahole bpftool
	need_built
}

# magic ARCH: the first two bytes of a BTF of ARCH's byte order, in hex.
magic() {
	case $1 in
	s390x) echo eb9f ;;
	*) echo 9feb ;;
	esac
}

# btf_magic ARCH FILE: FILE's .BTF, dumped to sec.btf, starts with ARCH's
# magic.
btf_magic() {
	"$1-linux-gnu-objcopy" --dump-section .BTF=sec.btf "$2" /dev/null
	[ "$(head -c 2 sec.btf | od -An -tx1 | tr -d ' \n')" = "$(magic "$1")" ] || {
		echo "$2: .BTF starts with $(head -c 2 sec.btf | od -An -tx1), want $(magic "$1")"
		return 1
	}
}

# cross_objs ARCH DIR NAME...: tests/fixtures/link-NAME.c for ARCH through
# cc-btf, as DIR/NAME.o.
cross_objs() {
	local arch=$1 dir=$2 n
	shift 2
	mkdir -p "$dir"
	for n in "$@"; do
		"$CC_BTF" "$arch-linux-gnu-gcc" $CROSS_CFLAGS \
			-c "$FIXTURES/link-$n.c" -o "$dir/$n.o" 2>/dev/null
	done
}

# pahole_serial FILE OUT [ARGS...]: pahole's BTF of FILE, the kernel's
# flags less -j (tests/link.bats, pahole_ref).
pahole_serial() {
	local file=$1 out=$2
	shift 2
	pahole -J --btf_gen_floats --lang_exclude=rust "$@" \
		--btf_encode_detached="$out" "$file"
}

# objects ARCH: each object's .BTF is in ARCH's byte order and says what
# pahole says of the object.
objects() {
	local arch=$1 n
	need_cross "$arch"
	for n in $OBJ_FIXTURES; do
		"$CC_BTF" "$arch-linux-gnu-gcc" -g -O2 -c "$FIXTURES/$n.c" \
			-o "$n.o" 2>/dev/null
		btf_magic "$arch" "$n.o"
		cp "$n.o" "ref-$n.o"
		pahole_serial "ref-$n.o" "ref-$n.btf"
		# the member alone, its .debug_btf_addr group left aside, in
		# pahole 1.24's array shape
		as_pahole124 sec.btf flat.btf
		same_btf "ref-$n.btf" flat.btf
		bpftool btf dump file sec.btf | grep -q "^\[[0-9]*\] FUNC '"
	done
}

# image ARCH: the linked "vmlinux", linked in place by btf-link: its .BTF
# in ARCH's order, the BTF pahole makes of the same image.
image() {
	local arch=$1
	need_cross "$arch"
	cross_objs "$arch" o $PROG_OBJS
	"$arch-linux-gnu-ld" -T "$FIXTURES/link.lds" -o vmlinux \
		o/main.o o/a.o o/gc.o o/b.o
	cp vmlinux ref.elf
	pahole_serial ref.elf ref.btf
	"$BTF_LINK" vmlinux
	btf_magic "$arch" vmlinux
	same_btf ref.btf vmlinux
	# What the comparison covered (tests/link.bats, the first test).
	bpftool btf dump file vmlinux > ours.dump
	[ "$(count_kind ours.dump VAR pcpu_hits)" -eq 4 ]
	[ "$(count_kind ours.dump FUNC helper)" -eq 1 ]
	[ "$(count_kind ours.dump FUNC a_entry)" -eq 1 ]
	[ "$(count_kind ours.dump DATASEC .data..percpu)" -eq 1 ]
}

# module ARCH: the module's split BTF over that vmlinux, as pahole
# --btf_base makes it, in ARCH's order.
module() {
	local arch=$1
	need_cross "$arch"
	cross_objs "$arch" o $PROG_OBJS $MOD_OBJS
	"$arch-linux-gnu-ld" -T "$FIXTURES/link.lds" -o vmlinux \
		o/main.o o/a.o o/gc.o o/b.o
	"$BTF_LINK" vmlinux
	"$arch-linux-gnu-ld" -r -o mod.o o/mod1.o o/mod2.o
	cp mod.o ref.o
	pahole_serial ref.o ref.btf --btf_base vmlinux
	"$BTF_LINK" --base vmlinux mod.o
	btf_magic "$arch" mod.o
	same_btf --base vmlinux ref.btf mod.o
	bpftool -B vmlinux btf dump file mod.o > mod.dump
	[ "$(count_kind mod.dump VAR pcpu_mod_stats)" -eq 1 ]
}

@test "cross: aarch64 objects: .BTF in their byte order, as pahole's" {
	objects aarch64
}

@test "cross: aarch64 vmlinux: btf-link's BTF is pahole's" {
	image aarch64
}

@test "cross: aarch64 module: split BTF as pahole --btf_base" {
	module aarch64
}

@test "cross: riscv64 objects: .BTF in their byte order, as pahole's" {
	objects riscv64
}

@test "cross: riscv64 vmlinux: btf-link's BTF is pahole's" {
	image riscv64
}

@test "cross: riscv64 module: split BTF as pahole --btf_base" {
	module riscv64
}

@test "cross: s390x objects: .BTF big-endian, as pahole's" {
	objects s390x
}

@test "cross: s390x vmlinux: btf-link's BTF is pahole's, big-endian" {
	image s390x
}

@test "cross: s390x module: split BTF as pahole --btf_base, big-endian" {
	module s390x
}

@test "cross: s390x: compressed members link to the plain link's bytes" {
	need_cross s390x
	cross_objs s390x o $PROG_OBJS
	mkdir z
	for n in $PROG_OBJS; do
		cp "o/$n.o" "z/$n.o"
		"$CC_BTF" --encode --compress "z/$n.o"
		s390x-linux-gnu-objcopy --dump-section .BTF=z.btf "z/$n.o" /dev/null
		[ "$(head -c 4 z.btf)" = BTFz ]
	done
	s390x-linux-gnu-ld -T "$FIXTURES/link.lds" -o plain \
		o/main.o o/a.o o/gc.o o/b.o
	s390x-linux-gnu-ld -T "$FIXTURES/link.lds" -o packed \
		z/main.o z/a.o z/gc.o z/b.o
	"$BTF_LINK" -o plain.btf plain
	"$BTF_LINK" -o packed.btf packed
	[ "$(head -c 2 plain.btf | od -An -tx1 | tr -d ' \n')" = eb9f ]
	cmp plain.btf packed.btf
}

@test "cross: s390x: --object writes a big-endian object ld links, with the final BTF" {
	need_cross s390x
	cross_objs s390x o $PROG_OBJS
	s390x-linux-gnu-ld -T "$FIXTURES/link.lds" -o vmlinux \
		o/main.o o/a.o o/gc.o o/b.o
	"$BTF_LINK" -o final.btf vmlinux
	"$BTF_LINK" --object btf.o vmlinux
	s390x-linux-gnu-readelf -h btf.o | grep -q 'big endian'
	s390x-linux-gnu-readelf -h btf.o | grep -q 'IBM S/390'
	btf_magic s390x btf.o
	cmp sec.btf final.btf
	s390x-linux-gnu-ld -r -o linked.o btf.o
}

@test "cross: s390x: a raw archive means what the same aarch64 archive means" {
	need_cross s390x
	need_cross aarch64
	local arch n
	# Both LP64 with an unsigned char: the same types, another byte order.
	for arch in s390x aarch64; do
		cross_objs "$arch" "$arch" $PROG_OBJS
		for n in $PROG_OBJS; do
			"$CC_BTF" --encode -o "$arch/$n.btf" "$arch/$n.o"
			cat "$arch/$n.btf" >> "$arch.archive"
		done
		"$BTF_LINK" -o "$arch.btf" "$arch.archive"
	done
	[ "$(head -c 2 s390x.btf | od -An -tx1 | tr -d ' \n')" = eb9f ]
	[ "$(head -c 2 aarch64.btf | od -An -tx1 | tr -d ' \n')" = 9feb ]
	same_btf aarch64.btf s390x.btf
}

@test "cross: s390x: an archive of both byte orders is refused, naming the member" {
	need_cross s390x
	need_cross aarch64
	cross_objs s390x be main
	cross_objs aarch64 le a
	"$CC_BTF" --encode -o be.btf be/main.o
	"$CC_BTF" --encode -o le.btf le/a.o
	cat be.btf le.btf > mixed.btf
	cp mixed.btf mixed.orig
	run "$BTF_LINK" -o out.btf mixed.btf
	[ "$status" -ne 0 ]
	[[ $output == *"mixed.btf: .BTF member 1 at byte $(stat -c %s be.btf)"*"other byte order"* ]] || {
		echo "want the second member named: $output"
		return 1
	}
	[ ! -e out.btf ]
	cmp mixed.btf mixed.orig
}

@test "cross: s390x: a base of the other byte order is refused" {
	need_cross s390x
	need_cross aarch64
	cross_objs aarch64 le main
	cross_objs s390x be mod1
	"$CC_BTF" --encode -o le.btf le/main.o
	"$CC_BTF" --encode -o be.btf be/mod1.o
	run "$BTF_LINK" --base le.btf -o out.btf be.btf
	[ "$status" -ne 0 ]
	[[ $output == *"le.btf: the base BTF is of the other byte order than be.btf"* ]] || {
		echo "got: $output"
		return 1
	}
	[ ! -e out.btf ]
}

# long_header IN OUT [TAIL]: IN, a raw big-endian BTF, with a 32-byte
# header as upstream pahole on a newer libbpf writes it (two more words,
# zero, or TAIL as the last word's value).
long_header() {
	python3 - "$1" "$2" "${3:-0}" <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read()
	magic, ver, flags, hl = struct.unpack_from('>HBBI', d, 0)
	assert magic == 0xeb9f and hl == 24
	out = struct.pack('>HBBI', magic, ver, flags, 32) + d[8:24] + \
	    struct.pack('>II', 0, int(sys.argv[3])) + d[24:]
	open(sys.argv[2], 'wb').write(out)
	EOF
}

@test "cross: s390x: a big-endian BTF with a longer header reads for --compare and --base" {
	# libbpf reads the other byte order only with the 24-byte header;
	# upstream pahole writes an s390x BTF with a 32-byte one
	need_cross s390x
	need_cmd python3
	cross_objs s390x o $PROG_OBJS $MOD_OBJS
	s390x-linux-gnu-ld -T "$FIXTURES/link.lds" -o vmlinux \
		o/main.o o/a.o o/gc.o o/b.o
	"$BTF_LINK" -o base.btf vmlinux
	long_header base.btf base32.btf
	run -0 "$BTF_LINK" --compare base.btf base32.btf
	[ -z "$output" ]
	# as a base: the module's split BTF is the same
	s390x-linux-gnu-ld -r -o mod.o o/mod1.o o/mod2.o
	"$BTF_LINK" --base base.btf -o mod.btf mod.o
	"$BTF_LINK" --base base32.btf -o mod32.btf mod.o
	cmp mod.btf mod32.btf
	run -0 "$BTF_LINK" --compare --base base32.btf mod.btf mod32.btf
	[ -z "$output" ]
	# a further field that is not zero is a field we do not know
	long_header base.btf bad.btf 7
	cp bad.btf bad.orig
	run -2 "$BTF_LINK" --compare base.btf bad.btf
	[[ $output == *"bad.btf: a BTF header of the other byte order with fields that are not zero"* ]] ||
		{ echo "got: $output"; return 1; }
	cmp bad.btf bad.orig
}

# empty_then_percpu ARCH: tests/fixtures/percpu-after-empty.c: the per-CPU
# VAR is the per-CPU variable's, not that of the variable of no size whose
# address is the same where the sections are laid out end to end.
empty_then_percpu() {
	local arch=$1
	need_cross "$arch"
	"$CC_BTF" "$arch-linux-gnu-gcc" -g -O2 -fno-toplevel-reorder \
		-c "$FIXTURES/percpu-after-empty.c" -o pe.o
	cp pe.o ref.o
	pahole_serial ref.o ref.btf
	btf_magic "$arch" pe.o
	same_btf ref.btf sec.btf
	bpftool btf dump file sec.btf > pe.dump
	local id
	id=$(sed -n "s/^\[\([0-9]*\)\] STRUCT 'tail_work' .*/\1/p" pe.dump)
	[ -n "$id" ]
	grep -q "^\[[0-9]*\] VAR 'tail_work' type_id=$id, linkage=static\$" pe.dump
	[ "$(count_kind pe.dump VAR tail_work)" -eq 1 ]
	[ "$(count_kind pe.dump VAR tail_event)" -eq 0 ]
}

@test "cross: riscv64: a variable of no size is not the per-CPU one after it" {
	empty_then_percpu riscv64
}

@test "cross: s390x: a variable of no size is not the per-CPU one after it" {
	empty_then_percpu s390x
}

@test "cross: aarch64: a variable of no size is not the per-CPU one after it" {
	empty_then_percpu aarch64
}
