#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# cc-btf as $(CC): invisible to everything kbuild does with the compiler.
# Each transparency case runs "gcc ARGS" and "cc-btf gcc ARGS" in the same
# directory path (so that DW_AT_comp_dir is the same), each on a fresh copy
# of the inputs, and compares stdout, stderr, exit status and every file
# left behind. An object may differ from gcc's only by the BTF sections
# added at the end: every section gcc wrote keeps its header (but for the
# file offset) and its bytes; .shstrtab alone may grow.

load test_helper

bats_require_minimum_version 1.5.0

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_cmd gcc readelf
	make_inputs
}

# The inputs of every case, in $WORK/src.
make_inputs() {
	mkdir -p src
	cat >src/t.c <<-'EOF'
	struct point { int x, y; const char *name; };
	struct point origin = { 0, 0, "origin" };
	int t_norm(const struct point *p) { return p->x * p->x + p->y * p->y; }
	EOF
	cat >src/u.c <<-'EOF'
	enum color { RED, GREEN = 4 };
	typedef unsigned long ulong_t;
	ulong_t u_shift(enum color c, ulong_t v) { return v << c; }
	EOF
	cat >src/main.c <<-'EOF'
	int main(void) { return 0; }
	EOF
	cat >src/err.c <<-'EOF'
	int broken(void) { return undeclared_thing; }
	EOF
	cat >src/asm.S <<-'EOF'
	#define RET ret
		.text
		.globl asm_fn
		.type asm_fn, @function
	asm_fn:
		RET
		.size asm_fn, . - asm_fn
		.section .note.GNU-stack, "", @progbits
	EOF
	# code but no function symbol: DWARF (a unit) without a single type
	cat >src/label.S <<-'EOF'
		.text
	label:
		nop
		.section .note.GNU-stack, "", @progbits
	EOF
}

# run_case NAME CMD...: run CMD in $WORK/run, a fresh copy of src/, with
# stdin from $STDIN (default /dev/null); keep the directory as $WORK/NAME and
# stdout, stderr and status as $WORK/NAME.{out,err,status}.
run_case() {
	local name=$1 rc=0
	shift
	rm -rf "$WORK/run"
	cp -a "$WORK/src" "$WORK/run"
	(cd "$WORK/run" && exec "$@" <"${STDIN:-/dev/null}" \
		>"$WORK/$name.out" 2>"$WORK/$name.err") || rc=$?
	echo "$rc" >"$WORK/$name.status"
	mv "$WORK/run" "$WORK/$name"
}

# section_table FILE: "name type addr off size es flags link info align"
# for each section but the null one.
section_table() {
	readelf -SW "$1" | awk '
		match($0, /^ *\[ *[0-9]+\] /) {
			idx = substr($0, RSTART, RLENGTH)
			gsub(/[^0-9]/, "", idx)
			if (idx == 0)
				next
			$0 = substr($0, RLENGTH + 1)
			flags = NF == 10 ? $7 : "-"
			print $1, $2, $3, $4, $5, $6, flags, $(NF - 2), $(NF - 1), $NF
		}'
}

# section_at FILE OFF SIZE OUT: the bytes of a section (hex OFF and SIZE).
# dd rather than objcopy --dump-section, which cannot dump .rela*, .symtab,
# .strtab or .shstrtab and then still exits 0.
section_at() {
	tail -c +$((0x$2 + 1)) "$1" | head -c $((0x$3)) >"$4"
}

