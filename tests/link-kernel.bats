#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link on real kernel objects: the sample of tests/kernel/objects
# (built by tests/kernel/prepare.sh, as for tests/kernel-objects.bats),
# encoded by cc-btf and linked together with `ld -r`, against pahole 1.24
# run on the same linked object (and, where the lab has it, against
# upstream pahole 1.31 with Linux 6.12's BTF features).
#
# What this exercises that the small fixtures of tests/link.bats do not:
# dozens of members that repeat each other's header types, each having
# seen a different set of definitions (a FWD in one object is the struct
# in the next). Most of a member is merged into what came before it by
# exact.c before libbpf's dedup sees it; the meaning must be pahole's, to
# the last line.
#
# Skipped only when the kernel source is not there and cannot be installed.

load test_helper

bats_require_minimum_version 1.5.0

setup_file() {
	kernel_prepare
}

@test "link-kernel: the sample objects linked with ld -r mean what pahole makes of them" {
	need_kernel ld
	linked_sample linked.o
	cp linked.o for-pahole.o
	# serially: pahole -j keeps same-named FUNCs by thread (tests/link.bats)
	pahole -J ${PAHOLE_KERNEL_FLAGS/-j /} --btf_encode_detached=ref.btf \
		for-pahole.o
	# pahole 1.24's array shape, as kbuild asks it of btf-link for 1.24
	"$BTF_LINK" -v --flat_arrays -o ours.btf linked.o 2> stats
	cat stats
	grep -q ' members (\([0-9]*\) placed by .debug_btf_addr)' stats
	run -0 "$BTF_LINK" --compare ref.btf ours.btf
	[ -z "$output" ]
}

@test "link-kernel: the sample objects linked with ld -r: nested arrays as pahole 1.32 makes them, 7.3's features" {
	need_kernel ld
	need_pahole_sid
	local feats=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func
	linked_sample linked.o
	cp linked.o for-pahole.o
	# serially, with the features 7.3 gives pahole 1.26 and later
	"$PAHOLE_SID" -J --btf_features=$feats --lang_exclude=rust \
		--btf_encode_detached=ref.btf for-pahole.o
	"$BTF_LINK" --btf_features=$feats -o ours.btf linked.o
	nested_arrays ours.btf
	run -0 "$BTF_LINK" --compare ref.btf ours.btf
	[ -z "$output" ]
}

@test "link-kernel: the sample objects give the same bytes at -j1, -j2 and -j4" {
	need_kernel ld
	linked_sample linked.o
	"$BTF_LINK" -j1 -o j1.btf linked.o
	"$BTF_LINK" -j2 -o j2.btf linked.o
	"$BTF_LINK" -j4 -o j4.btf linked.o
	cmp j1.btf j2.btf
	cmp j1.btf j4.btf
}

@test "link-kernel: the sample objects, compressed (cc-btf --compress): the same bytes" {
	need_kernel ld
	linked_sample plain.o
	"$BTF_LINK" -o plain.btf plain.o
	linked_sample z.o --compress
	section_bytes plain.o .BTF plain.archive
	section_bytes z.o .BTF z.archive
	[ "$(head -c 4 z.archive)" = BTFz ]
	echo "archive: $(stat -c %s plain.archive) B plain, $(stat -c %s z.archive) B compressed"
	[ "$(stat -c %s z.archive)" -lt "$(stat -c %s plain.archive)" ]
	"$BTF_LINK" -j1 -o z1.btf z.o
	"$BTF_LINK" -j4 -o z4.btf z.o
	cmp plain.btf z1.btf
	cmp plain.btf z4.btf
}

@test "link-kernel: the sample objects link to the types of libbpf's dedup alone" {
	# tests/dedup/oracle.c: the link (one leaf, and a leaf per member)
	# against btf__dedup() once over every member, by meaning
	need_kernel ld
	dedup_oracle_prog ./dedup-oracle
	linked_sample linked.o
	run ./dedup-oracle -v linked.o
	echo "$output" | tail -n 40
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *", 0 differences" ]]
}

@test "link-kernel: the sample objects: exact.c and node_dedup.c change no byte of the link" {
	# their claims (tests/dedup-diff.bats has the fixtures'): the link
	# against libbpf's dedup alone, and against libbpf's dedup after
	# exact.c
	need_kernel ld
	dedup_diff_prog ./dedup-diff
	linked_sample linked.o
	run ./dedup-diff link linked.o
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	run ./dedup-diff dedup linked.o
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "link-kernel: the sample without features means what pahole 1.24 makes with the legacy flags" {
	need_kernel ld
	linked_sample linked.o
	# every feature off; float off alone (serial pahole: tests/link.bats)
	link_as_pahole linked.o "" --skip_encoding_btf_vars --skip_encoding_btf_enum64 \
		--skip_encoding_btf_decl_tag --skip_encoding_btf_type_tag \
		--lang_exclude=rust
	link_as_pahole linked.o var,decl_tag,type_tag,enum64 --lang_exclude=rust
	link_as_pahole linked.o float,decl_tag,type_tag --btf_gen_floats \
		--skip_encoding_btf_vars --skip_encoding_btf_enum64 --lang_exclude=rust
	# and the same bytes at any -j
	"$BTF_LINK" -j1 --btf_features= -o j1.btf linked.o
	"$BTF_LINK" -j2 --btf_features= -o j2.btf linked.o
	cmp j1.btf j2.btf
	"$BTF_LINK" -j1 --btf_features=var,float -o j1.btf linked.o
	"$BTF_LINK" -j3 --btf_features=var,float -o j3.btf linked.o
	cmp j1.btf j3.btf
}

# Linux 6.12's --btf_features list (scripts/Makefile.btf) and the lab's
# upstream pahole (1.31), which CI does not have.
FEATS_612=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
LAB_PAHOLE=${ABTF_LAB_PAHOLE:-}

# bats test_tags=upstream
@test "link-kernel: optimized_func and consistent_func: the functions the lab's pahole (1.31) makes of the sample" {
	need_kernel ld
	need_lab_pahole
	linked_sample linked.o
	cp linked.o for-pahole.o
	"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
		--btf_encode_detached=ref.btf for-pahole.o
	"$BTF_LINK" --btf_features=$FEATS_612 -o ours.btf linked.o
	run "$BTF_LINK" --compare ref.btf ours.btf
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	# and the features matter here: without them, pahole 1.24's choice
	"$BTF_LINK" -o default.btf linked.o
	run "$BTF_LINK" --compare ref.btf default.btf
	[ "$status" -eq 1 ]
	[[ $output == *"- func "* ]]
}

@test "link-kernel: optimized_func and consistent_func: the same bytes at -j1 and -j4" {
	need_kernel ld
	linked_sample linked.o
	"$BTF_LINK" -j1 --btf_features=$FEATS_612 -o j1.btf linked.o
	"$BTF_LINK" -j4 --btf_features=$FEATS_612 -o j4.btf linked.o
	cmp j1.btf j4.btf
}
