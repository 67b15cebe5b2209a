#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --explain NAME: why a FUNC or VAR is in the final BTF or not
# (abtf_linker__explain(); docs/design.md, "Why is my function not in
# BTF?"). tests/fixtures/explain-a.c and explain-b.c, compiled through
# cc-btf and linked at test time, hold a function or variable for each
# reason; their comments say which. The checks read the reason and the
# members named, and the last tests hold every verdict to the BTF the
# same link writes.

load test_helper

bats_require_minimum_version 1.5.0

# The 1.24 features btf-link always makes, and the same with the rules.
FEATS=var,float,decl_tag,type_tag,enum64
FEATS_CF=$FEATS,consistent_func
FEATS_ALL=$FEATS,consistent_func,optimized_func

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc ld nm objcopy cc-btf btf-link"

# build_prog: explain-a.o and explain-b.o through cc-btf, linked into prog
# with --gc-sections (ex_unused_gc goes), and `ld -r`ed into rel.o (its
# .data..percpu stays one).
build_prog() {
	local n
	for n in a b; do
		"$CC_BTF" gcc -g -O2 -ffunction-sections \
			-c "$FIXTURES/explain-$n.c" -o "explain-$n.o"
	done
	gcc -Wl,--gc-sections -o prog explain-a.o explain-b.o
	ld -r -o rel.o explain-a.o explain-b.o
}

# explain ARGS...: btf-link --explain ARGS..., which must succeed and say
# nothing on stderr; $output is its stdout.
explain() {
	run --separate-stderr "$BTF_LINK" "$@"
	if [ "$status" -ne 0 ] || [ -n "$stderr" ]; then
		echo "btf-link $*: exit $status, stderr:"
		echo "$stderr"
		return 1
	fi
}

# line N: the N-th line of $output (from 1).
line() {
	sed -n "$1p" <<< "$output"
}

@test "explain: a kept function: its prototype and its object" {
	need_tools
	build_prog
	explain --explain ex_kept --explain main prog
	[ "$(wc -l <<< "$output")" -eq 2 ]
	[[ $(line 1) == "ex_kept: kept: FUNC 'long int ex_kept(struct ex_state *s, int x)', linkage static, of member 0 ("*"explain-a.c), at 0x"*" in .text (symbol ex_kept)" ]]
	[[ $(line 2) == "main: kept: FUNC 'int main(void)', linkage static, of member 1 ("*"explain-b.c), "* ]]
}

@test "explain: a static function inlined everywhere has no FUNC and no symbol" {
	need_tools
	build_prog
	# what the test stands on: no symbol of it, anywhere
	! nm prog | grep -q ex_inlined || false
	explain --explain ex_inlined prog
	[ "$output" = "ex_inlined: not encoded: no object gave a FUNC or VAR of this name; the image has no symbol of that name either: a function inlined everywhere, or static and unused (or the name is not in this image)" ]
}

@test "explain: a name nothing has, a function the linker discarded, one renamed" {
	need_tools
	build_prog
	! nm prog | grep -q ex_unused_gc || false
	explain --explain no_such_name --explain ex_unused_gc prog
	[[ $(line 1) == "no_such_name: not encoded: no object gave a FUNC or VAR of this name; the image has no symbol of that name either: "* ]]
	[[ $(line 2) == "ex_unused_gc: dropped: FUNC 'int ex_unused_gc(int x)', linkage static, of member 1 ("*"explain-b.c): the linker discarded it "* ]]
	# arm64's pi/ objects are renamed after they are compiled: the slot
	# finds the code, the symbol table no function of the DWARF's name
	objcopy --prefix-symbols=__pi_ explain-b.o pi.o
	ld -r -o pi-rel.o explain-a.o pi.o
	explain --explain ex_unused_gc pi-rel.o
	[[ $output == "ex_unused_gc: dropped: FUNC 'int ex_unused_gc(int x)', "*"(symbol __pi_ex_unused_gc): its code is in the image, but no function symbol has its name "* ]]
}

