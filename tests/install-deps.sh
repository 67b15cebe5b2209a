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
	libclang-rt-14-dev
