#!/bin/sh
# The built-in example: compile a small multi-file C program through cc-btf,
# as kbuild would with CC="cc-btf gcc", show each object's BTF, link the
# program (the linker concatenates the objects' .BTF into an archive), turn
# the archive into the final BTF with btf-link, show it, and compare it by
# meaning with what pahole -J makes of the same program's DWARF. The last
# line says whether it all worked; the exit status is 0 only then.
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
	echo "+ bpftool btf dump file $f.o      # $f.o's own BTF, made by cc-btf"
	bpftool btf dump file "$out/$f.o"
done
echo
echo "+ gcc -o example list.o main.o      # ld concatenates the two .BTF: an archive"
gcc -o "$out/example" "$out/list.o" "$out/main.o"
echo "+ btf-link -v example               # the archive becomes one deduplicated BTF, in place"
"$build/bin/btf-link" -v "$out/example"
"$out/example" >/dev/null
echo
echo "+ bpftool btf dump file example"
bpftool btf dump file "$out/example"
echo
echo "+ pahole -J --btf_gen_floats --btf_encode_detached=example.pahole.btf example   # the reference"
pahole -J --btf_gen_floats --btf_encode_detached="$out/example.pahole.btf" "$out/example"
echo "+ btf-link --compare example.pahole.btf example"
if "$build/bin/btf-link" --compare "$out/example.pahole.btf" "$out/example"; then
	types=$(bpftool btf dump file "$out/example" | grep -c '^\[')
	echo
	echo "example: it worked. cc-btf encoded each object's DWARF into its own .BTF,"
	echo "the linker concatenated them, and btf-link linked them into one BTF of"
	echo "$types types in $out/example, equal by meaning to pahole's (no line above)."
else
	echo
	echo "example: FAILED: btf-link's BTF differs from pahole's (the lines above)" >&2
	exit 1
fi
