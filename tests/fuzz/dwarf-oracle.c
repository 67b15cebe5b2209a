// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwarf-oracle OBJ [BTF]: the encoder fuzzer's oracle (dwarf_oracle.h) on
 * one object, for the tests: "OBJ: agree" and exit 0 when libdw reads
 * OBJ's DIE trees as the encoder's reader does, each tree takes its whole
 * unit and (with BTF, a raw BTF file such as `cc-btf --encode -o` writes)
 * every named type libdw finds is in BTF; else one line saying where
 * they part and exit 1; exit 2 on a usage or setup error.
 */
#include <errno.h>
#include <stdlib.h>

#include "dwarf_oracle.h"

int main(int argc, char **argv)
{
	struct btf *btf = NULL;
	char why[512];
	int ret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s OBJ [BTF]\n", argv[0]);
		return 2;
	}
	elf_version(EV_CURRENT);
	if (argc == 3) {
		btf = btf__parse_raw(argv[2]);
		if (!btf) {
			fprintf(stderr, "%s: %s: cannot read BTF: %s\n",
				argv[0], argv[2], strerror(errno));
			return 2;
		}
	}
	ret = dwarf_oracle(argv[1], btf, why, sizeof(why));
	btf__free(btf);
	if (ret < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1],
			strerror(errno));
		return 2;
	}
	printf("%s: %s\n", argv[1], why);
	return ret;
}
