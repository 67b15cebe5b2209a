#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link on input it cannot link. Every case: exit status 2, nothing on
# stdout, exactly one line on stderr, "btf-link: error: FILE: ...", for
# archive corruption ".BTF member N at byte X: byte Y: what" as
# libarchive-btf/btf/archive.c words it (N counts from 0, X is where the member
# starts in .BTF, Y where the fault is), and the input byte for byte as it
# was, with no file left next to it.
#
# The inputs are made at test time from a good archive: the .BTF of the
# "vmlinux" of tests/link.bats (tests/fixtures/link-*.c through cc-btf,
# linked with tests/fixtures/link.lds), corrupted by the python3 below
# (craft), and each case is tried twice: as a raw archive file (-o) and put
# back into the image with objcopy --update-section (in place).
#
# The kfunc sets of .BTF_ids, read with decl_tag_kfuncs, are corrupted
# the same way in an image of tests/fixtures/kfuncs.c (craft_ids).
#
# The last test runs every case again through the ASan + UBSan build,
# $ABTF_SAN_BUILD (default build-san/, from `make SANITIZE=1`).

load test_helper

bats_require_minimum_version 1.5.0

SAN_BUILD=${ABTF_SAN_BUILD:-$ABTF_TOP/build-san}

# The corruptions of the archive craft knows.
ARCHIVE_CASES="truncated magic version type-id name-off kind strings
	type-len str-len padding"

# Each test works in $WORK/w: bats keeps files of its own in $WORK.
setup() {
	WORK=$BATS_TEST_TMPDIR
	mkdir -p "$WORK/w"
	cd "$WORK/w" || return 1
	need_cmd gcc ld objcopy readelf python3
	need_built
}

# A tmpfs a test mounted on $WORK/w/full (a full disk) goes with it.
teardown() {
	if mountpoint -q "$WORK/w/full" 2>/dev/null; then
		umount "$WORK/w/full"
	fi
}

# make_archive: prog, the "vmlinux" of tests/link.bats, and archive.bin,
# its .BTF (four members); both link. Nothing else is left in $PWD.
make_archive() {
	cc_btf_prog prog "$WORK/objs"
	section_bytes prog .BTF archive.bin
	"$BTF_LINK" -o "$WORK/good.btf" archive.bin
	"$BTF_LINK" -o "$WORK/good.btf" prog
}

