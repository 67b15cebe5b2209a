#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link: the BTF archive of a real link -> one BTF, against pahole 1.24
# run on the same linked file, as the kernel runs it on vmlinux.
#
# The programs are C, compiled at test time (tests/fixtures/link-*.c) and
# linked by the real ld:
#  - a "vmlinux": link-main.c, link-a.c, link-gc.c, link-b.c (that link
#    order), -ffunction-sections -fdata-sections, linked with
#    tests/fixtures/link.lds (vmlinux.lds's .BTF and .data..percpu at
#    address 0), with or without --gc-sections. The fixtures' comments say
#    what each object holds: same-named static per-CPU variables, a global
#    and a static of one name, per-CPU subsections, what gc drops, static
#    functions of one name with the same and with conflicting prototypes;
#  - a module: `ld -r` of link-mod1.c and link-mod2.c, split over it.
#
# pahole is always the reference, run serially (see pahole_ref); where it
# differs by design, the test states the difference line for line.

load test_helper

bats_require_minimum_version 1.5.0

# The "vmlinux" objects in link order, and the module's.
PROG_OBJS="main a gc b"
MOD_OBJS="mod1 mod2"
LINK_CFLAGS="-g -O2 -ffunction-sections -fdata-sections"
LINK_LDS=$FIXTURES/link.lds

# The per-CPU variables of the .data..percpu subsections. pahole run on one
# object encodes only those of the section named exactly ".data..percpu",
# so a member made by pahole cannot have them (pcpu_gc_mostly is dropped
# by --gc-sections).
SUBSECTION_VARS="pcpu_a_mostly pcpu_a_shared pcpu_first pcpu_gc_kept pcpu_gc_mostly"
SUBSECTION_VARS_GC="pcpu_a_mostly pcpu_a_shared pcpu_first pcpu_gc_kept"

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc ld pahole bpftool readelf objcopy objdump cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 link.lds and the expected layouts are those of x86-64"

# pahole_ref FILE OUT [PAHOLE ARGS...]: pahole's BTF of FILE with the
# kernel's flags, but serially: with -j, which of two same-named static
# functions pahole 1.24 keeps depends on its threads (3 runs in 20 kept
# both "conflict"s of link-main.c and link-b.c); serially it keeps the
# first in DWARF order.
pahole_ref() {
	local file=$1 out=$2 flags=" $PAHOLE_KERNEL_FLAGS "
	shift 2
	pahole -J ${flags/ -j / } "$@" --btf_encode_detached="$out" "$file"
}

# cc_objs DIR NAME...: tests/fixtures/link-NAME.c through cc-btf, as
# DIR/NAME.o, each with its .BTF and .debug_btf_addr.
cc_objs() {
	local dir=$1 n
	shift
	mkdir -p "$dir"
	for n in "$@"; do
		"$CC_BTF" gcc $LINK_CFLAGS -c "$FIXTURES/link-$n.c" -o "$dir/$n.o"
		readelf -SW "$dir/$n.o" | grep -qF ' .debug_btf_addr ' || {
			echo "$dir/$n.o: cc-btf made no .debug_btf_addr"
			return 1
		}
	done
}

# pahole_objs DIR NAME...: the same with gcc, then .BTF added in place by
# Debian's pahole (no .debug_btf_addr).
pahole_objs() {
	local dir=$1 n
	shift
	mkdir -p "$dir"
	for n in "$@"; do
		gcc $LINK_CFLAGS -c "$FIXTURES/link-$n.c" -o "$dir/$n.o"
		LLVM_OBJCOPY=objcopy pahole -J --btf_gen_floats "$dir/$n.o"
		readelf -SW "$dir/$n.o" | grep -qF ' .BTF ' || {
			echo "$dir/$n.o: pahole added no .BTF"
			return 1
		}
	done
}

# link_prog OUT [LD ARGS...]: link the "vmlinux" with link.lds.
link_prog() {
	local out=$1
	shift
	ld -T "$LINK_LDS" -o "$out" "$@"
}

# objs DIR: the "vmlinux" objects of DIR, in link order.
objs() {
	local n
	for n in $PROG_OBJS; do
		printf '%s ' "$1/$n.o"
	done
}

# members_placed FILE N: btf-link -v says FILE has N members, all N
# placed through .debug_btf_addr (not by name).
members_placed() {
	"$BTF_LINK" -v -o placed.btf "$1" 2> verbose.out
	grep -qx "btf-link: $1: $2 members ($2 placed by .debug_btf_addr), [0-9]* bytes" \
		verbose.out || {
		echo "want $2 members, all placed by .debug_btf_addr:"
		cat verbose.out
		return 1
	}
}

