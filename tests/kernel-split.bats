#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --base on real objects: udp_tunnel.ko's two, built in the tree
# of tests/kernel/prepare.sh, split over the rest of its sample (which has
# struct net_device, pointing to a FWD udp_tunnel_nic), as issue #9 saw it
# on a whole 6.1 vmlinux; pahole 1.24 --btf_base is the reference
# (tests/split.bats has the same shapes in a few lines of C).

load test_helper

bats_require_minimum_version 1.5.0

setup_file() {
	kernel_prepare
}

@test "split: udp_tunnel's real objects over the kernel sample, as pahole" {
	need_kernel ld bpftool
	linked_sample base.o
	"$BTF_LINK" -o base.btf base.o
	local o objs=
	for o in core nic; do
		cp "$KBUILD/net/ipv4/udp_tunnel_$o.o" "$o.o"
		"$CC_BTF" --encode "$o.o"
		objs+=" $o.o"
	done
	ld -r -o mod.o $objs
	cp mod.o for-pahole.o
	pahole -J --btf_gen_floats --btf_base base.btf \
		--btf_encode_detached=ref.btf for-pahole.o
	"$BTF_LINK" --base base.btf -o ours.btf mod.o
	same_btf --base base.btf ref.btf ours.btf
	"$BTF_LINK" -j1 --base base.btf -o ours-j1.btf mod.o
	"$BTF_LINK" -j4 --base base.btf -o ours-j4.btf mod.o
	cmp ours.btf ours-j1.btf
	cmp ours.btf ours-j4.btf
	# what issue #9 saw: udp_tunnel_nic_flush() takes the module's struct,
	# not the base's FWD
	bpftool -B base.btf btf dump file ours.btf > mod.dump
	[ "$(count_kind mod.dump FWD udp_tunnel_nic)" -eq 0 ]
	local nic
	nic=$(id_of mod.dump STRUCT udp_tunnel_nic)
	[ -n "$nic" ]
	[ "$(ptr_target mod.dump "$(param_type mod.dump udp_tunnel_nic_flush 2)")" = "$nic" ]
}
