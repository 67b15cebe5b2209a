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

# unavailable WHY: a prerequisite of the test is missing: skip (never
# pass), or fail under ABTF_STRICT=1 (.ci/run), where tests/install-deps.sh
# has installed everything and a skip would hide a check that was not made.
unavailable() {
	if [ "${ABTF_STRICT:-0}" = 1 ]; then
		echo "$1 (ABTF_STRICT=1: tests/install-deps.sh should have made it available)"
		return 1
	fi
	skip "$1"
}

# need_cmd CMD...: the tools the test needs are installed.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || unavailable "$c is not installed"
	done
}

# need_lab_pahole: upstream pahole (v1.30 or later, built from source in
# the lab), named by ABTF_LAB_PAHOLE (default /work/lab/dwarves/build/pahole),
# in LAB_PAHOLE. The tests that need it are tagged upstream, and only make
# check-upstream runs them: there a missing pahole fails the test.
need_lab_pahole() {
	LAB_PAHOLE=${ABTF_LAB_PAHOLE:-/work/lab/dwarves/build/pahole}
	[ -x "$LAB_PAHOLE" ] && return 0
	echo "no upstream pahole at $LAB_PAHOLE: make check-upstream needs one (ABTF_LAB_PAHOLE=PATH)"
	return 1
}

# link_as_pahole FILE FEATURES PAHOLE-FLAGS...: btf-link's BTF of FILE
# with --btf_features=FEATURES (ours.btf) means what pahole -J makes of
# FILE with the flags (ref.btf); the differences are shown otherwise.
link_as_pahole() {
	local file=$1 feats=$2
	shift 2
	pahole -J "$@" --btf_encode_detached=ref.btf "$file"
	"$BTF_LINK" --btf_features="$feats" -o ours.btf "$file"
	run "$BTF_LINK" --compare ref.btf ours.btf
	if [ "$status" -ne 0 ] || [ -n "$output" ]; then
		echo "--btf_features=$feats against pahole $*: exit $status"
		echo "$output"
		return 1
	fi
}

# need_built: fail (never skip) when the tools under test are missing:
# a build that failed must not pass as a run with nothing to test.
need_built() {
	local t
	for t in "$CC_BTF" "$BTF_LINK"; do
		[ -x "$t" ] && continue
		echo "${t##*/} is not built ($t): run make first (or set ABTF_BUILD)"
		return 1
	done
}

# pahole_btf OBJ OUT: the BTF Debian's pahole makes of OBJ, as a raw file.
pahole_btf() {
	pahole -J $PAHOLE_KERNEL_FLAGS --btf_encode_detached="$2" "$1"
}

# same_btf [--base B] REF OURS: btf-link --compare finds them equal.
same_btf() {
	run "$BTF_LINK" --compare "$@"
	if [ "$status" -ne 0 ] || [ -n "$output" ]; then
		echo "btf-link --compare $*: exit $status (want 0, no output):"
		echo "$output"
		return 1
	fi
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

# The prepared kernel tree of tests/kernel/prepare.sh (the sample objects
# of tests/kernel/objects, built with the kernel's flags).
KERNEL_DIR=${ABTF_KERNEL_DIR:-$ABTF_TOP/tests/.work/kernel}
KBUILD=$KERNEL_DIR/build

# kernel_prepare: for setup_file; run prepare.sh (cached) once per file and
# keep its status for need_kernel.
kernel_prepare() {
	local status=0
	[ -x "$CC_BTF" ] && [ -x "$BTF_LINK" ] || return 0
	"$ABTF_TOP/tests/kernel/prepare.sh" \
		> "$BATS_FILE_TMPDIR/prepare.out" 2>&1 || status=$?
	export KERNEL_PREPARE_STATUS=$status
	export KERNEL_PREPARE_OUT=$BATS_FILE_TMPDIR/prepare.out
}

# need_kernel [CMD...]: skip when prepare.sh said the kernel source cannot
# be had (77) or a command is missing; fail, with its output, when it
# failed otherwise.
need_kernel() {
	need_cmd gcc pahole readelf objcopy "$@"
	need_built
	case ${KERNEL_PREPARE_STATUS:-1} in
	0) ;;
	77) unavailable "$(grep -m1 'unavailable:' "$KERNEL_PREPARE_OUT")" ;;
	*) cat "${KERNEL_PREPARE_OUT:-/dev/null}"
	   echo "tests/kernel/prepare.sh failed"
	   return 1 ;;
	esac
}

# linked_sample OUT [CC-BTF-OPTION...]: the sample's built-in objects
# (modules apart: they are built with -DMODULE; and udp_tunnel's,
# tests/split.bats's module), encoded by cc-btf (with those options), in
# list order, `ld -r`ed to OUT.
linked_sample() {
	local out=$1 path n=0 objs=()
	shift
	rm -rf objs
	mkdir -p objs
	while read -r path _; do
		case $path in
		''|'#'*|drivers/net/veth.o|drivers/net/dummy.o) continue ;;
		net/ipv4/udp_tunnel_*.o) continue ;;
		esac
		n=$((n + 1))
		cp "$KBUILD/$path" "objs/$(printf %02d "$n").o"
		"$CC_BTF" "$@" --encode "objs/$(printf %02d "$n").o"
		objs+=("objs/$(printf %02d "$n").o")
	done < "$ABTF_TOP/tests/kernel/objects"
	[ "$n" -gt 20 ]
	ld -r -o "$out" "${objs[@]}" 2>/dev/null
}

# dedup_oracle_prog OUT: tests/dedup/oracle.c (a link against libbpf's
# dedup alone, by meaning) built against this build's shared library.
dedup_oracle_prog() {
	local san=
	readelf -dW "$ABTF_BUILD/libarchive-btf.so" > so.dyn || return 1
	grep -q 'libasan' so.dyn && san="-fsanitize=address,undefined"
	gcc $san -O2 -I"$ABTF_TOP/libarchive-btf" -I"$ABTF_TOP/tests/dedup" \
		"$ABTF_TOP/tests/dedup/oracle.c" "$ABTF_TOP/tests/dedup/btf_equiv.c" \
		"$ABTF_TOP/tests/dedup/test_link.c" \
		-L"$ABTF_BUILD" -larchive-btf -lbpf -Wl,-rpath,"$ABTF_BUILD" -o "$1"
}

# dedup_diff_prog OUT: tests/fixtures/dedup-diff.c built against this
# build's shared library (tests/dedup-diff.bats says what it checks).
dedup_diff_prog() {
	local san=
	[ -e "$ABTF_BUILD/libarchive-btf.so" ] || {
		echo "no shared library in $ABTF_BUILD"
		return 1
	}
	# a sanitizer build's library wants its runtime first
	readelf -dW "$ABTF_BUILD/libarchive-btf.so" > so.dyn
	grep -q 'libasan' so.dyn && san="-fsanitize=address,undefined"
	gcc $san -I"$ABTF_TOP/libarchive-btf" "$FIXTURES/dedup-diff.c" \
		-L"$ABTF_BUILD" -larchive-btf -lbpf -Wl,-rpath,"$ABTF_BUILD" -o "$1"
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
