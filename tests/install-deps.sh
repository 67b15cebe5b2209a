#!/bin/bash
# Install everything the build, the example and the test suite need on
# Debian 12 (run as root, or it uses sudo).
set -euo pipefail
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends \
	build-essential pkg-config libbpf-dev libdw-dev libelf-dev \
	dwarves bpftool bats ccache binutils time python3 elfutils \
	linux-source-6.1 linux-source-6.12 bc flex bison libssl-dev xz-utils cpio parallel \
	qemu-system-x86 busybox-static patch git clang lld llvm \
	libclang-rt-14-dev
