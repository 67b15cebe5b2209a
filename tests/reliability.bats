#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# What cc-btf and btf-link promise about files, signals and privileges
# (docs/reliability.md), one regression test per class of issue #8:
# hangs on non-regular files, an output over its input, signals, ownership
# and permissions, unclear messages, and tests that skip when the tools
# are missing. Every case checks: no death by a signal (unless one was
# sent), no hang (each run bounded by `timeout`), the message (one line,
# "tool: error: FILE: what", naming the file), the input intact (checksum
# before and after) and no temporary file left (*.abtf-*).
#
# The inputs are real: tests/fixtures C compiled by gcc at test time and
# linked by ld with tests/fixtures/link.lds (the "vmlinux" of link.bats).

load test_helper

bats_require_minimum_version 1.5.0

setup() {
	WORK=$BATS_TEST_TMPDIR
	mkdir -p "$WORK/w"
	cd "$WORK/w" || return 1
	need_cmd gcc ld timeout
	need_built
}

# obj: t.o, a small object with DWARF, and its .BTF-less copy plain.o.
obj() {
	gcc -g -O2 -c "$FIXTURES/arrays.c" -o plain.o
	cp plain.o t.o
}

# prog: the "vmlinux" of tests/link.bats, its objects through cc-btf.
prog() {
	cc_btf_prog prog "$WORK/objs"
}

# not_a_file F: what the tools say of F (fifo, dir, /dev/null, dangling).
not_a_file() {
	case $1 in
	fifo) echo "a FIFO, not a regular file" ;;
	dir) echo "a directory, not a regular file" ;;
	/dev/null) echo "a character device, not a regular file" ;;
	dangling) echo "a dangling symbolic link" ;;
	esac
}

# no_temp [DIR]: no temporary file of the library is left in DIR (.).
no_temp() {
	local left
	left=$(find "${1:-.}" -name '*.abtf-*')
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

# refused STATUS MESSAGE CMD...: CMD exits with STATUS (not a signal, not
# a timeout) within 20 s, prints nothing on stdout and exactly MESSAGE on
# stderr (one line), and leaves no temporary file.
refused() {
	local want=$1 message=$2
	shift 2
	run --separate-stderr timeout 20 "$@"
	if [ "$status" -ne "$want" ] || [ "$stderr" != "$message" ] ||
	   [ -n "$output" ]; then
		echo "$*: exit $status (want $want), stderr:"
		echo "$stderr"
		echo "want: $message"
		return 1
	fi
	no_temp
}

# ---- hangs: only regular files ----

@test "reliability: a FIFO, a directory, /dev/null or a dangling link as input: an error, no hang" {
	obj
	prog
	mkfifo fifo
	mkdir dir
	ln -s nowhere dangling
	local f what
	for f in fifo dir /dev/null dangling; do
		what=$(not_a_file "$f")
		refused 1 "cc-btf: error: $f: $what" "$CC_BTF" --encode "$f"
		refused 1 "cc-btf: error: $f: $what" "$CC_BTF" --encode -o x.btf "$f"
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" "$f"
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" -o x.btf "$f"
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" --base "$f" -o x.btf prog
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" --compare "$f" prog
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" --compare prog "$f"
	done
	[ -p fifo ] && [ -d dir ] && [ -L dangling ]
	[ ! -e x.btf ]
}

@test "reliability: a FIFO, a directory, /dev/null or a dangling link as output: an error, no hang" {
	obj
	prog
	mkfifo fifo
	mkdir dir
	ln -s nowhere dangling
	local sum_o sum_p f what
	sum_o=$(md5sum < t.o)
	sum_p=$(md5sum < prog)
	for f in fifo dir /dev/null dangling; do
		what=$(not_a_file "$f")
		refused 1 "cc-btf: error: $f: $what" "$CC_BTF" --encode -o "$f" t.o
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" -o "$f" prog
		refused 2 "btf-link: error: $f: $what" "$BTF_LINK" --object "$f" prog
	done
	[ -p fifo ] && [ -d dir ] && [ -L dangling ] && [ ! -e nowhere ]
	[ "$(md5sum < t.o)" = "$sum_o" ]
	[ "$(md5sum < prog)" = "$sum_p" ]
	# --detached in wrapper mode: OBJECT.btf a FIFO is refused, not
	# waited on, and the object (without its BTF) is not kept
	mkfifo w.o.btf
	refused 1 "cc-btf: error: w.o.btf: a FIFO, not a regular file" \
		"$CC_BTF" --detached gcc -g -c "$FIXTURES/arrays.c" -o w.o
	[ -p w.o.btf ] && [ ! -e w.o ]
}

# ---- data loss: an output that is its input ----

@test "reliability: an output that is the input is refused, through links too; the input intact" {
	obj
	prog
	ln -s prog prog-link
	ln prog prog-hard
	ln -s t.o t-link
	local sum_o sum_p out
	sum_o=$(md5sum < t.o)
	sum_p=$(md5sum < prog)
	for out in prog prog-link prog-hard; do
		refused 2 "btf-link: error: $out: the output is the input prog; refusing to overwrite it" \
			"$BTF_LINK" -o "$out" prog
		refused 2 "btf-link: error: $out: the output is the input prog; refusing to overwrite it" \
			"$BTF_LINK" --object "$out" prog
	done
	for out in t.o t-link; do
		refused 1 "cc-btf: error: $out: the output is the input t.o; refusing to overwrite it" \
			"$CC_BTF" --encode -o "$out" t.o
	done
	# the base of a split BTF is an input too
	cp t.o m.o
	refused 2 "btf-link: error: prog-link: the output is the input prog; refusing to overwrite it" \
		"$BTF_LINK" --base prog -o prog-link m.o
	[ "$(md5sum < t.o)" = "$sum_o" ]
	[ "$(md5sum < prog)" = "$sum_p" ]
	[ -L prog-link ] && [ -L t-link ]
	# and a real output still works
	"$BTF_LINK" -o out.btf prog
	"$CC_BTF" --encode -o t.btf t.o
	[ "$(head -c 2 out.btf | od -An -tx1 | tr -d ' ')" = 9feb ]
	[ "$(head -c 2 t.btf | od -An -tx1 | tr -d ' ')" = 9feb ]
}

# ---- signals ----

# wait_for FILE: FILE exists within 20 s.
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "$1 never appeared"
	return 1
}

