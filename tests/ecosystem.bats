#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# archive-btf among the tools around it: the README's first command in a
# bare root shell, "make install" and pkg-config as an outside program sees
# them, the man pages, the symbols the libraries export, ccache and distcc
# on either side of cc-btf, and the Debian packages.
#
# The tools these tests exercise (ccache, distcc, pkg-config, dpkg-dev,
# debhelper, lintian) are installed by tests/install-deps.sh: a missing one
# fails the test with that message, it never skips it.

load test_helper

# The makes these tests run are builds of their own: under `make -j2 check`
# the jobserver's file descriptors are in MAKEFLAGS but not open here
# ("read jobs pipe: Bad file descriptor").
unset MAKEFLAGS MFLAGS MAKELEVEL

bats_require_minimum_version 1.5.0

setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
	need_built
}

teardown() {
	if [ -n "${DISTCCD_PID:-}" ]; then
		kill "$DISTCCD_PID" 2>/dev/null || true
		wait "$DISTCCD_PID" 2>/dev/null || true
	fi
}

# require_cmd CMD...: fail (not skip) when a tool install-deps.sh installs
# is missing.
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		echo "$c is not installed: run tests/install-deps.sh"
		return 1
	done
}

# has_sec FILE SECTION: FILE has SECTION.
has_sec() {
	readelf -SW "$1" >"$WORK/sections" 2>&1 || { cat "$WORK/sections"; return 1; }
	grep -q " $2 " "$WORK/sections"
}

# A source with types, for the compiler tests.
make_source() {
	cat >t.c <<-'EOF'
	struct point { int x, y; const char *name; };
	struct point origin = { 0, 0, "origin" };
	int t_norm(const struct point *p) { return p->x * p->x + p->y * p->y; }
	EOF
}

# ---- the README's first line ----

# A PATH with every command of the current one but sudo, as in a bare root
# shell (Debian's base image has no sudo).
path_without_sudo() {
	local dir f
	mkdir -p "$WORK/nosudo"
	IFS=: read -ra dirs <<<"$PATH"
	for dir in "${dirs[@]}"; do
		[ -d "$dir" ] || continue
		for f in "$dir"/*; do
			[ -x "$f" ] && [ ! -d "$f" ] || continue
			[ "${f##*/}" = sudo ] && continue
			[ -e "$WORK/nosudo/${f##*/}" ] || ln -s "$f" "$WORK/nosudo/${f##*/}"
		done
	done
	echo "$WORK/nosudo"
}

@test "ecosystem: README: install-deps.sh && make example in a root shell without sudo" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: the README's bare-root case"
	local p
	p=$(path_without_sudo)
	run ! env PATH="$p" bash -c 'command -v sudo'
	cd "$ABTF_TOP"
	run timeout 900 env -i HOME="$WORK" PATH="$p" LANG=C.UTF-8 bash -c \
		"tests/install-deps.sh && make -j2 example O='$WORK/b'"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	[ -x "$WORK/b/example/example" ]
	# btf-link made the example's final BTF, equal to pahole's, and the
	# example says so
	has_sec "$WORK/b/example/example" .BTF
	[[ $output == *"example: it worked."* ]]
	[[ $output == *"equal by meaning to pahole's"* ]]
}

# ---- make install, pkg-config, symbols ----

# san_cflags: the flags a program linked with the library needs: those of
# an ASan + UBSan build (make SANITIZE=1) when the library is one.
san_cflags() {
	nm "$ABTF_BUILD/libarchive-btf.a" >"$WORK/san.nm"
	if grep -q __asan_ "$WORK/san.nm"; then
		echo -fsanitize=address,undefined
	fi
}

# The example program (tests/example), its objects encoded by cc-btf and
# linked: a BTF archive of two members.
example_archive() {
	local f
	for f in list main; do
		"$CC_BTF" gcc -g -O2 -c "$ABTF_TOP/tests/example/$f.c" -o "$f.o"
	done
	gcc -o example list.o main.o
}