@test "explain: consistent_func: inconsistent prototypes name both objects" {
	need_tools
	build_prog
	explain --btf_features=$FEATS_CF --explain ex_clash prog
	[ "$(wc -l <<< "$output")" -eq 2 ]
	[[ $(line 1) == "ex_clash: dropped: FUNC 'long int ex_clash(int x)', linkage static, of member 0 ("*"explain-a.c), "*"[weak]: inconsistent prototypes (consistent_func): the objects that define it disagree: the first definition" ]]
	[[ $(line 2) == "ex_clash: dropped: FUNC 'long int ex_clash(long int x)', linkage static, of member 1 ("*"explain-b.c), "*"[weak]: inconsistent prototypes (consistent_func): the objects that define it disagree: differs from member 0 ("*"explain-a.c)'s 'long int ex_clash(int x)'" ]]
	# without the feature: the first in link order, the other one's
	# prototype said
	explain --explain ex_clash prog
	[[ $(line 1) == "ex_clash: kept: FUNC 'long int ex_clash(int x)', linkage static, of member 0 ("*"explain-a.c), "* ]]
	[[ $(line 2) == "ex_clash: dropped: FUNC 'long int ex_clash(long int x)', "*"of member 1 ("*"explain-b.c), "*": one FUNC per name, the first in link order, is kept: that of member 0 ("*"explain-a.c), 'long int ex_clash(int x)'" ]]
}

@test "explain: optimized_func: a GCC clone (.constprop, .isra) whose parameter was optimized out" {
	need_tools
	need_arch x86_64 "which rule leaves a clone out depends on the argument registers"
	build_prog
	# GCC 12 makes ex_opt.constprop.0, GCC 14 ex_opt.isra.0
	local clone
	clone=$(nm explain-a.o | sed -n 's/.* \(ex_opt\.\(constprop\|isra\)\.[0-9]*\)$/\1/p')
	[ -n "$clone" ] ||
		skip "$(gcc -dumpversion) made no .constprop or .isra clone of ex_opt at -O2"
	explain --btf_features=$FEATS_ALL --explain ex_opt prog
	[[ $output == "ex_opt: dropped: FUNC 'long int ex_opt(long int x, int unused)', linkage static, a clone's, of member 0 ("*"explain-a.c), at 0x"*" in .text (symbol $clone) [optimized parameters]: optimized-out parameters (optimized_func): "* ]] ||
		{ echo "$output"; return 1; }
	# without optimized_func the clone's FUNC is not even a candidate
	explain --btf_features=$FEATS_CF --explain ex_opt prog
	[[ $output == "ex_opt: dropped: FUNC 'long int ex_opt(long int x, int unused)', "*": the FUNC of a GCC clone, from its object's .debug_btf_addr extension: only --btf_features=optimized_func uses it" ]]
}

@test "explain: a per-CPU variable kept, and variables that get no VAR" {
	need_tools
	build_prog
	explain --explain ex_pcpu_hits --explain ex_plain_var rel.o
	[[ $(line 1) == "ex_pcpu_hits: kept: VAR 'long int ex_pcpu_hits', linkage global, of member 0 ("*"explain-a.c), at 0x0 in .data..percpu (symbol ex_pcpu_hits)" ]]
	[[ $(line 2) == "ex_plain_var: not encoded: no object gave a FUNC or VAR of this name; the image has a variable symbol of that name: only per-CPU variables (.data..percpu) get a VAR, as in pahole: global ex_plain_var at 0x0 in .data" ]]
	# gcc's linker script puts .data..percpu into .data
	explain --explain ex_pcpu_hits prog
	[[ $output == "ex_pcpu_hits: dropped: VAR 'long int ex_pcpu_hits', "*" in .data (symbol ex_pcpu_hits): not in the final .data..percpu: "* ]]
	explain --btf_features=float --explain ex_pcpu_hits rel.o
	[[ $output == "ex_pcpu_hits: dropped: VAR "*": the link's BTF features leave out variables (no 'var')" ]]
}

@test "explain: ambiguous addresses, and a weak definition the linker overrode" {
	need_tools
	local n
	for n in a b; do
		"$CC_BTF" gcc -g -O2 -c "$FIXTURES/funcs-$n.c" -o "funcs-$n.o"
	done
	gcc -o fprog funcs-a.o funcs-b.o
	explain --btf_features=$FEATS_ALL --explain twin_fn --explain weak_over fprog
	[ "$(wc -l <<< "$output")" -eq 4 ]
	[[ $(line 1) == "twin_fn: dropped: FUNC 'int twin_fn(struct fx_state *s)', "*"of member 0 ("*"funcs-a.c), "*": ambiguous address: the name's function symbols lie at more than one address: local twin_fn at 0x"*" in .text, local twin_fn at 0x"*" in .text" ]]
	[[ $(line 2) == "twin_fn: dropped: "*"of member 1 ("*"funcs-b.c), "*": ambiguous address: "* ]]
	# pahole 1.31 takes the prototype of the definition at the symbol
	[[ $(line 3) == "weak_over: dropped: FUNC 'int weak_over(int weak_arg)', "*"of member 0 ("*"funcs-a.c), "*"[weak]: a weak definition that the linker overrode: "* ]]
	[[ $(line 4) == "weak_over: kept: FUNC 'int weak_over(int strong_arg)', "*"of member 1 ("*"funcs-b.c), "* ]]
}

