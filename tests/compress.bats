#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# cc-btf --compress: each object's .BTF is a compressed member (zlib behind
# a "BTFz" header, docs/archive-format.md), which the real linkers (GNU ld,
# ld.lld) concatenate as they do plain members, and btf-link inflates. What
# btf-link makes of an archive of compressed members must be byte for byte
# what it makes of the same objects' plain members: the programs of
# tests/link.bats and tests/split.bats, built both ways by real compilers
# and linkers. Damaged compressed members are errors naming the member.

load test_helper

bats_require_minimum_version 1.5.0

LINK_CFLAGS="-g -O2 -ffunction-sections -fdata-sections"

# objs DIR CC-BTF-OPTS: tests/fixtures/link-{main,a,gc,b}.c through cc-btf
# with those options into DIR.
objs() {
	local dir=$1 n
	shift
	mkdir -p "$dir"
	for n in main a gc b; do
		"$CC_BTF" "$@" gcc $LINK_CFLAGS -c "$FIXTURES/link-$n.c" \
			-o "$dir/$n.o"
	done
}

# prog DIR [LD]: DIR's objects linked with link.lds by LD (default ld).
prog() {
	local dir=$1 ld=${2:-ld}
	"$ld" -T "$FIXTURES/link.lds" -o "$dir/prog" "$dir/"{main,a,gc,b}.o
}

# magic FILE: the first four bytes of FILE's .BTF.
magic() {
	section_bytes "$1" .BTF "$WORK/magic.bin"
	head -c 4 "$WORK/magic.bin"
}

@test "compress: an object's .BTF is a compressed member, smaller, same .debug_btf_addr" {
	need_cmd gcc objcopy
	need_built
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/functions.c" -o plain.o
	"$CC_BTF" --compress gcc -g -O2 -c "$FIXTURES/functions.c" -o z.o
	[ "$(magic z.o)" = BTFz ]
	section_bytes plain.o .BTF plain.btf
	section_bytes z.o .BTF z.btf
	echo "plain $(stat -c %s plain.btf), compressed $(stat -c %s z.btf)"
	[ "$(stat -c %s z.btf)" -lt "$(stat -c %s plain.btf)" ]
	# the group names the member by its inflated bytes
	section_bytes plain.o .debug_btf_addr plain.addr
	section_bytes z.o .debug_btf_addr z.addr
	cmp plain.addr z.addr
	# the header: method 1, the plain member's size, the stream's
	od -An -tu4 -j4 -N8 z.btf > hdr
	read -r method raw < hdr
	[ "$method" -eq 1 ]
	[ "$raw" -eq "$(stat -c %s plain.btf)" ]
}

@test "compress: a link of compressed members gives the same bytes as of plain ones (GNU ld)" {
	need_cmd gcc ld
	need_built
	objs plain
	objs z --compress
	prog plain
	prog z
	[ "$(magic z/prog)" = BTFz ]
	"$BTF_LINK" -o plain.btf plain/prog
	"$BTF_LINK" -o z.btf z/prog
	cmp plain.btf z.btf
	# in place into a relocatable file (a module's case: laid out again)
	ld -r -o plain/all.o plain/{main,a,gc,b}.o
	ld -r -o z/all.o z/{main,a,gc,b}.o
	"$BTF_LINK" plain/all.o
	"$BTF_LINK" z/all.o
	section_bytes plain/all.o .BTF a.btf
	section_bytes z/all.o .BTF b.btf
	cmp a.btf b.btf
}

@test "compress: in place into a linked image, the final BTF must fit in the archive's place" {
	need_cmd gcc ld
	need_built
	objs z --compress
	prog z
	cp z/prog before
	run -2 "$BTF_LINK" z/prog
	echo "$output"
	[[ "$output" == *"is larger than the .BTF section; write it with -o" ]]
	cmp before z/prog
}

@test "compress: the same with ld.lld, which inflates only SHF_COMPRESSED sections" {
	need_cmd gcc ld.lld
	need_built
	objs plain
	objs z --compress
	prog plain ld.lld
	prog z ld.lld
	[ "$(magic z/prog)" = BTFz ]
	"$BTF_LINK" -o plain.btf plain/prog
	"$BTF_LINK" -o z.btf z/prog
	cmp plain.btf z.btf
}