@test "ecosystem: make install to a prefix; a program built with pkg-config alone, shared and static" {
	require_cmd pkg-config gcc
	cd "$ABTF_TOP"
	make -s install O="$ABTF_BUILD" PREFIX="$WORK/prefix" >"$WORK/install.log"
	cd "$WORK"
	export PKG_CONFIG_PATH=$WORK/prefix/lib/pkgconfig
	[ "$(pkg-config --variable=prefix libarchive-btf)" = "$WORK/prefix" ]
	example_archive

	local san
	san=$(san_cflags)
	gcc $san "$ABTF_TOP/tests/ecosystem/use-api.c" -o use-shared \
		$(pkg-config --cflags --libs libarchive-btf)
	readelf -d use-shared >dyn
	grep -q 'libarchive-btf.so.0' dyn
	LD_LIBRARY_PATH=$WORK/prefix/lib ./use-shared example >shared.out
	grep -qx 'members 2' shared.out
	grep -qx 'func item_push' shared.out
	grep -qx 'func main' shared.out

	[ -z "$san" ] || skip "ASan cannot link -static: the static half runs on the plain build"
	local libs
	libs=$(pkg-config --static --cflags --libs libarchive-btf)
	if gcc -static "$ABTF_TOP/tests/ecosystem/use-api.c" -o use-static \
		$libs 2>static.log; then
		readelf -d use-static >dyn 2>&1 || true
		run ! grep -q NEEDED dyn
	elif grep -qE "undefined reference to .eu_|cannot find -l(bz2|lzma|zstd)" static.log; then
		# elfutils' own archives do not link statically (Debian 13's
		# libelf.a needs its internal libeu, which no package ships;
		# the make of the tools says so too): the library's archive
		# statically, what it needs dynamically
		gcc $(pkg-config --cflags libarchive-btf) \
			"$ABTF_TOP/tests/ecosystem/use-api.c" -o use-static \
			$(pkg-config --libs-only-L libarchive-btf) \
			-Wl,-Bstatic -larchive-btf -Wl,-Bdynamic \
			$(pkg-config --libs libbpf libdw libelf zlib) -pthread
		readelf -d use-static >dyn
		run ! grep -q 'libarchive-btf' dyn
		grep -q 'NEEDED.*libdw' dyn
	else
		cat static.log
		false
	fi
	./use-static example >static.out
	cmp shared.out static.out
}

@test "ecosystem: make install PREFIX=/usr DESTDIR: the .pc names the install's directories" {
	cd "$ABTF_TOP"
	# built with the default PREFIX (/usr/local), installed for /usr
	make -s install O="$ABTF_BUILD" PREFIX=/usr LIBDIR=/usr/lib/abtf-test \
		INCLUDEDIR=/usr/include/abtf-test DESTDIR="$WORK/stage" >"$WORK/install.log"
	local pc=$WORK/stage/usr/lib/abtf-test/pkgconfig/libarchive-btf.pc
	grep -qx 'prefix=/usr' "$pc"
	grep -qx 'libdir=/usr/lib/abtf-test' "$pc"
	grep -qx 'includedir=/usr/include/abtf-test' "$pc"
	grep -qx 'Requires: libbpf' "$pc"
	grep -qx 'Requires.private: libdw libelf zlib' "$pc"
	[ -f "$WORK/stage/usr/include/abtf-test/archive_btf.h" ]
	[ -f "$WORK/stage/usr/share/man/man3/libarchive-btf.3" ]
	make -s uninstall PREFIX=/usr LIBDIR=/usr/lib/abtf-test \
		INCLUDEDIR=/usr/include/abtf-test DESTDIR="$WORK/stage"
	[ ! -e "$pc" ]
	[ ! -e "$WORK/stage/usr/share/man/man3/abtf_linker__new.3" ]
}

# The global symbols FILE defines (nm FLAGS), one a line.
defined_globals() {
	nm "$@" --defined-only --extern-only --format=posix >"$WORK/nm.out"
	awk 'NF >= 2 && $1 !~ /:$/ { sub(/@.*/, "", $1); print $1 }' "$WORK/nm.out"
}

@test "ecosystem: the .so and the .a export the abtf_ API and nothing else" {
	local so a
	defined_globals -D "$ABTF_BUILD/libarchive-btf.so" | sort >so
	defined_globals "$ABTF_BUILD/libarchive-btf.a" | sort >a
	# the API: the version script's names
	grep -o 'abtf_[a-z_]*;' "$ABTF_TOP/libarchive-btf/libarchive-btf.map" |
		tr -d ';' | sort >api
	[ "$(wc -l <api)" -ge 20 ]
	grep -v '^LIBARCHIVE_BTF_' so >so.api
	diff api so.api
	diff api a
	# the internals are in the archive, but local
	nm "$ABTF_BUILD/libarchive-btf.a" >all
	grep -Eq ' t ir__[a-z_]+$' all
	grep -Eq ' t dw_die__[a-z_]+$' all
}

