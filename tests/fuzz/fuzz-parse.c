// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: abtf_btf__parse(), the reader of final BTF that
 * --compare and --base use. The input is the file: one BTF blob of either
 * byte order; seeds include each blob again with a header of 32 bytes (as
 * upstream pahole writes it), whose other-endian form libbpf does not read
 * and abtf_btf__parse() cuts to libbpf's 24 before it does. What parses is
 * compared with itself, which must find no difference.
 *
 * Seeds: tests/fuzz/make-corpus.sh. Run: make fuzz (docs/reliability.md).
 */
#include <bpf/btf.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_init();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[PATH_MAX];
	struct btf *btf;

	fuzz_write(in, sizeof(in), "in.btf", data, size);
	btf = abtf_btf__parse(in, NULL);
	if (btf) {
		fuzz_check_self(btf, "parsed");
		btf__free(btf);
	}
	fuzz_rm("in.btf");
	return 0;
}
