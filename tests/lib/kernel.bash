# The prepared kernel tree of tests/kernel/prepare.sh (the sample objects
# of tests/kernel/objects, built with the kernel's flags), for the files
# that test on real kernel objects.
# shellcheck shell=bash

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
# tests/split.bats's module; and the assembler's entry_64.o, whose
# subprograms pahole writes as void(void) FUNCs and cc-btf leaves out:
# tests/kernel-objects.bats holds that difference to pahole's own output),
# encoded by cc-btf (with those options), in list order, `ld -r`ed to OUT.
linked_sample() {
	local out=$1 path n=0 objs=()
	shift
	rm -rf objs
	mkdir -p objs
	while read -r path _; do
		case $path in
		''|'#'*|drivers/net/veth.o|drivers/net/dummy.o) continue ;;
		arch/x86/entry/entry_64.o) continue ;;
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
