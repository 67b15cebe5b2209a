# Programs and objects built at test time: fixtures through the compiler
# or cc-btf, and test programs against this build's library (also
# sourced by tests/dedup/run.sh, with ABTF_TOP and ABTF_BUILD set).
# shellcheck shell=bash

# fixture_obj NAME [CFLAGS...]: compile tests/fixtures/NAME.c to NAME.o in $WORK.
fixture_obj() {
	local name=$1
	shift
	gcc -g -O2 "$@" -c "$FIXTURES/$name.c" -o "$WORK/$name.o"
}

# cc_btf_prog OUT [OBJDIR]: the "vmlinux" of tests/link.bats: the fixtures
# link-main.c, link-a.c, link-gc.c and link-b.c (that link order) through
# cc-btf into OBJDIR (default: objs), linked with tests/fixtures/link.lds.
cc_btf_prog() {
	local out=$1 dir=${2:-objs} n
	mkdir -p "$dir"
	for n in main a gc b; do
		"$CC_BTF" gcc -g -O2 -ffunction-sections -fdata-sections \
			-c "$FIXTURES/link-$n.c" -o "$dir/$n.o"
	done
	ld -T "$FIXTURES/link.lds" -o "$out" "$dir/"{main,a,gc,b}.o
}

# lib_san_flags: the compiler flags a program linked with this build's
# shared library needs: a sanitizer build's wants its runtime first
# (ASan + UBSan); fails, saying so, when there is no shared library.
lib_san_flags() {
	local so=$ABTF_BUILD/libarchive-btf.so dyn
	[ -e "$so" ] || {
		echo "no shared library in $ABTF_BUILD"
		return 1
	}
	dyn=$(readelf -dW "$so") || return 1
	[[ $dyn != *libasan* ]] || echo "-fsanitize=address,undefined"
}

# lib_objs_prog OUT FLAGS_AND_SOURCES...: a program linked with this
# build's library objects, for one that calls internal names: the DIE
# reader's, or the switches of libarchive-btf/util/testing.h (hidden:
# neither the shared library nor the archive exports them). Built as the
# library was (ASan + UBSan for a sanitizer build).
lib_objs_prog() {
	local out=$1 san src objs=()
	shift
	san=$(lib_san_flags) || { echo "$san"; return 1; }
	# the objects of the sources there are: a build directory keeps the
	# objects of a file renamed since, which would define names twice
	for src in "$ABTF_TOP"/libarchive-btf/*/*.c; do
		src=${src#"$ABTF_TOP"/}
		objs+=("$ABTF_BUILD/${src%.c}.o")
	done
	[ -e "${objs[0]}" ] || {
		echo "no library objects in $ABTF_BUILD/libarchive-btf"
		return 1
	}
	# shellcheck disable=SC2046,SC2086 # pkg-config's words; none or two flags
	gcc $san -std=gnu11 -D_GNU_SOURCE -I"$ABTF_TOP/libarchive-btf" \
		$(pkg-config --cflags libelf libdw) "$@" "${objs[@]}" \
		$(pkg-config --libs libbpf libelf libdw zlib) -pthread -o "$out"
}

# dedup_oracle_prog OUT: tests/dedup/oracle.c (a link against libbpf's
# dedup alone, by meaning) built with this build's library.
dedup_oracle_prog() {
	lib_objs_prog "$1" -O2 -g -I"$ABTF_TOP/tests/dedup" \
		"$ABTF_TOP/tests/dedup/oracle.c" "$ABTF_TOP/tests/dedup/btf_equiv.c" \
		"$ABTF_TOP/tests/dedup/test_link.c"
}

# dwarf_oracle_prog OUT: tests/fuzz/dwarf-oracle.c, the encoder fuzzer's
# oracle as a command (it calls the DIE reader's internal functions).
dwarf_oracle_prog() {
	lib_objs_prog "$1" -O1 -g "$ABTF_TOP/tests/fuzz/dwarf-oracle.c"
}

# dedup_diff_prog OUT: tests/fixtures/dedup-diff.c built with this build's
# library (tests/dedup-diff.bats says what it checks).
dedup_diff_prog() {
	lib_objs_prog "$1" "$FIXTURES/dedup-diff.c"
}

# unit_prog NAME SOURCE...: tests/unit/NAME.c built as ./NAME with
# tests/unit/unit.c (the unit tests' shared checks) and the library's
# SOURCEs (paths under libarchive-btf/), under ASan and UBSan where gcc
# has them.
unit_prog() {
	local name=$1 lib=$ABTF_TOP/libarchive-btf src=() san=() s
	shift
	for s in "$@"; do
		src+=("$lib/$s")
	done
	echo 'int main(void){return 0;}' > probe.c
	gcc -fsanitize=address,undefined -o probe probe.c 2>/dev/null &&
		san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
	# shellcheck disable=SC2046 # pkg-config's words
	gcc -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Wno-unused-parameter \
		-Wno-missing-field-initializers "${san[@]}" -I"$lib" \
		-I"$ABTF_TOP/tests/unit" $(pkg-config --cflags libelf libdw) \
		-o "$name" "$ABTF_TOP/tests/unit/$name.c" \
		"$ABTF_TOP/tests/unit/unit.c" "${src[@]}" \
		$(pkg-config --libs libbpf libelf libdw zlib)
}
