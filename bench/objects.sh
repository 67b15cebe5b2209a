# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by bench/encode.sh and bench/instructions.sh: the tree they
# measure, its objects, and pahole's flags. The sourcing script sets TOP
# and defines die().

# The kernel's flags for pahole 1.24 (scripts/pahole-flags.sh).
PAHOLE_KERNEL_FLAGS=(--btf_gen_floats -j --lang_exclude=rust)

# bench_tree [DIR]: the tree to measure: DIR, or the one
# tests/kernel/prepare.sh makes (prepared first). Prints its absolute path.
bench_tree() {
	if [ $# -eq 1 ]; then
		(cd "$1" 2>/dev/null && pwd) || die "$1: no such directory"
	else
		"$TOP/tests/kernel/prepare.sh" >&2 || die "tests/kernel/prepare.sh failed"
		echo "${ABTF_KERNEL_DIR:-$TOP/tests/.work/kernel}/build"
	fi
}

# bench_objects TREE: every *.o under TREE with a .debug_info section, but
# vmlinux.o and those under scripts/ and tools/ (host programs, never
# BTF), relative to TREE, in C sort order.
bench_objects() {
	local tree=$1 o
	(cd "$tree" && find . \( -path ./tools -o -path ./scripts \) -prune -o \
		-name '*.o' -type f ! -name vmlinux.o -print) | sed 's|^\./||' |
		LC_ALL=C sort |
	while IFS= read -r o; do
		case $(readelf -S --wide "$tree/$o" 2>/dev/null) in
		*" .debug_info "*) printf '%s\n' "$o" ;;
		esac
	done
}
