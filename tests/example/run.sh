#!/bin/sh
# The built-in example: compile a small multi-file C program through cc-btf,
# as kbuild would with CC="cc-btf gcc", show each object's BTF, link the
# program (the linker concatenates the objects' .BTF into an archive), turn
# the archive into the final BTF with btf-link, and show it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${ABTF_BUILD:-$top/build}
out=${1:-$build/example}
mkdir -p "$out"
for f in list main; do
	echo "+ cc-btf gcc -g -O2 -c $f.c"
	"$build/bin/cc-btf" gcc -g -O2 -c "$top/tests/example/$f.c" -o "$out/$f.o"
done
for f in list main; do
	echo
	echo "+ bpftool btf dump file $f.o"
	bpftool btf dump file "$out/$f.o"
done
echo
echo "+ gcc -o example list.o main.o && btf-link -v example"
gcc -o "$out/example" "$out/list.o" "$out/main.o"
"$build/bin/btf-link" -v "$out/example"
"$out/example" >/dev/null
echo
echo "+ bpftool btf dump file example"
bpftool btf dump file "$out/example"
