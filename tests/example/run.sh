#!/bin/sh
# The built-in example: compile a small multi-file C program through cc-btf,
# as kbuild would with CC="cc-btf gcc", and show each object's BTF.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${ABTF_BUILD:-$top/build}
out=${1:-$build/example}
mkdir -p "$out"
for f in list main; do
	echo "+ cc-btf gcc -g -O2 -c $f.c"
	"$build/bin/cc-btf" gcc -g -O2 -c "$top/tests/example/$f.c" -o "$out/$f.o"
done
gcc -o "$out/example" "$out/list.o" "$out/main.o"
"$out/example" >/dev/null
for f in list main; do
	echo
	echo "+ bpftool btf dump file $f.o"
	bpftool btf dump file "$out/$f.o"
done
