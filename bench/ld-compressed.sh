#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Experiment: what linkers do with a compressed (SHF_COMPRESSED) section
# that is not a debug section, such as a compressed .BTF (issue 9).
#
#   bench/ld-compressed.sh [SECTION]
#
# Compiles two small objects with gcc, gives each a 4 KiB SECTION (default
# .BTF; "AAAA..." in one, "BBBB..." in the other) written as an
# Elf64_Chdr and a zlib stream and flagged SHF_COMPRESSED (objcopy adds
# the bytes, python3 sets the flag: objcopy compresses only .debug*
# sections), links them with each of ld.bfd and ld.lld, relocatably
# (-r) and into an executable, and reports each output's SECTION: its
# size and flags, and whether it holds both payloads decompressed.
# x86-64 (or any 64-bit little-endian) host only.
set -euo pipefail
sec=${1:-.BTF}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

printf 'int a_var = 1;\nint a_fn(void) { return a_var; }\n' >a.c
printf 'int b_var = 2;\nint b_fn(void) { return b_var; }\n' >b.c
gcc -c -O2 a.c b.c

python3 - a b <<'EOF'
import struct, sys, zlib
for n in sys.argv[1:]:
    raw = n.upper().encode() * 4096
    open(n + '.z', 'wb').write(struct.pack('<IIQQ', 1, 0, len(raw), 1) +
                               zlib.compress(raw, 1))
EOF

# set_compressed OBJ: OR SHF_COMPRESSED into $sec's flags, alignment 8
set_compressed() {
	python3 - "$1" "$sec" <<'EOF'
import struct, sys
path, name = sys.argv[1], sys.argv[2].encode()
d = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
ent, num, stridx = struct.unpack_from('<HHH', d, 0x3a)
stroff, = struct.unpack_from('<Q', d, shoff + stridx * ent + 0x18)
for i in range(num):
    sh = shoff + i * ent
    n, = struct.unpack_from('<I', d, sh)
    if d[stroff + n:d.index(b'\0', stroff + n)] == name:
        flags, = struct.unpack_from('<Q', d, sh + 8)
        struct.pack_into('<Q', d, sh + 8, flags | 0x800)
        struct.pack_into('<Q', d, sh + 0x30, 8)
open(path, 'wb').write(d)
EOF
}

for n in a b; do
	objcopy --add-section "$sec=$n.z" --set-section-flags "$sec=contents,readonly" \
		"$n.o" "${n}z.o"
	set_compressed "${n}z.o"
done
echo "input:  $(readelf -SW az.o | grep -F " $sec ")"

for ld in ld.bfd ld.lld; do
	if ! command -v "$ld" >/dev/null; then
		echo "$ld: not installed"
		continue
	fi
	echo "$ld: $($ld --version | head -1)"
	for how in -r exe; do
		if [ "$how" = -r ]; then
			"$ld" -r -o out.o az.o bz.o
		else
			"$ld" -e a_fn -o out.o az.o bz.o
		fi
		objcopy --dump-section "$sec=out.bin" out.o discard
		python3 - "$ld $how" "$sec" <<'EOF'
import struct, sys
what, name = sys.argv[1], sys.argv[2].encode()
e = open('out.o', 'rb').read()
shoff, = struct.unpack_from('<Q', e, 0x28)
ent, num, stridx = struct.unpack_from('<HHH', e, 0x3a)
stroff, = struct.unpack_from('<Q', e, shoff + stridx * ent + 0x18)
flags = 0
for i in range(num):
    n, = struct.unpack_from('<I', e, shoff + i * ent)
    if e[stroff + n:e.index(b'\0', stroff + n)] == name:
        flags, = struct.unpack_from('<Q', e, shoff + i * ent + 8)
d = open('out.bin', 'rb').read()
ok = d.count(b'AAAA') == 1024 and d.count(b'BBBB') == 1024
comp = 'SHF_COMPRESSED' if flags & 0x800 else 'not SHF_COMPRESSED'
print(f'  {what:>12}: {len(d)} bytes, {comp}, ' +
      ('both payloads decompressed' if ok else
       f'not decompressed (starts {d[:8].hex()})'))
EOF
	done
done
