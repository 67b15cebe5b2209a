#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Rust in a tree (issue 35): a kernel with CONFIG_RUST compiles its Rust
# with rustc, not through CC, and gives pahole --lang_exclude=rust, which
# leaves Rust units out. cc-btf leaves a Rust unit of an object it encodes
# out too (the C units of the same object are encoded); btf-link's BTF of
# an image that links Rust objects, which carry no .BTF of their own, has
# none of their types or functions: what pahole --lang_exclude=rust makes
# of the image's DWARF, by meaning. Debian 12's rustc (1.63) makes the
# objects.

load test_helper

bats_require_minimum_version 1.5.0

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_cmd gcc ld rustc pahole bpftool readelf
	need_built
	# no_std, no overflow checks, panic=abort: nothing from Rust's core
	# library left to link
	cat >point.rs <<-'EOF2'
	#![no_std]
	pub struct Point { pub x: i32, pub y: i64 }
	#[no_mangle]
	pub extern "C" fn rust_point_sum(p: &Point) -> i64 { p.x as i64 + p.y }
	#[no_mangle]
	pub static mut RUST_COUNTER: u64 = 0;
	EOF2
	rustc --crate-type=lib --emit=obj -g -C opt-level=1 -C panic=abort \
		-C overflow-checks=off point.rs -o point.o
	cat >c.c <<-'EOF2'
	struct cpoint { int x; long y; };
	long c_sum(struct cpoint *p) { return p->x + p->y; }
	EOF2
	# the object holds a Rust unit, or the tests below prove nothing
	readelf --debug-dump=info point.o | grep -q 'DW_AT_language.*(Rust)'
}

@test "rust: cc-btf leaves a Rust unit out and encodes the C units, as pahole --lang_exclude=rust" {
	gcc -g -O2 -c c.c -o c.o
	ld -r -o both.o c.o point.o
	run --separate-stderr "$CC_BTF" --encode -o both.btf both.o
	[ "$status" -eq 0 ]
	pahole -J --btf_gen_floats --lang_exclude=rust \
		--btf_encode_detached=ref.btf both.o
	same_btf ref.btf both.btf
	bpftool btf dump file both.btf > both.dump
	grep -q "STRUCT 'cpoint'" both.dump
	grep -q "FUNC 'c_sum'" both.dump
	! grep -q "Point\|rust_point_sum" both.dump
	# the Rust object alone: no types
	"$CC_BTF" --encode -o point.btf point.o
	[ "$(bpftool btf dump file point.btf | wc -l)" -eq 0 ]
}

@test "rust: btf-link's BTF of an image linking a Rust object means what pahole --lang_exclude=rust makes" {
	[ "$(uname -m)" = x86_64 ] || unavailable "link.lds is x86-64's"
	printf 'void link_start(void) {}\n' >start.c
	"$CC_BTF" gcc -g -O2 -c start.c -o start.o
	"$CC_BTF" gcc -g -O2 -c c.c -o c.o
	ld -T "$FIXTURES/link.lds" -o prog start.o c.o point.o
	link_as_pahole prog var,float,decl_tag,type_tag,enum64 \
		--btf_gen_floats --lang_exclude=rust
	# and pahole without --lang_exclude=rust would have the Rust types
	pahole -J --btf_gen_floats --btf_encode_detached=all.btf prog
	bpftool btf dump file all.btf | grep -q "rust_point_sum"
	! bpftool btf dump file ours.btf | grep -q "Point\|rust_point_sum"
}
