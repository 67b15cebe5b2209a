#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/kernel/e2e-classify, the judge of every kernel comparison with
# pahole: each kind of deliberate difference is accepted only with its
# witness (the image's symbols and DWARF, the objects' DWARF, pahole
# itself, as tests/kernel/e2e.sh finds them), and for every kind a line
# of its shape without that witness is refused. The inputs are made-up
# diffs in btf-link --compare's format and the witness files e2e.sh
# writes.

load test_helper

bats_require_minimum_version 1.5.0

CLASSIFY=$ABTF_TOP/tests/kernel/e2e-classify

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_cmd python3
	# no witnesses: each test writes the ones it gives
	for f in a-funcs b-funcs dups lenders last base asm percpu-start aliases lost \
		clones weak; do
		: > "$f"
	done
}

# judge [--reference-j] [--pahole-version N] LINE...: e2e-classify on a
# diff of LINEs, with the witness files of this directory; its status and
# output in bats' run.
judge() {
	local j=()
	if [ "$1" = --reference-j ]; then
		j=(--reference-j)
		shift
	fi
	if [ "$1" = --pahole-version ]; then
		j+=("$1" "$2")
		shift 2
	fi
	printf '%s\n' "$@" > diff
	run "$CLASSIFY" "${j[@]}" diff a-funcs b-funcs dups lenders last base \
		asm percpu-start aliases lost clones weak
}

# accepted KIND-WORDS: every line had a kind, whose description has these
# words.
accepted() {
	[ "$status" -eq 0 ] || { echo "refused: $output"; return 1; }
	[[ $output == *"$1"* ]] || { echo "not as $1: $output"; return 1; }
	[[ $output != *"not a deliberate difference"* ]]
}

# refused LINE: e2e-classify said LINE is no deliberate difference.
refused() {
	[ "$status" -eq 1 ] || { echo "accepted (status $status): $output"; return 1; }
	[[ $output == *"not a deliberate difference:"*"$1"* ]] ||
		{ echo "did not name: $1"; echo "$output"; return 1; }
}

LENDER='- func native_save_fl: long unsigned int native_save_fl(void)'
SHOW='~ func show: a: int show(struct seq_file *m) | b: long int show(int x)'

@test "classify: a lender needs e2e.sh's witnesses (the image's DWARF, pahole alone), not our BTF" {
	echo native_save_fl > a-funcs
	judge "$LENDER"
	refused "$LENDER"
	echo native_save_fl > lenders
	judge "$LENDER"
	accepted "inlined in another object"
	# "lender-out": pahole has no FUNC, ours has the defining object's
	: > a-funcs
	echo show > b-funcs
	echo show > lenders
	judge '+ func show: int show(int x)'
	accepted "no FUNC, for a same-named function"
	# a planted wrong prototype of a name with no witness
	: > lenders
	judge "$SHOW"
	refused "$SHOW"
}

@test "classify: pahole -j's choice among namesakes only against a reference made with -j" {
	printf 'show\nshow\n' > a-funcs
	echo show > b-funcs
	echo show > dups
	judge "$SHOW"
	refused "$SHOW"
	judge --reference-j "$SHOW"
	accepted "pahole -j"
	# a name defined once is no namesake, -j or not
	: > dups
	echo show > a-funcs
	judge --reference-j "$SHOW"
	refused "$SHOW"
}

@test "classify: a FUNC of an assembler unit only where the defining object's DWARF is an assembler's" {
	local line='- func memcpy: void memcpy(void)'
	echo memcpy > a-funcs
	judge "$line"
	refused "$line"
	echo memcpy > asm
	judge "$line"
	accepted "assembler unit"
	# ours has a FUNC of the name: not the assembler unit's difference
	echo memcpy > b-funcs
	judge "$line"
	refused "$line"
}

