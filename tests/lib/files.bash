# Inputs left exactly as they were: a test keeps its input files, runs a
# tool on them, and checks that neither they nor the directory changed.
# shellcheck shell=bash

# kept FILE: where keep put its copy of FILE (outside the working
# directory, so that the copies are no new files in it).
kept() {
	printf '%s/kept/%s.orig\n' "$BATS_TEST_TMPDIR" "${1//\//%}"
}

# keep FILE...: copy each FILE (kept) and list the working directory, for
# unchanged to check against.
keep() {
	local f
	mkdir -p "$BATS_TEST_TMPDIR/kept"
	for f in "$@"; do
		cp "$f" "$(kept "$f")"
	done
	ls -A > "$BATS_TEST_TMPDIR/kept/listing"
}

# unchanged FILE...: each FILE byte for byte as keep kept it, and the
# working directory lists what it did then: no file (an output, a
# temporary one) added, none removed.
unchanged() {
	local f
	for f in "$@"; do
		cmp "$(kept "$f")" "$f" || { echo "$f was changed"; return 1; }
	done
	diff -u "$BATS_TEST_TMPDIR/kept/listing" <(ls -A)
}

# section_bytes FILE SECTION OUT: dump an ELF section, allocated or not;
# fails if there is none (objcopy only warns, with exit status 0). With
# KCROSS=PREFIX-, that target's objcopy (the host's cannot copy sections
# of every target's ELF).
section_bytes() {
	rm -f "$3"
	"${KCROSS:-}objcopy" --dump-section "$2=$3" "$1" /dev/null && [ -f "$3" ]
}