@test "ecosystem: a program defining the library's internal names links the static library" {
	example_archive
	# ir__init and dw_file__open are internal names of the library
	cat >clash.c <<-'EOF'
	#include <stdio.h>
	#include <archive_btf.h>
	int ir__init(void) { return 7; }
	int dw_file__open(void) { return 8; }
	int main(int argc, char **argv)
	{
		struct abtf_linker *l = abtf_linker__new(argv[1], NULL);
		int err = l ? abtf_linker__link(l) : -1;

		abtf_linker__free(l);
		printf("%d %d %d\n", err, ir__init(), dw_file__open());
		return 0;
	}
	EOF
	gcc $(san_cflags) -I"$ABTF_TOP/libarchive-btf" clash.c -o clash \
		"$ABTF_BUILD/libarchive-btf.a" $(pkg-config --libs libbpf libdw libelf zlib) -pthread
	[ "$(./clash example)" = "0 7 8" ]
}

@test "ecosystem: every man page renders without a warning, installed" {
	require_cmd man
	cd "$ABTF_TOP"
	make -s install O="$ABTF_BUILD" PREFIX="$WORK/prefix" >"$WORK/install.log"
	cd "$WORK/prefix/share/man"
	local f n=0
	for f in man1/*.1 man3/*.3; do
		MANWIDTH=80 man --warnings -l "$f" >/dev/null 2>"$WORK/warn" ||
			{ echo "$f: man failed"; cat "$WORK/warn"; return 1; }
		[ ! -s "$WORK/warn" ] || { echo "$f:"; cat "$WORK/warn"; return 1; }
		n=$((n + 1))
	done
	# a page (or a .so link to one) for each function of the API
	for f in $(grep -o 'abtf_[a-z_]*;' "$ABTF_TOP/libarchive-btf/libarchive-btf.map" | tr -d ';'); do
		[ -f "man3/$f.3" ] || { echo "no man3/$f.3"; return 1; }
		MANWIDTH=80 man -l "man3/$f.3" >page
		grep -q "$f" page
	done
	[ "$n" -gt 20 ]
}

@test "ecosystem: every man page opens with man -l from the top of the tree" {
	require_cmd man
	cd "$ABTF_TOP"
	local f n=0
	for f in cc-btf/cc-btf.1 btf-link/btf-link.1 libarchive-btf/man/man3/*.3; do
		MANWIDTH=80 man --warnings -l "$f" >"$WORK/page" 2>"$WORK/warn" ||
			{ echo "$f: man failed"; cat "$WORK/warn"; return 1; }
		[ ! -s "$WORK/warn" ] || { echo "$f:"; cat "$WORK/warn"; return 1; }
		# a page that names another (.so) shows that one's text
		grep -q "$(basename "$f" | sed 's/\.[13]$//')" "$WORK/page" ||
			{ echo "$f: the page does not name $(basename "$f")"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 20 ]
}

@test "ecosystem: split BTF reads with bpftool btf dump file X -B BASE, as the docs show" {
	require_cmd bpftool
	example_archive
	"$BTF_LINK" example
	cat >m.c <<-EOF
	#include "$ABTF_TOP/tests/example/list.h"
	struct modonly { int z; } mo;
	int mod_fn(struct item *it) { return item_count(it) + mo.z; }
	EOF
	"$CC_BTF" gcc -g -c m.c -o m.o
	ld -r -o mod.ko m.o
	"$BTF_LINK" --base example mod.ko
	bpftool btf dump file mod.ko -B example >split.txt
	grep -q "STRUCT 'modonly'" split.txt
	grep -q "FUNC 'mod_fn'" split.txt
	# struct item is the base's, not repeated in the module's BTF
	run ! grep -q "STRUCT 'item'" split.txt
	# without its base it does not read
	run ! bpftool btf dump file mod.ko
}

# ---- ccache ----

ccache_env() {
	export CCACHE_DIR=$WORK/ccache CCACHE_NOHASHDIR=1 CCACHE_TEMPDIR=$WORK/ccache-tmp
	unset CCACHE_COMPILERCHECK CC_BTF_OPTS
}

# ccache_hits: direct and preprocessed hits so far.
ccache_hits() {
	ccache --print-stats >"$WORK/stats"
	awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { n += $2 } END { print n + 0 }' \
		"$WORK/stats"
}

@test "ecosystem: cc-btf ccache gcc: settings changed between builds, every object right" {
	require_cmd ccache
	ccache_env
	make_source
	"$CC_BTF" ccache gcc -g -c t.c -o t.o
	has_sec t.o .BTF
	has_sec t.o .debug_btf_addr
	CC_BTF=0 "$CC_BTF" ccache gcc -g -c t.c -o t.o
	run ! has_sec t.o .BTF
	CC_BTF_OPTS=--no-addr "$CC_BTF" ccache gcc -g -c t.c -o t.o
	has_sec t.o .BTF
	run ! has_sec t.o .debug_btf_addr
	CC_BTF_OPTS=--detached "$CC_BTF" ccache gcc -g -c t.c -o t.o
	run ! has_sec t.o .BTF
	[ -s t.o.btf ]
	"$CC_BTF" ccache gcc -g -c t.c -o t.o
	has_sec t.o .BTF
	# ccache cached gcc's object once and handed it out four times
	[ "$(ccache_hits)" -eq 4 ]
}

@test "ecosystem: ccache cc-btf gcc without the settings in ccache's hash is refused" {
	require_cmd ccache
	ccache_env
	make_source
	run -2 ccache "$CC_BTF" gcc -g -c t.c -o t.o
	[[ $output == *"cc-btf: error: t.o: run by ccache, which does not hash cc-btf's settings"* ]]
	[[ $output == *"CCACHE_COMPILERCHECK='%compiler% --print-settings'"* ]]
	[[ $output == *'use CC="cc-btf ccache gcc"'* ]]
	[ ! -e t.o ]
	# nothing was cached, so no later build can get a wrong object
	ccache --print-stats >stats
	[ "$(awk '$1 == "files_in_cache" { print $2 }' stats)" -eq 0 ]
	# preprocessing writes no object and is not refused
	ccache "$CC_BTF" gcc -E t.c -o t.i
	[ -s t.i ]
}

@test "ecosystem: ccache cc-btf gcc with --print-settings in compiler_check: settings changed between builds" {
	require_cmd ccache
	ccache_env
	export CCACHE_COMPILERCHECK='%compiler% --print-settings; gcc -v'
	make_source
	local round
	for round in 1 2; do
		ccache "$CC_BTF" gcc -g -c t.c -o t.o
		has_sec t.o .BTF
		has_sec t.o .debug_btf_addr
		CC_BTF=0 ccache "$CC_BTF" gcc -g -c t.c -o t.o
		run ! has_sec t.o .BTF
		CC_BTF_OPTS=--no-addr ccache "$CC_BTF" gcc -g -c t.c -o t.o
		has_sec t.o .BTF
		run ! has_sec t.o .debug_btf_addr
		# options on cc-btf's command line are arguments: hashed anyway
		ccache "$CC_BTF" --no-btf gcc -g -c t.c -o t.o
		run ! has_sec t.o .BTF
	done
	# the second round came from the cache, each object the right one
	[ "$(ccache_hits)" -eq 4 ]
}

@test "ecosystem: ccache cc-btf --detached is refused: a hit would not write OBJECT.btf" {
	require_cmd ccache
	ccache_env
	export CCACHE_COMPILERCHECK='%compiler% --print-settings'
	make_source
	run -2 env CC_BTF_OPTS=--detached ccache "$CC_BTF" gcc -g -c t.c -o t.o
	[[ $output == *"cc-btf: error: t.o: --detached under ccache: a cache hit would not write t.o.btf; use CC=\"cc-btf ccache gcc\""* ]]
	run -2 ccache "$CC_BTF" --detached gcc -g -c t.c -o t.o
	[ ! -e t.o ] && [ ! -e t.o.btf ]
}

# ---- distcc ----

# start_distccd: a distccd on 127.0.0.1, on a free port, for this test
# only (stopped by teardown, and by its own timeout at the latest).
start_distccd() {
	local port i
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	timeout 120 distccd --no-detach --daemon --allow 127.0.0.1 \
		--listen 127.0.0.1 --port "$port" --log-stderr --log-level info \
		2>"$WORK/distccd.log" 3>&- &
	DISTCCD_PID=$!
	for i in $(seq 50); do
		python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
			"$port" 2>/dev/null && break
		sleep 0.1
	done
	mkdir -p "$WORK/distcc"
	export DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_DIR=$WORK/distcc
	unset CC_BTF_OPTS
}

@test "ecosystem: cc-btf distcc gcc: distccd compiles, cc-btf encodes here" {
	require_cmd distcc distccd python3
	start_distccd
	make_source
	# no fallback: the object can only come from distccd
	DISTCC_FALLBACK=0 timeout 60 "$CC_BTF" distcc gcc -g -c t.c -o t.o
	has_sec t.o .BTF
	# (--compare takes final BTF: an object with its group is linked)
	"$BTF_LINK" -o t.btf t.o
	"$BTF_LINK" --compare t.btf t.btf
	grep -q 'COMPILE_OK' "$WORK/distccd.log"
}

@test "ecosystem: distcc cc-btf gcc is refused, naming the order that distributes" {
	require_cmd distcc distccd python3
	start_distccd
	make_source
	run ! timeout 60 distcc "$CC_BTF" gcc -g -c t.c -o t.o
	[[ $output == *"cc-btf: error: t.o: run by distcc to compile on this machine"* ]]
	[[ $output == *'use CC="cc-btf distcc gcc"'* ]]
	[ ! -e t.o ]
	# distccd did refuse cc-btf: the fallback was distcc's, not ours
	grep -q 'cc-btf' "$WORK/distccd.log"
	run ! grep -q 'COMPILE_OK' "$WORK/distccd.log"
	# its preprocessing alone (no object) is left alone
	timeout 60 distcc "$CC_BTF" gcc -E t.c -o t.i
	[ -s t.i ]
}

# ---- Debian packages ----

@test "ecosystem: make deb builds the source and binary packages, runs check-deb, lintian-clean" {
	require_cmd dpkg-buildpackage dh lintian fakeroot
	local before="" after="" ma deb
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	cd "$ABTF_TOP"
	if git rev-parse --git-dir >/dev/null 2>&1; then
		before=$(git status --porcelain)
	fi
	# (the package build runs bats itself: without this run's BATS_*,
	# and with the bats of PATH, not bats's own libexec/bats, which
	# needs a function that make does not pass on)
	local v clean=() path
	for v in $(compgen -e | grep '^BATS_'); do
		clean+=(-u "$v")
	done
	path=$(tr ':' '\n' <<<"$PATH" | grep -vxF "$BATS_LIBEXEC" | paste -sd:)
	env "${clean[@]}" PATH="$path" DEB_BUILD_OPTIONS=parallel=2 \
		timeout 600 make deb O="$WORK/b"
	if git rev-parse --git-dir >/dev/null 2>&1; then
		after=$(git status --porcelain)
	fi
	[ "$before" = "$after" ]
	cd "$WORK/b/deb"
	# the source package, without what the build made
	[ -f archive-btf_*.dsc ]
	tar -tf archive-btf_*.tar.xz > src.list
	grep -qx 'archive-btf-[^/]*/debian/rules' src.list
	! grep -E '/(debian/build|build[^/]*)/|\.o$' src.list || false
	# the package build ran check-deb: every one of its tests, and passed
	local planned
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' build.log)
	[ -n "$planned" ] && [ "$planned" -gt 20 ]
	[ "$(grep -c '^ok ' build.log)" -eq "$planned" ]
	! grep -E '^not ok |# skip' build.log || false
	for deb in archive-btf_*.deb libarchive-btf0_*.deb libarchive-btf-dev_*.deb; do
		[ -f "$deb" ]
		dpkg -x "$deb" "$WORK/root"
	done
	cd "$WORK/root"
	local f
	for f in usr/bin/cc-btf usr/bin/btf-link \
		 usr/share/man/man1/cc-btf.1.gz usr/share/man/man1/btf-link.1.gz \
		 "usr/lib/$ma/libarchive-btf.so.0" "usr/lib/$ma/libarchive-btf.so" \
		 "usr/lib/$ma/libarchive-btf.a" "usr/lib/$ma/pkgconfig/libarchive-btf.pc" \
		 usr/include/archive_btf.h usr/share/man/man3/libarchive-btf.3.gz \
		 usr/share/man/man3/abtf_encoder__new.3.gz \
		 usr/share/man/man3/abtf_linker__link.3.gz; do
		[ -e "$f" ] || { echo "missing: $f"; return 1; }
	done
	grep -qx 'prefix=/usr' "usr/lib/$ma/pkgconfig/libarchive-btf.pc"
	grep -qx "libdir=/usr/lib/$ma" "usr/lib/$ma/pkgconfig/libarchive-btf.pc"
	# the packaged tools run
	usr/bin/cc-btf --version
	# the library package's shared library is the one the -dev's .so names
	[ "$(readlink "usr/lib/$ma/libarchive-btf.so")" = libarchive-btf.so.0 ]
	cd "$WORK/b/deb"
	lintian --info archive-btf_*.changes >lintian.out 2>&1 || true
	if grep -E '^[EW]: ' lintian.out; then
		return 1
	fi
}
