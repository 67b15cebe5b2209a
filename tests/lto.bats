#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# LTO (docs/kbuild.md, "LTO"): clang -flto writes LLVM bitcode, without
# DWARF; the wrapper refuses it unless CC_BTF_LTO says the build encodes
# what its LTO link writes, as a patched kernel tree does
# (kbuild-patches/v6.12/0005). That output has several units: a FUNC
# takes only a symbol of its own unit's code, and ThinLTO's promoted
# statics ("name.llvm.<hash>") count as their names with optimized_func,
# as in pahole 1.25 and later. tests/fixtures/lto-a.c and lto-b.c; the
# ThinLTO kernel itself is tests/lab-kernel-e2e-6.12-lto.bats.

load test_helper

bats_require_minimum_version 1.5.0

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="clang ld.lld gcc ld cc-btf btf-link bpftool pahole"

# thin_objs: lto-a.o and lto-b.o, ThinLTO bitcode, by clang itself.
thin_objs() {
	local n
	for n in a b; do
		clang -g -O2 -flto=thin -c "$FIXTURES/lto-$n.c" -o "lto-$n.o"
	done
}

# explain_line FILE NAME [FEATURES]: btf-link --explain's one line.
explain_line() {
	"$BTF_LINK" ${3:+--btf_features=$3} --explain "$2" "$1"
}

@test "lto: a bitcode object is refused and removed, unless CC_BTF_LTO is set" {
	need_tools
	run --separate-stderr "$CC_BTF" clang -g -O2 -flto=thin -c "$FIXTURES/lto-a.c" -o a.o
	one_error cc-btf 1 "a.o" "LLVM bitcode" "CC_BTF_LTO"
	[ ! -e a.o ]
	run --separate-stderr env CC_BTF_LTO="$CC_BTF" "$CC_BTF" clang -g -O2 -flto=thin \
		-c "$FIXTURES/lto-a.c" -o a.o
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	# clang's bitcode, exactly as clang alone writes it
	clang -g -O2 -flto=thin -c "$FIXTURES/lto-a.c" -o plain.o
	cmp a.o plain.o
	# and --encode still refuses it: no DWARF
	run --separate-stderr "$CC_BTF" --encode a.o
	one_error cc-btf 1 "a.o" "LLVM bitcode"
	cmp a.o plain.o
}

@test "lto: --print-cc-btf prints this cc-btf, through a launcher too; nothing without BTF" {
	need_tools
	run --separate-stderr "$CC_BTF" clang --print-cc-btf
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	[ "$output" = "$(readlink -f "$CC_BTF")" ]
	run --separate-stderr "$CC_BTF" ccache clang --print-cc-btf
	[ "$status" -eq 0 ] && [ "$output" = "$(readlink -f "$CC_BTF")" ]
	run --separate-stderr env CC_BTF=0 "$CC_BTF" clang --print-cc-btf
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
}

@test "lto: ThinLTO's promoted static: no FUNC as pahole 1.24, a FUNC with optimized_func" {
	need_tools
	thin_objs
	ld.lld -r -o ab.o lto-a.o lto-b.o
	readelf -sW ab.o | grep -E ' FUNC .* lto_helper\.llvm\.[0-9]+$'
	"$CC_BTF" --encode ab.o
	# by default as Debian's pahole on the same object
	pahole_btf ab.o ref.btf
	"$BTF_LINK" -o ours.btf ab.o
	same_btf ref.btf ours.btf
	! bpftool btf dump file ours.btf | grep -F "FUNC 'lto_helper'" || false
	run explain_line ab.o lto_helper
	[[ $output == "lto_helper: dropped: "*"(symbol lto_helper.llvm."*"ThinLTO"* ]]
	# with optimized_func (pahole 1.25 and later), under its name
	"$BTF_LINK" --btf_features=optimized_func -o opt.btf ab.o
	bpftool btf dump file opt.btf | grep -F "FUNC 'lto_helper'"
	run explain_line ab.o lto_helper optimized_func
	[[ $output == "lto_helper: kept: FUNC 'int lto_helper(struct lto_state *p)'"* ]]
}

@test "lto: in a file of several units, a FUNC has its own unit's prototype, not a namesake's inlined elsewhere" {
	need_tools
	thin_objs
	# the unit with the inlined namesake first: its DIE comes first
	ld.lld -r -o thin.o lto-b.o lto-a.o
	gcc -g -O2 -c "$FIXTURES/lto-a.c" -o ga.o
	gcc -g -O2 -c "$FIXTURES/lto-b.c" -o gb.o
	ld -r -o gcc.o gb.o ga.o
	local f
	for f in thin.o gcc.o; do
		"$CC_BTF" --encode "$f"
		run explain_line "$f" lto_ser
		[[ $output == "lto_ser: kept: FUNC 'int lto_ser(struct lto_state *p, int off)'"* ]] ||
			{ echo "$f: $output"; return 1; }
	done
}
