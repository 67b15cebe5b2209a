#!/bin/bash
# Install everything the build, the example and the test suite need on
# Debian 12: run as root (a bare root shell needs no sudo), or as a user
# who may sudo (the script then uses it).
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
# wait for another apt (a concurrent install) rather than fail
APT_OPTS=(-o DPkg::Lock::Timeout=300)
$SUDO apt-get "${APT_OPTS[@]}" update
$SUDO apt-get "${APT_OPTS[@]}" install -y --no-install-recommends \
	build-essential pkg-config libbpf-dev libdw-dev libelf-dev zlib1g-dev \
	dwarves bpftool bats ccache binutils time python3 elfutils \
	linux-source-6.1 linux-source-6.12 bc flex bison libssl-dev xz-utils cpio parallel \
	qemu-system-x86 busybox-static patch git clang lld llvm \
	distcc man-db dpkg-dev debhelper fakeroot lintian \
	gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu gcc-s390x-linux-gnu \
	libc6-dev-arm64-cross qemu-system-arm rsync kmod \
	libc6-dev-riscv64-cross libc6-dev-s390x-cross qemu-system-misc opensbi \
	libclang-rt-14-dev clang-19 lld-19 llvm-19 rustc

# Linux 7.3's source (linux-source-7.3, architecture-independent, needing
# only binutils and xz-utils) and Debian's configurations of it
# (linux-config-7.3, which needs nothing: check-lab's distribution kernel
# starts from one) are in a newer suite of the same Debian mirror,
# trixie-backports: read it through a sources list of our own, built from
# the address apt's sources already use, and install those two packages
# from their files. Nothing else of the newer suite comes in, and the
# system's sources are left as they are.
mirror_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ { u = $2 } /^Suites:/ && / bookworm( |$)/ { print u; exit }' "$f"
	done
	if [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list
	fi
}
LINUX_73=/usr/src/linux-source-7.3.tar.xz
CONFIG_73=/usr/src/linux-config-7.3
if [ ! -f "$LINUX_73" ] || [ ! -d "$CONFIG_73" ]; then
	uri=$(mirror_uri | head -n 1)
	[ -n "$uri" ] || {
		echo "install-deps.sh: error: no bookworm mirror in apt's sources to find linux-source-7.3 on" >&2
		exit 1
	}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
	echo "deb $uri trixie-backports main" > "$tmp/sources.list"
	chmod -R a+rX "$tmp"
	o=(-o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
	   -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache"
	   -o APT::Sandbox::User=root)
	$SUDO apt-get "${APT_OPTS[@]}" "${o[@]}" update
	(cd "$tmp" && $SUDO apt-get "${o[@]}" download linux-source-7.3 linux-config-7.3)
	$SUDO apt-get "${APT_OPTS[@]}" install -y --no-install-recommends \
		"$tmp"/linux-source-7.3_*.deb "$tmp"/linux-config-7.3_*.deb
fi
