#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The library replaces libbpf's deduplication in two places and claims the
# same bytes as libbpf's in both; these tests keep the claims true
# (tests/fixtures/dedup-diff.c does the work through the public API's
# testing options):
#
#  - ir_dedup.c: an object's BTF, deduplicated by the encoder's own
#    partition refinement, is byte for byte what btf__dedup() makes of the
#    same nodes (abtf_encode_opts.libbpf_dedup);
#  - exact.c: a link's final BTF with the exact matching before each merge
#    node's btf__dedup() is byte for byte the link without it
#    (abtf_link_opts.no_exact).
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
	"$BTF_LINK" prog
	run ./dedup-diff link mod.ko prog
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
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
