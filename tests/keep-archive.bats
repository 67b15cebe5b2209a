#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --keep-archive: a module linked in place keeps its BTF archive in
# .debug_btf_archive and its .debug_btf_addr, so that when vmlinux changes
# its split BTF is linked again from them, without a relink of the module
# (kbuild-patches' Makefile.modfinal, issue 22), its members compressed
# (docs/archive-format.md). What a module linked again
# that way carries must be byte for byte what a fresh `ld -r` of its objects
# gets from btf-link on the same base; the module loader's view (.BTF) must
# be the final BTF; strip --strip-debug drops what was kept.

load test_helper

bats_require_minimum_version 1.5.0

LINK_CFLAGS="-g -O2 -ffunction-sections -fdata-sections"

# build: two "vmlinux" images of tests/fixtures/link-*.c, linked with
# link.lds and their BTF linked (base2 has one more object, so that the
# module's split type IDs move), and mod.ko, `ld -r` of link-mod{1,2}.c.
build() {
	local n
	for n in main a gc b mod1 mod2; do
		"$CC_BTF" gcc $LINK_CFLAGS -c "$FIXTURES/link-$n.c" -o $n.o
	done
	cat > extra.c <<-'EOF'
	struct extra_t { long a, b, c; } extra_v;
	int extra_f(struct extra_t *e) { return e->a; }
	EOF
	"$CC_BTF" gcc $LINK_CFLAGS -c extra.c -o extra.o
	ld -T "$FIXTURES/link.lds" -o base1 main.o a.o gc.o b.o
	ld -T "$FIXTURES/link.lds" -o base2 main.o extra.o a.o gc.o b.o
	"$BTF_LINK" base1
	"$BTF_LINK" base2
	ld -r -o mod.ko mod1.o mod2.o
}

# fresh BASE OUT: the .BTF btf-link writes into a fresh copy of mod.ko on
# BASE, without keeping anything.
fresh() {
	cp mod.ko fresh.ko
	"$BTF_LINK" --base "$1" fresh.ko
	section_bytes fresh.ko .BTF "$2"
}

# left_alone ARGS... KO: btf-link -v ARGS KO says that KO's BTF is final
# and leaves KO as it was.
left_alone() {
	local ko=${!#}
	cp "$ko" "$ko.before"
	run -0 "$BTF_LINK" -v "$@"
	[[ "$output" == *"$ko: BTF already final ("*"), left as it is"* ]]
	cmp "$ko.before" "$ko"
}

# refused WANT ARGS... FILE: btf-link ARGS FILE fails with the one line
# "btf-link: error: WANT" and leaves FILE as it was.
refused() {
	local want=$1 file=${!#}
	shift
	cp "$file" "$file.before"
	run -2 "$BTF_LINK" "$@"
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "btf-link: error: $want" ]]
	cmp "$file.before" "$file"
}

# has_section FILE NAME: FILE has a section NAME of nonzero size.
has_section() {
	readelf -S -W "$1" | sed -n "s/.*\] $2  *//p" |
		awk '{ n++; z = $4 ~ /^0+$/ } END { exit !(n == 1 && !z) }'
}

@test "keep-archive: linked again on a new base, a module gets a fresh link's bytes" {
	need_cmd gcc ld readelf objcopy bpftool
	need_built
	build
	fresh base1 f1.btf
	fresh base2 f2.btf
	cmp -s f1.btf f2.btf && false	# the base moves the split IDs
	cp mod.ko k.ko
	"$BTF_LINK" --keep-archive --base base1 k.ko
	section_bytes k.ko .BTF k1.btf
	cmp f1.btf k1.btf
	has_section k.ko .debug_btf_archive
	has_section k.ko .debug_btf_addr
	# the archive kept is the one ld -r made, each member compressed:
	# smaller, and what it links to
	section_bytes mod.ko .BTF archive
	section_bytes k.ko .debug_btf_archive kept
	echo "archive $(stat -c %s archive), kept $(stat -c %s kept)"
	[ "$(stat -c %s kept)" -lt "$(stat -c %s archive)" ]
	[ "$(head -c 4 kept)" = BTFz ]
	"$BTF_LINK" -f -o archive.btf archive
	"$BTF_LINK" -f -o kept.btf kept
	cmp archive.btf kept.btf
	section_bytes mod.ko .debug_btf_addr addr
	section_bytes k.ko .debug_btf_addr kept-addr
	cmp addr kept-addr
	# vmlinux changed: the module is linked again from what it kept
	"$BTF_LINK" --keep-archive --base base2 k.ko
	section_bytes k.ko .BTF k2.btf
	cmp f2.btf k2.btf
	bpftool -B base2 btf dump file k.ko > /dev/null
	# and again on the same base: the same file
	cp k.ko k-before.ko
	"$BTF_LINK" --keep-archive --base base2 k.ko
	cmp k-before.ko k.ko
	# --compare and --base read the final .BTF of a module that keeps
	# its archive aside
	"$BTF_LINK" --compare --base base2 k.ko fresh.ko
}

