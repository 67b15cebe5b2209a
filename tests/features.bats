#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --btf_features: pahole's named BTF features (pahole.c's
# btf_features table and parse_btf_features(); docs/design.md, "BTF
# features"). The parser is seen through `btf-link -v --btf_features=...`,
# which names the features it parsed; the expectations follow pahole's rules: the names
# of a list are switched on, others off; lists add up; "default" (and
# "all") is pahole's default set; a leading '+' adds it.

load test_helper

bats_require_minimum_version 1.5.0

# pahole's default set, in pahole's order (pahole.c: BTF_DEFAULT_FEATURE).
PAHOLE_DEFAULT="encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs"
# What btf-link makes without --btf_features: pahole 1.24 --btf_gen_floats.
LEGACY="var,float,decl_tag,type_tag,enum64,reproducible_build"

# The prerequisites need_tools checks.
# shellcheck disable=SC2034 # read by need_tools
NEED_TOOLS="gcc ld cc-btf btf-link"
# shellcheck disable=SC2034
NEED_ARCH="x86_64 link.lds is x86-64's"

# features_of ARGS...: the features `btf-link -v ARGS... missing` reports
# (it reports those of --btf_features before it opens the file).
features_of() {
	run --separate-stderr "$BTF_LINK" -v "$@" -o features.btf missing-file
	[ "$status" -eq 2 ] || { echo "exit $status"; return 1; }
	sed -n 's/^btf-link: missing-file: BTF features: //p' <<< "$stderr"
}

# ignored_of ARGS...: the unknown names `btf-link -v ARGS... missing` says
# it ignored.
ignored_of() {
	run --separate-stderr "$BTF_LINK" -v "$@" -o features.btf missing-file
	sed -n 's/^btf-link: missing-file: unknown BTF features ignored: //p' <<< "$stderr"
}

@test "features: the parser follows pahole's list syntax" {
	need_built
	[ "$(features_of --btf_features=var)" = "var" ]
	[ "$(features_of --btf_features=float,var)" = "var,float" ]
	[ "$(features_of --btf_features=var,,float,)" = "var,float" ]
	[ "$(features_of --btf_features=default)" = "$PAHOLE_DEFAULT" ]
	[ "$(features_of --btf_features=all)" = "$PAHOLE_DEFAULT" ]
	[ "$(features_of --btf_features=default,global_var)" = "$PAHOLE_DEFAULT,global_var" ]
	[ "$(features_of --btf_features=+reproducible_build)" = "$PAHOLE_DEFAULT,reproducible_build" ]
	[ "$(features_of --btf_features=+)" = "$PAHOLE_DEFAULT" ]
	[ "$(features_of --btf_features=+var)" = "$PAHOLE_DEFAULT" ]
	# several options add up, a repeated name is no different
	[ "$(features_of --btf_features=var --btf_features=float,var)" = "var,float" ]
	[ "$(features_of --btf_features=$PAHOLE_DEFAULT --btf_features=+reproducible_build)" = \
	  "$PAHOLE_DEFAULT,reproducible_build" ]
	[ "$(features_of --btf_features_strict=enum64 --btf_features=var)" = "var,enum64" ]
	# a list that names nothing leaves everything out (not the default)
	[ "$(features_of --btf_features=)" = "" ]
	[ "$(features_of --btf_features=,)" = "" ]
	# every name of pahole's table is known, each on its own
	local n
	for n in $PAHOLE_DEFAULT reproducible_build distilled_base global_var \
		 attributes true_signature layout; do
		[ "$(features_of --btf_features=$n)" = "$n" ] || {
			echo "$n: $(features_of --btf_features=$n)"
			return 1
		}
	done
}