# same_but_btf REF GOT: GOT is the object REF plus BTF sections only.
same_but_btf() {
	local ref=$1 got=$2 line name type addr off size rest goff
	section_table "$ref" >"$WORK/ref.tab"
	section_table "$got" >"$WORK/got.tab"
	while read -r name type addr off size rest; do
		[ "$name" = .shstrtab ] && continue
		line=$(awk -v n="$name" '$1 == n' "$WORK/got.tab")
		if [ "$(printf '%s\n' "$line" | awk '{ $4 = ""; print }')" != \
		     "$(echo "$name $type $addr x $size $rest" | awk '{ $4 = ""; print }')" ]; then
			printf '%s: section %s changed:\n  gcc:    %s\n  cc-btf: %s\n' \
				"$got" "$name" "$name $type $addr $off $size $rest" "$line"
			return 1
		fi
		[ "$type" = NOBITS ] && continue
		goff=$(echo "$line" | awk '{ print $4 }')
		section_at "$ref" "$off" "$size" "$WORK/ref.sec"
		section_at "$got" "$goff" "$size" "$WORK/got.sec"
		cmp "$WORK/ref.sec" "$WORK/got.sec" ||
			{ echo "$got: the bytes of $name changed"; return 1; }
	done <"$WORK/ref.tab"
	awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen) { print $1 }' \
		"$WORK/ref.tab" "$WORK/got.tab" >"$WORK/added"
	while read -r name; do
		case $name in
		.BTF | .debug_btf_addr | .rela.debug_btf_addr | .rel.debug_btf_addr) ;;
		*) echo "$got: unexpected new section $name"; return 1 ;;
		esac
	done <"$WORK/added"
	[ -s "$WORK/added" ] || { echo "$got differs from gcc's, no BTF added"; return 1; }
}

# same_as_gcc ARGS...: "gcc ARGS" and "cc-btf gcc ARGS" agree.
same_as_gcc() {
	local f
	run_case ref gcc "$@"
	run_case got "$CC_BTF" gcc "$@"
	diff -u "$WORK/ref.status" "$WORK/got.status"
	cmp "$WORK/ref.out" "$WORK/got.out"
	diff -u "$WORK/ref.err" "$WORK/got.err"
	diff -u <(cd "$WORK/ref" && find . | LC_ALL=C sort) \
		<(cd "$WORK/got" && find . | LC_ALL=C sort)
	while read -r f; do
		cmp -s "$WORK/ref/$f" "$WORK/got/$f" ||
			same_but_btf "$WORK/ref/$f" "$WORK/got/$f"
	done < <(cd "$WORK/ref" && find . -type f)
}

# has_section FILE NAME
has_section() {
	section_table "$1" | awk -v n="$2" '$1 == n { found = 1 } END { exit !found }'
}

has_btf() {
	local f
	for f in "$@"; do
		has_section "$f" .BTF || { echo "$f: no .BTF section"; return 1; }
	done
}

no_btf() {
	local f
	for f in "$@"; do
		! has_section "$f" .BTF || { echo "$f: has a .BTF section"; return 1; }
	done
}

status_of() {
	cat "$WORK/$1.status"
}

# ---- what kbuild does with $(CC) ----

@test "wrapper: --version is the compiler's" {
	same_as_gcc --version
	[ -s ref.out ]
}

@test "wrapper: -dumpversion" {
	same_as_gcc -dumpversion
}

@test "wrapper: -print-file-name=include" {
	same_as_gcc -print-file-name=include
}

@test "wrapper: -E -P - reads stdin" {
	STDIN=$WORK/src/t.c same_as_gcc -E -P -
	grep -q t_norm ref.out
}

@test "wrapper: -S" {
	same_as_gcc -g -O2 -S t.c
	[ -s got/t.s ]
}

@test "wrapper: -S -o - writes to stdout" {
	same_as_gcc -g -S t.c -o -
	grep -q t_norm got.out
}

@test "wrapper: -M only" {
	same_as_gcc -M t.c
}

@test "wrapper: -MM only" {
	same_as_gcc -MM -MT t.o t.c
}

@test "wrapper: -MD with -c: the same .d file, the object gets BTF" {
	same_as_gcc -g -O2 -MD -c t.c -o t.o
	[ -s got/t.d ]
	has_btf got/t.o
}

@test "wrapper: kbuild-style -Wp,-MMD,depfile with -c" {
	same_as_gcc -g -Wp,-MMD,.t.o.d -c -o t.o t.c
	[ -s got/.t.o.d ]
	has_btf got/t.o
}