@test "compress: compressed and plain members mixed, through ld -r, at any -j" {
	need_cmd gcc ld
	need_built
	objs plain
	objs z --compress
	mkdir mixed
	cp plain/main.o plain/gc.o mixed/
	cp z/a.o z/b.o mixed/
	ld -r -o mixed/ab.o mixed/a.o mixed/b.o
	ld -T "$FIXTURES/link.lds" -o mixed/prog mixed/main.o mixed/ab.o mixed/gc.o
	ld -r -o plain/ab.o plain/a.o plain/b.o
	ld -T "$FIXTURES/link.lds" -o plain/prog plain/main.o plain/ab.o plain/gc.o
	"$BTF_LINK" -j1 -o plain.btf plain/prog
	"$BTF_LINK" -j1 -o j1.btf mixed/prog
	"$BTF_LINK" -j4 -o j4.btf mixed/prog
	cmp plain.btf j1.btf
	cmp plain.btf j4.btf
}

@test "compress: a module's split BTF from compressed members, as from plain ones" {
	need_cmd gcc ld
	need_built
	objs base
	prog base
	"$BTF_LINK" base/prog
	for m in plain z; do
		o=
		[ $m = z ] && o=--compress
		mkdir $m
		for n in mod1 mod2; do
			"$CC_BTF" $o gcc $LINK_CFLAGS -c "$FIXTURES/link-$n.c" \
				-o $m/$n.o
		done
		ld -r -o $m/mod.ko $m/mod1.o $m/mod2.o
		"$BTF_LINK" --base base/prog -o $m.btf $m/mod.ko
	done
	[ "$(magic z/mod.ko)" = BTFz ]
	cmp plain.btf z.btf
}

# addr_field FILE N: field N of readelf's line of FILE's .debug_btf_addr
# after its name (1 type, 2 address, 3 offset, 4 size, 5 entry size, 6
# flags where there are any).
addr_field() {
	readelf -S -W "$1" | sed -n 's/.*\] \.debug_btf_addr  *//p' | awk -v n="$2" '{ print $n }'
}

# addr_flags FILE: the flags of FILE's .debug_btf_addr, empty if none.
addr_flags() {
	readelf -S -W "$1" | sed -n 's/.*\] \.debug_btf_addr  *//p' |
		awk 'NF == 9 { print $6 }'
}

@test "compress: the linker's compressed .debug_btf_addr (DEBUG_INFO_COMPRESSED) is inflated" {
	need_cmd gcc ld ld.lld readelf
	need_built
	objs plain
	local ld
	# kbuild's CONFIG_DEBUG_INFO_COMPRESSED gives every link
	# --compress-debug-sections=zlib: .debug_btf_addr is a debug
	# section to the linkers, compressed with the DWARF
	for ld in ld ld.lld; do
		rm -rf z && mkdir z
		"$ld" -T "$FIXTURES/link.lds" -o plain/prog plain/{main,a,gc,b}.o
		"$ld" -T "$FIXTURES/link.lds" --compress-debug-sections=zlib \
			-o z/prog plain/{main,a,gc,b}.o
		[ "$(addr_flags z/prog)" = C ]
		"$BTF_LINK" -o plain.btf plain/prog
		"$BTF_LINK" -o z.btf z/prog
		cmp plain.btf z.btf
		# in place: the emptied section is no longer marked compressed
		"$BTF_LINK" z/prog
		[ -z "$(addr_flags z/prog)" ]
		readelf -S -W z/prog 2>&1 | grep -i warning && false
		section_bytes z/prog .BTF z-inplace.btf
		cmp plain.btf z-inplace.btf
		# a module (ld -r), in place, split on a base
		"$ld" -r -o plain/mod.ko plain/a.o plain/b.o
		"$ld" -r --compress-debug-sections=zlib -o z/mod.ko plain/a.o plain/b.o
		[ "$(addr_flags z/mod.ko)" = C ]
		"$BTF_LINK" --base z/prog -o mod-plain.btf plain/mod.ko
		"$BTF_LINK" --base z/prog z/mod.ko
		[ -z "$(addr_flags z/mod.ko)" ]
		section_bytes z/mod.ko .BTF mod-z.btf
		cmp mod-plain.btf mod-z.btf
	done
}

