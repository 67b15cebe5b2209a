#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The linker scripts of kbuild-patches/ on a miniature kernel:
# include/asm-generic/vmlinux.lds.h and scripts/btf-*.lds of Debian's
# linux-source-6.12 and -6.1 (/usr/src/linux-source-*.tar.xz) with their
# series applied, and an x86-64-like arch script (read-only data, then
# .data..percpu at 0 as PERCPU_VADDR puts it, DWARF_DEBUG, ELF_DETAILS).
#
# The image btf-link reads (.tmp_vmlinux1 in 6.12, .tmp_vmlinux.btf in
# 6.1) has the objects' BTF archive, not allocated, in .BTF. The series'
# last patch places it after every allocated section with GNU ld and
# ld.lld: before, a tool that takes a variable's section to be the first
# by index whose address range holds it (pahole 1.28 and later) found .BTF
# instead of .data..percpu (ld.lld: both at 0) or of .BTF_ids, .data and
# .bss (GNU ld: .BTF at the location counter in the read-only data). The
# final link must not change. docs/kbuild.md, "Where the archive lives";
# the real kernels are tests/kernel-e2e*.bats.

load test_helper

bats_require_minimum_version 1.5.0

# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc cpp as ld ld.lld nm readelf git tar xz cc-btf btf-link"
# shellcheck disable=SC2034 # read by need_tools
NEED_ARCH="x86_64 the miniature kernel is x86-64's (-mcmodel=kernel, elf_x86_64)"

# The patch that placed the archive, in each series; the object the
# final links take the final BTF from, as link-vmlinux.sh names it.
placing() {
	case $1 in
	6.12) echo 0007-kbuild-place-the-BTF-archive-after-every-allocated-section.patch ;;
	6.1) echo 0005-kbuild-place-the-BTF-archive-after-every-allocated-section.patch ;;
	esac
}
btf_object() {
	case $1 in
	6.12) echo .tmp_vmlinux1.btf.o ;;
	6.1) echo .btf.vmlinux.bin.o ;;
	esac
}

tarball() {
	echo "/usr/src/linux-source-$1.tar.xz"
}

series() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$ABTF_TOP/kbuild-patches/v$1/series"
}