@test "features: an unknown name: ignored (said with -v), an error when strict" {
	need_built
	# pahole's contract: a newer tree's name does not stop an older tool
	[ "$(features_of --btf_features=var,vars)" = "var" ]
	[ "$(ignored_of --btf_features=var,vars)" = "'vars'" ]
	[ "$(features_of --btf_features=+bogus,float)" = "$PAHOLE_DEFAULT" ]
	[ "$(ignored_of --btf_features=+bogus,float --btf_features=x,y)" = "'bogus', 'x', 'y'" ]
	# a list of unknown names alone asks for nothing, not the default
	[ "$(features_of --btf_features=some_future_feature)" = "" ]
	[ "$(ignored_of --btf_features=some_future_feature)" = "'some_future_feature'" ]
	[ "$(ignored_of --btf_features=var)" = "" ]
	# --btf_features_strict refuses it, naming it
	run --separate-stderr "$BTF_LINK" --btf_features_strict=var,vars x
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: --btf_features_strict=var,vars: unknown BTF feature 'vars' (see --supported_btf_features)" ]
	run --separate-stderr "$BTF_LINK" --btf_features_strict=Var x
	[ "$status" -eq 2 ]
	[[ $stderr == *"--btf_features_strict=Var: unknown BTF feature 'Var'"* ]]
	# '+' only at the start of a list: later, it is a syntax error
	run --separate-stderr "$BTF_LINK" --btf_features=var,+float x
	[ "$status" -eq 2 ]
	[[ $stderr == *"unknown BTF feature '+float'"* ]]
	# features are for linking
	run --separate-stderr "$BTF_LINK" --compare --btf_features=var a b
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: "* ]]
}

@test "features: --supported_btf_features lists, in pahole's order, what a link honours" {
	need_built
	run --separate-stderr "$BTF_LINK" --supported_btf_features
	[ "$status" -eq 0 ]
	[[ $output =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]]
	local supported=$output n
	# pahole's order: the list is in the order of its table
	local order="$PAHOLE_DEFAULT,reproducible_build,distilled_base,global_var,attributes,true_signature,layout"
	[ "$(tr , '\n' <<< "$order" | grep -xF -f <(tr , '\n' <<< "$supported") |
	     paste -sd,)" = "$supported" ]
	# each one listed is accepted by a link, each one not listed refused
	need_tools
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/features.c" -o f.o
	ld -T "$FIXTURES/link.lds" -o prog f.o
	for n in $(tr , ' ' <<< "$order"); do
		# a module's, with --base, not -o: tests/distill.bats
		[ "$n" != distilled_base ] || continue
		run --separate-stderr "$BTF_LINK" --btf_features=$LEGACY,$n -o out.btf prog
		if [[ ,$supported, == *,$n,* ]]; then
			[ "$status" -eq 0 ] || { echo "$n: $stderr"; return 1; }
		else
			[ "$status" -eq 2 ] || { echo "$n accepted"; return 1; }
			[[ $stderr == *"BTF feature '$n' is not supported yet"* ]]
		fi
	done
	run "$BTF_LINK" --supported_btf_features extra
	[ "$status" -eq 2 ]
}

# prog: tests/fixtures/features.c through cc-btf, linked with link.lds.
# pahole reads the same image's DWARF (the archive in .BTF is no matter
# to --btf_encode_detached).
make_prog() {
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/features.c" -o f.o
	ld -T "$FIXTURES/link.lds" -o prog f.o 2>/dev/null
}

# has_kind FILE KIND: FILE's BTF has at least one KIND.
has_kind() {
	bpftool btf dump file "$1" | grep -q "^\[[0-9]*\] $2 "
}

# same_as_pahole FEATURES PAHOLE-FLAGS...: btf-link --btf_features=FEATURES
# of prog means what Debian's pahole 1.24 makes of it with its legacy
# flags for the same choice.
same_as_pahole() {
	link_as_pahole prog "$@"
}

@test "features: float off writes FLOATs as pahole 1.24 without --btf_gen_floats" {
	need_tools
	need_cmd pahole bpftool
	make_prog
	same_as_pahole var,decl_tag,type_tag,enum64
	! has_kind ours.btf FLOAT || false
	# the fixture has floats: with the feature they are FLOATs, and the
	# BTF differs by meaning
	"$BTF_LINK" --btf_features=float,var,decl_tag,type_tag,enum64 -o with.btf prog
	has_kind with.btf FLOAT
	run "$BTF_LINK" --compare with.btf ours.btf
	[ "$status" -eq 1 ]
	same_as_pahole float,var,decl_tag,type_tag,enum64 --btf_gen_floats
}

