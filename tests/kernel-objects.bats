#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The encoder on real kernel objects: the sample of tests/kernel/objects,
# built by tests/kernel/prepare.sh from Debian's linux-source-6.1 with the
# kernel's own flags and tests/kernel/config-fragment (cached in
# ${ABTF_KERNEL_DIR:-tests/.work/kernel}; the first run takes a few
# minutes). For each object, cc-btf --encode must give what pahole 1.24
# gives with the kernel's flags, to the last line of btf-link --compare,
# but for two documented differences:
#
#   pahole on one object encodes only the per-CPU variables of the section
#   named exactly ".data..percpu"; we also encode those of its subsections
#   (".data..percpu..first", "..page_aligned", "..read_mostly",
#   "..shared_aligned"), one DATASEC each, named after the section.
#
#   cc-btf encodes a multi-dimensional array nested, an ARRAY per
#   dimension, as pahole 1.32 does; pahole 1.24 flattens it (btf-link
#   --flat_arrays makes that shape at link time).
#
# The lines those differences make are not guessed: for each subsection S,
# pahole itself encodes a copy of the object in which S is renamed
# ".data..percpu" (and .data..percpu renamed away); its VARs and its
# DATASEC, renamed back to S, are exactly the "+" lines we must add.
# The test "arch/x86/kernel/cpu/common.o" also spells them out by hand.
# The array lines are the "array shape" lines of pahole 1.24 against
# Debian sid's pahole 1.32 on the same object, with the same flags.
#
# Skipped only when the kernel source is not there and cannot be installed.

load test_helper

bats_require_minimum_version 1.5.0

setup_file() {
	kernel_prepare
}

# percpu_subsection_lines OBJ: the "+" lines that our per-CPU subsection
# DATASECs and VARs add to btf-link --compare PAHOLE OURS, as pahole itself
# encodes each subsection once it bears the name ".data..percpu". Sorted.
# Needs ref.btf, pahole's BTF of OBJ.
percpu_subsection_lines() {
	local obj=$1 sec st
	readelf -SW "$obj" |
		sed -n 's/^ *\[ *[0-9]*\] \(\.data\.\.percpu\.\.[^ ]*\) .*/\1/p' |
	while read -r sec; do
		objcopy --rename-section .data..percpu=.data.abtf_percpu_orig \
			--rename-section "$sec=.data..percpu" "$obj" sub.o
		pahole_btf sub.o sub.btf
		st=0
		"$BTF_LINK" --compare ref.btf sub.btf > sub.diff || st=$?
		[ $st -le 1 ] || return 1
		grep '^+ var ' sub.diff || true
		sed -n -e "s/^~ datasec \.data\.\.percpu: a: .* | b: \(.*\)\$/+ datasec $sec: \1/p" \
			-e "s/^+ datasec \.data\.\.percpu: \(.*\)\$/+ datasec $sec: \1/p" \
			sub.diff
	done | LC_ALL=C sort
}

# array_shape_lines OBJ: the "array shape" lines of btf-link --compare
# between pahole 1.24's BTF of OBJ (ref.btf) and pahole 1.32's, with the
# kernel's flags: the arrays 1.32 nests, as cc-btf does. Sorted.
array_shape_lines() {
	local st=0
	need_pahole_sid
	# shellcheck disable=SC2086 # the flags are words
	"$PAHOLE_SID" -J $PAHOLE_KERNEL_FLAGS --btf_encode_detached=ref132.btf "$1"
	"$BTF_LINK" --compare ref.btf ref132.btf > ref132.diff || st=$?
	[ $st -le 1 ] || return 1
	grep '^~ [a-z]* [^ ]*: array shape: ' ref132.diff | LC_ALL=C sort || true
}

# nr_percpu_subsections OBJ: how many .data..percpu..* sections of OBJ
# hold a per-CPU variable (an object symbol of non-zero size).
nr_percpu_subsections() {
	local obj=$1
	readelf -SW "$obj" |
		sed -n 's/^ *\[ *\([0-9]*\)\] \.data\.\.percpu\.\.[^ ]* .*/\1/p' |
	while read -r idx; do
		readelf -sW "$obj" | awk -v i="$idx" \
			'$4 == "OBJECT" && $7 == i && $3 != "0" { n++ } END { exit !n }' &&
			echo "$idx"
	done | wc -l
}