# trees VERSION: under $BATS_FILE_TMPDIR/VERSION, new/ with the whole
# series, old/ without the patch that placed the archive, both with the
# two headers and the scripts/btf-*.lds the series makes.
trees() {
	local v=$1 d=$BATS_FILE_TMPDIR/$1 top p t files
	top=$(tar -tJf "$(tarball "$v")" | head -n 1)
	top=${top%%/*}
	files=("$top/include/asm-generic/vmlinux.lds.h")
	# 6.12's includes it
	[ "$v" = 6.1 ] || files+=("$top/include/asm-generic/codetag.lds.h")
	mkdir -p "$d/pristine"
	tar -xJf "$(tarball "$v")" -C "$d/pristine" --strip-components=1 "${files[@]}"
	for t in new old; do
		cp -r "$d/pristine" "$d/$t"
		for p in $(series "$v"); do
			[ $t = old ] && [ "$p" = "$(placing "$v")" ] && continue
			GIT_CEILING_DIRECTORIES=$d git -C "$d/$t" apply \
				--include='include/asm-generic/vmlinux.lds.h' \
				--include='scripts/btf-*.lds' "$ABTF_TOP/kbuild-patches/v$v/$p"
		done
	done
}

setup_file() {
	local v
	command -v git >/dev/null && command -v xz >/dev/null || return 0
	for v in 6.12 6.1; do
		series "$v" | grep -qxF "$(placing "$v")" || return 1
		[ -f "$(tarball "$v")" ] || continue
		trees "$v"
	done
}

# need_tree VERSION: the trees of that kernel, or skip.
need_tree() {
	need_tools
	[ -f "$(tarball "$1")" ] ||
		unavailable "$(tarball "$1") is not installed (tests/install-deps.sh installs linux-source-$1)"
	[ -f "$BATS_FILE_TMPDIR/$1/new/scripts/btf-place.lds" ]
	[ -f "$BATS_FILE_TMPDIR/$1/old/scripts/btf-archive.lds" ]
}

# arch_lds VERSION TREE LINKER: TREE-LINKER.lds, the miniature arch
# script through cpp with the tree's headers, as kbuild makes vmlinux.lds
# (LINKER: bfd, or lld, which sets CONFIG_LD_IS_LLD as Kconfig does).
arch_lds() {
	local lld=
	[ "$3" = lld ] && lld=-DCONFIG_LD_IS_LLD
	cat > arch.lds.S <<-'EOF'
	#include <asm-generic/vmlinux.lds.h>
	ENTRY(start)
	PHDRS {
		text PT_LOAD FLAGS(5);
		data PT_LOAD FLAGS(6);
		percpu PT_LOAD FLAGS(6);
		init PT_LOAD FLAGS(7);
	}
	SECTIONS {
		. = 0xffffffff81000000;
		.text : AT(ADDR(.text) - LOAD_OFFSET) { *(.text .text.*) } :text
		. = ALIGN(PAGE_SIZE);
		RO_DATA(PAGE_SIZE)
		.data : AT(ADDR(.data) - LOAD_OFFSET) { *(.data) } :data
		. = ALIGN(PAGE_SIZE);
		PERCPU_VADDR(64, 0, :percpu)
		.init.data : AT(ADDR(.init.data) - LOAD_OFFSET) { *(.init.data) } :init
		. = ALIGN(PAGE_SIZE);
		.bss : AT(ADDR(.bss) - LOAD_OFFSET) { *(.bss .bss.*) *(COMMON) } :data
		_end = .;
		STABS_DEBUG
		DWARF_DEBUG
		ELF_DETAILS
		DISCARDS
		.got.plt (INFO) : { *(.got.plt) }
		.got : { *(.got) *(.igot.*) }
		.plt : { *(.plt) *(.plt.*) *(.iplt) }
		.rela.dyn : { *(.rela.*) *(.rela_*) }
	}
	EOF
	cpp -P -undef -D__ASSEMBLY__ -DLINKER_SCRIPT -DCONFIG_DEBUG_INFO_BTF $lld \
		-DLOAD_OFFSET=0xffffffff80000000 -DPAGE_SIZE=4096 \
		-I"$BATS_FILE_TMPDIR/$1/$2/include" arch.lds.S -o "$2-$3.lds"
}

# objects: two objects through cc-btf, with per-CPU variables, a global,
# a .BTF_ids set (the kernel's is never empty) and a reference to
# __start_BTF (as kernel/bpf/sysfs_btf.c); big.o: 4 MiB of a .BTF that is
# not allocated, as a kernel's archive is tens of MB (layout only).
objects() {
	cat > pcpu.c <<-'EOF'
	struct counter { long hits; int cpu; };
	__attribute__((section(".data..percpu"))) struct counter pcpu_counter;
	int global_count = 1;
	extern char __start_BTF[], __stop_BTF[];
	long btf_size(void) { return __stop_BTF - __start_BTF; }
	void start(void) { pcpu_counter.hits += global_count; }
	__attribute__((section(".BTF_ids"), used)) static int btf_id_set[2];
	EOF
	cat > other.c <<-'EOF'
	struct counter { long hits; int cpu; };
	__attribute__((section(".data..percpu"))) struct counter pcpu_other;
	long total;
	long sum(struct counter *c) { return total += c->hits; }
	EOF
	"$CC_BTF" gcc -O2 -g -fno-pie -mcmodel=kernel -fno-asynchronous-unwind-tables \
		-c pcpu.c other.c
	printf '\t.section .BTF,"",@progbits\n\t.fill 0x400000,1,0\n' | as -o big.o
}

# ld_of LINKER: the command.
ld_of() {
	case $1 in
	bfd) echo "ld -m elf_x86_64" ;;
	lld) echo "ld.lld -m elf_x86_64" ;;
	esac
}

# btf_image VERSION TREE LINKER OUT [dwarf] OBJ...: the link of the image
# btf-link reads as link-vmlinux.sh makes it (btf-place.lds and
# btf-bounds.lds first, where the tree has them, btf-nodwarf.lds but with
# "dwarf"), with --orphan-handling=error.
btf_image() {
	local v=$1 tree=$2 l=$3 out=$4 d=$BATS_FILE_TMPDIR/$1/$2/scripts s scripts=()
	shift 4
	for s in btf-place btf-bounds; do
		[ -f "$d/$s.lds" ] && scripts+=(--script="$d/$s.lds")
	done
	if [ "$1" = dwarf ]; then
		shift
	else
		scripts+=(--script="$d/btf-nodwarf.lds")
	fi
	arch_lds "$v" "$tree" "$l"
	# shellcheck disable=SC2046 # the command and its options
	$(ld_of "$l") -z noexecstack --orphan-handling=error "${scripts[@]}" \
		--script="$tree-$l.lds" -o "$out" "$@"
}

# sections IMAGE: IMAGE's section headers, "Nr Name Type Address Off Size
# ES Flg Lk Inf Al", "-" for no flags.
sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\]/\1/p' |
		awk 'NF == 10 { $8 = "- " $8 } { print }'
}

# shadowed IMAGE: the allocated sections that come after .BTF in IMAGE's
# section header table and whose address lies in .BTF's range, one a line.
shadowed() {
	local f lo='' hi=''
	while read -r -a f; do
		if [ "${f[1]}" = .BTF ]; then
			lo=${f[3]}
			hi=$(printf '%016x' $((0x${f[3]} + 0x${f[5]})))
		elif [ -n "$lo" ] && [[ ${f[7]} == *A* ]] && [ $((0x${f[5]})) -gt 0 ] &&
		     ! [[ ${f[3]} < $lo ]] && [[ ${f[3]} < $hi ]]; then
			echo "${f[1]}"
		fi
	done < <(sections "$1")
}

# placed VERSION: the image's archive is after every allocated section
# with either linker, and was not before the series' last patch; the
# symbols and the program headers are the same.
placed() {
	local v=$1 l
	for l in bfd lld; do
		btf_image "$v" new $l new-$l pcpu.o other.o big.o
		btf_image "$v" old $l old-$l pcpu.o other.o big.o
		# one .BTF, the archive (big.o's 4 MiB and the objects'), not
		# allocated, at 0, after the last allocated section
		sections new-$l > new-$l.sections
		[ "$(awk '$2 == ".BTF"' new-$l.sections | wc -l)" -eq 1 ]
		awk '$2 == ".BTF" && $4 ~ /^0+$/ && $8 == "-" &&
		     (length($6) > 6 || $6 >= "400000") { ok = 1 }
		     END { exit !ok }' new-$l.sections
		[ "$(awk '$2 == ".BTF" { print $1 }' new-$l.sections)" -gt \
		  "$(awk '$8 ~ /A/ { n = $1 } END { print n }' new-$l.sections)" ]
		run shadowed new-$l
		[ "$status" -eq 0 ] && [ -z "$output" ]
		# as it was: ld.lld's .BTF at 0 before .data..percpu at 0, GNU
		# ld's at the location counter before .BTF_ids, .data, .bss
		run shadowed old-$l
		[ "$status" -eq 0 ]
		case $l in
		lld) [ "$output" = .data..percpu ] ;;
		bfd) [ "$(tr '\n' ' ' <<< "$output")" = ".BTF_ids .data .bss " ] ;;
		esac
		# the allocated sections and the symbols did not move, but
		# __start_BTF and __stop_BTF where they were the archive's (6.1).
		# Their types may: GNU ld gives a symbol of an output section it
		# drops, empty, a neighbour's section, and the archive's place
		# changed the neighbour (__start___ksymtab, at .BTF_ids's
		# address: 'T' before, 'D')
		diff <(nm new-$l | awk '$3 !~ /^__st(art|op)_BTF$/ { print $1, $3 }') \
			<(nm old-$l | awk '$3 !~ /^__st(art|op)_BTF$/ { print $1, $3 }')
		diff <(readelf -lW new-$l | sed -n '/^Program Headers/,$p') \
			<(readelf -lW old-$l | sed -n '/^Program Headers/,$p')
	done
}

# same_final VERSION: btf-link makes the same BTF of the images of both
# trees and linkers, and the final links of both trees are the same.
same_final() {
	local v=$1 l t o
	o=$(btf_object "$v")
	for l in bfd lld; do
		for t in new old; do
			btf_image "$v" $t $l $t-$l pcpu.o other.o
			# named as link-vmlinux.sh names it: btf-archive.lds keeps it
			"$BTF_LINK" --object "$t-$l$o" $t-$l
		done
		cmp "new-$l$o" "old-$l$o"
		for t in new old; do
			# shellcheck disable=SC2046 # the command and its options
			$(ld_of $l) -z noexecstack --orphan-handling=error --build-id=sha1 \
				--script="$BATS_FILE_TMPDIR/$v/$t/scripts/btf-archive.lds" \
				--script=$t-$l.lds -o vmlinux-$t-$l pcpu.o other.o "new-$l$o"
		done
		cmp vmlinux-new-$l vmlinux-old-$l
		readelf -SW vmlinux-new-$l | grep -E '\] \.BTF +PROGBITS +ffffffff81'
	done
	# the same BTF whichever linker made the image
	cmp "new-bfd$o" "new-lld$o"
}

# pahole_finds VERSION: the lab's pahole makes DATASECs of .data..percpu,
# .data and .bss of the image with DWARF, none of .BTF; of the image before
# the series' last patch, one of .BTF.
pahole_finds() {
	local v=$1 l t
	for l in bfd lld; do
		for t in new old; do
			btf_image "$v" $t $l $t-$l dwarf pcpu.o other.o big.o
			"$LAB_PAHOLE" -J --btf_features=var,global_var \
				--btf_encode_detached=$t-$l.btf $t-$l
			bpftool btf dump file $t-$l.btf | grep DATASEC > $t-$l.datasecs
		done
		grep -q "DATASEC '.data..percpu' size=32 vlen=2" new-$l.datasecs
		grep -q "DATASEC '.data' " new-$l.datasecs
		grep -q "DATASEC '.bss' " new-$l.datasecs
		! grep "DATASEC '.BTF'" new-$l.datasecs || false
		grep -q "DATASEC '.BTF'" old-$l.datasecs
	done
}

@test "kbuild lds 6.12: .tmp_vmlinux1 has its archive after every allocated section, with GNU ld and ld.lld" {
	need_tree 6.12
	objects
	placed 6.12
}

@test "kbuild lds 6.1: .tmp_vmlinux.btf has its archive after every allocated section, with GNU ld and ld.lld" {
	need_tree 6.1
	objects
	placed 6.1
}

@test "kbuild lds 6.12: btf-link makes the same BTF of it, and the final link is the one before" {
	need_tree 6.12
	objects
	same_final 6.12
}

@test "kbuild lds 6.1: btf-link makes the same BTF of it, and the final link is the one before" {
	need_tree 6.1
	objects
	same_final 6.1
}

# bats test_tags=upstream
@test "kbuild lds: the lab's upstream pahole finds the variables of the BTF images in their sections" {
	need_lab_pahole
	need_tree 6.12
	need_tree 6.1
	need_cmd bpftool
	objects
	pahole_finds 6.12
	pahole_finds 6.1
}
