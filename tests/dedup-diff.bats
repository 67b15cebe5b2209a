#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The library replaces libbpf's deduplication in three places and claims
# the same bytes as libbpf's in all; these tests keep the claims true
# (tests/fixtures/dedup-diff.c does the work through the public API and
# the tests' switches, libarchive-btf/util/testing.h):
#
#  - ir_dedup.c: an object's BTF, deduplicated by the encoder's own
#    partition refinement, is byte for byte what btf__dedup() makes of the
#    same nodes (abtf_encode_testing.libbpf_dedup);
#  - exact.c: a link's final BTF with the exact matching before each merge
#    node's deduplication is byte for byte the link without it
#    (abtf_link_testing.no_exact, which also leaves every node to libbpf);
#  - node_dedup.c: each merge node's deduplication, libbpf's algorithm
#    over the library's own tables, gives btf__dedup()'s bytes
#    (abtf_link_testing.libbpf_dedup), and leaves to btf__dedup() the shapes
#    whose result is the order of libbpf's hash table.
#
# Here on the fixtures, compiled by gcc and clang, and on small links;
# tests/kernel-objects.bats and tests/link-kernel.bats hold them on kernel
# objects.

load test_helper

bats_require_minimum_version 1.5.0

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_cmd gcc clang ld readelf
	need_built
	dedup_diff_prog ./dedup-diff
}

# fixtures CC FLAGS...: every fixture BTF can express, compiled, as *.o.
fixtures() {
	local cc=$1 f n=0
	shift
	for f in "$FIXTURES"/*.c; do
		case ${f##*/} in
		unsupported-*|dedup-diff.c|features-api.c) continue ;;
		esac
		"$cc" -g "$@" -c "$f" -o "$(basename "$f" .c).o"
		n=$((n + 1))
	done
	[ "$n" -gt 30 ]
}

# shapes_prog: tests/fixtures/dedup-shapes.c as ./dedup-shapes.
shapes_prog() {
	need_cmd bpftool
	gcc -I"$ABTF_TOP/libarchive-btf" "$FIXTURES/dedup-shapes.c" -lbpf \
		-o dedup-shapes
}