@test "classify: the per-CPU variable at offset 0 only in .data..percpu, for the image's symbol at its start" {
	local sec='~ datasec .data..percpu: a: size 8 {y @4 size 4} | b: size 8 {x @0 size 4, y @4 size 4}'
	local var='+ var x: global int x'
	judge "$sec" "$var"
	refused "$var"
	echo x > percpu-start
	judge "$sec" "$var"
	accepted "per-CPU variable at offset 0"
	# the same shape in another section is refused
	local other='~ datasec .data..percpu..first: a: size 8 {y @4 size 4} | b: size 8 {x @0 size 4, y @4 size 4}'
	judge "$other" "$var"
	refused "$other"
	# and a VAR in .data is never one
	judge "$sec" "$var" '+ var extra: global int extra'
	refused '+ var extra: global int extra'
}

@test "classify: a per-CPU VAR named after its __pi_ alias only where nm has both names at one address" {
	local sec='~ datasec .data..percpu: a: size 4096 {__pi_gdt_page @0 size 4096} | b: size 4096 {gdt_page @0 size 4096}'
	local minus='- var __pi_gdt_page: global struct gdt_page __pi_gdt_page'
	local plus='+ var gdt_page: global struct gdt_page gdt_page'
	judge "$sec" "$minus" "$plus"
	refused "$plus"
	echo gdt_page > aliases
	judge "$sec" "$minus" "$plus"
	accepted "__pi_ alias"
}

@test "classify: pahole's last ambiguous name and the split duplicate, each only with its witness" {
	local last='- func init_once: static void init_once(void *foo)'
	echo init_once > a-funcs
	judge "$last"
	refused "$last"
	echo init_once > last
	judge "$last"
	accepted "last name of its function table"
	echo init_once > b-funcs
	judge "$last"
	refused "$last"
	local dup='- struct kvm_pagewalk: size 8 {ptr @0 size 8}'
	judge "$dup"
	refused "$dup"
	echo "$dup" > base
	judge "$dup"
	accepted "copy of a base struct"
}

@test "classify: a made-up diff of wrong lines of every shape is refused whole" {
	# the witnesses of other names do not cover these
	echo other > lenders
	echo other > asm
	echo other > percpu-start
	echo other > aliases
	echo other > dups
	printf 'show\n' > a-funcs
	judge --reference-j "$SHOW" '+ var extra: global int extra' \
		'- func planted: int planted(void)' \
		'~ datasec .data..percpu: a: size 8 {y @4 size 4} | b: size 8 {x @0 size 4, y @4 size 4}' \
		'~ struct kvm: a: size 8 {m @0 size 8} | b: size 16 {m @0 size 16}'
	[ "$status" -eq 1 ]
	[[ $output == *"5  not a deliberate difference"* ]] || { echo "$output"; return 1; }
}

@test "classify: a usage error is status 2" {
	run "$CLASSIFY" diff
	[ "$status" -eq 2 ]
	[[ $output == Usage:* ]]
}

@test "classify: assembly over a weak C function: pahole's void(void) against the C prototype, only with the witness" {
	local line='~ func crc32_le: a: static void crc32_le(void) | b: static u32 crc32_le(u32 crc, const unsigned char *p, size_t len)'
	echo crc32_le > a-funcs
	echo crc32_le > b-funcs
	judge "$line"
	refused "$line"
	# the plain asm-unit witness is not this one: ours has a FUNC
	echo crc32_le > asm
	judge "$line"
	refused "$line"
	echo "crc32_le weak" > asm
	judge "$line"
	accepted "overrides a weak C function"
}

@test "classify: a type only we have, only where the image's DWARF lacks it and an object's has it" {
	local line='+ struct cpio_fields: size 16 {a int @0, b int @32}'
	judge "$line"
	refused "$line"
	# another kind of the name, or another name, is no witness
	echo "union cpio_fields" > lost
	judge "$line"
	refused "$line"
	echo "struct cpio_fields" > lost
	judge "$line"
	accepted "the linked image's DWARF"
	# only for a type we have and pahole lacks
	judge '- struct cpio_fields: size 16 {a int @0, b int @32}'
	refused '- struct cpio_fields'
	judge '~ struct cpio_fields: a: size 16 {a int @0} | b: size 16 {b int @0}'
	refused '~ struct cpio_fields'
}