@test "explain: a module's function that its base has too" {
	need_tools
	build_prog
	"$BTF_LINK" prog
	ld -r -o mod.o explain-a.o
	explain --base prog --explain ex_kept --explain main mod.o
	[[ $(line 1) == "ex_kept: kept: FUNC 'long int ex_kept(struct ex_state *s, int x)', "*": the base BTF has the same FUNC, which the split BTF refers to" ]]
	[ "$(line 2)" = "main: not encoded: no object gave a FUNC or VAR of this name; the base BTF has it: it is the base's" ]
}

@test "explain: writes nothing and leaves the input as it was" {
	need_tools
	build_prog
	cp prog prog.orig
	explain --btf_features=$FEATS_ALL --explain ex_kept prog
	cmp prog prog.orig
	# an archive still: a link does something
	"$BTF_LINK" -o final.btf prog
	cmp prog prog.orig
	run -2 "$BTF_LINK" --explain ex_kept -o out.btf prog
	[[ $output == *"--explain writes nothing"* ]]
	[ ! -e out.btf ]
	# a final BTF has no archive left to explain
	"$BTF_LINK" prog
	run -2 "$BTF_LINK" --explain ex_kept prog
	[[ $output == *"already final"* ]]
}

# kept_funcs: "name(param,...)" of each "NAME: kept: FUNC 'DECL'" line of
# $output, sorted (the fixtures' parameters are plain declarators).
kept_funcs() {
	awk '/^[^:]*: kept: FUNC \047/ {
		n = $0; sub(/:.*/, "", n)
		a = $0; sub(/^[^\047]*\047/, "", a); sub(/\047.*/, "", a)
		sub(/^[^(]*\(/, "", a); sub(/\)$/, "", a)
		out = ""; sep = ""
		k = (a == "void") ? 0 : split(a, ps, ", ")
		for (i = 1; i <= k; i++) {
			match(ps[i], /[A-Za-z_][A-Za-z_0-9]*$/)
			out = out sep substr(ps[i], RSTART, RLENGTH); sep = ","
		}
		print n "(" out ")"
	}' <<< "$output" | sort
}

# btf_funcs BTF: "name(param,...)" of each FUNC of BTF, sorted.
btf_funcs() {
	bpftool btf dump file "$1" | awk '
	/^\[[0-9]+\] / { cur = "" }
	/^\[[0-9]+\] FUNC_PROTO / {
		cur = substr($1, 2, length($1) - 2); proto[cur] = ""; next
	}
	/^\t\047/ && cur != "" {
		p = $1; gsub(/\047/, "", p)
		proto[cur] = proto[cur] (proto[cur] == "" ? "" : ",") p; next
	}
	/^\[[0-9]+\] FUNC / {
		n = $3; gsub(/\047/, "", n); t = $4; sub(/type_id=/, "", t)
		fn[n] = t
	}
	END { for (n in fn) print n "(" proto[fn[n]] ")" }' | sort
}

# agrees PROG [FEATURES]: explain's verdicts on every function name of
# PROG's objects and symbols are those of the link: the FUNCs it keeps,
# with their parameters, are those of the BTF the same link writes, and
# no name is kept twice.
agrees() {
	local prog=$1 feats=${2:+--btf_features=$2} args=() n
	nm --defined-only "$prog" *.o | awk 'NF == 3 { print $3 }' |
		sed 's/\..*//' | sort -u > names
	for n in $(cat names); do
		args+=(--explain "$n")
	done
	explain $feats "${args[@]}" "$prog"
	"$BTF_LINK" $feats -o linked.btf "$prog"
	diff -u <(btf_funcs linked.btf) <(kept_funcs)
}

@test "explain: its verdicts are the link's, with and without the function rules" {
	need_tools
	need_cmd bpftool
	local n
	build_prog
	agrees prog
	agrees prog "$FEATS_ALL"
	agrees rel.o "$FEATS_ALL"
	for n in a b; do
		"$CC_BTF" gcc -g -O2 -c "$FIXTURES/funcs-$n.c" -o "funcs-$n.o"
	done
	gcc -o fprog funcs-a.o funcs-b.o
	agrees fprog
	agrees fprog "$FEATS_CF"
	agrees fprog "$FEATS_ALL"
}
