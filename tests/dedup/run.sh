#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The differential test of btf-link's deduplication: random multi-file C
# programs (gen.py), compiled, encoded by cc-btf, linked by btf-link, and
# each link held to libbpf's btf__dedup() alone on the same members by
# meaning (oracle.c, btf_equiv.c).
#
# Usage: tests/dedup/run.sh [-j JOBS] [-k DIR] SEED COUNT
#
# Programs SEED .. SEED+COUNT-1. Program S has 2 + S % 9 files and is
# compiled by one of gcc -O0, gcc -O2, clang -O0, clang -O2 (S % 4; clang
# with btf_type_tag and btf_decl_tag). Each program is checked three ways:
#
#   raw     each object's BTF (cc-btf --encode -o), concatenated: a raw
#           archive;
#   ld      the objects encoded in place and linked by ld into one
#           executable, whose .BTF is the archive; the oracle links it,
#           and btf-link in place must write the bytes of btf-link -o;
#   split   the first half of the files linked and made final (btf-link in
#           place) as a base, the other half's raw archive split on it;
#           and its deduplication (node_dedup.c over the base) byte for
#           byte btf__dedup()'s on the same merged types (dedup-diff).
#
# Prints a line per failing program and check (with the oracle's lines),
# and keeps its directory under DIR (-k; default: none kept); ends with
# "N passed, N failed" and exits 1 if any failed.
#
# Environment: ABTF_BUILD (the tools and the shared library; default
# build/), DEDUP_WORK (scratch; default a new directory under TMPDIR).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${ABTF_BUILD:-$TOP/build}
JOBS=$(nproc)
KEEP=

while getopts j:k: opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	k) KEEP=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-j JOBS] [-k DIR] SEED COUNT" >&2; exit 2; }
SEED=$1
COUNT=$2

WORK=${DEDUP_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/dedup.XXXXXX")}
mkdir -p "$WORK"
[ -n "${DEDUP_WORK:-}" ] || trap 'rm -rf "$WORK"' EXIT
[ -z "$KEEP" ] || mkdir -p "$KEEP"

# The oracle, built against this build's library as tests/link-kernel.bats
# builds it.
ABTF_TOP=$TOP ABTF_BUILD=$BUILD
# shellcheck source=tests/lib/build.bash
. "$TOP/tests/lib/build.bash"
dedup_oracle_prog "$WORK/dedup-oracle" || exit 2
FIXTURES=$TOP/tests/fixtures dedup_diff_prog "$WORK/dedup-diff" || exit 2
export ORACLE=$WORK/dedup-oracle CC_BTF=$BUILD/bin/cc-btf
export DEDUP_DIFF=$WORK/dedup-diff
export BTF_LINK=$BUILD/bin/btf-link GEN=$TOP/tests/dedup/gen.py

# check SEED: check one program in $WORK/pSEED; prints its failures,
# returns 1 on any.
check() {
	local s=$1 d=$WORK/p$1 n=$((2 + $1 % 9)) cc flags tags= f half
	local fail=0
	case $((s % 4)) in
	0) cc=gcc flags="-O0 -fno-eliminate-unused-debug-types" ;;
	1) cc=gcc flags="-O2 -fno-eliminate-unused-debug-types" ;;
	2) cc=clang flags=-O0 tags=--clang-tags ;;
	3) cc=clang flags=-O2 tags=--clang-tags ;;
	esac
	rm -rf "$d"
	mkdir -p "$d"
	cd "$d" || return 2
	python3 "$GEN" --seed "$s" --files "$n" --out . $tags || {
		echo "seed $s: gen.py failed"
		return 1
	}
	for f in tu*.c; do
		# shellcheck disable=SC2086
		$cc -g $flags -c "$f" -o "${f%.c}.o" 2>>cc.log &&
			"$CC_BTF" --encode -o "${f%.c}.btf" "${f%.c}.o" ||
			{ echo "seed $s: $cc $flags $f: compile or encode failed"; return 1; }
	done
	report() {	# CHECK OUTPUT STATUS
		[ "$3" -eq 0 ] && return 0
		echo "seed $s ($n files, $cc $flags): $1: oracle exit $3"
		printf '%s\n' "$2" | sed -n '1,20s/^/  /p'
		fail=1
	}
	# raw archive
	cat $(ls tu*.btf | sort -V) > raw.btf
	out=$("$ORACLE" raw.btf 2>&1); report raw "$out" $?
	# ld: encoded in place, linked, btf-link in place = btf-link -o
	for f in $(ls tu*.o | sort -V); do
		cp "$f" "l-$f"
		"$CC_BTF" --encode "l-$f" || { echo "seed $s: in-place encode failed"; return 1; }
	done
	ld --unresolved-symbols=ignore-all -e 0 -o prog $(ls l-tu*.o | sort -V) 2>>ld.log ||
		{ echo "seed $s: ld failed: $(head -3 ld.log)"; return 1; }
	out=$("$ORACLE" prog 2>&1); report ld "$out" $?
	cp prog prog.final
	if "$BTF_LINK" -o prog.btf prog && "$BTF_LINK" prog.final &&
	   objcopy --dump-section .BTF=prog.final.btf prog.final /dev/null; then
		cmp -s prog.btf prog.final.btf ||
			report "ld in place" "btf-link in place differs from -o" 1
	else
		report "ld in place" "btf-link failed" 1
	fi
	# split: the first half made final as a base, the rest on it
	half=$((n / 2))
	ld --unresolved-symbols=ignore-all -e 0 -o base $(ls l-tu*.o | sort -V | head -n "$half") 2>>ld.log &&
		"$BTF_LINK" base ||
		{ echo "seed $s: base link failed"; return 1; }
	cat $(ls tu*.btf | sort -V | tail -n +"$((half + 1))") > mod.btf
	out=$("$ORACLE" mod.btf base 2>&1); report split "$out" $?
	out=$("$DEDUP_DIFF" dedup mod.btf base 2>&1); report "split bytes" "$out" $?
	return $fail
}

# one SEED: check, then keep the program's directory under KEEP if it
# failed, and remove it.
one() {
	local rc
	check "$1"
	rc=$?
	cd "$WORK" || return 2
	if [ "$rc" -ne 0 ] && [ -n "$KEEP" ]; then
		rm -rf "${KEEP:?}/p$1"
		cp -r "$WORK/p$1" "$KEEP/p$1"
	fi
	rm -rf "$WORK/p$1"
	return "$rc"
}
export -f check one
export WORK KEEP

seq "$SEED" $((SEED + COUNT - 1)) |
	xargs -P "$JOBS" -I{} bash -c 'one {} > "$WORK/r{}.out" 2>&1; echo $? > "$WORK/r{}.rc"'
passed=0 failed=0
for s in $(seq "$SEED" $((SEED + COUNT - 1))); do
	rc=$(cat "$WORK/r$s.rc" 2>/dev/null || echo 2)
	cat "$WORK/r$s.out" 2>/dev/null
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
