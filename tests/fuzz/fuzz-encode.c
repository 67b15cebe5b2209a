// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: cc-btf's encoder. The input is an ELF object, written
 * to a file and encoded: ELF and DWARF read through libelf and libdw (the
 * relocations of the DWARF sections applied by the library), DWARF turned
 * into BTF, the BTF compared with itself (which must find no difference),
 * written back into a copy of the object (.BTF and .debug_btf_addr with
 * its relocations) and as a raw file. An object encoded with success must
 * also pass the oracle of dwarf_oracle.h: libdw reads the same DIE trees,
 * each takes its whole unit, and no named type libdw finds is lost.
 *
 * Seeds: tests/fuzz/make-corpus.sh. Run: make fuzz (docs/reliability.md).
 */
#include "fuzz.h"
#include "dwarf_oracle.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_init();
}

/* An object encoded with exit 0 that libdw reads otherwise: a bug. */
static void fuzz_check_oracle(const char *in, const struct btf *btf)
{
	char why[512];

	if (dwarf_oracle(in, btf, why, sizeof(why)) > 0) {
		fprintf(stderr, "fuzz harness: encoded with success, but the "
			"DWARF oracle disagrees: %s\n", why);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct abtf_encode_opts opts = {
		.sz = sizeof(opts),
		.print = fuzz_print,
	};
	char in[PATH_MAX], out[PATH_MAX];
	struct abtf_encoder *enc;

	fuzz_write(in, sizeof(in), "in.o", data, size);
	enc = abtf_encoder__new(in, &opts);
	if (!enc)
		goto out;
	if (abtf_encoder__encode(enc) == 0) {
		fuzz_check_self(abtf_encoder__btf(enc), "encoded");
		fuzz_check_oracle(in, abtf_encoder__btf(enc));
		abtf_encoder__write_object(enc, fuzz_path(out, sizeof(out),
							  "out.o"));
		abtf_encoder__write_raw(enc, fuzz_path(out, sizeof(out),
						       "out.btf"));
	}
	abtf_encoder__free(enc);
out:
	fuzz_rm("in.o");
	fuzz_rm("out.o");
	fuzz_rm("out.btf");
	return 0;
}
