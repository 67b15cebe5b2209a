# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by bench/instructions.sh and bench/link-instructions.sh: counting
# instructions with callgrind. The sourcing script defines die().

# need_callgrind TOOL PAHOLE: TOOL is built and PAHOLE and valgrind are
# installed, or die.
need_callgrind() {
	[ -x "$1" ] || die "$1: not built (run make)"
	command -v "$2" >/dev/null || die "$2: not installed (apt-get install dwarves)"
	command -v valgrind >/dev/null || die "valgrind is not installed"
}

# instructions CMD...: the "Collected" counts of callgrind running CMD (user
# space, all threads), summed over CMD and what it executes: a pahole of
# another Debian suite is a script that runs that suite's loader
# (tests/pahole-of.sh), whose count is the pahole's; fails, printing
# nothing, when CMD fails.
instructions() {
	local out
	out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		--trace-children=yes --error-exitcode=99 "$@" 2>&1) || return 1
	awk '/Collected/ { n += $4 } END { print n + 0 }' <<< "$out"
}
