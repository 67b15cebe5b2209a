// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: btf-link's path for a raw BTF file. The input is the
 * file: one BTF blob (what cc-btf puts in an object's .BTF) or several back
 * to back (a raw archive, as `objcopy --dump-section .BTF=` gives of a
 * linked image). It is read by the archive reader, validated, merged and
 * deduplicated with libbpf; the final BTF is compared with itself (which
 * must find no difference) and written out as a raw file.
 *
 * Seeds: tests/fuzz/make-corpus.sh. Run: make fuzz (docs/reliability.md).
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_init();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct abtf_link_opts opts = {
		.sz = sizeof(opts),
		.print = fuzz_print,
		.force = true,		/* one member: link it all the same */
		.nr_threads = 1,
	};
	struct abtf_link_stats st = { .sz = sizeof(st) };
	char in[PATH_MAX], out[PATH_MAX];
	struct abtf_linker *l;

	fuzz_write(in, sizeof(in), "in.btf", data, size);
	l = abtf_linker__new(in, &opts);
	if (!l)
		goto out;
	if (abtf_linker__link(l) == 0) {
		fuzz_check_self(abtf_linker__btf(l), "final");
		abtf_linker__stats(l, &st);
		abtf_linker__write_raw(l, fuzz_path(out, sizeof(out),
						    "out.btf"));
	}
	abtf_linker__free(l);
out:
	fuzz_rm("in.btf");
	fuzz_rm("out.btf");
	return 0;
}
