#!/bin/bash
# Install everything the build, the example and the test suite need on
# Debian 12 (bookworm) or Debian 13 (trixie): run as root (a bare root
# shell needs no sudo), or as a user who may sudo (the script then uses
# it).
#
# Where the two releases differ, the packages are chosen by what the
# running release has, not by a fixed version: the runtime of the default
# clang (libclang-rt-N-dev, for the fuzzers), and the Linux sources the
# tests build (linux-source-6.1, -6.12, -7.3), each from the running
# release's own suites when it carries it, otherwise from the one suite of
# the same Debian mirror that does (see fetch_from_suite below).
set -euo pipefail
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "install-deps.sh: error: not root and no sudo: run it as root" >&2
		exit 1
	}
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck source=tests/lib/mirror.bash
. "$(dirname "$0")/lib/mirror.bash"
# wait for another apt (a concurrent install) rather than fail
APT_OPTS=(-o DPkg::Lock::Timeout=300)

die() {
	echo "install-deps.sh: error: $*" >&2
	exit 1
}

# shellcheck disable=SC1091 # the running system's
CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
case $CODENAME in
bookworm|trixie) ;;
*) die "Debian 12 (bookworm) or 13 (trixie) expected, /etc/os-release says '${CODENAME:-nothing}'" ;;
esac

$SUDO apt-get "${APT_OPTS[@]}" update

# has_candidate PKG: the running system's suites can install PKG.
has_candidate() {
	local c
	# (a name no package has exactly is a regular expression to apt:
	# linux-source-6.1 would find linux-source-6.12)
	apt-cache pkgnames "$1" 2>/dev/null | grep -qxF "$1" || return 1
	c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

# The runtime libraries of the release's default clang (libFuzzer, the
# sanitizers): libclang-rt-14-dev on Debian 12, -19- on Debian 13.
clang_major=$(apt-cache depends clang 2>/dev/null |
	sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1)
[ -n "$clang_major" ] || die "apt-cache finds no clang-N that clang depends on"

$SUDO apt-get "${APT_OPTS[@]}" install -y --no-install-recommends \
	build-essential pkgconf libbpf-dev libdw-dev libelf-dev zlib1g-dev \
	dwarves bpftool bats ccache binutils time python3 elfutils \
	bc flex bison libssl-dev xz-utils cpio parallel \
	qemu-system-x86 busybox-static patch git clang lld llvm \
	distcc man-db dpkg-dev debhelper fakeroot lintian \
	gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu gcc-s390x-linux-gnu \
	libc6-dev-arm64-cross qemu-system-arm rsync kmod \
	libc6-dev-riscv64-cross libc6-dev-s390x-cross qemu-system-misc opensbi \
	"libclang-rt-$clang_major-dev" clang-19 lld-19 llvm-19 rustc \
	debootstrap gdb

# What a kernel with CONFIG_RUST needs besides rustc (make rustavailable:
# the standard library's source, bindgen and the libclang it loads;
# rustfmt, with which bindgen lays out the bindings), where the release's
# rustc and bindgen are as new as Linux 7.3 takes them
# (scripts/min-tool-version.sh: 1.85.0 and 0.71.1): Debian 13's. Debian
# 12's rustc 1.63 is too old, and the kernels built there leave Rust out.
candidate() {
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p'
}
if dpkg --compare-versions "$(candidate rustc)" ge 1.85.0 &&
   dpkg --compare-versions "$(candidate bindgen)" ge 0.71.1; then
	$SUDO apt-get "${APT_OPTS[@]}" install -y --no-install-recommends \
		rust-src bindgen libclang-dev rustfmt
fi

# fetch_from_suite SUITE PKG...: install the architecture-independent
# packages PKG (the Linux sources and configurations, which need only
# binutils and xz-utils) from another suite of the same Debian mirror,
# through a sources list of our own: nothing else of that suite comes in,
# and the system's sources are left as they are.
fetch_from_suite() {
	local suite=$1 uri tmp o
	shift
	uri=$(mirror_uri "$CODENAME" | head -n 1)
	[ -n "$uri" ] || die "no $CODENAME mirror in apt's sources to find $* on"
	tmp=$(mktemp -d)
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
	echo "deb $uri $suite main" > "$tmp/sources.list"
	chmod -R a+rX "$tmp"
	o=(-o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
	   -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache"
	   -o APT::Sandbox::User=root)
	$SUDO apt-get "${APT_OPTS[@]}" "${o[@]}" update
	(cd "$tmp" && $SUDO apt-get "${o[@]}" download "$@")
	$SUDO apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "$tmp"/*.deb
	$SUDO rm -rf "$tmp"
}

# The Linux sources the tests build, and Debian's configurations of 7.3
# (check-lab's distribution kernel starts from one): from the running
# release where it carries them, else from the suite that does (6.1 is
# bookworm's; 7.3 is in trixie-backports for both releases).
sources_from() {
	case $1 in
	linux-source-6.1) echo bookworm ;;
	linux-source-6.12) echo trixie ;;
	*) echo trixie-backports ;;
	esac
}
declare -A other=()
here=()
for pkg in linux-source-6.1 linux-source-6.12 linux-source-7.3 linux-config-7.3; do
	v=${pkg#linux-*-}
	case $pkg in
	linux-source-*) [ -f "/usr/src/$pkg.tar.xz" ] && continue ;;
	linux-config-*) [ -d "/usr/src/linux-config-$v" ] && continue ;;
	esac
	if has_candidate "$pkg"; then
		here+=("$pkg")
	else
		s=$(sources_from "$pkg")
		other[$s]="${other[$s]:-} $pkg"
	fi
done
[ ${#here[@]} -eq 0 ] ||
	$SUDO apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "${here[@]}"
for s in "${!other[@]}"; do
	# shellcheck disable=SC2086 # a list of names
	fetch_from_suite "$s" ${other[$s]}
done

# Other releases' pahole, unpacked into tests/.work and runnable there with
# their own libraries, nothing installed (tests/pahole-of.sh): Debian sid's
# 1.32, today's release, the second judge; and where the system's pahole
# is not Debian 12's 1.24, that one, which the quick tier compares with
# (tests/lib/tools.bash).
"$(dirname "$0")/pahole-of.sh" sid
if [ "$CODENAME" != bookworm ]; then
	"$(dirname "$0")/pahole-of.sh" bookworm
fi