@test "keep-archive: without it, a module that kept its archive is linked from it and empties it" {
	need_cmd gcc ld readelf objcopy
	need_built
	build
	fresh base2 f2.btf
	cp mod.ko k.ko
	"$BTF_LINK" --keep-archive --base base1 k.ko
	"$BTF_LINK" --base base2 k.ko
	section_bytes k.ko .BTF k2.btf
	cmp f2.btf k2.btf
	has_section k.ko .debug_btf_archive && false
	has_section k.ko .debug_btf_addr && false
	# final now: a link leaves it alone
	left_alone --base base2 k.ko
}

@test "keep-archive: an archive moved aside before any link (no vmlinux yet) is linked" {
	need_cmd gcc ld readelf objcopy
	need_built
	build
	fresh base1 f1.btf
	# what Makefile.modfinal does when vmlinux is missing: the module
	# loader must not see the archive as the module's BTF
	cp mod.ko k.ko
	objcopy --rename-section .BTF=.debug_btf_archive k.ko
	readelf -S -W k.ko | grep -F ' .BTF ' && false
	"$BTF_LINK" --keep-archive --base base1 k.ko
	section_bytes k.ko .BTF k1.btf
	cmp f1.btf k1.btf
	# not yet linked, it is no base and nothing to compare
	cp mod.ko n.ko
	objcopy --rename-section .BTF=.debug_btf_archive n.ko
	run -2 "$BTF_LINK" --compare --base base1 n.ko k.ko
	echo "$output"
	[[ "$output" == *"n.ko: not final BTF but a BTF archive kept in .debug_btf_archive, not yet linked"* ]]
}

@test "keep-archive: strip --strip-debug leaves the final BTF alone" {
	need_cmd gcc ld readelf objcopy strip
	need_built
	build
	fresh base1 f1.btf
	cp mod.ko k.ko
	"$BTF_LINK" --keep-archive --base base1 k.ko
	strip --strip-debug k.ko
	has_section k.ko .debug_btf_archive && false
	has_section k.ko .debug_btf_addr && false
	section_bytes k.ko .BTF k1.btf
	cmp f1.btf k1.btf
	left_alone --keep-archive --base base1 k.ko
}

@test "keep-archive: refused for an image, -o, a compressed or damaged archive; the input intact" {
	need_cmd gcc ld readelf objcopy
	need_built
	build
	ld -T "$FIXTURES/link.lds" -o img main.o a.o gc.o b.o
	refused "img: keeping the archive is for a relocatable object (a module): a linked image's sections cannot grow" \
		--keep-archive img
	run -2 "$BTF_LINK" --keep-archive -o out.btf mod.ko
	[[ "$output" == *"--keep-archive is for a link in place, not for -o"* ]]
	[ ! -e out.btf ]
	# a plain archive moved aside (as without vmlinux), then compressed
	# with the debug sections (the kept one's members are compressed
	# already, and objcopy leaves a section that would not shrink)
	objcopy --rename-section .BTF=.debug_btf_archive mod.ko k.ko
	objcopy --compress-debug-sections=zlib k.ko kz.ko
	readelf -S -W kz.ko | grep -E '\] \.debug_btf_archive .* C ' >/dev/null
	refused "kz.ko: .debug_btf_archive is compressed: inflate it first (objcopy --decompress-debug-sections)" \
		--keep-archive --base base1 kz.ko
	# a damaged kept archive: the error names the section it is in
	cp mod.ko kd.ko
	"$BTF_LINK" --keep-archive --base base1 kd.ko
	printf 'not BTF, not a compressed member' > junk
	objcopy --update-section .debug_btf_archive=junk kd.ko
	refused "kd.ko: .debug_btf_archive member 0 at byte 0: byte 0: bad BTF magic" \
		--keep-archive --base base1 kd.ko
	# as it says
	objcopy --decompress-debug-sections kz.ko
	"$BTF_LINK" --keep-archive --base base2 kz.ko
	fresh base2 f2.btf
	section_bytes kz.ko .BTF kz2.btf
	cmp f2.btf kz2.btf
}
