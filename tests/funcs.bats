#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --btf_features=...,consistent_func: pahole 1.31's cross-unit
# function rules (docs/design.md, "optimized_func and consistent_func").
# tests/fixtures/funcs-a.c and funcs-b.c, compiled and linked at test time,
# hold static functions of one name with conflicting and with equal
# prototypes, and weak functions defined twice (one address) with loosely
# equal and with conflicting prototypes. What the feature must leave out
# is predicted by tests/funcs-rules.py from the program's symbols (nm) and
# the objects' own BTF (bpftool), never written down here.

load test_helper

bats_require_minimum_version 1.5.0

# The 1.24 features btf-link always makes, and the same with the rules.
FEATS=var,float,decl_tag,type_tag,enum64
FEATS_CF=$FEATS,consistent_func
# Linux 6.12's list (scripts/Makefile.btf), for the lab's pahole.
FEATS_612=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
LAB_PAHOLE=${ABTF_LAB_PAHOLE:-}

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc bpftool nm python3 objcopy cc-btf btf-link"

# build_prog: funcs-a.o and funcs-b.o through cc-btf, linked into prog.
build_prog() {
	local n
	for n in a b; do
		gcc -g -O2 -c "$FIXTURES/funcs-$n.c" -o "funcs-$n.o"
		"$CC_BTF" --encode "funcs-$n.o"
	done
	gcc -o prog funcs-a.o funcs-b.o
}

# funcs_split BTF BASE: the FUNC names of split BTF over BASE, sorted.
funcs_split() {
	bpftool btf dump file "$1" -B "$2" |
		sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort
}

# funcs BTF: its FUNC names, sorted.
funcs() {
	bpftool btf dump file "$1" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" |
		sort
}

@test "consistent_func leaves out what pahole 1.31's rules predict, and only that" {
	need_tools
	build_prog
	"$BTF_LINK" -o default.btf prog
	"$BTF_LINK" --btf_features=$FEATS_CF -o cf.btf prog
	"$ABTF_TOP/tests/funcs-rules.py" prog default.btf funcs-a.o funcs-b.o \
		> expected
	# the fixture must exercise both rules, or the test proves nothing
	grep -qx twin_fn expected
	grep -qx conflict_fn expected
	grep -qx weak_clash expected
	! grep -qx weak_loose expected || false
	funcs default.btf | grep -vxF -f expected > kept || true
	diff -u kept <(funcs cf.btf)
	# everything else as without the feature: one "- func" line per
	# name, and the weak function's prototype from the state at its
	# symbol (the next test)
	run -1 "$BTF_LINK" --compare default.btf cf.btf
	diff -u expected <(printf '%s\n' "$output" |
		sed -n 's/^- func \([^:]*\):.*/\1/p' | sort)
	[ "$(printf '%s\n' "$output" | grep -v '^- func ' |
	     grep -vc '^~ func weak_over: ')" = 0 ]
}

@test "optimized_func, consistent_func: a weak function the linker overrode lends no prototype" {
	need_tools
	build_prog
	# what the test stands on: weak in funcs-a.o, strong in funcs-b.o,
	# funcs-a.o first, the program's symbol the strong one
	nm funcs-a.o | grep -q ' W weak_over$'
	nm funcs-b.o | grep -q ' T weak_over$'
	nm prog | grep -q ' T weak_over$'
	"$BTF_LINK" -o default.btf prog
	"$BTF_LINK" --btf_features=$FEATS_CF,optimized_func -o both.btf prog
	# pahole 1.24: the first in link order; 1.31: the state at the symbol
	run "$BTF_LINK" --compare default.btf both.btf
	[[ $output == *"~ func weak_over: "*"(int weak_arg)"*"(int strong_arg)"* ]]
}

# build_icf: funcs-icf-weak.c and funcs-icf.c through cc-btf into icfprog.
build_icf() {
	local n
	for n in icf-weak icf; do
		gcc -g -O2 -c "$FIXTURES/funcs-$n.c" -o "funcs-$n.o"
		"$CC_BTF" --encode "funcs-$n.o"
	done
	gcc -o icfprog funcs-icf-weak.o funcs-icf.o
}