# craft CASE IN OUT: write IN (an archive) corrupted by CASE to OUT and
# print the error btf-link must give for it, after "FILE: ".
craft() {
	python3 - "$@" <<-'EOF'
	import struct, sys

	case, src, dst = sys.argv[1:4]
	b = bytearray(open(src, 'rb').read())

	def record(buf, at):
	    """(size, kind) of the BTF type record at byte at."""
	    info, = struct.unpack_from('<I', buf, at + 4)
	    kind, vlen = (info >> 24) & 0x1f, info & 0xffff
	    extra = {1: 4, 3: 12, 4: 12 * vlen, 5: 12 * vlen, 6: 8 * vlen,
	             13: 8 * vlen, 14: 4, 15: 12 * vlen, 17: 4, 19: 12 * vlen}
	    return 12 + extra.get(kind, 0), kind

	class Member:
	    def __init__(self, buf, off):
	        self.off = off
	        (_, _, _, self.hdr_len, type_off, self.type_len, self.str_off,
	         self.str_len) = struct.unpack_from('<HBBIIIII', buf, off)
	        self.types = off + self.hdr_len + type_off
	        self.strs = off + self.hdr_len + self.str_off
	        self.end = self.strs + self.str_len
	        self.records, at = [], self.types
	        while at < self.types + self.type_len:
	            size, kind = record(buf, at)
	            self.records.append((at, kind))
	            at += size

	members, off = [], 0
	while off < len(b):
	    if b[off] == 0:
	        off += 1
	        continue
	    members.append(Member(b, off))
	    off = members[-1].end
	assert len(members) >= 3, 'want an archive of three members or more'

	m = members[1]
	where = '.BTF member 1 at byte %d: byte %%d: ' % m.off
	if case == 'truncated':         # cut inside the type section
	    b = b[:m.types + m.type_len // 2]
	    msg = where % (m.off + 16) + 'member runs past the end of the section'
	elif case == 'magic':
	    b[m.off] ^= 0xff
	    msg = where % m.off + 'bad BTF magic'
	elif case == 'version':
	    b[m.off + 2] = 2
	    msg = where % (m.off + 2) + 'unsupported BTF version'
	elif case == 'type-id':         # a PTR to nr_types + 5
	    m = next(x for x in members if 2 in [k for _, k in x.records])
	    i = [k for _, k in m.records].index(2)
	    at = m.records[i][0]
	    struct.pack_into('<I', b, at + 8, len(m.records) + 5)
	    msg = ('.BTF member %d at byte %d: byte %d: type [%d] refers to a '
	           'type ID past the last (%d)' % (members.index(m), m.off, at,
	                                           i + 1, len(m.records)))
	elif case == 'name-off':        # the first type's name
	    at = m.records[0][0]
	    struct.pack_into('<I', b, at, m.str_len + 3)
	    msg = where % at + 'string offset past the string section'
	elif case == 'kind':            # the first type is of kind 31
	    at = m.records[0][0]
	    b[at + 7] = (b[at + 7] & 0xe0) | 31
	    msg = where % at + 'unknown BTF kind'
	elif case == 'strings':         # the string section's last NUL
	    b[m.end - 1] = ord('x')
	    msg = where % m.strs + 'string section not NUL-delimited'
	elif case == 'type-len':
	    struct.pack_into('<I', b, m.off + 12, 0xfffffff0)
	    msg = where % (m.off + 8) + 'type section overlaps the string section'
	elif case == 'str-len':
	    struct.pack_into('<I', b, m.off + 20, 0xfffffff0)
	    msg = where % (m.off + 16) + 'member runs past the end of the section'
	elif case == 'padding':         # 16 more zero bytes after member 0
	    end = members[0].end
	    b[end:end] = bytes(16)
	    msg = ('.BTF: byte %d: %d zero bytes after member 0: not alignment '
	           'padding' % (end, members[1].off - end + 16))
	else:
	    sys.exit('craft: no case ' + case)
	assert b != open(src, 'rb').read()
	open(dst, 'wb').write(b)
	print(msg)
	EOF
}

# fails_with ERROR CMD...: CMD exits 2 with nothing on stdout and the one
# line "btf-link: error: ERROR" on stderr (ERROR ending in '*': a prefix).
fails_with() {
	local want="btf-link: error: $1" ok=1
	shift
	run --separate-stderr "$@"
	if [[ $want == *'*' ]]; then
		[[ $stderr == "${want%'*'}"* ]] || ok=0
	else
		[ "$stderr" = "$want" ] || ok=0
	fi
	if [ "$ok" -eq 0 ] || [ "$status" -ne 2 ] || [ -n "$output" ] ||
	   [ "${#stderr_lines[@]}" -ne 1 ]; then
		printf 'want exit 2, no stdout and one line on stderr:\n%s\n' "$want"
		printf 'got exit %s, stdout:\n%s\nstderr:\n%s\n' "$status" \
			"$output" "$stderr"
		return 1
	fi
}

# bad_archive CASE: CASE's corruption as a raw file (-o) and in the image
# (in place, -o and --object): the same error, the input unchanged.
bad_archive() {
	local case=$1 msg
	make_archive
	msg=$(craft "$case" archive.bin "$case.bin")
	objcopy --update-section .BTF="$case.bin" prog "$case-prog"
	section_bytes "$case-prog" .BTF "$WORK/back.bin"
	cmp "$case.bin" "$WORK/back.bin"
	keep "$case.bin" "$case-prog"
	fails_with "$case.bin: $msg" "$BTF_LINK" -o out.btf "$case.bin"
	unchanged "$case.bin"
	fails_with "$case-prog: $msg" "$BTF_LINK" "$case-prog"
	unchanged "$case-prog"
	fails_with "$case-prog: $msg" "$BTF_LINK" -o out.btf "$case-prog"
	fails_with "$case-prog: $msg" "$BTF_LINK" --object out.o "$case-prog"
	fails_with "$case-prog: $msg" "$BTF_LINK" -f -v "$case-prog"
	unchanged "$case.bin" "$case-prog"
}

@test "link-badinput: the second member cut short" {
	bad_archive truncated
}

@test "link-badinput: the second member's magic" {
	bad_archive magic
}

@test "link-badinput: the second member's BTF version" {
	bad_archive version
}

@test "link-badinput: a PTR to a type ID past the member's last" {
	bad_archive type-id
}

@test "link-badinput: a name offset past the string section" {
	bad_archive name-off
}

@test "link-badinput: a type of an unknown kind" {
	bad_archive kind
}

@test "link-badinput: a string section without its last NUL" {
	bad_archive strings
}

@test "link-badinput: a type section of 0xfffffff0 bytes" {
	bad_archive type-len
}

@test "link-badinput: a string section of 0xfffffff0 bytes" {
	bad_archive str-len
}

@test "link-badinput: more zero bytes between members than alignment makes" {
	bad_archive padding
}

@test "link-badinput: an empty .BTF, in an image and as a raw file" {
	make_archive
	: > empty.bin
	objcopy --update-section .BTF=empty.bin prog empty-prog
	readelf -SW empty-prog | grep -qE ' \.BTF +PROGBITS +[0-9a-f]+ [0-9a-f]+ 0+ '
	keep empty.bin empty-prog
	fails_with "empty-prog: .BTF is empty" "$BTF_LINK" empty-prog
	fails_with "empty.bin: .BTF is empty" "$BTF_LINK" -o out.btf empty.bin
	unchanged empty.bin empty-prog
}

@test "link-badinput: a text file" {
	printf 'This is a text file: neither ELF nor BTF.\n' > notes.txt
	printf 'short\n' > short.txt
	keep notes.txt short.txt
	fails_with "notes.txt: *" "$BTF_LINK" notes.txt
	fails_with "notes.txt: *" "$BTF_LINK" -o out.btf notes.txt
	fails_with "short.txt: *" "$BTF_LINK" -o out.btf short.txt
	unchanged notes.txt short.txt
}

@test "link-badinput: an ELF object without .BTF" {
	printf 'int plain(int x) { return x + 1; }\n' > plain.c
	gcc -g -O2 -c plain.c -o plain.o
	keep plain.o
	# the message names the likely causes: no cc-btf, or LTO
	fails_with "plain.o: no .BTF section: its objects were not compiled through cc-btf, or were built with LTO*" "$BTF_LINK" plain.o
	fails_with "plain.o: no .BTF section: *" "$BTF_LINK" -o out.btf plain.o
	unchanged plain.o
}

@test "link-badinput: an ELF whose .BTF runs past the end of the file" {
	make_archive
	cp prog long-prog
	# .BTF's sh_size, set to 0x7fffffff; python3 prints its index.
	local idx
	idx=$(python3 - long-prog <<-'EOF'
	import struct, sys
	b = bytearray(open(sys.argv[1], 'rb').read())
	shoff, = struct.unpack_from('<Q', b, 0x28)
	shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
	names, = struct.unpack_from('<Q', b, shoff + shstrndx * shentsize + 0x18)
	for i in range(shnum):
	    sh = shoff + i * shentsize
	    name, = struct.unpack_from('<I', b, sh)
	    if b[names + name:names + name + 5] == b'.BTF\0':
	        struct.pack_into('<Q', b, sh + 0x20, 0x7fffffff)
	        print(i)
	open(sys.argv[1], 'wb').write(b)
	EOF
	)
	[ -n "$idx" ]
	keep long-prog
	fails_with "long-prog: section $idx runs past the end of the file*" \
		"$BTF_LINK" long-prog
	fails_with "long-prog: section $idx runs past the end of the file*" \
		"$BTF_LINK" -o out.btf long-prog
	unchanged long-prog
}

@test "link-badinput: --base and --compare take final BTF; --base X X in place is refused" {
	local fin="link it with btf-link first"
	make_archive
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/link-a.c" -o a.o
	"$BTF_LINK" -o final.btf prog
	cp prog final-prog
	"$BTF_LINK" final-prog
	keep archive.bin prog a.o final.btf final-prog
	# an unlinked base: libbpf would take its first member alone
	fails_with "prog: the base is not final BTF but a BTF archive of 4 members: $fin" \
		"$BTF_LINK" -o out.btf --base prog a.o
	fails_with "archive.bin: the base is not final BTF but a BTF archive of 4 members: $fin" \
		"$BTF_LINK" -o out.btf --base archive.bin a.o
	fails_with "a.o: the base is not final BTF but a BTF archive member with its .debug_btf_addr group: $fin" \
		"$BTF_LINK" -o out.btf --base a.o final-prog
	# in place on its own base, as -o on its input
	fails_with "final-prog: the output is the input final-prog; refusing to overwrite it" \
		"$BTF_LINK" --base final-prog final-prog
	# --compare: an archive is not compared as its first member
	fails_with "archive.bin: not final BTF but a BTF archive of 4 members: $fin" \
		"$BTF_LINK" --compare archive.bin final.btf
	fails_with "a.o: not final BTF but a BTF archive member with its .debug_btf_addr group: $fin" \
		"$BTF_LINK" --compare final.btf a.o
	fails_with "prog: not final BTF but a BTF archive of 4 members: $fin" \
		"$BTF_LINK" --compare --base prog final.btf final.btf
	unchanged archive.bin prog a.o final.btf final-prog
	# final BTF still compares
	same_btf final.btf final-prog
}

# A final BTF that libbpf parses and the kernel's rules refuse: a STRUCT's
# member of a type ID past the last (libbpf's dedup, on such a base, died
# of SIGSEGV in btf_dedup_is_equiv()), or its name past the strings (read
# as anonymous, two such files compared equal).
@test "link-badinput: a damaged base or compared BTF: checked first, the file, the type and the field named" {
	local rules="breaks the kernel's BTF rules: type [1] STRUCT"
	make_archive
	# a module that shares the damaged struct: libbpf's dedup compares them
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/link-mod1.c" -o m.o
	ld -r -o mod.ko m.o
	"$BTF_LINK" -o final.btf prog
	"$ABTF_TOP/tests/crafted/damage-struct.py" final.btf bad.btf member-type
	"$ABTF_TOP/tests/crafted/damage-struct.py" final.btf noname.btf name
	keep mod.ko final.btf bad.btf noname.btf
	# libbpf before 1.3 (Debian 12's) reads bad.btf as it is, and the
	# kernel's rules name the fault; later libbpf (Debian 13's 1.5)
	# refuses it itself, saying only EINVAL, and the archive's checks of
	# the file's bytes name it (abtf_btf__check_file())
	local base_msg member_msg noname_msg
	if bpftool btf dump file bad.btf >/dev/null 2>&1; then
		base_msg="bad.btf: the base BTF $rules 'link_stats' member 0 'calls': a member of no valid type ID"
		member_msg="bad.btf: its BTF cannot be read: type [1] STRUCT 'link_stats' member 0 'calls': a member of no valid type ID"
		noname_msg="noname.btf: its BTF cannot be read: type [1] STRUCT '(anon)': a name offset past the string section"
	else
		base_msg="bad.btf: cannot read base BTF: byte 24: type [1] refers to a type ID past the last *"
		member_msg="bad.btf: its BTF cannot be read: byte 24: type [1] refers to a type ID past the last *"
		noname_msg="noname.btf: its BTF cannot be read: byte 24: string offset past the string section"
	fi
	fails_with "$base_msg" "$BTF_LINK" --base bad.btf -o out.btf mod.ko
	fails_with "${base_msg%%: *}: *" "$BTF_LINK" --base bad.btf mod.ko
	[ ! -e out.btf ]
	# --compare blames the damaged side, either way round; it reads a BTF
	# that the kernel would refuse (a reference may), not one it cannot read
	fails_with "$member_msg" "$BTF_LINK" --compare final.btf bad.btf
	fails_with "$member_msg" "$BTF_LINK" --compare bad.btf final.btf
	fails_with "$noname_msg" "$BTF_LINK" --compare final.btf noname.btf
	fails_with "$member_msg" "$BTF_LINK" --compare --base bad.btf final.btf final.btf
	unchanged mod.ko final.btf bad.btf noname.btf
}

@test "link-badinput: a full disk: the error says No space left on device, naming the output" {
	[ "$(id -u)" -eq 0 ] || unavailable "mounting a tmpfs needs root"
	make_archive
	mkdir full
	# (teardown unmounts it if the test fails)
	mount -t tmpfs -o size=4k tmpfs full 2>/dev/null ||
		unavailable "cannot mount a tmpfs here"
	head -c 3000 /dev/zero >full/fill
	cp prog full/prog 2>/dev/null || true
	keep prog
	for mode in --object -o; do
		run --separate-stderr "$BTF_LINK" $mode full/out prog
		echo "$mode: exit $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "btf-link: error: full/out: cannot write: No space left on device"* ]]
		[ ! -e full/out ]
	done
	ls -A full >"$WORK/full.ls"
	umount full
	[ "$(cat "$WORK/full.ls")" = "$(printf 'fill\nprog')" ]
	unchanged prog
}

# craft_group CASE IN OUT: IN (the image of funcs-opt.c, one cc-btf
# object) with its .debug_btf_addr group changed as CASE says.
craft_group() {
	section_bytes "$2" .debug_btf_addr "$WORK/w/addr.bin"
	python3 - "$1" "$WORK/w/addr.bin" <<'PY'
import struct, sys
case, path = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
nr_slots, size, h, nr_extra = struct.unpack_from("<4I", b, 4)
if case == "one-more":          # a slot more, the group as long
    assert nr_extra, "no extension"
    struct.pack_into("<II", b, 4, nr_slots + 1, size)
    struct.pack_into("<I", b, 16, nr_extra - 1)
elif case == "one-more-longer":  # a slot more, the group grown by it
    struct.pack_into("<I", b, 4, nr_slots + 1)
elif case == "nowhere":         # the first slot used: in no section
    k = next(k for k in range(nr_slots)
             if struct.unpack_from("<Q", b, 32 + 8 * k)[0])
    struct.pack_into("<Q", b, 32 + 8 * k, 0x7fff00000001)
open(path, "wb").write(b)
PY
	objcopy --update-section .debug_btf_addr="$WORK/w/addr.bin" "$2" "$3"
}

@test "link-badinput: a .debug_btf_addr group that does not fit its member is an error, not silence" {
	local feats=--btf_features=var,float,decl_tag,type_tag,enum64,optimized_func
	gcc -g -O2 -c "$FIXTURES/funcs-opt.c" -o opt.o
	"$CC_BTF" --encode opt.o
	gcc -o optprog opt.o
	craft_group one-more optprog more-prog ||
		skip "no extension: GCC made no clone of funcs-opt.c"
	craft_group one-more-longer optprog longer-prog
	craft_group nowhere optprog nowhere-prog
	keep more-prog longer-prog nowhere-prog
	fails_with "more-prog: .BTF member 0 at byte 0: its .debug_btf_addr group has *" \
		"$BTF_LINK" "$feats" -o out.btf more-prog
	[[ $stderr =~ "group has "([0-9]+)" slots for "([0-9]+)" FUNCs and VARs"$ ]]
	[ "${BASH_REMATCH[1]}" -eq $((BASH_REMATCH[2] + 1)) ]
	fails_with "longer-prog: .debug_btf_addr: byte 0: a group that matches no .BTF member*" \
		"$BTF_LINK" -o out.btf longer-prog
	fails_with "nowhere-prog: .BTF member 0 at byte 0: .debug_btf_addr slot *" \
		"$BTF_LINK" -o out.btf nowhere-prog
	[[ $stderr == *": address 0x7fff00000000 is in no section of the image" ]]
	unchanged more-prog longer-prog nowhere-prog
}

# make_kfuncs: kprog, tests/fixtures/kfuncs.c (kfunc sets in .BTF_ids)
# through cc-btf, linked with link.lds; it links with decl_tag_kfuncs.
KFUNC_FEATS=--btf_features=decl_tag,decl_tag_kfuncs
make_kfuncs() {
	"$CC_BTF" gcc -g -O2 -I"$FIXTURES" -c "$FIXTURES/kfuncs.c" \
		-o "$WORK/k.o"
	ld -T "$FIXTURES/link.lds" -o kprog "$WORK/k.o" 2>/dev/null
	"$BTF_LINK" "$KFUNC_FEATS" -o "$WORK/kgood.btf" kprog
}

# The corruptions of .BTF_ids and its symbols craft_ids knows.
IDS_CASES="set-past set-before set-size func-past"

# craft_ids CASE IN OUT: IN (an ELF64 image with .BTF_ids) with a symbol
# of .BTF_ids moved or resized by CASE, to OUT; print the error.
craft_ids() {
	python3 - "$@" <<-'EOF'
	import struct, sys

	case, src, dst = sys.argv[1:4]
	b = bytearray(open(src, 'rb').read())
	shoff, = struct.unpack_from('<Q', b, 0x28)
	shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)

	def shdr(i):
	    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)

	def name(tab, off):
	    start = shdr(tab)[4] + off
	    return b[start:b.index(0, start)].decode()

	secs = [shdr(i) for i in range(shnum)]
	ids = next(i for i in range(shnum) if name(shstrndx, secs[i][0]) == '.BTF_ids')
	addr, size = secs[ids][3], secs[ids][5]
	symtab = next(i for i in range(shnum) if secs[i][1] == 2)
	syms = {}
	for k in range(secs[symtab][5] // 24):
	    at = secs[symtab][4] + k * 24
	    st_name, _, _, st_shndx, value, sz = struct.unpack_from('<IBBHQQ', b, at)
	    if st_shndx == ids:
	        syms[name(secs[symtab][6], st_name)] = (at, value, sz)

	def patch(sym, value=None, sz=None):
	    at, v, s = syms[sym]
	    if value is not None:
	        struct.pack_into('<Q', b, at + 8, value)
	    if sz is not None:
	        struct.pack_into('<Q', b, at + 16, sz)
	    return value if value is not None else v

	kset = '__BTF_ID__set8__test_kfunc_ids'
	if case == 'set-past':          # the set's header past the section's end
	    v = patch(kset, value=addr + size - 4)
	    msg = "symbol '%s' at 0x%x: lies outside the section" % (kset, v)
	elif case == 'set-before':      # below the section's address
	    v = patch(kset, value=addr - 8 if addr >= 8 else 2 ** 64 - 8)
	    msg = "symbol '%s' at 0x%x: lies outside the section" % (kset, v)
	elif case == 'set-size':        # the set runs past the section
	    v = patch(kset, sz=0x7fffffff)
	    msg = "symbol '%s' at 0x%x: its size runs past the section" % (kset, v)
	elif case == 'func-past':       # a kfunc's flags past the section's end
	    patch(kset, sz=addr + size - syms[kset][1])
	    f = next(n for n in syms if n.startswith('__BTF_ID__func__kf_alpha__'))
	    v = patch(f, value=addr + size - 4)
	    msg = "symbol '%s' at 0x%x: lies outside the section" % (f, v)
	open(dst, 'wb').write(b)
	print('.BTF_ids: ' + msg)
	EOF
}