# gone PID: no such process within 5 s (it may still be being reaped).
gone() {
	local i
	for ((i = 0; i < 50; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	echo "process $1 is still running"
	return 1
}

# signal_wrapper SIG: "cc-btf COMPILER" where the compiler is real gcc,
# made slow: it compiles t.o (no BTF yet), records its pid and lingers as
# `sleep`. SIG to cc-btf alone (not its process group) must reach the
# compiler, and cc-btf must wait for it, remove t.o and die of SIG.
signal_wrapper() {
	local sig=$1 pid child
	cp "$FIXTURES/arrays.c" t.c
	gcc -g -c t.c -o t.o		# a stale object, from an older build
	touch -d '2000-01-01' t.o
	# bash starts background jobs with SIGINT ignored: env resets it
	env --default-signal=INT,TERM timeout -s KILL 60 \
		"$CC_BTF" sh -c 'gcc "$@" && echo $$ > child.pid && exec sleep 30' \
		sh -g -c t.c -o t.o &
	pid=$!
	wait_for child.pid
	child=$(cat child.pid)
	# timeout runs cc-btf as its child: signal cc-btf itself
	kill -s "$sig" "$(pgrep -P "$pid" -x cc-btf)"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq $((128 + $(kill -l "$sig"))) ] ||
		{ echo "exit $status, want death by SIG$sig"; return 1; }
	gone "$child"
	[ ! -e t.o ] || { echo "t.o left behind"; ls -l t.o; return 1; }
	no_temp
}

@test "reliability: SIGTERM to cc-btf reaches the compiler; no object is left" {
	need_cmd pgrep env sh
	signal_wrapper TERM
}

@test "reliability: SIGINT to cc-btf reaches the compiler; no object is left" {
	need_cmd pgrep env sh
	signal_wrapper INT
}

@test "reliability: a compiler killed by a signal, or failing, leaves no object; its status passed on" {
	cp "$FIXTURES/arrays.c" t.c
	# gcc writes t.o (without BTF), then the compiler dies or fails
	run timeout 20 "$CC_BTF" sh -c 'gcc "$@" && kill -TERM $$' sh -g -c t.c -o t.o
	[ "$status" -eq 143 ]
	[ ! -e t.o ]
	run timeout 20 "$CC_BTF" sh -c 'gcc "$@" && exit 3' sh -g -c t.c -o t.o
	[ "$status" -eq 3 ]
	[ ! -e t.o ]
	no_temp
	# and the same compiler, succeeding, gets its object encoded
	run timeout 20 "$CC_BTF" sh -c 'exec gcc "$@"' sh -g -c t.c -o t.o
	[ "$status" -eq 0 ]
	readelf -SW t.o > sections
	grep -qF ' .BTF ' sections
}

# killed_midway SUM REF CMD...: run CMD killed by SIGTERM after delays
# from 0 to about 0.4 s; after each, no temporary file is left and FILE
# (the last argument) is either as it was (md5 SUM) or the complete
# result (the same bytes as REF). Prints how many runs the signal hit.
killed_midway() {
	local sum=$1 ref=$2 file=${*: -1} d hit=0 st
	shift 2
	cp "$file" "$WORK/orig"
	for d in 0.001 0.01 0.02 0.04 0.06 0.08 0.1 0.13 0.16 0.2 0.25 0.3 0.4; do
		cp "$WORK/orig" "$file"
		st=0
		timeout --preserve-status -s TERM "$d" "$@" || st=$?
		case $st in
		0) ;;
		143) hit=$((hit + 1)) ;;
		*) echo "delay $d: exit $st"; return 1 ;;
		esac
		no_temp || { echo "delay $d"; return 1; }
		[ "$(md5sum < "$file")" = "$sum" ] || cmp "$file" "$ref" ||
			{ echo "delay $d: $file is neither the input nor the result"; return 1; }
	done
	echo "# $* : $hit of 13 runs killed" >&3
	[ "$hit" -gt 0 ] || { echo "no run was killed: nothing tested"; return 1; }
}

