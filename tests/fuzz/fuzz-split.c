// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: btf-link's split path, a module's BTF on a base
 * (`btf-link --base vmlinux M.ko`). The input is
 *
 *	4 bytes		the base's length L (little-endian)
 *	L bytes		the base: a raw BTF file (what vmlinux's .BTF holds)
 *	...		the module: a raw BTF archive (one member or several)
 *
 * so that a mutation damages the base, the module or both. The base is read
 * and verified, the module linked on it (the archive reader, merge, the
 * split deduplication), the final split BTF compared with itself (which
 * must find no difference) and written out as a raw file. The module is
 * linked again with btf__dedup() in node_dedup.c's place: the two must be
 * the same bytes (what tests/dedup-diff.bats holds on chosen inputs).
 *
 * Seeds: tests/fuzz/make-corpus.sh. Run: make fuzz (docs/reliability.md).
 */
#include <bpf/btf.h>

#include "fuzz.h"
#include "util/testing.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_init();
}

/* The link of @in with libbpf's deduplication: the bytes of @btf. */
static void check_libbpf(const char *in, const struct abtf_link_opts *opts,
			 const struct btf *btf)
{
	struct abtf_link_testing t = { .libbpf_dedup = true };
	struct abtf_linker *l;
	const void *a, *b;
	uint32_t na, nb;

	l = abtf_linker__new(in, opts);
	if (l)
		abtf__linker_set_testing(l, &t);
	if (!l || abtf_linker__link(l)) {
		fprintf(stderr, "fuzz harness: the link with btf__dedup() "
			"failed where node_dedup.c's did not\n");
		abort();
	}
	a = btf__raw_data(btf, &na);
	b = btf__raw_data(abtf_linker__btf(l), &nb);
	if (!a || !b || na != nb || memcmp(a, b, na)) {
		fprintf(stderr, "fuzz harness: node_dedup.c's split BTF is "
			"not btf__dedup()'s (%u and %u bytes)\n", na, nb);
		abort();
	}
	abtf_linker__free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char base[PATH_MAX], in[PATH_MAX], out[PATH_MAX];
	struct abtf_link_opts opts = {
		.sz = sizeof(opts),
		.print = fuzz_print,
		.force = true,
		.nr_threads = 1,
	};
	struct abtf_linker *l;
	uint32_t len;

	if (size < 4)
		return 0;
	len = data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24;
	if (len > size - 4)
		return 0;
	opts.base_path = fuzz_write(base, sizeof(base), "base.btf", data + 4,
				    len);
	fuzz_write(in, sizeof(in), "mod.btf", data + 4 + len, size - 4 - len);
	l = abtf_linker__new(in, &opts);
	if (!l)
		goto out;
	if (abtf_linker__link(l) == 0) {
		fuzz_check_self(abtf_linker__btf(l), "split");
		check_libbpf(in, &opts, abtf_linker__btf(l));
		abtf_linker__write_raw(l, fuzz_path(out, sizeof(out),
						    "out.btf"));
	}
	abtf_linker__free(l);
out:
	fuzz_rm("base.btf");
	fuzz_rm("mod.btf");
	fuzz_rm("out.btf");
	return 0;
}