# has_code NAME OBJ: OBJ's DWARF gives function NAME code (DW_AT_low_pc or
# DW_AT_ranges), on its DIE or on a DIE whose abstract origin it is.
has_code() {
	readelf --debug-dump=info "$2" > "$2.info"
	awk -v name="$1" '
		/: Abbrev Number/ {
			off = $1; sub(/.*</, "", off); sub(/>:.*/, "", off)
			fn = ($0 ~ /DW_TAG_subprogram/) ? off : ""
		}
		fn != "" && $0 ~ ("DW_AT_name .*: " name "$") { self[fn] = 1 }
		fn != "" && /DW_AT_abstract_origin/ {
			o = $NF; gsub(/[<>]|0x/, "", o); origin[fn] = o
		}
		fn != "" && /DW_AT_(low_pc|ranges)/ { code[fn] = 1 }
		END {
			for (d in code)
				if ((d in self) || (origin[d] in self))
					exit 0
			exit 1
		}' "$2.info"
}

@test "optimized_func, consistent_func: a definition without DW_AT_low_pc is at no symbol, as pahole reads it" {
	need_tools
	need_cmd readelf
	build_icf
	# what the test stands on: the weak one first, the strong one's
	# DWARF without code (folded), the program's symbol the strong one
	nm funcs-icf-weak.o | grep -q ' W icf_twin_b$'
	nm funcs-icf.o | grep -q ' T icf_twin_b$'
	nm icfprog | grep -q ' T icf_twin_b$'
	has_code icf_twin_a funcs-icf.o
	! has_code icf_twin_b funcs-icf.o || false
	"$BTF_LINK" --btf_features=$FEATS_CF,optimized_func -o both.btf icfprog
	protos both.btf | grep -qx 'icf_twin_b(unused)'
	run "$BTF_LINK" --btf_features=$FEATS_CF,optimized_func \
		--explain icf_twin_b icfprog
	echo "$output"
	[[ $output == *"dropped: FUNC 'long int icf_twin_b(const long int *regs)'"*"[no DW_AT_low_pc]"* ]]
}

# bats test_tags=upstream
@test "optimized_func, consistent_func: the definition without DW_AT_low_pc, as the lab's pahole has it" {
	need_tools
	need_lab_pahole
	build_icf
	"$BTF_LINK" --btf_features=$FEATS_CF,optimized_func -o ours.btf icfprog
	"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
		--btf_encode_detached=pahole.btf icfprog
	run "$BTF_LINK" --compare ours.btf pahole.btf
	echo "$output"
	[ "$status" = 0 ]
}

@test "consistent_func: the same bytes at any -j, and the default unchanged" {
	need_tools
	build_prog
	"$BTF_LINK" -j1 --btf_features=$FEATS_CF -o j1.btf prog
	"$BTF_LINK" -j4 --btf_features=$FEATS_CF -o j4.btf prog
	cmp j1.btf j4.btf
	"$BTF_LINK" -o default.btf prog
	"$BTF_LINK" --btf_features=$FEATS -o named.btf prog
	cmp default.btf named.btf
}

@test "consistent_func: members made by pahole (placed by name) follow the same rules" {
	need_tools
	need_cmd pahole
	local n
	for n in a b; do
		gcc -g -O2 -c "$FIXTURES/funcs-$n.c" -o "funcs-$n.o"
		pahole -J --btf_gen_floats --btf_encode_detached="$n.btf" \
			"funcs-$n.o"
		objcopy --add-section .BTF="$n.btf" "funcs-$n.o"
	done
	gcc -o prog funcs-a.o funcs-b.o
	"$BTF_LINK" -o default.btf prog
	"$BTF_LINK" --btf_features=$FEATS_CF -o cf.btf prog
	"$ABTF_TOP/tests/funcs-rules.py" prog default.btf funcs-a.o funcs-b.o \
		> expected
	grep -qx conflict_fn expected
	funcs default.btf | grep -vxF -f expected > kept || true
	diff -u kept <(funcs cf.btf)
}

# bats test_tags=upstream
@test "consistent_func: the same functions as the lab's pahole with Linux 6.12's features" {
	need_tools
	need_lab_pahole
	build_prog
	"$BTF_LINK" --btf_features=$FEATS_CF -o cf.btf prog
	"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
		--btf_encode_detached=pahole.btf prog
	run "$BTF_LINK" --compare cf.btf pahole.btf
	echo "$output"
	[ "$status" = 0 ]
}