# section_size ELF NAME: the size of ELF's section NAME, in decimal.
section_size() {
	local hex
	hex=$(readelf -SW "$1" | sed -E -n \
		"s/^ *\[ *[0-9]+\] ${2//./\\.} +[A-Z_]+ +[0-9a-f]+ [0-9a-f]+ ([0-9a-f]+) .*/\1/p")
	[ -n "$hex" ] || { echo "$1: no section $2" >&2; return 1; }
	echo $((16#$hex))
}

# percpu_section ELF: "INDEX ADDRESS SIZE" (decimal) of ELF's .data..percpu.
percpu_section() {
	local line
	line=$(readelf -SW "$1" | sed -E -n \
		's/^ *\[ *([0-9]+)\] \.data\.\.percpu +[A-Z]+ +([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+) .*/\1 \2 \3/p')
	[ -n "$line" ] || { echo "$1: no .data..percpu" >&2; return 1; }
	set -- $line
	echo "$1 $((16#$2)) $((16#$3))"
}

# percpu_symbols ELF: "NAME OFFSET SIZE" of every object symbol of non-zero
# size in ELF's .data..percpu, OFFSET from the section's start; sorted.
percpu_symbols() {
	local idx addr size num value sz type bind vis ndx name
	read -r idx addr size < <(percpu_section "$1")
	readelf -sW "$1" | while read -r num value sz type bind vis ndx name; do
		[ "$type" = OBJECT ] && [ "$ndx" = "$idx" ] &&
			[ "$((sz))" -ne 0 ] || continue
		echo "$name $((16#$value - addr)) $((sz))"
	done | LC_ALL=C sort
}

# datasec_entries DUMP: "NAME OFFSET SIZE" of each entry of the DATASEC
# '.data..percpu' of a bpftool dump, in the DATASEC's order.
datasec_entries() {
	sed -n "/^\[[0-9]*\] DATASEC '\.data\.\.percpu'/,/^\[/ s/^	type_id=[0-9]* offset=\([0-9]*\) size=\([0-9]*\) (VAR '\([^']*\)')\$/\3 \1 \2/p" "$1"
}

# check_datasec DUMP ELF: DUMP's only DATASEC is '.data..percpu', inside
# ELF's section and ending where its last entry does (pahole's rule); its
# entries are sorted and do not overlap, and they are exactly ELF's
# per-CPU symbols, at their offsets, with their sizes.
check_datasec() {
	local idx addr size name off sz end=0 dsize
	read -r idx addr size < <(percpu_section "$2")
	[ "$(grep -c "^\[[0-9]*\] DATASEC " "$1")" -eq 1 ] || {
		echo "want one DATASEC:"
		grep "^\[[0-9]*\] DATASEC " "$1"
		return 1
	}
	dsize=$(sed -n "s/^\[[0-9]*\] DATASEC '.data..percpu' size=\([0-9]*\) vlen=.*/\1/p" "$1")
	while read -r name off sz; do
		[ "$off" -ge "$end" ] || {
			echo "DATASEC entry $name @$off overlaps or is out of order"
			return 1
		}
		end=$((off + sz))
	done < <(datasec_entries "$1")
	[ "$dsize" = "$end" ] && [ "$end" -le "$size" ] || {
		echo "DATASEC '.data..percpu' size=$dsize: want $end (its last" \
			"entry's end), within the section's $size bytes"
		return 1
	}
	diff -u <(percpu_symbols "$2") <(datasec_entries "$1" | LC_ALL=C sort)
}

# var_type_sizes DUMP: "NAME OFFSET SIZE TYPE_SIZE" for each DATASEC entry
# of a bpftool dump, TYPE_SIZE the size of its VAR's type.
var_type_sizes() {
	awk '
	function tsize(id) {
		if (id in size)
			return size[id]
		if (kind[id] == "ARRAY")
			return tsize(ref[id]) * nelems[id]
		if (id in ref)
			return tsize(ref[id])
		return -1
	}
	NR == FNR {
		if ($0 !~ /^\[[0-9]+\] /)
			next
		id = substr($1, 2, length($1) - 2)
		kind[id] = $2
		if ($2 == "PTR")
			size[id] = 8
		for (i = 3; i <= NF; i++) {
			if ($i ~ /^size=/)
				size[id] = substr($i, 6)
			if ($i ~ /^type_id=/) {
				t = substr($i, 9)
				sub(/,$/, "", t)
				ref[id] = t
			}
			if ($i ~ /^nr_elems=/)
				nelems[id] = substr($i, 10)
		}
		next
	}
	/^\ttype_id=[0-9]+ offset=/ {
		v = substr($1, 9)
		name = $5
		gsub(/[\047)]/, "", name)
		print name, substr($2, 8), substr($3, 6), tsize(ref[v])
	}' "$1" "$1"
}

# last_end "size N {..., NAME @OFF size SZ}": OFF + SZ of the last entry.
last_end() {
	local off sz
	read -r off sz < <(sed -E 's/.* @([0-9]+) size ([0-9]+)\}$/\1 \2/' <<< "$1")
	echo $((off + sz))
}

# check_missing_vars NAME...: the last `run btf-link --compare REF OURS`
# found OURS equal to REF but for the VARs NAME... (sorted) and their
# DATASEC entries: one "~ datasec .data..percpu" line whose b side is the
# a side less those entries, then one "- var NAME: " line per NAME.
check_missing_vars() {
	local names=("$@") line a b i re
	re=$(IFS='|'; echo "${names[*]}")
	if [ "$status" -ne 1 ] || [ "${#lines[@]}" -ne $(($# + 1)) ]; then
		printf 'want exit 1 and %d lines, got exit %s:\n%s\n' \
			$(($# + 1)) "$status" "$output"
		return 1
	fi
	line=${lines[0]}
	[[ $line == "~ datasec .data..percpu: a: "* ]] || {
		echo "not the DATASEC line: $line"
		return 1
	}
	a=${line#*: a: }
	a=${a%% | b: *}
	b=${line##* | b: }
	# Each DATASEC ends where its last entry does (pahole's rule): ours
	# is shorter where a missing variable was the section's last.
	[ "${b%% \{*}" = "size $(last_end "$b")" ] || {
		echo "our DATASEC does not end at its last entry: $line"
		return 1
	}
	[ "${a%% \{*}" = "size $(last_end "$a")" ]
	diff -u <(sed -e 's/^[^{]*{//' -e 's/}$//' -e 's/, /\n/g' <<< "$a" |
		  grep -Ev "^($re) @") \
		<(sed -e 's/^[^{]*{//' -e 's/}$//' -e 's/, /\n/g' <<< "$b") || {
		echo "DATASEC: more than the subsection variables differ"
		return 1
	}
	for i in "${!names[@]}"; do
		[[ ${lines[i + 1]} == "- var ${names[i]}: "* ]] || {
			echo "want '- var ${names[i]}: ...', got: ${lines[i + 1]}"
			return 1
		}
	done
}

@test "link: cc-btf objects linked with link.lds: the BTF pahole makes of the image" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	pahole_ref prog ref.btf
	"$BTF_LINK" -o ours.btf prog
	same_btf ref.btf ours.btf
	members_placed prog 4
	# What the comparison covered: four static pcpu_hits (one per
	# object), two pcpu_mixed, one FUNC per function name.
	bpftool btf dump file ours.btf > ours.dump
	[ "$(count_kind ours.dump VAR pcpu_hits)" -eq 4 ]
	[ "$(count_kind ours.dump VAR pcpu_mixed)" -eq 2 ]
	[ "$(count_kind ours.dump FUNC helper)" -eq 1 ]
	[ "$(count_kind ours.dump FUNC conflict)" -eq 1 ]
	[ "$(count_kind ours.dump FUNC dropped_twin)" -eq 1 ]
	[ "$(count_kind ours.dump VAR pcpu_first)" -eq 1 ]
	[ "$(count_kind ours.dump VAR pcpu_gc_kept)" -eq 1 ]
	[ "$(count_kind ours.dump FUNC gc_exit)" -eq 1 ]
}

@test "link: DATASEC entries are the per-CPU symbols' offsets and sizes" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	"$BTF_LINK" -o ours.btf prog
	bpftool btf dump file ours.btf > ours.dump
	# .data..percpu is at address 0, as in an x86-64 SMP vmlinux.
	[ "$(percpu_section prog | cut -d' ' -f2)" -eq 0 ]
	[ "$(datasec_entries ours.dump | wc -l)" -eq 13 ]
	check_datasec ours.dump prog
}

@test "link: same-named statics keep their own offsets and types" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	"$BTF_LINK" -o ours.btf prog
	bpftool btf dump file ours.btf > ours.dump
	# Each pcpu_hits entry has its own symbol's size (4, 8, 2, 24: int,
	# long, short, struct b_hits) and pcpu_mixed's the global int's and
	# the static long's: no two were swapped.
	diff -u <(percpu_symbols prog | grep -E '^pcpu_(hits|mixed) ') \
		<(datasec_entries ours.dump | grep -E '^pcpu_(hits|mixed) ' |
		  LC_ALL=C sort)
	[ "$(percpu_symbols prog | grep -c '^pcpu_hits ')" -eq 4 ]
	# And each VAR at an offset has the type of the variable there.
	var_type_sizes ours.dump > sizes
	[ "$(wc -l < sizes)" -eq 13 ]
	awk '$3 != $4 { print "type size " $4 " for " $1 " @" $2 " size " $3; bad = 1 }
	     END { exit bad }' sizes
	grep -qx 'pcpu_hits [0-9]* 24 24' sizes
}

@test "link: --gc-sections keeps every object's .debug_btf_addr" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog --gc-sections $(objs o)
	# The slots are how btf-link knows what the linker dropped; if the
	# section goes, every member is placed by name instead. GNU ld's gc
	# keeps non-allocated sections only if they are debugging sections or
	# have no relocations: .debug_btf_addr is neither, so it must be kept some
	# other way. ld's --print-gc-sections says what went.
	ld -T "$LINK_LDS" --gc-sections --print-gc-sections -o /dev/null \
		$(objs o) 2> gc.out
	grep -q "removing unused section '.text.gc_unused'" gc.out
	run grep -F "'.debug_btf_addr'" gc.out
	[ "$status" -eq 1 ] || { echo "$output"; return 1; }
	readelf -SW prog | grep -qF ' .debug_btf_addr '
	members_placed prog 4
}

@test "link: --gc-sections: what the linker dropped has no FUNC and no VAR" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog --gc-sections $(objs o)
	# The drops really happened.
	run nm prog
	[[ $output != *gc_unused* ]]
	[[ $output != *pcpu_gc_dropped* ]]
	[[ $output == *gc_used* ]]
	[[ $output == *pcpu_gc_kept* ]]
	"$BTF_LINK" -o ours.btf prog
	bpftool btf dump file ours.btf > ours.dump
	for f in gc_unused gc_only; do
		[ "$(count_kind ours.dump FUNC $f)" -eq 0 ] || {
			echo "FUNC $f is there, but ld dropped its function"
			return 1
		}
	done
	for v in pcpu_gc_dropped pcpu_gc_mostly; do
		[ "$(count_kind ours.dump VAR $v)" -eq 0 ] || {
			echo "VAR $v is there, but ld dropped its variable"
			return 1
		}
	done
	[ "$(count_kind ours.dump FUNC gc_used)" -eq 1 ]
	[ "$(count_kind ours.dump VAR pcpu_gc_kept)" -eq 1 ]
	# link-gc.c's static pcpu_hits went with its section: three are left.
	[ "$(count_kind ours.dump VAR pcpu_hits)" -eq 3 ]
	check_datasec ours.dump prog
	# pahole differs in one line, by design: it looks functions up by name
	# in the final symbol table, so link-gc.c's dropped_twin(long), whose
	# section ld dropped, is kept because link-b.c has a dropped_twin; and
	# being first in DWARF order it wins over link-b.c's, the one in the
	# image. We keep the one in the image.
	pahole_ref prog ref.btf
	run "$BTF_LINK" --compare ref.btf ours.btf
	[ "$status" -eq 1 ]
	check_output "~ func dropped_twin: a: static long int dropped_twin(long int x) | b: static int dropped_twin(int x, int y)"
}

@test "link: a function in a /DISCARD/ed section has no FUNC" {
	need_tools
	cc_objs o $PROG_OBJS
	# link.lds with .exit.text discarded, as EXIT_DISCARDS does where the
	# architecture does not free it at run time. ld must link this: a
	# discarded function is ordinary, and DWARF refers to it too.
	sed -e '/^\t\.exit\.text : {/,/^\t}/d' \
	    -e 's|^\t/DISCARD/ : {|&\n\t\t*(.exit.text)|' "$LINK_LDS" > discard.lds
	grep -q '^		\*(.exit.text)$' discard.lds
	run ! grep -q '^	\.exit\.text' discard.lds
	ld -T discard.lds -o prog $(objs o)
	run nm prog
	[[ $output != *gc_exit* ]]
	[[ $output == *gc_used* ]]
	"$BTF_LINK" -o ours.btf prog
	bpftool btf dump file ours.btf > ours.dump
	[ "$(count_kind ours.dump FUNC gc_exit)" -eq 0 ]
	[ "$(count_kind ours.dump FUNC gc_used)" -eq 1 ]
	pahole_ref prog ref.btf
	same_btf ref.btf ours.btf
}

@test "link: conflicting static prototypes: the first in link order, as pahole" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog o/main.o o/a.o o/gc.o o/b.o
	link_prog prog-rev o/b.o o/gc.o o/a.o o/main.o
	"$BTF_LINK" -o ours.btf prog
	"$BTF_LINK" -o ours-rev.btf prog-rev
	pahole_ref prog ref.btf
	pahole_ref prog-rev ref-rev.btf
	same_btf ref.btf ours.btf
	same_btf ref-rev.btf ours-rev.btf
	# helper() has the same prototype in both orders; conflict() and
	# dropped_twin() are link-main.c's and link-gc.c's first, link-b.c's
	# when it comes first.
	run "$BTF_LINK" --compare --no-vars ours.btf ours-rev.btf
	[ "$status" -eq 1 ]
	check_output "~ func conflict: a: static int conflict(int x) | b: static long int conflict(const char *s, long int n)
~ func dropped_twin: a: static long int dropped_twin(long int x) | b: static int dropped_twin(int x, int y)"
	bpftool btf dump file ours-rev.btf > rev.dump
	[ "$(count_kind rev.dump FUNC conflict)" -eq 1 ]
	[ "$(count_kind rev.dump FUNC helper)" -eq 1 ]
}

@test "link: pahole-made objects are placed by name, as pahole places them" {
	need_tools
	pahole_objs p $PROG_OBJS
	link_prog prog $(objs p)
	run "$BTF_LINK" -v -o ours.btf prog
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "btf-link: prog: 4 members (0 placed by .debug_btf_addr), "* ]]
	pahole_ref prog ref.btf
	# The only difference is pahole's own on one object: no VAR for the
	# subsection variables (see SUBSECTION_VARS). Same-named statics
	# (pcpu_hits, pcpu_mixed) must be where pahole puts them.
	run "$BTF_LINK" --compare ref.btf ours.btf
	check_missing_vars $SUBSECTION_VARS
}

