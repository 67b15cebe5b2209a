# The Debian mirror that apt's sources already use, for the scripts that
# read another suite of it without touching the system's sources
# (tests/install-deps.sh, tests/pahole-of.sh, tests/release-root.sh).
# shellcheck shell=bash

# mirror_uri [SUITE]: the URI of apt's source of SUITE, or without SUITE
# of the first Debian mirror (a URI ending in /debian) apt's sources
# name; deb822 .sources files and one-line sources.list alike (options in
# brackets skipped). Nothing printed if there is none.
mirror_uri() {
	local f suite=${1:-}
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v c="$suite" '
			/^URIs:/ { u = $2 }
			/^Suites:/ && (c == "" ? u ~ /\/debian\/?$/ : $0 ~ (" " c "( |$)")) {
				print u; exit }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v c="$suite" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
				if (c == "" ? $i ~ /\/debian\/?$/ : $(i + 1) == c) {
					print $i; exit } }' "$f"
	done
}