@test "reliability: SIGTERM at any time leaves no temporary file, the file whole" {
	obj
	prog
	# 24 MiB more to copy, so that the signal often lands in the write
	head -c $((24 << 20)) /dev/urandom > pad
	objcopy --add-section .pad=pad prog big
	cp big ref
	"$BTF_LINK" ref
	killed_midway "$(md5sum < big)" ref "$BTF_LINK" big
	# cc-btf --encode in place: a 24 MiB .data to copy
	printf 'struct s { int a; } s_var;\nchar big_data[%d] = { 1 };\n' \
		$((24 << 20)) > bigdata.c
	gcc -g -c bigdata.c -o data.o
	cp data.o data-ref.o
	"$CC_BTF" --encode data-ref.o
	killed_midway "$(md5sum < data.o)" data-ref.o "$CC_BTF" --encode data.o
}

# ---- ownership and permissions ----

teardown() {
	if [ -n "${NOBODY_DIR:-}" ]; then
		chmod -R u+w "$NOBODY_DIR"
		rm -rf "$NOBODY_DIR"
	fi
}

@test "reliability: root rewriting a setuid file keeps its owner, never makes it setuid-root" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (chown to another user)"
	obj
	prog
	cp prog su
	chown nobody:nogroup su
	chmod 4755 su
	"$BTF_LINK" su
	no_temp
	[ "$(stat -c %U:%G:%a su)" = nobody:nogroup:4755 ]
	cp t.o su.o
	chown nobody:nogroup su.o
	chmod 6755 su.o
	"$CC_BTF" --encode su.o
	[ "$(stat -c %U:%G:%a su.o)" = nobody:nogroup:6755 ]
	readelf -SW su.o > sections
	grep -qF ' .BTF ' sections
}

# $as_nobody CMD...: CMD run as user nobody.
as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"

@test "reliability: a file or directory the user cannot write is refused in place, with its reason" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (to run as another user)"
	need_cmd setpriv
	obj
	prog
	# a directory user nobody can reach (bats's may be private)
	NOBODY_DIR=$(mktemp -d /tmp/abtf-reliability.XXXXXX)
	chmod 755 "$NOBODY_DIR"
	cp prog t.o "$NOBODY_DIR"
	cd "$NOBODY_DIR"
	mkdir ro rw
	cp prog t.o rw/
	cp prog t.o ro/
	chown -R nobody rw ro
	chmod 444 rw/prog rw/t.o
	chmod 555 ro
	local sum_o sum_p
	sum_o=$(md5sum < t.o)
	sum_p=$(md5sum < prog)
	# read-only file: refused, as objcopy refuses it
	refused 2 "btf-link: error: rw/prog: cannot rewrite in place: not writable by this user" \
		$as_nobody "$BTF_LINK" rw/prog
	refused 1 "cc-btf: error: rw/t.o: cannot rewrite in place: not writable by this user" \
		$as_nobody "$CC_BTF" --encode rw/t.o
	# writable file in a directory without write permission: said so
	# (was a silent exit 2)
	refused 2 "btf-link: error: ro/prog: cannot create a temporary file in $(pwd -P)/ro: Permission denied" \
		$as_nobody "$BTF_LINK" ro/prog
	refused 1 "cc-btf: error: ro/t.o: cannot create a temporary file in $(pwd -P)/ro: Permission denied" \
		$as_nobody "$CC_BTF" --encode ro/t.o
	refused 2 "btf-link: error: ro/out.btf: cannot create a temporary file in ro: Permission denied" \
		$as_nobody "$BTF_LINK" -o ro/out.btf prog
	# a set-group-ID file of a group nobody is not in: rewritten, the
	# group cannot be kept, so the set-group-ID bit goes (as install(1))
	cp prog rw/sgid
	chown nobody:root rw/sgid
	chmod 2775 rw/sgid
	$as_nobody "$BTF_LINK" rw/sgid
	[ "$(stat -c %U:%G:%a rw/sgid)" = nobody:nogroup:775 ]
	for f in rw/prog ro/prog; do [ "$(md5sum < $f)" = "$sum_p" ]; done
	for f in rw/t.o ro/t.o; do [ "$(md5sum < $f)" = "$sum_o" ]; done
	no_temp ro
	no_temp rw
}