@test "features: var off leaves out VARs and DATASECs, as --skip_encoding_btf_vars" {
	need_tools
	need_cmd pahole bpftool
	make_prog
	same_as_pahole float,decl_tag,type_tag,enum64 --btf_gen_floats --skip_encoding_btf_vars
	! has_kind ours.btf VAR || false
	! has_kind ours.btf DATASEC || false
	"$BTF_LINK" --btf_features=float,var -o with.btf prog
	has_kind with.btf VAR
	has_kind with.btf DATASEC
}

@test "features: enum64 off makes every enum a 32-bit unsigned ENUM, as --skip_encoding_btf_enum64" {
	need_tools
	need_cmd pahole bpftool
	make_prog
	same_as_pahole float,var,decl_tag,type_tag --btf_gen_floats --skip_encoding_btf_enum64
	! has_kind ours.btf ENUM64 || false
	! bpftool btf dump file ours.btf | grep -q "^\[[0-9]*\] ENUM .* encoding=SIGNED" || false
	"$BTF_LINK" --btf_features=float,var,enum64 -o with.btf prog
	has_kind with.btf ENUM64
	bpftool btf dump file with.btf | grep -q "^\[[0-9]*\] ENUM .* encoding=SIGNED"
}

@test "features: every feature off is pahole 1.24 with every legacy flag off" {
	need_tools
	need_cmd pahole bpftool
	make_prog
	same_as_pahole "" --skip_encoding_btf_vars --skip_encoding_btf_enum64 \
		--skip_encoding_btf_decl_tag --skip_encoding_btf_type_tag
	# and all on (the default set but for encode_force) is the default
	"$BTF_LINK" --btf_features=var,float,decl_tag,type_tag,enum64,reproducible_build -o all.btf prog
	"$BTF_LINK" -o default.btf prog
	cmp all.btf default.btf
	# reproducible_build changes nothing: btf-link always is
	"$BTF_LINK" --btf_features=var,float,decl_tag,type_tag,enum64 -o norepro.btf prog
	cmp all.btf norepro.btf
}

# bats test_tags=upstream
@test "features: with the lab's upstream pahole, each feature set means the same" {
	local P f
	need_lab_pahole
	P=$LAB_PAHOLE
	need_tools
	make_prog
	for f in "" var float enum64 var,float float,enum64 \
		 encode_force,var,float,enum64,decl_tag,type_tag \
		 var,float,reproducible_build; do
		"$P" -J --btf_features="$f" --btf_encode_detached=lab.btf prog
		"$BTF_LINK" --btf_features="$f" -o ours.btf prog
		run "$BTF_LINK" --compare lab.btf ours.btf
		[ "$status" -eq 0 ] || { echo "--btf_features=$f:"; echo "$output"; return 1; }
	done
}

# A per-CPU variable named with a '$' (GCC takes it in identifiers): a
# name the kernel rejects in a VAR.
bad_name_prog() {
	cat > bad.c <<-'EOC'
	__attribute__((section(".data..percpu"))) int pcpu$bad;
	__attribute__((section(".data..percpu"))) int pcpu_good;
	int bad_user(void) { return pcpu$bad + pcpu_good; }
	EOC
	"$CC_BTF" gcc -g -O2 -c bad.c -o bad.o
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/features.c" -o f.o
	ld -T "$FIXTURES/link.lds" -o prog bad.o f.o 2>/dev/null
}