@test "link: pahole-made objects with --gc-sections" {
	need_tools
	pahole_objs p $PROG_OBJS
	link_prog prog --gc-sections $(objs p)
	"$BTF_LINK" -o ours.btf prog
	pahole_ref prog ref.btf
	# Placed by name, link-gc.c's FUNC dropped_twin is kept as pahole
	# keeps it (see the cc-btf test above). link-gc.c's static pcpu_hits
	# went with its section: it must not take link-b.c's symbol.
	run "$BTF_LINK" --compare ref.btf ours.btf
	check_missing_vars $SUBSECTION_VARS_GC
}

@test "link: a mixed archive (cc-btf and pahole objects)" {
	need_tools
	cc_objs o main gc
	pahole_objs p a b
	link_prog prog o/main.o p/a.o o/gc.o p/b.o
	run "$BTF_LINK" -v -o ours.btf prog
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "btf-link: prog: 4 members (2 placed by .debug_btf_addr), "* ]]
	pahole_ref prog ref.btf
	# Only link-a.c's subsection variables are missing: link-a.c is
	# pahole's. Its static pcpu_hits must not take link-main.c's symbol,
	# which a slot placed.
	run "$BTF_LINK" --compare ref.btf ours.btf
	check_missing_vars pcpu_a_mostly pcpu_a_shared
}