# shape_links WANT FILE [BASE]: node_dedup.c gives btf__dedup()'s bytes
# on FILE (split on BASE), and btf-link -v says WANT nodes (0 or 1) went
# to libbpf; its output is FILE's name with .out for the extension.
shape_links() {
	local want=$1 file=$2 base=()
	[ $# -lt 3 ] || base=(--base "$3")
	run ./dedup-diff dedup "$file" ${3:+"$3"}
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	"$BTF_LINK" -f -v "${base[@]}" -o "${file%.*}.out" "$file" 2> "$file.log"
	grep -q "merge tree: 1 node, $want deduplicated by libbpf" \
		"$file.log" || { cat "$file.log"; return 1; }
}

@test "dedup-diff: gcc -O2 fixtures: ir_dedup.c gives btf__dedup()'s bytes" {
	fixtures gcc -O2
	run ./dedup-diff encode ./*.o
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "dedup-diff: gcc -O0 -gdwarf-4 fixtures: ir_dedup.c gives btf__dedup()'s bytes" {
	fixtures gcc -O0 -gdwarf-4
	run ./dedup-diff encode ./*.o
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "dedup-diff: clang fixtures: ir_dedup.c gives btf__dedup()'s bytes" {
	fixtures clang -O2
	run ./dedup-diff encode ./*.o
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "dedup-diff: a program and a module: exact.c changes no byte of the link" {
	local n
	[ "$(uname -m)" = x86_64 ] || unavailable "link.lds is x86-64's"
	cc_btf_prog prog
	for n in mod1 mod2; do
		"$CC_BTF" gcc -g -O2 -c "$FIXTURES/link-$n.c" -o "$n.o"
	done
	ld -r -o mod.ko mod1.o mod2.o
	run ./dedup-diff link prog
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	run ./dedup-diff dedup prog
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	"$BTF_LINK" prog
	run ./dedup-diff link mod.ko prog
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	run ./dedup-diff dedup mod.ko prog
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "dedup-diff: all fixtures in one link: node_dedup.c gives btf__dedup()'s bytes" {
	# gcc's and clang's fixtures (type and declaration tags, enum64,
	# floats, bitfields, FWDs), each object a member of one archive
	local cc
	for cc in gcc clang; do
		mkdir "$cc" && cd "$cc" || return 1
		fixtures "$cc" -O2 -fno-eliminate-unused-debug-types
		for o in ./*.o; do
			"$CC_BTF" --encode -o "${o%.o}.btf" "$o" 2>err && continue
			# every header type is emitted: clang 19 with Debian
			# 13's glibc writes _Complex _Float128, which BTF
			# cannot express; that object alone is left out, and
			# only for that, its DWARF the witness
			grep -q "base type .*BTF cannot express this base type encoding" err &&
				readelf --debug-dump=info "$o" | grep -q '(complex float)' ||
				{ cat err; return 1; }
			echo "left out: $o: $(cat err)"
			rm -f "${o%.o}.btf"
		done
		cat ./*.btf > ../"$cc".archive
		cd .. || return 1
		run ./dedup-diff dedup "$cc.archive"
		[ "$status" -eq 0 ] || { echo "$output"; return 1; }
		run ./dedup-diff link "$cc.archive"
		[ "$status" -eq 0 ] || { echo "$output"; return 1; }
		"$BTF_LINK" -v -o "$cc.btf" "$cc.archive" 2> "$cc.log"
		grep -q 'merge tree: .*, 0 deduplicated by libbpf' "$cc.log"
	done
}

@test "dedup-diff: node_dedup.c leaves libbpf's table order to libbpf, and decides enum FWDs" {
	# two-pass: two different structs S both equal to a third whose
	# member points to a FWD; enum-two: an enum FWD and two definitions.
	# btf__dedup() takes whichever its hash table lists first, so
	# node_dedup.c hands those nodes over; an enum FWD with one
	# definition it resolves itself.
	local s
	shapes_prog
	for s in two-pass enum-two enum-fwd; do
		./dedup-shapes "$s" "$s.btf"
		shape_links "$([ "$s" = enum-fwd ] && echo 0 || echo 1)" "$s.btf"
	done
	# and the shapes are what they say: libbpf keeps both S, one enum
	[ "$(bpftool btf dump file two-pass.out | grep -c "STRUCT 'S'")" -eq 2 ]
	[ "$(bpftool btf dump file enum-fwd.out | grep -c "ENUM 'E'")" -eq 1 ]
}

@test "dedup-diff: over a base, node_dedup.c gives btf__dedup()'s bytes or leaves it the order" {
	# a module's split BTF: dup-int (a base with two equal INTs) and
	# base-enum (the base's enum FWD and definition) depend on libbpf's
	# table order and go to btf__dedup(); base-fwd (a struct of the
	# module resolves the base's FWD of its name) node_dedup.c decides
	local s
	shapes_prog
	for s in dup-int base-enum base-fwd; do
		./dedup-shapes "$s" "$s.base" "$s.mod"
		shape_links "$([ "$s" = base-fwd ] && echo 0 || echo 1)" \
			"$s.mod" "$s.base"
	done
	# the module keeps its struct X and its S, the base's FWD resolved
	bpftool btf dump -B base-fwd.base file base-fwd.out > fwd.dump
	[ "$(grep -c "STRUCT 'X'" fwd.dump)" -eq 1 ]
	[ "$(grep -c "STRUCT 'S'" fwd.dump)" -eq 1 ]
	# libbpf points the module's INT at one of the base's two
	bpftool btf dump -B dup-int.base file dup-int.out > int.dump
	grep -q "^\[3\] PTR '(anon)' type_id=[12]$" int.dump
}

@test "dedup-diff: a struct paired with a FWD and then met alone stays one struct" {
	# exact.c pairs c's struct tun with b's FWD inside struct cb's walk,
	# which maps c's pointer to it onto the node's pointer to the FWD; then
	# c's struct tun, walked alone against a's, meets that pointer: equal
	# but for the FWD, which libbpf resolves to a's struct. Before, it was
	# appended: a second struct tun, pointing at the FWD, which libbpf's
	# dedup cannot merge (Linux's ip_tunnel in a defconfig vmlinux).
	local n
	need_cmd bpftool
	for n in a b c; do
		"$CC_BTF" gcc -g -O2 -c "$FIXTURES/fwd-pair-$n.c" -o "$n.o"
	done
	ld -r -o abc.o a.o b.o c.o
	run ./dedup-diff link abc.o
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	"$BTF_LINK" -o abc.btf abc.o
	bpftool btf dump file abc.btf > abc.dump
	[ "$(grep -c "STRUCT 'tun'" abc.dump)" -eq 1 ]
	[ "$(grep -c "FWD 'tun'" abc.dump)" -eq 0 ]
	[ "$(grep -c "STRUCT 'cb'" abc.dump)" -eq 1 ]
}

@test "dedup-diff: the harness tells different BTFs apart" {
	# or the checks above could not fail
	gcc -g -O2 -c "$FIXTURES/link-a.c" -o a.o
	gcc -g -O2 -c "$FIXTURES/link-b.c" -o b.o
	"$CC_BTF" --encode -o a.btf a.o
	"$CC_BTF" --encode -o b.btf b.o
	run ./dedup-diff bytes a.btf a.btf
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run ./dedup-diff bytes a.btf b.btf
	[ "$status" -eq 1 ]
	[[ $output == "b.btf: differ: "* ]]
}
