#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --base: a module's split BTF against pahole 1.24 --btf_base run
# on the same module, for the shapes where a module's objects disagree on
# a FWD and its struct (issue #9; docs/design.md, "Split BTF for modules").
#
# Each fixture tests/fixtures/split-*.c is compiled at test time, through
# cc-btf, once per role (-DBASE, then the module's objects): the "vmlinux"
# is linked with tests/fixtures/link.lds as tests/link.bats links it, the
# module is `ld -r` of its objects. pahole is the reference.
#
# tests/kernel-split.bats does the same with real objects.

load test_helper

bats_require_minimum_version 1.5.0

CFLAGS_SPLIT="-g -O2 -ffunction-sections -fdata-sections"

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc ld pahole bpftool cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 link.lds is the layout of x86-64"

# split_fixture NAME ROLE...: vmlinux from NAME.c -DBASE, linked with
# link.lds, its BTF linked; mod.o: `ld -r` of NAME.c built -DROLE for each
# ROLE; ref.btf: pahole's split BTF of mod.o over vmlinux; mod.o's own
# split BTF by btf-link; mod.dump: bpftool's dump of its split part.
split_fixture() {
	local name=$1 role objs=
	shift
	"$CC_BTF" gcc $CFLAGS_SPLIT -DBASE -c "$FIXTURES/$name.c" -o base.o
	ld -T "$FIXTURES/link.lds" -o vmlinux base.o
	"$BTF_LINK" vmlinux
	for role in "$@"; do
		"$CC_BTF" gcc $CFLAGS_SPLIT -D"$role" -c "$FIXTURES/$name.c" \
			-o "$role.o"
		objs+=" $role.o"
	done
	ld -r -o mod.o $objs
	cp mod.o for-pahole.o
	pahole -J --btf_gen_floats --btf_base vmlinux \
		--btf_encode_detached=ref.btf for-pahole.o
	"$BTF_LINK" --base vmlinux mod.o
	bpftool -B vmlinux btf dump file mod.o > mod.dump
}


@test "split: a struct the base has as a FWD, defined in the module (udp_tunnel.ko)" {
	need_tools
	split_fixture split-fwd-base CORE NIC
	same_btf --base vmlinux ref.btf mod.o
	# the module's functions take a pointer to the module's struct
	local nic
	nic=$(id_of mod.dump STRUCT tunnel_nic)
	[ -n "$nic" ]
	[ "$(ptr_target mod.dump "$(param_type mod.dump tunnel_nic_sync)")" = "$nic" ]
	[ "$(count_kind mod.dump FWD tunnel_nic)" -eq 0 ]
}

@test "split: a FWD in one module object, the struct in another (udf.ko)" {
	need_tools
	split_fixture split-fwd-local SB FULL
	same_btf --base vmlinux ref.btf mod.o
	# sb_info points to the one full nls_table; no FWD is left
	local nls sbi ptr
	[ "$(count_kind mod.dump STRUCT nls_table)" -eq 1 ]
	[ "$(count_kind mod.dump FWD nls_table)" -eq 0 ]
	nls=$(id_of mod.dump STRUCT nls_table)
	sbi=$(id_of mod.dump STRUCT sb_info)
	ptr=$(sed -n "/^\[$sbi\] STRUCT /{n;s/.*'nls_map' type_id=\([0-9]*\) .*/\1/p;}" mod.dump)
	[ "$(ptr_target mod.dump "$ptr")" = "$nls" ]
}

@test "split: a struct one module object sees as a FWD, in a struct another shares (xfs.ko)" {
	need_tools
	split_fixture split-fwd-dup FULL1 FWD FULL3
	same_btf --base vmlinux ref.btf mod.o
	[ "$(count_kind mod.dump STRUCT cur)" -eq 1 ]
	[ "$(count_kind mod.dump STRUCT ops)" -eq 1 ]
}

@test "split: the xfs.ko shape without a base: one struct, as pahole, in one link" {
	# exact.c's FWD pairing once left two identical structs here, and
	# btf-link linked again without it (linker.c, link_again()); the walk
	# now counts the pointer to the FWD equal to the pointer to the struct
	# (exact.c, node_equal_but_fwd()), and one link gives pahole's struct
	need_tools
	local role objs=
	for role in FULL1 FWD FULL3; do
		"$CC_BTF" gcc $CFLAGS_SPLIT -D"$role" \
			-c "$FIXTURES/split-fwd-dup.c" -o "$role.o"
		objs+=" $role.o"
	done
	ld -r -o all.o $objs
	cp all.o for-pahole.o
	pahole -J --btf_gen_floats --btf_encode_detached=ref.btf for-pahole.o
	"$BTF_LINK" -vv -o ours.btf all.o 2> vv
	cat vv
	if grep -q 'linking again' vv; then return 1; fi
	same_btf ref.btf ours.btf
	bpftool btf dump file ours.btf > ours.dump
	[ "$(count_kind ours.dump STRUCT cur)" -eq 1 ]
	"$BTF_LINK" -j1 -o j1.btf all.o
	"$BTF_LINK" -j4 -o j4.btf all.o
	cmp ours.btf j1.btf
	cmp ours.btf j4.btf
}