@test "link: --base: a module's split BTF, as pahole --btf_base makes it" {
	need_tools
	cc_objs o $PROG_OBJS $MOD_OBJS
	link_prog vmlinux $(objs o)
	"$BTF_LINK" vmlinux
	ld -r -o mod.o o/mod1.o o/mod2.o
	cp mod.o mod-ref.o
	cp mod.o mod.orig
	pahole_ref mod-ref.o ref.btf --btf_base vmlinux
	"$BTF_LINK" --base vmlinux mod.o
	bpftool -B vmlinux btf dump file mod.o > mod.dump
	same_btf --base vmlinux ref.btf mod.o
	# The module's per-CPU variables, section-relative (the section's
	# address is 0 in a relocatable file).
	[ "$(datasec_entries mod.dump | wc -l)" -eq 4 ]
	check_datasec mod.dump mod.orig
	# struct link_stats is vmlinux's: the module's VAR refers to it
	# there, and has no copy (bpftool -B dumps the split types only).
	bpftool btf dump file vmlinux > vmlinux.dump
	local id
	id=$(sed -n "s/^\[\([0-9]*\)\] STRUCT 'link_stats' .*/\1/p" vmlinux.dump)
	[ -n "$id" ]
	grep -q "^\[[0-9]*\] VAR 'pcpu_mod_stats' type_id=$id, linkage=global\$" mod.dump
	[ "$(count_kind mod.dump STRUCT link_stats)" -eq 0 ]
	[ "$(head -1 mod.dump | sed 's/^\[\([0-9]*\)\].*/\1/')" -gt "$(grep -c '^\[' vmlinux.dump)" ]
	# Nothing but .BTF and .debug_btf_addr changed: code, symbols, relocations.
	diff <(objdump -dr mod.orig | tail -n +3) <(objdump -dr mod.o | tail -n +3)
	diff <(readelf -sW mod.orig) <(readelf -sW mod.o)
	readelf -SW mod.o | grep -qE ' \.debug_btf_addr +PROGBITS +0+ [0-9a-f]+ 0+ '
	ld -r -o relinked.o mod.o
}