@test "wrapper: failing cc-option probe to /dev/null" {
	same_as_gcc -Werror -fsomething-unknown -c -x c /dev/null -o /dev/null
	[ "$(status_of got)" -ne 0 ]
	[ -s got.err ]
}

@test "wrapper: passing cc-option probe to /dev/null" {
	same_as_gcc -Werror -fno-common -c -x c /dev/null -o /dev/null
	[ "$(status_of got)" -eq 0 ]
}

@test "wrapper: cc-option probe with -g to a temp file: no types, object untouched" {
	same_as_gcc -g -Werror -c -x c /dev/null -o probe.tmp
	cmp ref/probe.tmp got/probe.tmp
}

@test "wrapper: .S input with -c" {
	same_as_gcc -g -c asm.S
	[ -s got/asm.o ]
}

@test "wrapper: .S input whose DWARF has no type: object untouched" {
	same_as_gcc -g -c label.S
	readelf -SW got/label.o | grep -q ' \.debug_info '
	cmp ref/label.o got/label.o
}

@test "wrapper: .S input with -c, no -g: object untouched" {
	same_as_gcc -c asm.S -o asm.o
	cmp ref/asm.o got/asm.o
}

@test "wrapper: two inputs with -c and no -o: both objects get BTF" {
	same_as_gcc -g -c t.c u.c
	has_btf got/t.o got/u.o
}

@test "wrapper: one input with -c and no -o" {
	same_as_gcc -g -O2 -c t.c
	has_btf got/t.o
}

@test "wrapper: -x c on an input without a suffix" {
	cp src/t.c src/tsrc
	same_as_gcc -g -c -x c tsrc
	has_btf got/tsrc.o
}

@test "wrapper: an object in another directory (-o dir/t.o)" {
	mkdir src/obj
	same_as_gcc -g -c t.c -o obj/t.o
	has_btf got/obj/t.o
}

@test "wrapper: -c without -g: object untouched" {
	same_as_gcc -O2 -c t.c
	cmp ref/t.o got/t.o
}

@test "wrapper: a compile error: same status and message, no object" {
	same_as_gcc -g -c err.c
	[ "$(status_of got)" -ne 0 ]
	grep -q undeclared_thing got.err
	[ ! -e got/err.o ]
}

@test "wrapper: a link of objects (no -c) is gcc's" {
	(cd src && gcc -g -c t.c main.c)
	same_as_gcc t.o main.o -o prog
	[ -x got/prog ]
}

@test "wrapper: compile and link in one step is gcc's" {
	same_as_gcc -g t.c main.c -o prog
}

@test "wrapper: --help after the compiler is the compiler's" {
	same_as_gcc --help
}

@test "wrapper: @response file with -c and -o" {
	printf -- '-g -c\n"t.c" -o obj.o\n' >src/rsp
	same_as_gcc @rsp
	has_btf got/obj.o
}

# ---- the command and its status ----

# A fake compiler that shows exactly what it was given.
make_echo_cc() {
	cat >"$WORK/echo-cc" <<-'EOF'
	#!/bin/bash
	for a in "$@"; do printf '<%s>\n' "$a"; done
	env | grep -v '^_=' | LC_ALL=C sort
	echo "stderr line" >&2
	exit 0
	EOF
	chmod +x "$WORK/echo-cc"
}

@test "wrapper: argv and environment reach the compiler untouched" {
	make_echo_cc
	local args=(-g -c t.c -o "with space.o" "" "--help" -DX='a b' -v)
	"$WORK/echo-cc" "${args[@]}" >direct.out 2>direct.err
	"$CC_BTF" "$WORK/echo-cc" "${args[@]}" >wrapped.out 2>wrapped.err
	diff -u direct.out wrapped.out
	diff -u direct.err wrapped.err
	# and when no object is expected (the execvp() path)
	"$WORK/echo-cc" -E t.c "a  b" >direct.out 2>&1
	"$CC_BTF" "$WORK/echo-cc" -E t.c "a  b" >wrapped.out 2>&1
	diff -u direct.out wrapped.out
}