@test "features: an invalid variable name stops the link; encode_force leaves the VAR out" {
	need_tools
	need_cmd bpftool
	bad_name_prog
	cp prog prog.orig
	run --separate-stderr "$BTF_LINK" --btf_features=var,float prog
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: prog: .BTF member 0: variable 'pcpu\$bad': not a valid BTF name"* ]]
	cmp prog prog.orig
	# the default (pahole 1.24 without --btf_encode_force) stops too
	run --separate-stderr "$BTF_LINK" -o out.btf prog
	[ "$status" -eq 2 ]
	[ ! -e out.btf ]
	"$BTF_LINK" --btf_features=var,float,encode_force -o out.btf prog
	bpftool btf dump file out.btf > dump
	grep -q "VAR 'pcpu_good'" dump
	! grep -q 'pcpu\$bad' dump || false
	# without var, there is no VAR to name
	"$BTF_LINK" --btf_features=float -o novar.btf prog
}

@test "features: an invalid variable name against pahole 1.24 --btf_encode_force" {
	need_tools
	need_cmd pahole
	bad_name_prog
	"$BTF_LINK" --btf_features=var,float,decl_tag,type_tag,enum64,encode_force -o ours.btf prog
	pahole -J --btf_gen_floats --btf_encode_force --btf_encode_detached=ref.btf prog
	run "$BTF_LINK" --compare ref.btf ours.btf
	[ "$status" -eq 0 ] && [ -z "$output" ] || { echo "$output"; return 1; }
}

# kfunc_prog OUT [LD ARGS...]: tests/fixtures/kfuncs.c (kfunc sets in
# .BTF_ids, tests/fixtures/btf_ids_test.h) through cc-btf, linked to OUT;
# with KCROSS=PREFIX- by that cross gcc and ld.
kfunc_prog() {
	local out=$1
	shift
	"$CC_BTF" "${KCROSS:-}gcc" -g -O2 -I"$FIXTURES" -c "$FIXTURES/kfuncs.c" -o k.o
	"${KCROSS:-}ld" "$@" -o "$out" k.o 2>/dev/null
}

# btf_tags FILE: "FUNC TAG" for every DECL_TAG on a FUNC of FILE's BTF.
btf_tags() {
	bpftool btf dump file "$1" | awk '
		/^\[[0-9]+\] FUNC / { gsub(/[\[\]]/, "", $1); f[$1] = $3 }
		/^\[[0-9]+\] DECL_TAG / { t[++n] = $3 " " $4 }
		END {
			for (i = 1; i <= n; i++) {
				split(t[i], a, " "); sub(/type_id=/, "", a[2])
				print f[a[2]], a[1]
			}
		}' | tr -d "'" | sort
}

# expected_tags IMAGE BTF: the tags pahole's rules give, derived from the
# image's own symbols and .BTF_ids bytes (readelf, objcopy): a set8
# symbol whose flags have bit 0 covers [value, value + size); a
# __BTF_ID__func__NAME__N symbol inside one is a kfunc NAME with the flags
# after its ID (the last such symbol's); every kfunc with a FUNC in BTF
# gets bpf_kfunc, and bpf_fastcall with flag 1 << 12. The u32s are in the
# image's byte order (KCROSS: its binutils).
expected_tags() {
	local img=$1 btf=$2
	section_bytes "$img" .BTF_ids ids.bin
	readelf -SW "$img" > sections
	readelf -sW "$img" > symbols
	readelf -h "$img" | grep -q 'big endian' && echo '>' > order || echo '<' > order
	bpftool btf dump file "$btf" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" > funcs
	python3 - <<-'EOF'
	import re, struct
	u32 = open('order').read().strip() + 'I'
	secs = {}
	for line in open('sections'):
	    m = re.match(r'\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+([0-9a-f]+)', line)
	    if m:
	        secs[m.group(2)] = (int(m.group(1)), int(m.group(3), 16))
	idx, base = secs['.BTF_ids']
	data = open('ids.bin', 'rb').read()
	syms = []
	for line in open('symbols'):
	    f = line.split()
	    if len(f) == 8 and f[6] == str(idx):
	        syms.append((int(f[1], 16), int(f[2]), f[7]))
	sets = [(v, v + s) for v, s, n in syms
	        if n.startswith('__BTF_ID__set8__') and
	        struct.unpack_from(u32, data, v - base + 4)[0] & 1]
	flags = {}
	for v, s, n in syms:
	    m = re.match(r'__BTF_ID__func__(.+)__[^_]+$', n)
	    if m and any(a <= v < b for a, b in sets):
	        flags[m.group(1)] = struct.unpack_from(u32, data, v - base + 4)[0]
	funcs = set(open('funcs').read().split())
	for name in sorted(flags):
	    if name in funcs:
	        print(name, 'bpf_kfunc')
	        if flags[name] & (1 << 12):
	            print(name, 'bpf_fastcall')
	EOF
}