@test "link: in place in a linked image: only .BTF and .debug_btf_addr change" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	cp prog prog.orig
	"$BTF_LINK" -o ours.btf prog.orig
	"$BTF_LINK" prog
	readelf -SW prog.orig | grep -qE ' \.BTF +PROGBITS +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ 00 +A '
	section_bytes prog .BTF inplace.btf
	cmp ours.btf inplace.btf
	bpftool btf dump file prog > /dev/null
	objdump -h prog > /dev/null
	# Program headers, and every section header but the sizes of .BTF
	# and .debug_btf_addr (which shrink in place), are as ld made them.
	diff <(readelf -lW prog.orig) <(readelf -lW prog)
	diff <(readelf -SW prog.orig | sed -E '/ \.(BTF|debug_btf_addr) /s/ [0-9a-f]{6} ([0-9a-f]{2} )/ SIZE \1/') \
	     <(readelf -SW prog | sed -E '/ \.(BTF|debug_btf_addr) /s/ [0-9a-f]{6} ([0-9a-f]{2} )/ SIZE \1/')
	diff <(objdump -s -j .text -j .data..percpu prog.orig | tail -n +3) \
	     <(objdump -s -j .text -j .data..percpu prog | tail -n +3)
	readelf -SW prog | grep -qE ' \.debug_btf_addr +PROGBITS +0+ [0-9a-f]+ 0+ '
}