@test "wrapper: a compiler's exit status 3 passes through" {
	printf '#!/bin/sh\necho "fake: failed" >&2\nexit 3\n' >fake3
	chmod +x fake3
	run --separate-stderr "$CC_BTF" ./fake3 -g -c src/t.c -o t.o
	[ "$status" -eq 3 ]
	[ "$stderr" = "fake: failed" ]
	run "$CC_BTF" ./fake3 -E src/t.c
	[ "$status" -eq 3 ]
}

@test "wrapper: a compiler killed by SIGKILL: status 137" {
	printf '#!/bin/sh\nkill -9 $$\n' >killed
	chmod +x killed
	run "$CC_BTF" ./killed -g -c src/t.c -o t.o
	[ "$status" -eq 137 ]
	run "$CC_BTF" ./killed -E src/t.c
	[ "$status" -eq 137 ]
}

@test "wrapper: a compiler that is not there: status 127" {
	run -127 --separate-stderr "$CC_BTF" ./no-such-cc -c src/t.c
	[[ $stderr == "cc-btf: error: ./no-such-cc: "* ]]
}

@test "wrapper: unknown cc-btf option: status 2, one line" {
	run --separate-stderr "$CC_BTF" --no-such-option gcc -c src/t.c
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "cc-btf: error: "*--no-such-option* ]]
	[ ! -e t.o ]
}

# ---- cc-btf's options and environment ----

@test "wrapper: CC_BTF=0 runs the compiler only" {
	cd src
	gcc -g -c t.c -o ref.o
	env CC_BTF=0 "$CC_BTF" gcc -g -c t.c -o t.o
	cmp ref.o t.o
	"$CC_BTF" --no-btf gcc -g -c t.c -o t2.o
	cmp ref.o t2.o
	CC_BTF_OPTS=--no-btf "$CC_BTF" gcc -g -c t.c -o t3.o
	cmp ref.o t3.o
}

# ---- what the kbuild patches ask of the wrapper ----

@test "wrapper: a kernel object in a tree without the kbuild patches is refused" {
	cd src
	echo stale >t.o
	unset CC_BTF_KBUILD
	run --separate-stderr "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -c t.c -o t.o
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ $stderr == "cc-btf: error: t.o: this kernel tree lacks archive-btf's kbuild patches"*"CC_BTF=0"* ]]
	[ "$(grep -c . <<<"$stderr")" -eq 1 ]
	# no stale object that make could take as up to date
	[ ! -e t.o ]
	# a protocol this cc-btf does not know
	CC_BTF_KBUILD=2 run --separate-stderr "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -c t.c
	[ "$status" -eq 1 ]
	[[ $stderr == "cc-btf: error: t.o: CC_BTF_KBUILD=2: "* ]]
	[ ! -e t.o ]
}

@test "wrapper: a kernel object in a patched tree, a probe, CC_BTF=0: compiled" {
	cd src
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -c t.c -o t.o
	has_btf t.o
	# kbuild's probes define no KBUILD_BASENAME: never refused
	env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -D__KERNEL__ -c t.c -o p.o
	has_btf p.o
	CC_BTF=0 env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -c t.c -o n.o
	no_btf n.o
}

@test "wrapper: a kernel vDSO object (-DBUILD_VDSO) is compiled without BTF" {
	# kbuild's vDSO rules: a user-space image, whose .BTF nothing reads
	cd src
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' \
		-DDISABLE_BRANCH_PROFILING -DBUILD_VDSO -c t.c -o v.o
	no_btf v.o
	gcc -g -DKBUILD_BASENAME='"t"' -DBUILD_VDSO -c t.c -o ref.o
	cmp v.o ref.o
	# the vDSO's assembly: no KBUILD_BASENAME, but a kbuild run
	printf '\t.text\n\t.globl vf\nvf:\n\tret\n' > v.S
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -D__ASSEMBLY__ -DBUILD_VDSO \
		-c v.S -o vs.o
	no_btf vs.o
	# outside kbuild, BUILD_VDSO means nothing to us
	env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -DBUILD_VDSO -c t.c -o u.o
	has_btf u.o
}

