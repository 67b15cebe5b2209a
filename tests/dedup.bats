#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# btf-link's deduplication against libbpf's btf__dedup() alone, by meaning
# (docs/design.md, "one meaning"; tests/dedup/):
#
#  - tests/unit/dedup-table.c: the minimal reproducers of every class of
#    input the differential test found, as raw BTF tables, each linked by
#    btf-link (default, and a leaf per member) and by the reference;
#  - tests/dedup/run.sh: a fixed list of random multi-file programs
#    (gen.py), gcc and clang at -O0 and -O2, linked as a raw archive,
#    through ld and as split BTF on a base, each held to libbpf's dedup
#    alone (oracle.c). make fuzz-dedup SEED=... N=... explores further.

load test_helper

bats_require_minimum_version 1.5.0

# The seeds CI runs: programs DEDUP_SEED .. DEDUP_SEED+DEDUP_COUNT-1.
DEDUP_SEED=${DEDUP_SEED:-1}
DEDUP_COUNT=${DEDUP_COUNT:-96}

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_cmd gcc clang ld objcopy python3 readelf
	need_built
}

@test "dedup: the table's shapes link to libbpf's types (tests/unit/dedup-table.c)" {
	lib_objs_prog dedup-table -O2 -g -Wall -Wextra \
		-I"$ABTF_TOP/tests/dedup" "$ABTF_TOP/tests/unit/dedup-table.c" \
		"$ABTF_TOP/tests/dedup/btf_equiv.c" \
		"$ABTF_TOP/tests/dedup/test_link.c"
	run timeout 60 ./dedup-table
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "dedup: gen.py is deterministic and its programs compile with gcc and clang" {
	python3 "$ABTF_TOP/tests/dedup/gen.py" --seed 7 --files 4 --out a --clang-tags
	python3 "$ABTF_TOP/tests/dedup/gen.py" --seed 7 --files 4 --out b --clang-tags
	diff -r a b
	python3 "$ABTF_TOP/tests/dedup/gen.py" --seed 8 --files 4 --out c
	! diff -rq a c >/dev/null || false
	local f
	for f in a/*.c; do
		gcc -g -O2 -c "$f" -o "$f.gcc.o"
		clang -g -O2 -c "$f" -o "$f.clang.o"
	done
}

@test "dedup: $DEDUP_COUNT random programs link to the types of libbpf's dedup alone" {
	run timeout 1500 "$ABTF_TOP/tests/dedup/run.sh" -k "$WORK/kept" \
		"$DEDUP_SEED" "$DEDUP_COUNT"
	echo "$output" | tail -n 60
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "$DEDUP_COUNT passed, 0 failed" ]
}