# kfunc_tags_as_expected OUT [LD ARGS...]: kfunc_prog OUT, linked by
# btf-link with decl_tag_kfuncs; its tags (got) are expected_tags' (want).
kfunc_tags_as_expected() {
	kfunc_prog "$@"
	"$BTF_LINK" --btf_features=decl_tag,decl_tag_kfuncs -o "$1.btf" "$1"
	expected_tags "$1" "$1.btf" | sort > want
	btf_tags "$1.btf" > got
	diff -u want got
}

@test "features: decl_tag_kfuncs tags exactly the kfuncs of the image's .BTF_ids" {
	need_tools
	need_cmd bpftool python3 objcopy readelf
	kfunc_tags_as_expected prog -T "$FIXTURES/link.lds"
	# the fixture has what the test is about: both tags, a kfunc without
	# a FUNC, functions of other lists without tags
	grep -qx 'kf_beta bpf_fastcall' want
	grep -qx 'kf_alpha bpf_kfunc' want
	! grep -q 'kf_missing\|not_kfunc\|listed_only\|plain_func' want || false
	grep -qx 'not_kfunc' funcs
	grep -qx 'listed_only' funcs
	# a module (ld -r: section-relative symbols) the same
	kfunc_tags_as_expected mod.ko -r
	[ -s want ]
}

@test "features: decl_tag_kfuncs on a big-endian (s390x) image and module: .BTF_ids in the image's order" {
	# the sets' and kfuncs' flags are u32s of the target: read in the
	# host's order, an s390x kernel's kfuncs got no tags at all
	need_tools
	need_cmd bpftool python3 readelf s390x-linux-gnu-gcc s390x-linux-gnu-ld \
		s390x-linux-gnu-objcopy
	KCROSS=s390x-linux-gnu-
	kfunc_tags_as_expected prog -T "$FIXTURES/link.lds"
	[ "$(cat order)" = '>' ]
	grep -qx 'kf_beta bpf_fastcall' want
	grep -qx 'kf_alpha bpf_kfunc' want
	kfunc_tags_as_expected mod.ko -r
	grep -qx 'kf_alpha bpf_kfunc' want
}

@test "features: no kfunc tags without decl_tag_kfuncs, nor without decl_tag" {
	need_tools
	need_cmd bpftool
	kfunc_prog prog -T "$FIXTURES/link.lds"
	"$BTF_LINK" --btf_features=decl_tag -o a.btf prog
	"$BTF_LINK" --btf_features=decl_tag_kfuncs -o b.btf prog
	"$BTF_LINK" -o c.btf prog
	"$BTF_LINK" --btf_features=decl_tag,decl_tag_kfuncs -o d.btf prog
	[ -z "$(btf_tags a.btf)" ]
	[ -z "$(btf_tags b.btf)" ]
	[ -z "$(btf_tags c.btf)" ]
	[ -n "$(btf_tags d.btf)" ]
	# decl_tag off leaves out every DECL_TAG, kfuncs' included: the same
	# BTF as without them, but for the tags
	run "$BTF_LINK" --compare d.btf b.btf
	[ "$status" -eq 1 ]
	! grep -v '^- decl_tag ' <<< "$output" || false
	# an image without .BTF_ids has nothing to tag, and is no error
	make_prog
	"$BTF_LINK" --btf_features=decl_tag,decl_tag_kfuncs -o e.btf prog
	[ -z "$(btf_tags e.btf)" ]
}