@test "compress: a damaged compressed .debug_btf_addr is one error, the input intact" {
	need_cmd gcc ld readelf python3
	need_built
	objs plain
	ld -r --compress-debug-sections=zlib -o mod.ko plain/a.o plain/b.o
	# the zlib stream's first bytes after the compression header
	[ "$(addr_flags mod.ko)" = C ]
	off=$(addr_field mod.ko 3)
	python3 - mod.ko $((16#$off + 24)) <<'PY'
import sys
f = open(sys.argv[1], "r+b")
f.seek(int(sys.argv[2]))
f.write(b"\xff\xff\xff\xff")
PY
	cp mod.ko before
	run -2 "$BTF_LINK" mod.ko
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "btf-link: error: mod.ko: cannot decompress .debug_btf_addr: "* ]]
	cmp before mod.ko
}

@test "compress: one compressed member is not final BTF: it is linked, not kept" {
	need_cmd gcc
	need_built
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/functions.c" -o plain.o
	"$CC_BTF" --compress --no-addr gcc -g -O2 -c "$FIXTURES/functions.c" -o z.o
	"$BTF_LINK" -f -o plain.btf plain.o
	"$BTF_LINK" -o z.btf z.o
	cmp plain.btf z.btf
	# and a raw file of compressed members is linked as an archive is
	section_bytes z.o .BTF z.raw
	"$BTF_LINK" -f -o raw.btf z.raw
	"$BTF_LINK" -f -o plain-raw.btf plain.btf
	cmp plain-raw.btf raw.btf
}

@test "compress: CC_BTF_OPTS=--compress, --print-settings says so, raw outputs stay plain" {
	need_cmd gcc
	need_built
	CC_BTF_OPTS=--compress "$CC_BTF" gcc -g -O2 -c "$FIXTURES/functions.c" -o z.o
	[ "$(magic z.o)" = BTFz ]
	run env CC_BTF_OPTS=--compress "$CC_BTF" --print-settings
	[ "$status" -eq 0 ]
	[[ "$output" == *"compress 1"* ]]
	gcc -g -O2 -c "$FIXTURES/functions.c" -o d.o
	"$CC_BTF" --compress --detached gcc -g -O2 -c "$FIXTURES/functions.c" -o d.o
	"$CC_BTF" --compress --encode -o raw.btf z.o
	for f in d.o.btf raw.btf; do
		[ "$(od -An -tx1 -N2 "$f" | tr -d ' ')" = 9feb ]
	done
}

# damaged FIELD VALUE | --stream OFFSET | --cut N: a raw file of
# functions.c's compressed member, with one header field (method, raw, z)
# set, one byte of the stream flipped, or the stream's last N bytes cut off
# (and its size in the header with them), linked: an error naming the
# member, and the input left as it was.
damaged() {
	"$CC_BTF" --compress gcc -g -O2 -c "$FIXTURES/functions.c" -o z.o
	section_bytes z.o .BTF z.raw
	python3 - "$@" <<'EOF'
import struct, sys
d = bytearray(open("z.raw", "rb").read())
what, value = sys.argv[1], int(sys.argv[2], 0)
if what == "--stream":
    d[16 + value] ^= 0x55
elif what == "--cut":
    z, = struct.unpack_from("<I", d, 12)
    struct.pack_into("<I", d, 12, z - value)
    d = d[:16 + z - value]
else:
    struct.pack_into("<I", d, {"method": 4, "raw": 8, "z": 12}[what], value)
open("bad.raw", "wb").write(d)
EOF
	cp bad.raw before.raw
	run -2 "$BTF_LINK" -f -o out.btf bad.raw
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "btf-link: error: bad.raw: .BTF member 0 at byte 0: "* ]]
	cmp bad.raw before.raw
	[ ! -e out.btf ]
}

