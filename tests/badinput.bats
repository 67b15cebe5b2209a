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

# keep FILE...: remember FILEs and the directory listing, to check later.
keep() {
	local f
	for f in "$@"; do
		cp "$f" "$f.orig"
	done
	ls -A >"$WORK/listing"
}

# unchanged FILE...: as kept, and no new file (a temporary one) around.
unchanged() {
	local f
	for f in "$@"; do
		cmp "$f.orig" "$f" || { echo "$f was changed"; return 1; }
	done
	diff -u "$WORK/listing" <(ls -A)
}

# one_error NAME: the last run failed with status 1 and one error line
# that names NAME.
one_error() {
	if [ "$status" -ne 1 ] || [ -n "$output" ] ||
	   [ "${#stderr_lines[@]}" -ne 1 ] ||
	   [[ ${stderr_lines[0]} != "cc-btf: error: "* ]] ||
	   [[ ${stderr_lines[0]} != *"$1"* ]]; then
		printf 'want status 1 and one "cc-btf: error:" line naming %s\n' "$1"
		printf 'status %s, stdout:\n%s\nstderr:\n%s\n' "$status" "$output" "$stderr"
		return 1
	fi
}

# debug_info_at OBJ [SECTION]: the hex file offset of OBJ's .debug_info
# (or SECTION).
debug_info_at() {
	local sec=${2:-.debug_info}
	readelf -SW "$1" | sed -n "s/^ *\\[ *[0-9]*\\] \\${sec}  *[A-Z]*  *[0-9a-f]*  *\\([0-9a-f]*\\) .*/\\1/p"
}

@test "badinput: not an ELF file" {
	printf 'this is not an object\n' >notelf.o
	keep notelf.o
	run --separate-stderr "$CC_BTF" --encode notelf.o
	one_error notelf.o
	unchanged notelf.o
}

@test "badinput: an empty file" {
	: >empty.o
	keep empty.o
	run --separate-stderr "$CC_BTF" --encode empty.o
	one_error empty.o
	unchanged empty.o
}

@test "badinput: an ELF file truncated to 100 bytes" {
	gcc -g -c t.c -o full.o
	head -c 100 full.o >trunc.o
	keep trunc.o
	run --separate-stderr "$CC_BTF" --encode trunc.o
	one_error trunc.o
	unchanged trunc.o
}

@test "badinput: an ELF file truncated in the middle" {
	gcc -g -c t.c -o full.o
	head -c $(($(stat -c %s full.o) / 2)) full.o >half.o
	keep half.o
	run --separate-stderr "$CC_BTF" --encode half.o
	one_error half.o
	unchanged half.o
}

@test "badinput: an object without DWARF" {
	gcc -O2 -c t.c -o nodwarf.o
	keep nodwarf.o
	run --separate-stderr "$CC_BTF" --encode nodwarf.o
	one_error nodwarf.o
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
	one_error corrupt.o
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
	one_error abbrev.o
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
	one_error short.o
	unchanged short.o
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
		one_error short$v.o
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
		one_error types$v.o
		[[ $stderr == *"type unit"* ]]
		unchanged types$v.o
	done
}

@test "badinput: DWARF that BTF cannot express (_Complex)" {
	gcc -g -c bad.c -o complex.o
	keep complex.o
	run --separate-stderr "$CC_BTF" --encode complex.o
	one_error complex.o
	# the library's message names the file and the DIE; not twice
	[[ $stderr == "cc-btf: error: complex.o: DIE "* ]]
	unchanged complex.o
}

@test "badinput: a FILE that does not exist" {
	keep
	run --separate-stderr "$CC_BTF" --encode missing.o
	one_error missing.o
	unchanged
}

@test "badinput: -o in a directory that does not exist" {
	gcc -g -c t.c -o t.o
	keep t.o
	run --separate-stderr "$CC_BTF" --encode -o no/such/dir/t.btf t.o
	one_error no/such/dir/t.btf
	unchanged t.o
}

@test "badinput: -o where even root cannot create a file (/proc)" {
	gcc -g -c t.c -o t.o
	keep t.o
	run --separate-stderr "$CC_BTF" --encode -o /proc/version t.o
	one_error /proc/version
	unchanged t.o
}

@test "badinput: one bad FILE among good ones: the others are encoded" {
	gcc -g -c t.c -o good.o
	printf 'junk' >junk.o
	keep junk.o
	run --separate-stderr "$CC_BTF" --encode junk.o good.o
	one_error junk.o
	readelf -SW good.o | grep -q ' \.BTF '
	cmp junk.o.orig junk.o
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

# ---- wrapper mode ----

@test "badinput: wrapper: an object that cannot be encoded is deleted" {
	gcc -g -c bad.c -o bad.o	# a stale object make would trust
	run --separate-stderr "$CC_BTF" gcc -g -c bad.c
	one_error bad.o
	[[ $stderr == "cc-btf: error: bad.o: DIE "* ]]
	[ ! -e bad.o ]
	[ -z "$(ls -A | grep -v -e '^bad\.c$' -e '^t\.c$')" ]
}

@test "badinput: wrapper: with -o in another directory" {
	mkdir obj
	run --separate-stderr "$CC_BTF" gcc -g -c bad.c -o obj/bad.o
	one_error obj/bad.o
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
	one_error bad.o
	[ ! -e bad.o ]
	[ ! -e bad.o.btf ]
}
