# The tools under test, where they are built, and the prerequisites a
# test checks before it runs: missing ones skip, or fail under
# ABTF_STRICT=1; tools of this build that are missing always fail.
# shellcheck shell=bash

ABTF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ABTF_BUILD=${ABTF_BUILD:-$ABTF_TOP/build}
CC_BTF=$ABTF_BUILD/bin/cc-btf
BTF_LINK=$ABTF_BUILD/bin/btf-link
# shellcheck disable=SC2034 # for the test files
FIXTURES=$ABTF_TOP/tests/fixtures
export PATH="$ABTF_BUILD/bin:$PATH"
# The quick tier's pahole is Debian 12's, 1.24: its expectations ("as
# pahole 1.24", the kernel's flags for it) are that release's. Where the
# system's pahole is another (Debian 13's is 1.30), tests/install-deps.sh
# has unpacked 1.24 into tests/.work/pahole-bookworm (tests/pahole-of.sh),
# and it comes first in PATH, for the tests and the scripts they run.
if ! pahole --version 2>/dev/null | grep -qx 'v1.24' &&
	[ -x "$ABTF_TOP/tests/.work/pahole-bookworm/bin/pahole" ]; then
	export PATH="$ABTF_TOP/tests/.work/pahole-bookworm/bin:$PATH"
fi
# Debian sid's pahole 1.32 (tests/pahole-of.sh, which install-deps.sh runs).
PAHOLE_SID=$ABTF_TOP/tests/.work/pahole-sid/bin/pahole

# need_pahole_sid: Debian sid's pahole (1.32) is unpacked.
need_pahole_sid() {
	[ -x "$PAHOLE_SID" ] && "$PAHOLE_SID" --version >/dev/null 2>&1 ||
		unavailable "no pahole 1.32 in ${PAHOLE_SID%/bin/pahole} (tests/install-deps.sh unpacks Debian sid's there)"
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

# need_arch ARCH WHY: the machine is ARCH (as uname -m names it; lp64: any
# with a 64-bit long), or the test skips, saying WHY: the expectations are
# that ABI's, and no package makes another machine one.
need_arch() {
	case $1 in
	lp64) [ "$(getconf LONG_BIT)" = 64 ] ;;
	*) [ "$(uname -m)" = "$1" ] ;;
	esac || skip "$2"
}

# need_tools: the prerequisites the test file sets for its tests:
# NEED_TOOLS, the commands installed (need_cmd), where cc-btf or btf-link
# means this build's (need_built, after the others); NEED_ARCH, when set,
# "ARCH WHY" for need_arch.
need_tools() {
	local t cmds=() built=
	for t in $NEED_TOOLS; do
		case $t in
		cc-btf|btf-link) built=1 ;;
		*) cmds+=("$t") ;;
		esac
	done
	need_cmd "${cmds[@]}"
	[ -z "$built" ] || need_built
	[ -z "${NEED_ARCH:-}" ] || need_arch "${NEED_ARCH%% *}" "${NEED_ARCH#* }"
}

# need_lab_pahole: upstream pahole (v1.30 or later, built from source in
# the lab), named by ABTF_LAB_PAHOLE, in LAB_PAHOLE. The tests that need it
# are tagged upstream, and only make check-upstream runs them: there a
# missing or unnamed pahole fails the test, saying what to give it.
need_lab_pahole() {
	LAB_PAHOLE=${ABTF_LAB_PAHOLE:-}
	if [ -z "$LAB_PAHOLE" ]; then
		echo "no upstream pahole named: make check-upstream ABTF_LAB_PAHOLE=/path/to/pahole (v1.30 or later, built from its sources)"
		return 1
	fi
	[ -x "$LAB_PAHOLE" ] && return 0
	echo "ABTF_LAB_PAHOLE=$LAB_PAHOLE: no such program: make check-upstream needs upstream pahole (v1.30 or later)"
	return 1
}