bad_ids() {
	local case=$1 msg
	make_kfuncs
	msg=$(craft_ids "$case" kprog "$case-kprog")
	keep "$case-kprog"
	fails_with "$case-kprog: $msg" "$BTF_LINK" "$KFUNC_FEATS" -o out.btf "$case-kprog"
	fails_with "$case-kprog: $msg" "$BTF_LINK" "$KFUNC_FEATS" "$case-kprog"
	fails_with "$case-kprog: $msg" "$BTF_LINK" "$KFUNC_FEATS" --object out.o "$case-kprog"
	unchanged "$case-kprog"
	# without the feature, .BTF_ids is not read: the link goes through
	"$BTF_LINK" -o out.btf "$case-kprog"
}

@test "link-badinput: decl_tag_kfuncs: a kfunc set past the end of .BTF_ids" {
	bad_ids set-past
}

@test "link-badinput: decl_tag_kfuncs: a kfunc set before .BTF_ids" {
	bad_ids set-before
}

@test "link-badinput: decl_tag_kfuncs: a kfunc set's size past .BTF_ids" {
	bad_ids set-size
}

@test "link-badinput: decl_tag_kfuncs: a kfunc's flags past the end of .BTF_ids" {
	bad_ids func-past
}

@test "link-badinput: every bad input under ASan and UBSan" {
	local san=$SAN_BUILD/bin/btf-link case msg f
	[ -x "$san" ] ||
		skip "no sanitizer build at $SAN_BUILD (make SANITIZE=1, or set ABTF_SAN_BUILD)"
	make_archive
	printf 'This is a text file: neither ELF nor BTF.\n' > notes.txt
	: > empty.bin
	objcopy --update-section .BTF=empty.bin prog empty-prog
	printf 'int plain(int x) { return x + 1; }\n' > plain.c
	gcc -g -O2 -c plain.c -o plain.o
	for case in $ARCHIVE_CASES; do
		msg=$(craft "$case" archive.bin "$case.bin")
		objcopy --update-section .BTF="$case.bin" prog "$case-prog"
	done
	# The good inputs first: the build really works.
	run --separate-stderr "$san" -o good.btf archive.bin
	[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
		{ echo "good archive: exit $status: $stderr"; return 1; }
	run --separate-stderr "$san" -o good.btf prog
	[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
		{ echo "good image: exit $status: $stderr"; return 1; }
	cmp good.btf "$WORK/good.btf"
	for f in *.bin *-prog notes.txt plain.o; do
		[ "$f" = archive.bin ] && continue
		cp "$f" "$WORK/$f.orig"
		for mode in "-o out.btf" "" "--object out.o" "-f -v"; do
			run --separate-stderr "$san" $mode "$f"
			if [ "$status" -ne 2 ] || [ "${#stderr_lines[@]}" -ne 1 ] ||
			   [[ $stderr != "btf-link: error: $f: "* ]] ||
			   [[ $stderr == *Sanitizer* ]] ||
			   [[ $stderr == *"runtime error"* ]]; then
				echo "btf-link $mode $f: exit $status, stderr:"
				echo "$stderr"
				return 1
			fi
			cmp "$WORK/$f.orig" "$f"
			[ ! -e out.btf ] && [ ! -e out.o ] ||
				{ echo "btf-link $mode $f left an output"; return 1; }
		done
		# --compare reads through libbpf, which may take a damaged
		# archive's first member for the whole: different (1) or an
		# error (2), but no crash.
		run --separate-stderr "$san" --compare "$WORK/good.btf" "$f"
		[ "$status" -eq 1 ] || [ "$status" -eq 2 ] ||
			{ echo "--compare good $f: exit $status"; return 1; }
		[[ $stderr != *Sanitizer* ]] && [[ $stderr != *"runtime error"* ]] ||
			{ echo "--compare good $f: $stderr"; return 1; }
	done
	# .BTF_ids, read for decl_tag_kfuncs
	make_kfuncs
	run --separate-stderr "$san" "$KFUNC_FEATS" -o kgood.btf kprog
	[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
		{ echo "good kfunc image: exit $status: $stderr"; return 1; }
	cmp kgood.btf "$WORK/kgood.btf"
	for case in $IDS_CASES; do
		msg=$(craft_ids "$case" kprog "$case-kprog")
		run --separate-stderr "$san" "$KFUNC_FEATS" -o out.btf "$case-kprog"
		if [ "$status" -ne 2 ] ||
		   [ "$stderr" != "btf-link: error: $case-kprog: $msg" ]; then
			echo "$case: exit $status, stderr:"
			echo "$stderr"
			return 1
		fi
	done
}

# tag_case ARCHIVE OUT CASE: ARCHIVE with the first DECL_TAG of a member
# made bad: "component" (its component_idx past its target's members or
# parameters, or set on a VAR or TYPEDEF) or "target" (it tags itself);
# prints the error btf-link must give.
tag_case() {
	python3 - "$@" <<-'EOF'
	import struct, sys
	src, dst, case = sys.argv[1:4]
	b = bytearray(open(src, 'rb').read())
	extra = {1: 4, 3: 12, 4: 12, 5: 12, 6: 8, 13: 8, 14: 4, 15: 12,
	         17: 4, 19: 12}
	per_item = {4, 5, 6, 13, 15, 19}
	off, n = 0, 0
	while off < len(b):
	    if b[off] == 0:
	        off += 1
	        continue
	    (_, _, _, hdr_len, type_off, type_len, str_off,
	     str_len) = struct.unpack_from('<HBBIIIII', b, off)
	    at = off + hdr_len + type_off
	    for k in range(type_len):
	        if at >= off + hdr_len + type_off + type_len:
	            break
	        info, = struct.unpack_from('<I', b, at + 4)
	        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
	        if kind == 17:
	            if case == 'component':
	                struct.pack_into('<i', b, at + 12, 4000)
	                what = 'a DECL_TAG'
	            else:
	                struct.pack_into('<I', b, at + 8, k + 1)
	                what = 'a DECL_TAG of a kind that cannot be tagged'
	            open(dst, 'wb').write(b)
	            print('.BTF member %d at byte %d: byte %d: ' % (n, off, at)
	                  + what)
	            sys.exit(0)
	        at += 12 + extra.get(kind, 0) * (vlen if kind in per_item else 1)
	    off += hdr_len + str_off + str_len
	    n += 1
	sys.exit('no DECL_TAG in the archive')
	EOF
}

@test "link-badinput: clang: a DECL_TAG of a bad component or target" {
	need_cmd clang
	local o case msg bin san=$SAN_BUILD/bin/btf-link
	for o in btf-tags btf-tags-b; do
		"$CC_BTF" clang -g -O2 -c "$FIXTURES/$o.c" -o "$o.o"
	done
	ld -r -o tags.o btf-tags.o btf-tags-b.o
	section_bytes tags.o .BTF tags.bin
	"$BTF_LINK" -o good.btf tags.bin
	for case in component target; do
		msg=$(tag_case tags.bin "$case.bin" "$case")
		keep "$case.bin"
		for bin in "$BTF_LINK" "$san"; do
			[ -x "$bin" ] || continue
			run --separate-stderr "$bin" -o out.btf "$case.bin"
			[ "$status" -eq 2 ] && [ "${#stderr_lines[@]}" -eq 1 ] &&
			[[ $stderr == "btf-link: error: $case.bin: ${msg}"* ]] || {
				echo "$bin, $case: want: $msg"
				echo "exit $status: $stderr"
				return 1
			}
			[ ! -e out.btf ]
		done
		unchanged "$case.bin"
	done
}

# craft_ext CASE IN OUT: IN (an image of one cc-btf object) with its
# version 2 .debug_btf_addr group damaged as CASE says; prints the error
# btf-link gives with optimized_func, if any.
craft_ext() {
	section_bytes "$2" .debug_btf_addr "$WORK/w/addr.bin"
	python3 - "$1" "$WORK/w/addr.bin" <<'PY'
import struct, sys
case, path = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
assert b[:4] == b"BTFB", "not a version 2 group"
nr_slots, size, h, nr_extra, tlen, slen, nflags = struct.unpack_from("<7I", b, 4)
assert nr_extra and tlen, "no extension"
ext = 32 + 8 * (nr_slots + nr_extra)
if case == "ext-type-id":     # the first extension FUNC_PROTO's return type
    struct.pack_into("<I", b, ext + 8, 0x7fffffff)
    print("type ID 2147483647 past the last type")
elif case == "ext-name-off":  # the extension FUNC's name past the strings
    struct.pack_into("<I", b, ext, 0x7ffffff0)
elif case == "ext-len":       # an extension longer than the group
    struct.pack_into("<I", b, 20, 0x7ffffff0)
elif case == "ext-nul":       # the extension's strings without their NUL
    b[ext + tlen + slen - 1] = ord("x")
elif case == "ext-kflag":     # kind_flag on its FUNC_PROTO: the kernel's rules
    b[ext + 7] |= 0x80
open(path, "wb").write(b)
PY
	objcopy --update-section .debug_btf_addr="$WORK/w/addr.bin" "$2" "$3"
}

EXT_CASES="ext-type-id ext-name-off ext-len ext-nul ext-kflag"

@test "link-badinput: optimized_func: a damaged extension of a .debug_btf_addr group" {
	local case out san=$SAN_BUILD/bin/btf-link bl
	local feats=--btf_features=var,float,decl_tag,type_tag,enum64,optimized_func
	gcc -g -O2 -c "$FIXTURES/funcs-opt.c" -o opt.o
	"$CC_BTF" --encode opt.o
	gcc -o optprog opt.o
	"$BTF_LINK" "$feats" -o good.btf optprog
	for case in $EXT_CASES; do
		craft_ext "$case" optprog "$case-prog" > /dev/null ||
			skip "no extension: GCC made no clone of funcs-opt.c"
		keep "$case-prog"
		for bl in "$BTF_LINK" "$san"; do
			[ -x "$bl" ] || continue
			# the default link never reads the extension (but
			# a group whose length is wrong matches no member)
			run --separate-stderr "$bl" -o out.btf "$case-prog"
			if [ "$case" = ext-len ]; then
				[ "$status" -eq 2 ]
			else
				[ "$status" -eq 0 ]
				[ -z "$stderr" ]
			fi
			rm -f out.btf
			# with it: one error naming the file; a group that
			# does not fit matches no member: an error too (it
			# was once left unsaid, its member placed by name)
			run --separate-stderr "$bl" "$feats" -o out.btf "$case-prog"
			echo "$case: $bl: exit $status: $stderr"
			[[ $stderr != *Sanitizer* ]] && [[ $stderr != *"runtime error"* ]]
			if [ "$case" = ext-len ]; then
				[ "$status" -eq 2 ]
				[ "${#stderr_lines[@]}" -eq 1 ]
				[[ $stderr == "btf-link: error: $case-prog: .debug_btf_addr: byte 0: a group that matches no .BTF member"* ]]
				[ ! -e out.btf ]
				continue
			fi
			[ "$status" -eq 2 ] && [ "${#stderr_lines[@]}" -eq 1 ]
			[[ $stderr == "btf-link: error: $case-prog: .BTF member 0 at byte 0: the extension in .debug_btf_addr at byte "* ]]
			[ ! -e out.btf ]
		done
		unchanged "$case-prog"
	done
}

# ---- issue 49: hostile inputs, round 4 ----

CRAFT=$BATS_TEST_DIRNAME/crafted/craft.py
LOOP="a loop of pointers, qualifiers or typedefs that returns to itself (the kernel's \"Loop detected\")"

# two_objs: a.o and t.o, encoded by cc-btf, with FUNCs and a VAR each.
two_objs() {
	cat >a.c <<-'EOF'
	int a_val = 3;
	int a_fn(int x) { return x + a_val; }
	EOF
	cat >t.c <<-'EOF'
	struct point { int x, y; const char *name; };
	struct point origin = { 0, 0, "origin" };
	int t_norm(const struct point *p) { return p->x * p->x + p->y * p->y; }
	EOF
	"$CC_BTF" gcc -g -O2 -c a.c -o a.o
	"$CC_BTF" gcc -g -O2 -c t.c -o t.o
}

@test "link-badinput: a PTR loop: the member, the base, the --compare side named with the type" {
	two_objs
	cp t.o tl.o
	objcopy --dump-section .BTF=tl.btf tl.o
	python3 "$CRAFT" btf tl.btf ptr-loop
	objcopy --update-section .BTF=tl.btf tl.o
	ld -T "$FIXTURES/link.lds" -o loopprog a.o tl.o
	ld -r -o loop-r.o a.o tl.o
	keep loopprog loop-r.o
	for f in loopprog loop-r.o; do
		fails_with "$f: .BTF member 1 at byte *" "$BTF_LINK" -o out.btf $f
		[[ $stderr == *": type [3] PTR '(anon)': $LOOP" ]]
	done
	ld -T "$FIXTURES/link.lds" -o prog a.o t.o
	"$BTF_LINK" -o good.btf prog
	cp good.btf self.btf
	cp good.btf pair.btf
	python3 "$CRAFT" btf self.btf ptr-loop
	python3 "$CRAFT" btf pair.btf const-ptr-loop
	keep self.btf pair.btf
	for f in self.btf pair.btf; do
		fails_with "$f: the base BTF breaks the kernel's BTF rules: type [*" \
			"$BTF_LINK" --base $f -o out.btf a.o
		[[ $stderr == *" PTR '(anon)': $LOOP" ]]
		fails_with "$f: its BTF cannot be read: type [*" \
			"$BTF_LINK" --compare good.btf $f
		[[ $stderr == *" PTR '(anon)': $LOOP" ]]
		fails_with "$f: its BTF cannot be read: type [*" \
			"$BTF_LINK" --compare $f good.btf
	done
	unchanged loopprog loop-r.o self.btf pair.btf
}

@test "link-badinput: a .debug_btf_addr relocation off its slot: ld -r and a module (--base, -o, in place)" {
	two_objs
	ld -T "$FIXTURES/link.lds" -o prog a.o t.o
	"$BTF_LINK" -o base.btf prog
	ld -r -o r.o a.o t.o
	"$BTF_LINK" -o good.btf r.o
	cp r.o past.o
	cp r.o inside.o
	python3 "$CRAFT" addr-reloc past.o past
	python3 "$CRAFT" addr-reloc inside.o inside
	cp inside.o mod.ko
	keep past.o inside.o mod.ko
	fails_with "past.o: .debug_btf_addr relocation 0 at byte *" \
		"$BTF_LINK" -o out.btf past.o
	[[ $stderr == *": past the end of the section" ]]
	fails_with "inside.o: .debug_btf_addr relocation 0 at byte 35: inside a slot, not at its start" \
		"$BTF_LINK" -o out.btf inside.o
	fails_with "mod.ko: .debug_btf_addr relocation 0 at byte 35: inside a slot, not at its start" \
		"$BTF_LINK" --base base.btf -o out.btf mod.ko
	fails_with "mod.ko: .debug_btf_addr relocation 0 at byte 35: inside a slot, not at its start" \
		"$BTF_LINK" --base base.btf mod.ko
	fails_with "mod.ko: .debug_btf_addr relocation 0 at byte 35: inside a slot, not at its start" \
		"$BTF_LINK" mod.ko
	unchanged past.o inside.o mod.ko
	[ ! -e out.btf ]
}

@test "link-badinput: a FUNC's undefined flags bit in a .debug_btf_addr group" {
	two_objs
	ld -r -o r.o a.o t.o
	python3 "$CRAFT" fn-flags r.o 0x80
	keep r.o
	fails_with "r.o: .BTF member 0 at byte 0: .debug_btf_addr byte 40: FUNC 0's flags 0x80: bits 0x80 are not defined" \
		"$BTF_LINK" -o out.btf r.o
	fails_with "r.o: .BTF member 0 at byte 0: .debug_btf_addr byte 40: FUNC 0's flags 0x80: bits 0x80 are not defined" \
		"$BTF_LINK" r.o
	unchanged r.o
}

@test "link-badinput: a BTF header of version 0, flags 1, a layout table past the strings: --base and --compare alike" {
	two_objs
	ld -T "$FIXTURES/link.lds" -o prog a.o t.o
	"$BTF_LINK" -o good.btf prog
	local r at msg
	for r in version0:2 flags1:3 layout-after:24; do
		at=${r#*:}
		r=${r%:*}
		cp good.btf $r.btf
		python3 "$CRAFT" btf-header $r.btf $r
		keep $r.btf
		case $r in
		version0) msg="unsupported BTF version" ;;
		flags1) msg="unsupported BTF flags" ;;
		*) msg="a layout table that is not between the types and the strings (header fields layout_off, layout_len)" ;;
		esac
		fails_with "$r.btf: .BTF member 0 at byte 0: byte $at: $msg" \
			"$BTF_LINK" --base $r.btf -o out.btf a.o
		fails_with "$r.btf: its BTF cannot be read: BTF header byte $at: $msg" \
			"$BTF_LINK" --compare good.btf $r.btf
		fails_with "$r.btf: its BTF cannot be read: BTF header byte $at: $msg" \
			"$BTF_LINK" --compare $r.btf good.btf
		unchanged $r.btf
	done
}
