#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run a command in a root of another Debian release, made with debootstrap
# from the mirror apt's sources already use, with this checkout at the
# same path inside it: how the tests build and test the project on Debian
# 13 (trixie, GCC 14, binutils 2.44, elfutils 0.192, libbpf 1.5) from CI's
# Debian 12 machine.
#
# Usage: tests/release-root.sh [-r DIR] RELEASE CMD [ARG...]
#
#   RELEASE  a Debian codename (trixie)
#   -r DIR   the root (default: ${ABTF_KERNEL_DIR:-tests/.work}/root-RELEASE)
#
# The root is made once (debootstrap --variant=minbase, about 25 seconds
# here) and kept; the command runs as root in it, in the checkout, in a
# mount namespace of its own (unshare -m) in which /proc, /dev, /dev/pts,
# /sys and the checkout (and ABTF_KERNEL_DIR, if it lies outside) are
# mounted into the root, so that nothing stays mounted when it ends; its
# environment is a clean one with the tests' variables (ABTF_*, CI).
# Nothing else of the host is seen: the command
# installs what it needs in the root with the root's own apt (the project's
# tests/install-deps.sh, as a user of that release would).
#
# Needs root (or unshare and chroot rights) and debootstrap. Exit status:
# the command's; 77 when debootstrap or unshare is missing (ABTF_STRICT=1:
# 1).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/mirror.bash
. "$TOP/tests/lib/mirror.bash"

die() {
	echo "release-root.sh: error: $*" >&2
	exit 1
}

unavailable() {
	echo "release-root.sh: unavailable: $*" >&2
	[ "${ABTF_STRICT:-0}" = 1 ] && exit 1
	exit 77
}

ROOT=
while getopts r: opt; do
	case $opt in
	r) ROOT=$OPTARG ;;
	*) die "usage: tests/release-root.sh [-r DIR] RELEASE CMD [ARG...]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || die "usage: tests/release-root.sh [-r DIR] RELEASE CMD [ARG...]"
RELEASE=$1
shift
case $RELEASE in
*[!a-z]*|"") die "$RELEASE: a Debian codename, such as trixie" ;;
esac
ROOT=${ROOT:-${ABTF_KERNEL_DIR:-$TOP/tests/.work}/root-$RELEASE}

[ "$(id -u)" -eq 0 ] || unavailable "not root: debootstrap and chroot need root"
command -v debootstrap >/dev/null || unavailable "debootstrap missing: tests/install-deps.sh installs it"
command -v unshare >/dev/null || unavailable "unshare (util-linux) missing"

# make_root: debootstrap the release into ROOT, once.
make_root() {
	local uri t=$SECONDS
	[ -f "$ROOT/.release-root" ] && return 0
	uri=$(mirror_uri | head -n 1)
	[ -n "$uri" ] || die "no Debian mirror in apt's sources to debootstrap $RELEASE from"
	rm -rf "$ROOT.tmp"
	mkdir -p "$(dirname "$ROOT")"
	debootstrap --variant=minbase "$RELEASE" "$ROOT.tmp" "$uri" > "$ROOT.log" 2>&1 || {
		tail -n 20 "$ROOT.log" >&2
		die "debootstrap $RELEASE from $uri failed (the whole output is in $ROOT.log)"
	}
	echo "$RELEASE $uri" > "$ROOT.tmp/.release-root"
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
	echo "release-root.sh: made a $RELEASE root in $ROOT in $((SECONDS - t)) s" >&2
}

make_root
# what the tests' variables name outside the checkout (ABTF_KERNEL_DIR) is
# mounted at the same path too
binds=("$TOP")
if [ -n "${ABTF_KERNEL_DIR:-}" ]; then
	case $(cd "$ABTF_KERNEL_DIR" && pwd)/ in
	"$TOP"/*) ;;
	*) binds+=("$(cd "$ABTF_KERNEL_DIR" && pwd)") ;;
	esac
fi
for b in "${binds[@]}"; do
	mkdir -p "$ROOT$b"
done
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# the environment the command sees: a clean one, and the tests' own
# variables (ABTF_*, CI)
envs=(HOME=/root "TERM=${TERM:-dumb}" LANG=C.UTF-8
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
while IFS= read -r v; do
	envs+=("$v=${!v}")
done < <(compgen -e | grep -E '^(ABTF_[A-Z0-9_]*|CI)$' || true)
# The namespace's mounts go when its last process ends. The command is
# given as arguments, so it is not parsed again.
exec unshare -m --propagation private bash -c '
	set -e
	root=$1 top=$2 nb=$3 ne=$4
	shift 4
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	mount --bind /sys "$root/sys"
	while [ "$nb" -gt 0 ]; do
		mount --bind "$1" "$root$1"
		shift
		nb=$((nb - 1))
	done
	envs=("${@:1:$ne}")
	shift "$ne"
	exec chroot "$root" /usr/bin/env -i "${envs[@]}" \
		/bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$top" "$@"
' release-root "$ROOT" "$TOP" "${#binds[@]}" "${#envs[@]}" "${binds[@]}" "${envs[@]}" "$@"