@test "features: decl_tag_kfuncs on raw BTF is an error: there is no .BTF_ids" {
	need_tools
	kfunc_prog prog -T "$FIXTURES/link.lds"
	section_bytes prog .BTF archive.bin
	# one member: -f, or btf-link would take it for final BTF
	run --separate-stderr "$BTF_LINK" -f --btf_features=decl_tag,decl_tag_kfuncs -o out.btf archive.bin
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: archive.bin: raw BTF has no .BTF_ids section: BTF feature 'decl_tag_kfuncs' needs the ELF image" ]
	[ ! -e out.btf ]
	# without decl_tag, nothing would be tagged: no error
	"$BTF_LINK" -f --btf_features=decl_tag_kfuncs -o out.btf archive.bin
}

# bats test_tags=upstream
@test "features: decl_tag_kfuncs means what the lab's upstream pahole makes" {
	local P f
	need_lab_pahole
	P=$LAB_PAHOLE
	need_tools
	kfunc_prog prog -T "$FIXTURES/link.lds"
	kfunc_prog mod.ko -r
	for f in decl_tag,decl_tag_kfuncs decl_tag_kfuncs decl_tag \
		 encode_force,var,float,enum64,decl_tag,type_tag,decl_tag_kfuncs; do
		for img in prog mod.ko; do
			"$P" -J --btf_features="$f" --btf_encode_detached=lab.btf "$img"
			"$BTF_LINK" --btf_features="$f" -o ours.btf "$img"
			run "$BTF_LINK" --compare lab.btf ours.btf
			[ "$status" -eq 0 ] ||
				{ echo "$img --btf_features=$f:"; echo "$output"; return 1; }
		done
	done
}

@test "features: type_tag and decl_tag off, on clang's tags (pahole's members), as pahole 1.24" {
	need_tools
	need_cmd clang pahole bpftool
	clang -g -O2 -c "$FIXTURES/feature-tags.c" -o tags.o
	LLVM_OBJCOPY=objcopy pahole -J tags.o
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/features.c" -o f.o
	ld -T "$FIXTURES/link.lds" -o prog tags.o f.o 2>/dev/null
	same_as_pahole var,float,decl_tag,type_tag,enum64 --btf_gen_floats
	has_kind ours.btf TYPE_TAG
	has_kind ours.btf DECL_TAG
	same_as_pahole var,float,decl_tag,enum64 --btf_gen_floats --skip_encoding_btf_type_tag
	! has_kind ours.btf TYPE_TAG || false
	has_kind ours.btf DECL_TAG
	same_as_pahole var,float,type_tag,enum64 --btf_gen_floats --skip_encoding_btf_decl_tag
	! has_kind ours.btf DECL_TAG || false
	has_kind ours.btf TYPE_TAG
	same_as_pahole float,decl_tag,type_tag,enum64 --btf_gen_floats --skip_encoding_btf_vars
	same_as_pahole "" --skip_encoding_btf_vars --skip_encoding_btf_enum64 \
		--skip_encoding_btf_decl_tag --skip_encoding_btf_type_tag
	! has_kind ours.btf TYPE_TAG || false
	! has_kind ours.btf DECL_TAG || false
}

@test "features: the library's feature API, through the shared library" {
	need_cmd gcc
	[ -e "$ABTF_BUILD/libarchive-btf.so" ] || skip "no shared library in $ABTF_BUILD"
	local san=
	# a sanitizer build's library wants its runtime first
	readelf -dW "$ABTF_BUILD/libarchive-btf.so" | grep -q 'libasan' &&
		san="-fsanitize=address,undefined"
	gcc $san -I"$ABTF_TOP/libarchive-btf" "$FIXTURES/features-api.c" \
		-L"$ABTF_BUILD" -larchive-btf -Wl,-rpath,"$ABTF_BUILD" -o api
	run ./api
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -z "$output" ]
}