@test "wrapper: a vDSO object without BUILD_VDSO (x86's vdso32): a vdso* directory and PIC" {
	# x86's 32-bit vDSO defines BUILD_VDSO32 in its C sources, not on the
	# command line: its objects are known by their directory and -fpic
	cd src
	mkdir -p vdso/vdso32
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fno-PIE \
		-fpic -DDISABLE_BRANCH_PROFILING -c t.c -o vdso/vdso32/v.o
	no_btf vdso/vdso32/v.o
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fPIC \
		-c t.c -ovdso/p.o
	no_btf vdso/p.o
	# the kernel's own objects in the vDSO's directory (x86's vma.o)
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fno-PIE \
		-c t.c -o vdso/vma.o
	has_btf vdso/vma.o
	# the last option says: PIC turned off again
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fpic \
		-fno-pic -c t.c -o vdso/np.o
	has_btf vdso/np.o
	# PIC elsewhere (the EFI stub's -fPIE) keeps its BTF
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fPIE \
		-c t.c -o pie.o
	has_btf pie.o
	# the file's own name does not count, nor does a non-kernel object
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fpic \
		-c t.c -o vdso.o
	has_btf vdso.o
	env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -fpic -c t.c -o vdso/user.o
	has_btf vdso/user.o
}

@test "wrapper: the vDSO's assembly without BUILD_VDSO (arm64's) gets no BTF, as no assembly does" {
	# arm64's vgetrandom-chacha.S: -fno-PIE, no BUILD_VDSO; gas gives
	# its function DWARF, which once carried a FUNC into vdso.so. The
	# vdso* directory rule spares cc-btf reading it; elsewhere, and
	# outside kbuild, the assembler's unit gives no BTF either (no
	# assembler unit is encoded: docs/design.md, "What goes in")
	cd src
	mkdir -p vdso
	printf '\t.text\n\t.globl vf\n\t.type vf, @function\nvf:\n\tret\n\t.size vf, .-vf\n' > v.S
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -D__ASSEMBLY__ -fno-PIE -c v.S -o vdso/vs.o
	no_btf vdso/vs.o
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -D__ASSEMBLER__ -fno-PIE -c v.S -o vdso/vt.o
	no_btf vdso/vt.o
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -D__ASSEMBLY__ -fno-PIE -c v.S -o vs.o
	readelf --debug-dump=info vs.o | grep -q DW_TAG_subprogram
	no_btf vs.o
	env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -D__ASSEMBLY__ -c v.S -o vdso/user.o
	no_btf vdso/user.o
	# C of the kernel's own in a vdso* directory (not PIC) keeps its BTF
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fno-PIE \
		-c t.c -o vdso/k.o
	has_btf vdso/k.o
}