@test "compress: a damaged compressed member is one error naming it" {
	need_cmd gcc python3
	need_built
	damaged method 2
	[[ "$output" == *"unknown compression method" ]]
	damaged z 0x7fffffff
	[[ "$output" == *"stream runs past the end of the section" ]]
	damaged raw 16
	[[ "$output" == *"BTF smaller than its header" ]]
	damaged raw 0x7fffffff
	[[ "$output" == *"its header claims more than 32 times the bytes of its stream, which no BTF member inflates to" ]]
	# the first inflated bytes, a BTF header, must fit the size said
	damaged raw 40
	[[ "$output" == *": byte 16 of its inflated BTF: member runs past the end of the section" ]]
	size=$(od -An -tu4 -j8 -N4 z.raw | tr -d ' ')
	damaged raw $((size + 1))
	[[ "$output" == *": its header says $((size + 1)) bytes inflated, of which its BTF header covers $size" ]]
	damaged --stream 0
	[[ "$output" == *"not a valid zlib stream" ]]
	damaged --cut 2
	[[ "$output" == *"the stream is truncated" ]]
	damaged --cut 100
	[[ "$output" == *"the stream is truncated" ]]
}

# Issue 36: a consistent 24-byte BTF header claiming 1 GiB of types, then
# 1 GiB of zeros, deflated to about 1 MB: inflated whole before its first
# type was refused (peak 1.05 GB). Now refused at its header, uninflated.
@test "compress: a member claiming 1 GiB from a 1 MB stream is refused before it is inflated" {
	need_cmd python3 /usr/bin/time
	need_built
	python3 - <<'EOF'
import struct, zlib
size = 1 << 30
hdr = struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, 0, size - 24 - 1, size - 24 - 1, 1)
z = zlib.compressobj(9)
out = [z.compress(hdr)]
chunk = bytes(1 << 20)
for _ in range(1024):
    out.append(z.compress(chunk))
out.append(z.flush())
stream = b"".join(out)
open("big.raw", "wb").write(b"BTFz" + struct.pack("<III", 1, size, len(stream)) + stream)
EOF
	[ "$(stat -c %s big.raw)" -lt $((2 << 20)) ]
	cp big.raw before.raw
	run -2 /usr/bin/time -f '%M' -o rss "$BTF_LINK" -o out.btf big.raw
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "btf-link: error: big.raw: .BTF member 0 at byte 0: compressed member: its header claims more than 32 times the bytes of its stream"* ]]
	[ "$(tail -n 1 rss)" -lt 102400 ]	# KiB
	cmp big.raw before.raw
	[ ! -e out.btf ]
}

# rewrapped KIND: the plain member of functions.c changed, then deflated
# behind a header that says its size (KIND: trailing, nested or a bad
# kind), as the second member of a raw archive after a good one; btf-link
# must fail on it with one error naming member 1 at its own byte.
rewrapped() {
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/functions.c" -o plain.o
	section_bytes plain.o .BTF plain.raw
	python3 - "$1" <<'EOF2'
import struct, sys, zlib
plain = open("plain.raw", "rb").read()
def wrap(raw):
    z = zlib.compress(raw, 1)
    return b"BTFz" + struct.pack("<III", 1, len(raw), len(z)) + z
what = sys.argv[1]
if what == "trailing":
    inner = plain + bytes(8)
elif what == "nested":
    inner = wrap(plain)
else:
    d = bytearray(plain)
    hlen, toff = struct.unpack_from("<II", d, 4)[0], struct.unpack_from("<I", d, 8)[0]
    d[hlen + toff + 7] = 0x7f	# the first type's kind: none such
    inner = bytes(d)
first = wrap(plain)
first += bytes(-len(first) % 4)
open("bad.raw", "wb").write(first + wrap(inner))
print(len(first))
EOF2
}

@test "compress: the inflated BTF is checked as any member, errors name the compressed member" {
	need_cmd gcc python3
	need_built
	local at
	for kind in trailing nested kind; do
		at=$(rewrapped $kind)
		cp bad.raw before.raw
		run -2 "$BTF_LINK" -f -o out.btf bad.raw
		echo "$kind: $output"
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "btf-link: error: bad.raw: .BTF member 1 at byte $at: "* ]]
		case $kind in
		trailing) [[ "$output" == *" bytes inflated, of which its BTF header covers "* ]] ;;
		*) [[ "$output" == *": byte "*" of its inflated BTF: "* ]] ;;
		esac
		cmp bad.raw before.raw
		[ ! -e out.btf ]
	done
}