# build_opt: funcs-opt.c through cc-btf into optprog; skip (with the
# reason) when this GCC made no .isra/.constprop clone of it.
build_opt() {
	gcc -g -O2 "$@" -c "$FIXTURES/funcs-opt.c" -o funcs-opt.o
	nm funcs-opt.o | grep -qE '\.(isra|constprop)' ||
		skip "$(gcc -dumpversion) made no .isra/.constprop clone at -O2"
	"$CC_BTF" --encode funcs-opt.o
	gcc -o optprog funcs-opt.o
}

# clones_as_predicted [CFLAGS...]: funcs-opt.c's clones get a FUNC with
# optimized_func exactly as tests/funcs-clones.py predicts.
clones_as_predicted() {
	need_tools
	need_cmd readelf
	need_arch x86_64 "tests/funcs-clones.py knows x86-64's argument registers"
	build_opt "$@"
	"$ABTF_TOP/tests/funcs-clones.py" optprog > verdicts
	cat verdicts
	grep -q ' keep$' verdicts || skip "no clone kept its parameters in place"
	grep -q ' drop: ' verdicts || skip "no clone lost a parameter"
	"$BTF_LINK" -o default.btf optprog
	"$BTF_LINK" --btf_features=$FEATS,optimized_func -o opt.btf optprog
	local name verdict
	while read -r name verdict; do
		! funcs default.btf | grep -qx "$name" || false
		if [ "$verdict" = keep ]; then
			funcs opt.btf | grep -qx "$name"
		else
			! funcs opt.btf | grep -qx "$name" || false
		fi
	done < verdicts
	# the rest as without the feature
	run "$BTF_LINK" --compare default.btf opt.btf
	diff -u <(sed -n 's/ keep$//p' verdicts | sort) \
		<(printf '%s\n' "$output" | sed -n 's/^+ func \([^:]*\):.*/\1/p' | sort)
	[ "$(printf '%s\n' "$output" | grep -vc '^+ func ')" = 0 ]
}

@test "optimized_func: clones get a FUNC as pahole 1.31's rules predict from nm and DWARF" {
	clones_as_predicted
}

@test "optimized_func: the same with DWARF 4's location lists (.debug_loc)" {
	clones_as_predicted -gdwarf-4
}

@test "optimized_func: in a relocatable file (a module), by pahole's rules for one" {
	need_tools
	need_cmd readelf ld
	need_arch x86_64 "tests/funcs-clones.py knows x86-64's argument registers"
	build_opt
	build_prog
	"$BTF_LINK" -o base.btf prog
	ld -r -o mod.ko funcs-opt.o
	"$ABTF_TOP/tests/funcs-clones.py" --relocatable mod.ko > verdicts
	cat verdicts
	grep -q ' keep$' verdicts || skip "no clone kept"
	"$BTF_LINK" --btf_features=$FEATS_CF,optimized_func --base base.btf \
		-o mod.btf mod.ko
	local name verdict
	while read -r name verdict; do
		if [ "$verdict" = keep ]; then
			funcs_split mod.btf base.btf | grep -qx "$name"
		else
			! funcs_split mod.btf base.btf | grep -qx "$name" || false
		fi
	done < verdicts
	if [ -x "$LAB_PAHOLE" ]; then
		"$LAB_PAHOLE" -J --btf_features=$FEATS_612 --btf_base base.btf \
			--btf_encode_detached=pahole.btf mod.ko
		"$BTF_LINK" --compare --base base.btf mod.btf pahole.btf
	fi
}

@test "optimized_func: the object's .BTF is the same with or without the facts" {
	need_tools
	gcc -g -O2 -c "$FIXTURES/funcs-opt.c" -o a.o
	cp a.o b.o
	"$CC_BTF" --encode a.o
	"$CC_BTF" --encode --no-addr b.o
	section_bytes a.o .BTF a.btf
	section_bytes b.o .BTF b.btf
	cmp a.btf b.btf
}

@test "optimized_func: the same bytes at any -j" {
	need_tools
	build_opt
	build_prog
	"$BTF_LINK" -j1 --btf_features=$FEATS,optimized_func,consistent_func -o j1.btf optprog
	"$BTF_LINK" -j3 --btf_features=$FEATS,optimized_func,consistent_func -o j3.btf optprog
	cmp j1.btf j3.btf
	"$BTF_LINK" -j1 --btf_features=$FEATS,optimized_func,consistent_func -o p1.btf prog
	"$BTF_LINK" -j3 --btf_features=$FEATS,optimized_func,consistent_func -o p3.btf prog
	cmp p1.btf p3.btf
}