# check_object PATH: PATH (relative to the build directory) encodes as
# pahole encodes it, but for the per-CPU subsections, and twice the same.
check_object() {
	local obj=$KBUILD/$1 st
	need_kernel bpftool
	[ -f "$obj" ]

	"$CC_BTF" --encode -o ours.btf "$obj"
	"$CC_BTF" --encode -o again.btf "$obj"
	cmp ours.btf again.btf
	bpftool btf dump file ours.btf > ours.dump
	grep -q "^\[[0-9]*\] FUNC '" ours.dump

	pahole_btf "$obj" ref.btf
	percpu_subsection_lines "$obj" > expected.percpu
	[ "$(grep -c '^+ datasec ' expected.percpu)" -eq "$(nr_percpu_subsections "$obj")" ]
	array_shape_lines "$obj" > expected.arrays
	LC_ALL=C sort expected.percpu expected.arrays > expected

	st=0
	"$BTF_LINK" --compare ref.btf ours.btf > actual.unsorted || st=$?
	LC_ALL=C sort actual.unsorted > actual
	if ! cmp -s expected actual; then
		echo "btf-link --compare pahole ours: exit $st; expected (-) vs got (+):"
		diff -u expected actual | cut -c1-400
		return 1
	fi
	if [ -s expected ]; then [ "$st" -eq 1 ]; else [ "$st" -eq 0 ]; fi
}

@test "kernel: kernel/fork.o as pahole" {
	check_object kernel/fork.o
}

@test "kernel: kernel/sched/core.o as pahole" {
	check_object kernel/sched/core.o
}

@test "kernel: kernel/sched/fair.o as pahole" {
	check_object kernel/sched/fair.o
}

@test "kernel: kernel/softirq.o as pahole" {
	check_object kernel/softirq.o
}

@test "kernel: kernel/workqueue.o as pahole" {
	check_object kernel/workqueue.o
}

@test "kernel: kernel/rcu/tree.o as pahole" {
	check_object kernel/rcu/tree.o
}

@test "kernel: kernel/time/timer.o as pahole" {
	check_object kernel/time/timer.o
}

@test "kernel: kernel/printk/printk.o as pahole" {
	check_object kernel/printk/printk.o
}

@test "kernel: kernel/bpf/syscall.o as pahole" {
	check_object kernel/bpf/syscall.o
}

@test "kernel: kernel/bpf/verifier.o as pahole" {
	check_object kernel/bpf/verifier.o
}

@test "kernel: kernel/bpf/btf.o as pahole" {
	check_object kernel/bpf/btf.o
}

@test "kernel: init/main.o as pahole" {
	check_object init/main.o
}

@test "kernel: mm/slub.o as pahole" {
	check_object mm/slub.o
}

@test "kernel: mm/page_alloc.o as pahole" {
	check_object mm/page_alloc.o
}

@test "kernel: mm/memory.o as pahole" {
	check_object mm/memory.o
}

@test "kernel: mm/percpu.o as pahole" {
	check_object mm/percpu.o
}

@test "kernel: fs/namei.o as pahole" {
	check_object fs/namei.o
}

@test "kernel: fs/proc/base.o as pahole" {
	check_object fs/proc/base.o
}

@test "kernel: net/core/dev.o as pahole" {
	check_object net/core/dev.o
}

@test "kernel: net/core/skbuff.o as pahole" {
	check_object net/core/skbuff.o
}

@test "kernel: net/core/filter.o as pahole" {
	check_object net/core/filter.o
}

@test "kernel: net/ipv4/tcp.o as pahole" {
	check_object net/ipv4/tcp.o
}

@test "kernel: net/unix/af_unix.o as pahole" {
	check_object net/unix/af_unix.o
}

@test "kernel: lib/string.o as pahole" {
	check_object lib/string.o
}

@test "kernel: lib/vsprintf.o as pahole" {
	check_object lib/vsprintf.o
}

@test "kernel: lib/xarray.o as pahole" {
	check_object lib/xarray.o
}

@test "kernel: arch/x86/kernel/cpu/common.o as pahole" {
	check_object arch/x86/kernel/cpu/common.o
}

@test "kernel: arch/x86/kernel/smpboot.o as pahole" {
	check_object arch/x86/kernel/smpboot.o
}

@test "kernel: arch/x86/kernel/irq.o as pahole" {
	check_object arch/x86/kernel/irq.o
}

@test "kernel: arch/x86/entry/common.o as pahole" {
	check_object arch/x86/entry/common.o
}

