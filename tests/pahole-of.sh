#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Another Debian release's pahole, runnable here without installing it:
# its package and those it depends on are downloaded from that suite of
# the Debian mirror apt's sources use, unpacked (dpkg-deb -x) into DIR,
# and DIR/bin/pahole starts the suite's pahole with the suite's own
# dynamic loader and libraries (ld-linux-x86-64.so.2 --library-path), so
# that neither the system nor its libraries are touched.
#
# Usage: tests/pahole-of.sh SUITE [DIR]
#
#   SUITE  bookworm (pahole 1.24: the judge the quick tier is written
#          against, for a Debian 13 machine, whose own pahole is 1.30),
#          sid (pahole 1.32)
#   DIR    default: tests/.work/pahole-SUITE
#
# Cached: done again only when DIR/bin/pahole does not run. x86-64 only
# (the loader's name). Needs apt-get and dpkg-deb; no root.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/mirror.bash
. "$TOP/tests/lib/mirror.bash"

die() {
	echo "pahole-of.sh: error: $*" >&2
	exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: tests/pahole-of.sh SUITE [DIR]"
SUITE=$1
case $SUITE in
*[!a-z-]*|"") die "$SUITE: a Debian suite, such as bookworm" ;;
esac
DIR=${2:-$TOP/tests/.work/pahole-$SUITE}
[ "$(uname -m)" = x86_64 ] || die "x86-64 only"

# starter DIR: write DIR/bin/pahole, which finds the root beside itself,
# wherever DIR is seen from (through a link too)
starter() {
	mkdir -p "$1/bin"
	cat > "$1/bin/pahole.tmp" <<'EOF'
#!/bin/sh
# pahole of another Debian suite, with that suite's loader and libraries
# (tests/pahole-of.sh made this)
r=$(cd "$(dirname "$(readlink -f "$0")")/../root" && pwd) || exit 127
# the suite's loader itself: lib64/'s is a link to an absolute path,
# which would be this system's
l=$r/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[ -f "$l" ] && [ ! -L "$l" ] || l=$r/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
exec "$l" \
	--library-path "$r/lib/x86_64-linux-gnu:$r/usr/lib/x86_64-linux-gnu" \
	"$r/usr/bin/pahole" "$@"
EOF
	chmod 755 "$1/bin/pahole.tmp"
	mv "$1/bin/pahole.tmp" "$1/bin/pahole"
}

# unpacked before: the starter again (this script's may be newer)
if [ -x "$DIR/root/usr/bin/pahole" ] && [ -f "$DIR/version" ]; then
	starter "$DIR"
	"$DIR/bin/pahole" --version >/dev/null 2>&1 && exit 0
fi

uri=$(mirror_uri | head -n 1)
[ -n "$uri" ] || die "no Debian mirror in apt's sources"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs" "$tmp/state"
: > "$tmp/state/status"
echo "deb $uri $SUITE main" > "$tmp/sources.list"
# apt of our own: the suite's lists, an empty dpkg status (so that every
# dependency is fetched, none taken from this system)
o=(-o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache"
   -o Dir::State::Status="$tmp/state/status"
   -o APT::Sandbox::User="$(id -un)" -o Debug::NoLocking=1)
apt-get "${o[@]}" -qq update || die "apt-get update of $SUITE from $uri failed"
# pahole's package (dwarves; "pahole" in newer suites, which have both),
# then everything it depends on, real packages only
pkg=dwarves
mapfile -t pkgs < <(apt-cache "${o[@]}" depends --recurse --no-recommends \
	--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
	"$pkg" | grep -E '^[a-z0-9]' | sort -u)
[ ${#pkgs[@]} -gt 0 ] || die "$SUITE has no $pkg"
(cd "$tmp/debs" && apt-get "${o[@]}" -qq download "${pkgs[@]}") ||
	die "downloading ${pkgs[*]} from $SUITE failed"
rm -rf "$DIR.tmp"
mkdir -p "$DIR.tmp/root"
for d in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$d" "$DIR.tmp/root"
done
bin=$DIR.tmp/root/usr/bin/pahole
[ -x "$bin" ] || die "$SUITE's $pkg has no usr/bin/pahole"
starter "$DIR.tmp"
"$DIR.tmp/bin/pahole" --version > "$DIR.tmp/version" ||
	die "$SUITE's pahole does not run through its own loader"
rm -rf "$DIR"
mv "$DIR.tmp" "$DIR"
echo "pahole-of.sh: $SUITE's pahole $(cat "$DIR/version") in $DIR/bin" >&2