@test "wrapper: s390's boot decompressor (arch/s390/boot/) is compiled without BTF" {
	# an image of its own, linked with --orphan-handling: its C has -g
	# (and -D__DECOMPRESSOR), its assembly -Wa,-gdwarf-2 and nothing else
	# that tells; make runs in the object tree, so the path says
	cd src
	mkdir -p arch/s390/boot arch/s390/kernel
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' \
		-D__DECOMPRESSOR -c t.c -o arch/s390/boot/d.o
	no_btf arch/s390/boot/d.o
	gcc -g -DKBUILD_BASENAME='"t"' -D__DECOMPRESSOR -c t.c -o ref.o
	cmp arch/s390/boot/d.o ref.o
	printf '\t.text\n\t.globl mf\n\t.type mf,@function\nmf:\n\tret\n\t.size mf,.-mf\n' > m.S
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -D__ASSEMBLY__ -Wa,-gdwarf-2 \
		-c m.S -o ./arch/s390/boot/m.o
	no_btf arch/s390/boot/m.o
	# the kernel's C beside it keeps its BTF (assembly never has any:
	# no assembler unit is encoded)
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' \
		-c t.c -o arch/s390/kernel/k.o
	has_btf arch/s390/kernel/k.o
	# another tree's directory of that name (an external module's) is not it
	mkdir -p mod/arch/s390/boot
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' \
		-c t.c -o "$PWD/mod/arch/s390/boot/x.o"
	has_btf mod/arch/s390/boot/x.o
	# outside kbuild the directory means nothing to us
	env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -c t.c -o arch/s390/boot/u.o
	has_btf arch/s390/boot/u.o
}

@test "wrapper: x86's boot assembly (arch/x86/boot/) is assembled without BTF" {
	# 7.x's arch/x86/boot/startup/efi-mixed.S: kbuild's -Wa,-gdwarf
	# flags, linked only into the decompressor (--orphan-handling=warn)
	cd src
	mkdir -p arch/x86/boot/startup arch/x86/kernel
	printf '\t.text\n\t.globl mf\n\t.type mf,@function\nmf:\n\tret\n\t.size mf,.-mf\n' > m.S
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -D__ASSEMBLER__ -Wa,-gdwarf-5 \
		-c m.S -o arch/x86/boot/startup/m.o
	no_btf arch/x86/boot/startup/m.o
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -D__ASSEMBLY__ -Wa,-gdwarf-5 \
		-c m.S -o ./arch/x86/boot/startup/n.o
	no_btf arch/x86/boot/startup/n.o
	# the kernel's own assembly gets no BTF either: no assembler unit
	# is encoded (docs/design.md, "What goes in")
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -D__ASSEMBLER__ -Wa,-gdwarf-5 \
		-c m.S -o arch/x86/kernel/m.o
	no_btf arch/x86/kernel/m.o
	# C there goes into vmlinux (startup/'s obj-y): it keeps its BTF
	CC_BTF_KBUILD=1 "$CC_BTF" gcc -g -DKBUILD_BASENAME='"t"' -fPIC \
		-c t.c -o arch/x86/boot/startup/c.o
	has_btf arch/x86/boot/startup/c.o
	# outside kbuild the directory means nothing to us: its C keeps its BTF
	env -u CC_BTF_KBUILD "$CC_BTF" gcc -g -c t.c -o arch/x86/boot/startup/u.o
	has_btf arch/x86/boot/startup/u.o
}

@test "wrapper: --print-btf-link names the btf-link beside cc-btf, or none" {
	local dir
	run --separate-stderr "$CC_BTF" gcc --print-btf-link
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(dirname "$(readlink -f "$CC_BTF")")/btf-link" ]
	[ -x "$output" ]
	# the objects will carry no BTF: no btf-link, kbuild runs pahole
	CC_BTF=0 run --separate-stderr "$CC_BTF" gcc --print-btf-link
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# a cc-btf alone: the btf-link on PATH, else none
	dir=$WORK/alone
	mkdir -p "$dir/bin"
	cp "$(readlink -f "$CC_BTF")" "$dir/cc-btf"
	PATH=/usr/bin:/bin run "$dir/cc-btf" gcc --print-btf-link
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	ln -s "$(dirname "$(readlink -f "$CC_BTF")")/btf-link" "$dir/bin/btf-link"
	PATH=$dir/bin:/usr/bin:/bin run "$dir/cc-btf" gcc --print-btf-link
	[ "$output" = btf-link ]
	# gcc itself prints nothing on stdout: kbuild's $(shell) gets ""
	[ -z "$(gcc --print-btf-link 2>/dev/null)" ]
}