# ---- unclear messages ----

@test "reliability: control bytes of file names are escaped in messages" {
	obj
	local name=$'bad\e[31m\nname' esc='bad\x1b[31m\x0aname'
	mkfifo "$name"
	refused 1 "cc-btf: error: $esc: a FIFO, not a regular file" \
		"$CC_BTF" --encode "$name"
	refused 2 "btf-link: error: $esc: a FIFO, not a regular file" \
		"$BTF_LINK" "$name"
	refused 1 "cc-btf: error: $esc.o: cannot open: No such file or directory" \
		"$CC_BTF" --encode "$name.o"
	# a message of the library (an object that is no ELF)
	printf 'not ELF' > "$name.o"
	run --separate-stderr timeout 20 "$CC_BTF" --encode "$name.o"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 0 ]
	[[ $stderr == "cc-btf: error: $esc.o: "* ]]
	[[ $stderr != *$'\e'* ]]
	run --separate-stderr timeout 20 "$BTF_LINK" -o x.btf "$name.o"
	[ "$status" -eq 2 ]
	[[ $stderr == "btf-link: error: $esc.o: "* ]]
	[[ $stderr != *$'\e'* ]] && [[ $stderr != *$'\n'* ]]
}

@test "reliability: contradictory or malformed options are errors, not ignored" {
	obj
	prog
	local sum
	sum=$(md5sum < t.o)
	refused 2 "cc-btf: error: --encode contradicts '--no-btf' (see cc-btf --help)" \
		"$CC_BTF" --encode --no-btf t.o
	CC_BTF_OPTS=--no-btf refused 2 "cc-btf: error: --encode contradicts '--no-btf' (see cc-btf --help)" \
		"$CC_BTF" --encode t.o
	refused 2 "cc-btf: error: -o contradicts '--detached' (see cc-btf --help)" \
		"$CC_BTF" --encode --detached -o x.btf t.o
	CC_BTF_OPTS=--detached refused 2 "cc-btf: error: -o contradicts '--detached' (see cc-btf --help)" \
		"$CC_BTF" --encode -o x.btf t.o
	# CC_BTF=0 is for the wrapper: --encode still encodes
	CC_BTF=0 "$CC_BTF" --encode -o ok.btf t.o
	[ -s ok.btf ]
	local j
	for j in 3x 0 -1 '' ' 3' +3 1025 99999999999999999999 0x4; do
		refused 2 "btf-link: error: -j needs a number of threads from 1 to 1024, not '$j'" \
			"$BTF_LINK" -j "$j" -o x.btf prog
	done
	refused 2 "btf-link: error: -o given twice ('a.btf', 'b.btf')" \
		"$BTF_LINK" -o a.btf -o b.btf prog
	refused 2 "btf-link: error: --base given twice ('prog', 'prog')" \
		"$BTF_LINK" --base prog --base prog -o x.btf t.o
	[ "$(md5sum < t.o)" = "$sum" ]
	[ ! -e x.btf ] && [ ! -e a.btf ] && [ ! -e b.btf ]
	"$BTF_LINK" -j 3 -o x.btf prog
	[ -s x.btf ]
}

# ---- the tests themselves ----

@test "reliability: a test that needs the tools fails, never skips, when they are not built" {
	need_cmd bats
	mkdir suite
	# (one printf: bats would take a line starting with @test for its own)
	printf '%s\n' "load \"$ABTF_TOP/tests/test_helper\"" \
		'@test "probe" {' '	need_built' '}' > suite/probe.bats
	run env ABTF_BUILD="$WORK/no-build" bats --tap suite/probe.bats
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"not ok 1 probe"* ]]
	[[ $output != *"# skip"* ]]
	[[ $output == *"cc-btf is not built ($WORK/no-build/bin/cc-btf)"* ]]
	# and no test file skips for that reason behind need_built's back
	grep -n 'skip "[^"]*not built' "$ABTF_TOP"/tests/*.bats > skips || true
	[ ! -s skips ] || { cat skips; return 1; }
}