@test "classify: an array shape difference only as the label says and the classifier checks" {
	judge '~ struct kvm_mmu: array shape: a: size 80 {rsvd_bits_mask u64 [10] @0} | b: size 80 {rsvd_bits_mask u64 [2][5] @0}'
	accepted "multi-dimensional array"
	judge '~ struct kvm_mmu: array shape: a: size 80 {rsvd_bits_mask u64 [10] @0} | b: size 80 {rsvd_bits_mask u64 [5][3] @0}'
	refused '~ struct kvm_mmu'
	# the same shape, unlabelled (btf-link saw more than arrays)
	judge '~ struct kvm_mmu: a: size 80 {rsvd_bits_mask u64 [10] @0} | b: size 80 {rsvd_bits_mask u64 [2][5] @0}'
	refused '~ struct kvm_mmu'
	# flat on both sides of one line is no nesting
	judge '~ typedef t: array shape: a: int [6] [2][2] | b: int [2][3] [4]'
	refused '~ typedef t'
}

@test "classify: pahole 1.31's missing FUNC for assembly over a weak C function, only with the witness" {
	local line='+ func arch_bpf_timed_may_goto: static u64 arch_bpf_timed_may_goto(void)'
	echo arch_bpf_timed_may_goto > b-funcs
	judge "$line"
	refused "$line"
	echo arch_bpf_timed_may_goto > asm
	judge "$line"
	refused "$line"
	echo "arch_bpf_timed_may_goto weak" > asm
	judge "$line"
	accepted "overrides a weak C function of the name (gas's"
	# pahole has a FUNC of the name: not this kind
	echo arch_bpf_timed_may_goto > a-funcs
	judge "$line"
	refused "$line"
}

@test "classify: pahole 1.30's FUNC of a GCC clone, only where the image has the name as a clone alone, and only from 1.30" {
	local line='- func __call_rcu_common: static void __call_rcu_common(struct callback_head *head, rcu_callback_t func, bool lazy_in)'
	echo __call_rcu_common > a-funcs
	judge --pahole-version 130 "$line"
	refused "$line"
	echo __call_rcu_common > clones
	judge --pahole-version 130 "$line"
	accepted "GCC clone"
	# from pahole 1.31 on, from 1.24 (no optimized_func: ours keeps it
	# too), or from a pahole of unknown version: refused
	judge --pahole-version 131 "$line"
	refused "$line"
	judge --pahole-version 124 "$line"
	refused "$line"
	judge "$line"
	refused "$line"
	# ours has a FUNC of the name: not this difference
	echo __call_rcu_common > b-funcs
	judge --pahole-version 130 "$line"
	refused "$line"
}

@test "classify: pahole 1.30's FUNC of a name at several addresses, only with nm's namesakes, and only from 1.30" {
	local line='- func m_start: static void *m_start(struct seq_file *m, loff_t *pos)'
	echo m_start > a-funcs
	judge --pahole-version 130 "$line"
	refused "$line"
	echo m_start > dups
	judge --pahole-version 130 "$line"
	accepted "several addresses"
	judge --pahole-version 132 "$line"
	refused "$line"
	# a reference made with -j chooses among namesakes by thread instead
	judge --reference-j --pahole-version 130 "$line"
	refused "$line"
}

@test "classify: pahole 1.30's prototype of a weak stub, only with the objects' weak and strong definitions and parameter names alone differing" {
	local line='~ func __x64_sys_accept: a: static long int __x64_sys_accept(const struct pt_regs *__unused) | b: static long int __x64_sys_accept(const struct pt_regs *regs)'
	local types='~ func __x64_sys_bind: a: static long int __x64_sys_bind(const struct pt_regs *__unused) | b: static int __x64_sys_bind(const struct pt_regs *regs)'
	echo __x64_sys_accept > a-funcs
	echo __x64_sys_accept > b-funcs
	judge --pahole-version 130 "$line"
	refused "$line"
	printf '%s\n' __x64_sys_accept __x64_sys_bind > weak
	judge --pahole-version 130 "$line"
	accepted "weak C definition"
	judge --pahole-version 132 "$line"
	refused "$line"
	# another return type is another prototype, weak or not
	judge --pahole-version 130 "$types"
	refused "$types"
}