@test "wrapper: --print-btf-link through a launcher, in either order (ccache, distcc)" {
	local want l
	want=$(dirname "$(readlink -f "$CC_BTF")")/btf-link
	for l in ccache distcc; do
		need_cmd "$l"
		# cc-btf outside: the launcher is one of the compiler's words
		run --separate-stderr "$CC_BTF" "$l" gcc --print-btf-link
		[ "$status" -eq 0 ]
		[ "$output" = "$want" ]
		# a compiler with options of its own
		run --separate-stderr "$CC_BTF" "$l" gcc -m64 --print-btf-link
		[ "$output" = "$want" ]
	done
	# cc-btf inside: ccache runs the query as it is, uncached
	CCACHE_DIR=$WORK/ccache run --separate-stderr ccache "$CC_BTF" gcc --print-btf-link
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
}

@test "wrapper: --detached writes OBJECT.btf and leaves the object alone" {
	cd src
	gcc -g -c t.c -o ref.o
	"$CC_BTF" --detached gcc -g -c t.c -o t.o
	cmp ref.o t.o
	no_btf t.o
	[ -s t.o.btf ]
	[ "$(head -c 2 t.o.btf | od -An -tx1 | tr -d ' ')" = 9feb ]
	if command -v bpftool >/dev/null; then
		bpftool btf dump file t.o.btf | grep -q "STRUCT 'point'"
	fi
}

@test "wrapper: CC_BTF_OPTS=--detached, and a stale OBJECT.btf goes" {
	cd src
	CC_BTF_OPTS="  --detached	-v " "$CC_BTF" gcc -g -c t.c 2>err
	[ -s t.o.btf ]
	no_btf t.o
	grep -q 't.o.btf: [0-9]* types' err
	# a later build without types must not leave the old file behind
	CC_BTF_OPTS=--detached "$CC_BTF" gcc -g -c -x c /dev/null -o t.o
	[ ! -e t.o.btf ]
}

@test "wrapper: CC_BTF_OPTS rejects what only the command line may say" {
	CC_BTF_OPTS=--encode run --separate-stderr "$CC_BTF" gcc --version
	[ "$status" -eq 2 ]
	[[ $stderr == "cc-btf: error: CC_BTF_OPTS: "* ]]
}

@test "wrapper: -v names the object and its number of types" {
	cd src
	run --separate-stderr "$CC_BTF" -v gcc -g -c t.c
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -qE "^cc-btf: t\.o: [1-9][0-9]* types$" <<<"$stderr"
	has_btf t.o
}

@test "wrapper: objects without DWARF, silently" {
	cd src
	run --separate-stderr "$CC_BTF" gcc -c t.c
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	no_btf t.o
}

# ---- --encode ----

@test "encode: in place, only BTF sections added" {
	cd src
	gcc -g -O2 -c t.c -o ref.o
	cp ref.o t.o
	run --separate-stderr "$CC_BTF" --encode t.o
	[ "$status" -eq 0 ]
	[ -z "$stderr$output" ]
	same_but_btf ref.o t.o
	has_btf t.o
}

@test "encode: a hard link is replaced, never written through" {
	cd src
	gcc -g -c t.c -o t.o
	ln t.o other-link.o
	cp t.o ref.o
	"$CC_BTF" --encode t.o
	has_btf t.o
	[ "$(stat -c %h t.o)" -eq 1 ]
	cmp ref.o other-link.o
}

@test "encode: -o OUT writes raw BTF, FILE untouched" {
	cd src
	gcc -g -c t.c -o t.o
	cp t.o ref.o
	"$CC_BTF" --encode -o t.btf t.o
	cmp ref.o t.o
	[ "$(head -c 2 t.btf | od -An -tx1 | tr -d ' ')" = 9feb ]
	"$CC_BTF" --detached --encode t.o
	cmp t.btf t.o.btf
	cmp ref.o t.o
}

