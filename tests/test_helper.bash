# Shared by every bats file: paths, a private work directory, and helpers.
# shellcheck shell=bash

ABTF_TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
ABTF_BUILD=${ABTF_BUILD:-$ABTF_TOP/build}
CC_BTF=$ABTF_BUILD/bin/cc-btf
BTF_LINK=$ABTF_BUILD/bin/btf-link
FIXTURES=$ABTF_TOP/tests/fixtures
export PATH="$ABTF_BUILD/bin:$PATH"

# The flags the kernel build gives pahole 1.24 (scripts/pahole-flags.sh).
PAHOLE_KERNEL_FLAGS="--btf_gen_floats -j --lang_exclude=rust"

# Every test gets its own directory, so that bats --jobs is safe.
setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
}

# Skip (never pass) when a tool the test needs is missing.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
}

# pahole_btf OBJ OUT: the BTF Debian's pahole makes of OBJ, as a raw file.
pahole_btf() {
	pahole -J $PAHOLE_KERNEL_FLAGS --btf_encode_detached="$2" "$1"
}

# section_bytes FILE SECTION OUT: dump an ELF section, allocated or not.
section_bytes() {
	objcopy --dump-section "$2=$3" "$1" /dev/null
}

# fixture_obj NAME [CFLAGS...]: compile tests/fixtures/NAME.c to NAME.o in $WORK.
fixture_obj() {
	local name=$1
	shift
	gcc -g -O2 "$@" -c "$FIXTURES/$name.c" -o "$WORK/$name.o"
}