@test "link: in place in a runnable program, which still runs" {
	need_tools
	cc_objs o $PROG_OBJS
	# The default linker script: .BTF not allocated, .data..percpu*
	# merged into .data (so no VAR), an ordinary static executable.
	gcc -nostdlib -static -Wl,-e,link_start -o prog $(objs o)
	run ./prog
	[ "$status" -eq 111 ]
	pahole_ref prog ref.btf
	members_placed prog 4
	"$BTF_LINK" prog
	run ./prog
	[ "$status" -eq 111 ]
	same_btf ref.btf prog
	bpftool btf dump file prog | grep -q "^\[[0-9]*\] FUNC 'link_start' "
}

@test "link: -o writes raw BTF and leaves the input as it was" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	cp prog prog.orig
	"$BTF_LINK" -o ours.btf prog
	cmp prog.orig prog
	bpftool btf dump file ours.btf | grep -q "^\[[0-9]*\] DATASEC '.data..percpu' "
	# A raw file: starts with the BTF magic, little-endian.
	[ "$(od -An -tx1 -N2 ours.btf | tr -d ' ')" = 9feb ]
}

@test "link: --object writes an ET_REL with an allocatable .BTF for ld" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	cp prog prog.orig
	"$BTF_LINK" -o ours.btf prog
	"$BTF_LINK" --object btf.o prog
	cmp prog.orig prog
	readelf -hW btf.o | grep -qE '^ +Type: +REL '
	readelf -hW btf.o | grep -qE '^ +Machine: +Advanced Micro Devices X86-64$'
	readelf -SW btf.o | grep -qE ' \.BTF +PROGBITS +0+ [0-9a-f]+ [0-9a-f]+ 00 +A '
	section_bytes btf.o .BTF obj.btf
	cmp ours.btf obj.btf
	# Its other section is the section name table, by its usual name.
	run readelf -SW btf.o
	[[ $output == *" .shstrtab "* ]] || { echo "$output"; return 1; }
	# What the kernel does with it: link it into the final image.
	ld -r -o linked.o btf.o o/main.o
	section_bytes linked.o .BTF linked.btf
	# o/main.o's own .BTF member follows ours in link order.
	cmp -n "$(stat -c %s ours.btf)" ours.btf linked.btf
}

@test "link: a second run leaves the file as the first left it" {
	need_tools
	cc_objs o $PROG_OBJS $MOD_OBJS
	link_prog prog $(objs o)
	ld -r -o mod.o o/mod1.o o/mod2.o
	for f in prog mod.o; do
		cp "$f" "$f.orig"
		"$BTF_LINK" "$f"
		run ! cmp -s "$f.orig" "$f"
		cp "$f" "$f.once"
		run --separate-stderr "$BTF_LINK" -v "$f"
		[ "$status" -eq 0 ]
		[[ $stderr == "btf-link: $f: BTF already final ("*" bytes), left as it is" ]]
		cmp "$f.once" "$f"
	done
}

@test "link: -f links an already final BTF again, to the same meaning" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	"$BTF_LINK" prog
	section_bytes prog .BTF once.btf
	# A linked BTF (one DATASEC, all 13 variables), not an archive.
	bpftool btf dump file once.btf > once.dump
	[ "$(datasec_entries once.dump | wc -l)" -eq 13 ]
	"$BTF_LINK" -f -o again.btf prog
	[ -s again.btf ]
	same_btf once.btf again.btf
	"$BTF_LINK" -f prog
	same_btf once.btf prog
}