# gas's DWARF 5 for a .S file: subprograms of DW_TAG_unspecified_type, no
# prototypes. pahole writes each as a FUNC "void NAME(void)"; cc-btf
# encodes no assembler unit (docs/design.md, "What goes in"). The whole
# difference is those FUNCs, each of which pahole itself wrote as
# void(void), for an object whose every unit is an assembler's.
@test "kernel: arch/x86/entry/entry_64.o, an assembler unit: no FUNC, where pahole writes void(void)" {
	local obj=$KBUILD/arch/x86/entry/entry_64.o st=0
	need_kernel bpftool
	[ -f "$obj" ]
	[ "$(readelf --debug-dump=info --dwarf-depth=1 "$obj" |
		sed -n 's/.*DW_AT_language *: *[0-9]*[[:space:]]*(\(.*\))$/\1/p' | sort -u)" = "MIPS assembler" ]
	"$CC_BTF" --encode -o ours.btf "$obj"
	run bpftool btf dump file ours.btf
	[ "$status" -eq 0 ]
	[[ $output != *FUNC* ]]
	pahole_btf "$obj" ref.btf
	"$BTF_LINK" --compare ref.btf ours.btf > actual || st=$?
	[ "$st" -eq 1 ]
	bpftool btf dump file ref.btf |
		sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/- func \1: static void \1(void)/p" |
		LC_ALL=C sort > expected
	[ -s expected ]
	LC_ALL=C sort actual | diff -u expected -
}

@test "kernel: arch/x86/net/bpf_jit_comp.o as pahole" {
	check_object arch/x86/net/bpf_jit_comp.o
}

@test "kernel: drivers/tty/serial/8250/8250_core.o as pahole" {
	check_object drivers/tty/serial/8250/8250_core.o
}

@test "kernel: drivers/net/veth.o as pahole" {
	check_object drivers/net/veth.o
}

@test "kernel: drivers/net/dummy.o as pahole" {
	check_object drivers/net/dummy.o
}

@test "kernel: net/ipv4/udp_tunnel_core.o as pahole" {
	check_object net/ipv4/udp_tunnel_core.o
}

@test "kernel: net/ipv4/udp_tunnel_nic.o as pahole" {
	check_object net/ipv4/udp_tunnel_nic.o
}

@test "kernel: arch/x86/kernel/cpu/common.o: the per-CPU subsection lines, by hand" {
	need_kernel bpftool
	local obj=$KBUILD/arch/x86/kernel/cpu/common.o
	local expected='+ datasec .data..percpu..first: size 48 {fixed_percpu_data @0 size 48}
+ datasec .data..percpu..page_aligned: size 4096 {gdt_page @0 size 4096}
+ datasec .data..percpu..read_mostly: size 4 {cpu_l2c_id @0 size 2, cpu_llc_id @2 size 2}
+ var cpu_l2c_id: global u16 cpu_l2c_id
+ var cpu_llc_id: global u16 cpu_llc_id
+ var fixed_percpu_data: global struct fixed_percpu_data fixed_percpu_data
+ var gdt_page: global struct gdt_page gdt_page'
	pahole_btf "$obj" ref.btf
	# The oracle of check_object finds exactly these...
	run percpu_subsection_lines "$obj"
	[ "$status" -eq 0 ]
	[ "$output" = "$expected" ]
	# ...and so does the comparison with our BTF.
	"$CC_BTF" --encode -o ours.btf "$obj"
	run "$BTF_LINK" --compare ref.btf ours.btf
	[ "$status" -eq 1 ]
	if [ "$output" != "$expected" ]; then
		printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$output"
		return 1
	fi
}

@test "kernel: pahole follows the FUNC and VAR rules of PAHOLE-NOTES.md" {
	need_kernel bpftool
	need_cmd python3 eu-readelf
	local o fails=0
	for o in $(sed -e 's/#.*//' "$ABTF_TOP/tests/kernel/objects"); do
		pahole_btf "$KBUILD/$o" ref.btf
		"$ABTF_TOP/tests/kernel/pahole-rules.py" "$KBUILD/$o" ref.btf ||
			fails=$((fails + 1))
	done
	[ "$fails" -eq 0 ]
}

@test "kernel: every sample object: ir_dedup.c gives btf__dedup()'s bytes" {
	# ir_dedup.c's claim (tests/dedup-diff.bats has the fixtures')
	need_kernel
	local objs=()
	dedup_diff_prog ./dedup-diff
	mapfile -t objs < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' \
		-e "s|^[[:space:]]*|$KBUILD/|" "$ABTF_TOP/tests/kernel/objects")
	[ "${#objs[@]}" -gt 20 ]
	run ./dedup-diff encode "${objs[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "kernel: every object of tests/kernel/objects has its test" {
	local o
	for o in $(sed -e 's/#.*//' "$ABTF_TOP/tests/kernel/objects"); do
		grep -qxE "	(check_object $o|local obj=\\\$KBUILD/$o .*)" "$BATS_TEST_FILENAME" || {
			echo "$o: no test in kernel-objects.bats"
			return 1
		}
	done
}
