#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link --btf_features: pahole's named BTF features (pahole.c's
# btf_features table and parse_btf_features(); docs/design.md, "BTF
# features"). The parser is seen through `btf-link -v`, which names the
# features a link makes; the expectations follow pahole's rules: the names
# of a list are switched on, others off; lists add up; "default" (and
# "all") is pahole's default set; a leading '+' adds it.

load test_helper

bats_require_minimum_version 1.5.0

# pahole's default set, in pahole's order (pahole.c: BTF_DEFAULT_FEATURE).
PAHOLE_DEFAULT="encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs"
# What btf-link makes without --btf_features: pahole 1.24 --btf_gen_floats.
LEGACY="var,float,decl_tag,type_tag,enum64,reproducible_build"

need_link() {
	need_cmd gcc ld
	[ -x "$CC_BTF" ] || skip "cc-btf is not built ($CC_BTF)"
	[ -x "$BTF_LINK" ] || skip "btf-link is not built ($BTF_LINK)"
	[ "$(uname -m)" = x86_64 ] || skip "link.lds is x86-64's"
}

# features_of ARGS...: the features `btf-link -v ARGS... missing` reports
# (it reports them before it opens the file).
features_of() {
	run --separate-stderr "$BTF_LINK" -v "$@" -o /dev/null missing-file
	[ "$status" -eq 2 ] || { echo "exit $status"; return 1; }
	sed -n 's/^btf-link: missing-file: BTF features: //p' <<< "$stderr"
}

@test "features: the parser follows pahole's list syntax" {
	[ -x "$BTF_LINK" ] || skip "btf-link is not built"
	[ "$(features_of)" = "$LEGACY" ]
	[ "$(features_of --btf_features=var)" = "var" ]
	[ "$(features_of --btf_features=float,var)" = "var,float" ]
	[ "$(features_of --btf_features=var,,float,)" = "var,float" ]
	[ "$(features_of --btf_features=default)" = "$PAHOLE_DEFAULT" ]
	[ "$(features_of --btf_features=all)" = "$PAHOLE_DEFAULT" ]
	[ "$(features_of --btf_features=default,global_var)" = "$PAHOLE_DEFAULT,global_var" ]
	[ "$(features_of --btf_features=+reproducible_build)" = "$PAHOLE_DEFAULT,reproducible_build" ]
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

@test "features: an unknown name is an error that names it" {
	[ -x "$BTF_LINK" ] || skip "btf-link is not built"
	run --separate-stderr "$BTF_LINK" --btf_features=var,vars x
	[ "$status" -eq 2 ]
	[ "$stderr" = "btf-link: error: --btf_features=var,vars: unknown BTF feature 'vars' (see --supported_btf_features)" ]
	run --separate-stderr "$BTF_LINK" --btf_features=+bogus x
	[ "$status" -eq 2 ]
	[[ $stderr == *"unknown BTF feature 'bogus'"* ]]
	# '+' only at the start of a list
	run --separate-stderr "$BTF_LINK" --btf_features=var,+float x
	[ "$status" -eq 2 ]
	[[ $stderr == *"unknown BTF feature '+float'"* ]]
	run --separate-stderr "$BTF_LINK" --btf_features_strict=Var x
	[ "$status" -eq 2 ]
	[[ $stderr == *"--btf_features_strict=Var: unknown BTF feature 'Var'"* ]]
	# features are for linking
	run --separate-stderr "$BTF_LINK" --compare --btf_features=var a b
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: "* ]]
}

@test "features: --supported_btf_features lists, in pahole's order, what a link honours" {
	[ -x "$BTF_LINK" ] || skip "btf-link is not built"
	run --separate-stderr "$BTF_LINK" --supported_btf_features
	[ "$status" -eq 0 ]
	[[ $output =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]]
	local supported=$output n
	# pahole's order: the list is in the order of its table
	local order="$PAHOLE_DEFAULT,reproducible_build,distilled_base,global_var,attributes,true_signature,layout"
	[ "$(tr , '\n' <<< "$order" | grep -xF -f <(tr , '\n' <<< "$supported") |
	     paste -sd,)" = "$supported" ]
	# each one listed is accepted by a link, each one not listed refused
	need_link
	"$CC_BTF" gcc -g -O2 -c "$FIXTURES/features.c" -o f.o
	ld -T "$FIXTURES/link.lds" -o prog f.o
	for n in $(tr , ' ' <<< "$order"); do
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