@test "encode: -o into a pipe is refused at once, the pipe left alone" {
	cd src
	gcc -g -c t.c -o t.o
	mkfifo pipe
	run --separate-stderr timeout 10 "$CC_BTF" --encode -o pipe t.o
	[ "$status" -eq 1 ]
	[ "$stderr" = "cc-btf: error: pipe: a FIFO, not a regular file" ]
	[ -p pipe ]
}

@test "encode: -o into a device is refused, never replaced" {
	cd src
	gcc -g -c t.c -o t.o
	# a private /dev/null: a rename over the real one would break the system
	mknod -m 666 null c 1 3 2>/dev/null || skip "cannot mknod here"
	run --separate-stderr timeout 10 "$CC_BTF" --encode -o null t.o
	[ "$status" -eq 1 ]
	[ "$stderr" = "cc-btf: error: null: a character device, not a regular file" ]
	[ -c null ]
}

# ---- ccache ----

@test "wrapper: ccache cc-btf gcc: the cached object has BTF too" {
	need_cmd ccache
	# cc-btf refuses to be run by a ccache that does not hash its settings
	export CCACHE_DIR=$WORK/ccache CCACHE_COMPILERCHECK='%compiler% --print-settings'
	cd src
	ccache "$CC_BTF" gcc -g -c t.c -o t.o
	has_btf t.o
	cp t.o first.o
	rm t.o
	ccache "$CC_BTF" gcc -g -c t.c -o t.o
	has_btf t.o
	cmp first.o t.o
	if ccache --print-stats >stats 2>/dev/null; then
		[ "$(awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { n += $2 } END { print n }' stats)" -eq 1 ]
	fi
}

@test "wrapper: cc-btf ccache gcc: a cache hit is encoded again" {
	need_cmd ccache
	export CCACHE_DIR=$WORK/ccache
	cd src
	"$CC_BTF" ccache gcc -g -c t.c -o t.o
	has_btf t.o
	cp t.o first.o
	rm t.o
	"$CC_BTF" ccache gcc -g -c t.c -o t.o
	has_btf t.o
	cmp first.o t.o
}

@test "wrapper: cc-btf ccache gcc with hard links never changes the cache" {
	need_cmd ccache
	export CCACHE_DIR=$WORK/ccache CCACHE_HARDLINK=1
	cd src
	gcc -g -c t.c -o ref.o
	ccache gcc -g -c t.c -o t.o
	[ "$(stat -c %h t.o)" -gt 1 ] || skip "this ccache does not hard-link"
	rm t.o
	"$CC_BTF" ccache gcc -g -c t.c -o t.o
	has_btf t.o
	[ "$(stat -c %h t.o)" -eq 1 ]
	rm t.o
	ccache gcc -g -c t.c -o t.o
	cmp ref.o t.o
}

# ---- documentation ----

@test "wrapper: --help and the man page name the same options" {
	local opt
	run "$CC_BTF" --help
	[ "$status" -eq 0 ]
	opts=$(printf '%s\n' "$output" | grep -o -- '--[a-z][a-z-]*' | sort -u)
	[ -n "$opts" ]
	for opt in $opts CC_BTF CC_BTF_OPTS; do
		grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" \
			"$ABTF_TOP/cc-btf/cc-btf.1" ||
			{ echo "cc-btf.1 does not mention $opt"; return 1; }
	done
	man_opts=$(grep -o -- '\\-\\-[a-z][a-z\\-]*' "$ABTF_TOP/cc-btf/cc-btf.1" |
		sed 's/\\-/-/g' | sort -u)
	for opt in $man_opts; do
		printf '%s\n' "$opts" | grep -qxF -- "$opt" ||
			{ echo "--help does not mention $opt"; return 1; }
	done
}

@test "wrapper: the man page renders without warnings" {
	need_cmd groff
	run --separate-stderr groff -man -ww -z "$ABTF_TOP/cc-btf/cc-btf.1"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "wrapper: --version" {
	run "$CC_BTF" --version
	[ "$status" -eq 0 ]
	[[ $output =~ ^cc-btf\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}