@test "link: -v reports members, types and time on stderr" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	run --separate-stderr "$BTF_LINK" -v -o ours.btf prog
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 5 ]
	# four small members: one leaf, which is the root
	[[ ${stderr_lines[0]} =~ ^btf-link:\ prog:\ level\ 0:\ 1\ leaf,\ [0-9.]+s\ wall\;\ [0-9.]+s\ in\ all,\ the\ slowest\ [0-9.]+s$ ]]
	[[ ${stderr_lines[1]} =~ ^btf-link:\ prog:\ 4\ members\ \(4\ placed\ by\ \.debug_btf_addr\),\ [0-9]+\ bytes$ ]]
	[[ ${stderr_lines[2]} =~ ^btf-link:\ prog:\ types:\ [0-9]+\ in,\ [0-9]+\ merged,\ [0-9]+\ out\;\ 11\ functions,\ 13\ variables\;\ [0-9]+\ bytes$ ]]
	[[ ${stderr_lines[3]} =~ ^btf-link:\ prog:\ time:\ parse\ [0-9.]+s,\ merge\ [0-9.]+s,\ dedup\ [0-9.]+s$ ]]
	# one node, deduplicated by the library's own node_dedup.c
	[ "${stderr_lines[4]}" = "btf-link: prog: merge tree: 1 node, 0 deduplicated by libbpf" ]
	# The byte counts are the archive's and the output's.
	[[ ${stderr_lines[1]} == *", $(section_size prog .BTF) bytes" ]]
	[[ ${stderr_lines[2]} == *"; $(stat -c %s ours.btf) bytes" ]]
	# Without -v, nothing.
	run --separate-stderr "$BTF_LINK" -o ours.btf prog
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "link: -v counts each node of the merge tree once, with funcs.c's pass too" {
	# the program's archive repeated 1,100 times: past 4,096 members, a
	# leaf each (--leaf-size 1), so two levels above the leaves; the
	# "merge tree" line is the sum of the level lines, with or without
	# consistent_func, whose pass over the leaves is no merge
	local n sum levels feats
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	section_bytes prog .BTF one.bin
	for n in $(seq 1100); do echo one.bin; done | xargs cat > big.bin
	for feats in var,float var,float,consistent_func; do
		"$BTF_LINK" -v --leaf-size 1 --btf_features=$feats -o big.btf \
			big.bin 2> v.log
		levels=$(awk '$3 == "level" { n++ } END { print n + 0 }' v.log)
		sum=$(awk '$3 == "level" { s += $5 } END { print s + 0 }' v.log)
		n=$(awk '$3 == "merge" && $4 == "tree:" { print $5 }' v.log)
		[ "$levels" -eq 3 ] && [ "$sum" -gt 4096 ] || { cat v.log; return 1; }
		[ "$n" = "$sum" ] || { cat v.log; return 1; }
	done
}

@test "link: --leaf-size: the same types at any size; a bad size refused" {
	local size
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	"$BTF_LINK" -o ref.btf prog
	for size in 1 100 1073741824; do
		"$BTF_LINK" --leaf-size $size -o leaf.btf prog
		same_btf ref.btf leaf.btf
	done
	for size in 0 -1 1073741825 1k ''; do
		run -2 "$BTF_LINK" --leaf-size "$size" -o leaf.btf prog
		[[ $output == *"--leaf-size needs a number of bytes from 1 to 1073741824, not '$size'"* ]]
	done
	run -2 "$BTF_LINK" --compare --leaf-size 1 ref.btf leaf.btf
	[[ $output == *"--leaf-size"*"are for linking"* ]]
}

@test "link: a raw archive: every VAR it keeps is in a DATASEC" {
	need_tools
	cc_objs o $PROG_OBJS
	link_prog prog $(objs o)
	section_bytes prog .BTF archive.bin
	"$BTF_LINK" -o elf.btf prog
	"$BTF_LINK" -o raw.btf archive.bin
	# Without addresses the types and functions are still the image's.
	same_btf --no-vars elf.btf raw.btf
	# A VAR outside every DATASEC, or two entries at one offset, is not
	# BTF pahole would ever make: the members' DATASECs have offsets in
	# their own object's section, which a raw archive cannot relocate.
	bpftool btf dump file raw.btf > raw.dump
	diff <(sed -n "s/^\[[0-9]*\] VAR '\([^']*\)'.*/\1/p" raw.dump | LC_ALL=C sort) \
	     <(sed -n "s/^	type_id=[0-9]* offset=[0-9]* size=[0-9]* (VAR '\([^']*\)')\$/\1/p" raw.dump | LC_ALL=C sort)
}

