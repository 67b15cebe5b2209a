# What a command run by bats' run printed ($status, $output, $stderr).
# shellcheck shell=bash disable=SC2154 # bats' run sets status, output, stderr

# check_output EXPECTED: $output is EXPECTED, or show both.
check_output() {
	if [ "$output" != "$1" ]; then
		printf 'expected:\n%s\ngot:\n%s\n' "$1" "$output"
		return 1
	fi
}

# one_error TOOL STATUS WANT...: the last run (run --separate-stderr)
# exited STATUS (not a signal), printed nothing on stdout and one line on
# stderr, "TOOL: error: ...", holding each WANT.
one_error() {
	local tool=$1 want_status=$2 w
	shift 2
	if [ "$status" -ne "$want_status" ] || [ -n "$output" ] ||
	   [ "${#stderr_lines[@]}" -ne 1 ] ||
	   [[ ${stderr_lines[0]} != "$tool: error: "* ]]; then
		printf 'want exit %s and one "%s: error:" line\n' "$want_status" "$tool"
		printf 'got exit %s, stdout:\n%s\nstderr:\n%s\n' "$status" "$output" "$stderr"
		return 1
	fi
	for w in "$@"; do
		[[ ${stderr_lines[0]} == *"$w"* ]] ||
			{ echo "stderr lacks '$w': $stderr"; return 1; }
	done
}