# bats test_tags=upstream
@test "optimized_func: the same functions as the lab's pahole with Linux 6.12's features" {
	need_tools
	need_lab_pahole
	build_opt
	"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func -o ours.btf optprog
	"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
		--btf_encode_detached=pahole.btf optprog
	run "$BTF_LINK" --compare ours.btf pahole.btf
	echo "$output"
	[ "$status" = 0 ]
}

# build_clang [CFLAGS...]: funcs-clang.c by clang -g -O2 (as a kernel
# build compiles) through cc-btf into clangprog.
build_clang() {
	clang -g -O2 "$@" -c "$FIXTURES/funcs-clang.c" -o funcs-clang.o
	"$CC_BTF" --encode funcs-clang.o
	clang -o clangprog funcs-clang.o
}

# protos BTF: each FUNC as "name(its parameters' names)", sorted.
protos() {
	bpftool btf dump file "$1" | awk '
		/^\[/ {
			cur = ""
			if ($2 == "FUNC") {
				n = $3; gsub("\047", "", n)
				t = $4; sub("type_id=", "", t)
				fn[n] = t
			} else if ($2 == "FUNC_PROTO") {
				cur = $1; gsub(/[][]/, "", cur)
				params[cur] = ""
			}
			next
		}
		cur != "" {
			p = $1; gsub("\047", "", p)
			params[cur] = params[cur] (params[cur] == "" ? "" : ", ") p
		}
		END { for (n in fn) print n "(" params[fn[n]] ")" }' | sort
}

# What docs/design.md's rule for clang's units keeps of funcs-clang.c (the
# fixture says why each function is kept or left out).
CLANG_KEPT="clang_entry(lw, x, y)
ext(v)
in_place(a, b)
main(argc, argv)
mem_first(w, x)
ret_unused(x, y)
twin_mid(a, unused, b)
unused_last(a, b, unused)"

# clang_as_pahole [CFLAGS...]: the image and the lone object of
# funcs-clang.c keep CLANG_KEPT with Linux 6.12's function features.
clang_as_pahole() {
	need_tools
	need_cmd clang
	need_arch x86_64 "funcs-clang.c's verdicts are those of x86-64's registers"
	build_clang "$@"
	if readelf --debug-dump=info funcs-clang.o | grep -q DW_AT_calling_convention; then
		# clang 15 and later (Debian 13's 19) mark a changed ABI
		# DW_CC_nocall: the verdicts below are clang 14's DWARF's;
		# here the judge is pahole 1.32 (Debian sid's)
		need_pahole_sid
		local what
		for what in clangprog funcs-clang.o; do
			"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func \
				-o ours.btf "$what"
			"$PAHOLE_SID" -J --btf_features=$FEATS_612 \
				--btf_encode_detached=pahole.btf "$what"
			same_btf pahole.btf ours.btf
		done
		return
	fi
	# what the verdicts stand on: every function out of line, and no
	# DW_CC_nocall (clang 14 writes none), so clang's rule applies
	local f
	for f in folded folded_list unused_mid folded_first unused_last \
		ret_unused in_place mem_first split_union; do
		nm funcs-clang.o | grep -qx "[0-9a-f]* t $f"
	done
	! readelf --debug-dump=info funcs-clang.o | grep -q DW_AT_calling_convention || false
	"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func \
		-o opt.btf clangprog
	diff -u <(echo "$CLANG_KEPT") <(protos opt.btf)
	"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func \
		-o obj.btf funcs-clang.o
	diff -u <(echo "$CLANG_KEPT") <(protos obj.btf)
	# without the features every function keeps its FUNC
	"$BTF_LINK" -o default.btf clangprog
	[ "$(funcs default.btf | wc -l)" = 13 ]
}

@test "optimized_func: clang's units by pahole's rule for clang (DWARF 5: loclistx)" {
	clang_as_pahole
	# the location lists of DWARF 5 come by index
	readelf --debug-dump=abbrev funcs-clang.o | grep -q DW_FORM_loclistx
}

@test "optimized_func: clang's units by pahole's rule for clang (DWARF 4)" {
	clang_as_pahole -gdwarf-4
}

# bats test_tags=upstream
@test "optimized_func: clang's units, the same functions as the lab's pahole" {
	need_tools
	need_cmd clang
	need_lab_pahole
	local d
	for d in 5 4; do
		build_clang -gdwarf-$d
		"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func \
			-o ours.btf clangprog
		"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
			--btf_encode_detached=pahole.btf clangprog
		same_btf pahole.btf ours.btf
		"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func \
			-o ours.btf funcs-clang.o
		"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
			--btf_encode_detached=pahole.btf funcs-clang.o
		same_btf pahole.btf ours.btf
	done
}

# build_varargs: funcs-varargs.c by clang -O2 through cc-btf, as v.o;
# the DWARF is the shape the fixture is about.
build_varargs() {
	clang -g -O2 -c "$FIXTURES/funcs-varargs.c" -o v.o
	readelf --debug-dump=info v.o > v.info
	[ "$(grep -c DW_TAG_unspecified_parameters v.info)" = 1 ]
	grep -q 'DW_AT_inline' v.info
	nm v.o | grep -qx '[0-9a-f]* t log_item'
	"$CC_BTF" --encode v.o
}

@test "consistent_func: a variadic function whose out-of-line copy alone says \"...\" (clang) gets no FUNC" {
	need_tools
	need_cmd clang readelf pahole
	build_varargs
	"$BTF_LINK" --btf_features=$FEATS_CF -o cf.btf v.o
	funcs cf.btf > kept
	! grep -qx log_item kept || false
	grep -qx loud kept
	grep -qx quiet kept
	run -0 "$BTF_LINK" --btf_features=$FEATS_CF --explain log_item v.o
	[[ $output == *'dropped:'*'"..." in the out-of-line copy only'*'inconsistent prototypes'* ]] ||
		{ echo "got: $output"; return 1; }
	# without consistent_func, the abstract origin's prototype, as pahole
	# 1.24 writes it
	"$BTF_LINK" --btf_features=$FEATS,optimized_func -o opt.btf v.o
	funcs opt.btf | grep -qx log_item
	"$BTF_LINK" -o default.btf v.o
	cp v.o ref.o
	pahole -J --btf_gen_floats --btf_encode_detached=ref.btf ref.o
	same_btf ref.btf default.btf
}

# bats test_tags=upstream
@test "consistent_func: the variadic function's verdict is the lab's pahole's" {
	need_tools
	need_cmd clang readelf
	need_lab_pahole
	build_varargs
	"$BTF_LINK" --btf_features=$FEATS,optimized_func,consistent_func \
		-o ours.btf v.o
	cp v.o ref.o
	"$LAB_PAHOLE" -J --btf_features=$FEATS_612 \
		--btf_encode_detached=pahole.btf ref.o
	same_btf pahole.btf ours.btf
}

# orphan_protos BTF: the FUNC_PROTOs of BTF that no type refers to.
orphan_protos() {
	bpftool btf dump file "$1" | awk '
		/^\[/ {
			id = $1; gsub(/[][]/, "", id)
			if ($2 == "FUNC_PROTO")
				proto[id] = 1
		}
		{
			for (i = 1; i <= NF; i++)
				if ($i ~ /^(ret_)?type_id=/) {
					r = $i; sub(/.*=/, "", r)
					ref[r] = 1
				}
		}
		END { for (p in proto) if (!(p in ref)) print p }'
}

@test "a FUNC left out takes its FUNC_PROTO along, unless a kept type shares it" {
	need_tools
	need_cmd clang
	build_clang
	build_prog
	local p feats
	for p in clangprog prog; do
		for feats in $FEATS $FEATS,optimized_func,consistent_func; do
			"$BTF_LINK" --btf_features=$feats -o out.btf $p
			diff -u /dev/null <(orphan_protos out.btf)
		done
	done
	# what the test stands on: FUNCs left out (unused_mid's and
	# folded's by optimized_func, funcs-a.o's conflict_fn by the first
	# of its name in the default link), and unused_mid's prototype is
	# twin_mid's too, which keeps it
	bpftool btf dump file funcs-clang.o | grep -q "FUNC 'unused_mid'"
	"$BTF_LINK" --btf_features=$FEATS,optimized_func -o opt.btf clangprog
	! funcs opt.btf | grep -qx unused_mid || false
	protos opt.btf | grep -qx 'twin_mid(a, unused, b)'
	[ "$(nm prog | grep -c ' t conflict_fn$')" = 2 ]
}