@test "link: the same input gives the same bytes, every run" {
	need_tools
	cc_objs o $PROG_OBJS $MOD_OBJS
	link_prog prog $(objs o)
	ld -r -o mod.o o/mod1.o o/mod2.o
	cp prog prog2
	"$BTF_LINK" -o one.btf prog
	"$BTF_LINK" -o two.btf prog
	cmp one.btf two.btf
	"$BTF_LINK" prog2
	section_bytes prog2 .BTF inplace.btf
	cmp one.btf inplace.btf
	cp prog vmlinux
	"$BTF_LINK" vmlinux
	cp mod.o mod2.o
	"$BTF_LINK" --base vmlinux mod.o
	"$BTF_LINK" --base vmlinux mod2.o
	cmp mod.o mod2.o
}

@test "link: objects built twice, elsewhere and in another order, link the same" {
	need_tools
	cc_objs one $PROG_OBJS
	mkdir -p other/build/dir
	cc_objs other/build/dir b gc a main
	link_prog prog1 $(objs one)
	link_prog prog2 $(objs other/build/dir)
	section_bytes prog1 .BTF archive1.bin
	section_bytes prog2 .BTF archive2.bin
	cmp archive1.bin archive2.bin
	"$BTF_LINK" prog1
	"$BTF_LINK" prog2
	section_bytes prog1 .BTF final1.btf
	section_bytes prog2 .BTF final2.btf
	cmp final1.btf final2.btf
	# final1.btf is the linked BTF, not the archive left as it was.
	bpftool btf dump file final1.btf > final1.dump
	[ "$(datasec_entries final1.dump | wc -l)" -eq 13 ]
	[ "$(stat -c %s final1.btf)" -lt "$(stat -c %s archive1.bin)" ]
}

@test "link: functions renamed by objcopy --prefix-symbols have no FUNC, as in pahole" {
	need_tools
	cc_objs o $PROG_OBJS pi
	# arm64's pi/ (and riscv's, and their EFI stubs) rename every symbol
	# of an object after it is compiled; the slots still find the code.
	objcopy --prefix-symbols=__pi_ o/pi.o o/pi-renamed.o
	link_prog prog $(objs o) o/pi-renamed.o
	readelf -sW prog | grep -q ' FUNC .* __pi_pi_map_range$'
	pahole_ref prog ref.btf
	"$BTF_LINK" -o ours.btf prog
	same_btf ref.btf ours.btf
	bpftool btf dump file ours.btf > ours.dump
	[ "$(count_kind ours.dump FUNC pi_map_range)" -eq 0 ]
	[ "$(count_kind ours.dump FUNC pi_early_init)" -eq 0 ]
	# a piece of a namesake elsewhere is not its symbol either (riscv's
	# EFI stub's fdt_sw_probe_struct_, lib/'s fdt_sw_probe_struct_.part.0)
	objcopy --add-symbol 'pi_map_range.part.0=.text:0x10,function,local' \
		prog piece
	"$BTF_LINK" -o piece.btf piece
	bpftool btf dump file piece.btf > piece.dump
	[ "$(count_kind piece.dump FUNC pi_map_range)" -eq 0 ]
	# Not renamed, the same object's functions are there.
	link_prog plain $(objs o) o/pi.o
	"$BTF_LINK" -o plain.btf plain
	bpftool btf dump file plain.btf > plain.dump
	[ "$(count_kind plain.dump FUNC pi_map_range)" -eq 1 ]
	[ "$(count_kind plain.dump FUNC pi_early_init)" -eq 1 ]
}

@test "link: a struct two files define apart, declared in a header, as pahole" {
	need_tools
	local order n objs
	# Linux's struct of_bus (tests/fixtures/fwd-two.h): a link kept a FWD
	# of it that pahole does not have, in two of these orders.
	for n in a b c; do
		"$CC_BTF" gcc -g -O2 -c "$FIXTURES/fwd-two-$n.c" -o "$n.o"
	done
	for order in "c a b" "a b c" "b c a" "a c b"; do
		objs=()
		for n in $order; do
			objs+=("$n.o")
		done
		gcc -o prog "${objs[@]}"
		cp prog ref.elf
		pahole_ref ref.elf ref.btf
		"$BTF_LINK" -o ours.btf prog
		same_btf ref.btf ours.btf
		bpftool btf dump file ours.btf > ours.dump
		[ "$(count_kind ours.dump STRUCT of_bus)" -eq 2 ]
		[ "$(count_kind ours.dump FUNC of_match_bus)" -eq 1 ]
	done
}
