// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program outside the tree, built with nothing but
 * "pkg-config --cflags --libs libarchive-btf" (tests/ecosystem.bats): it
 * links the BTF archive of FILE through the public API and prints what a
 * test can check, using libbpf's btf__*() on the BTF the library hands out.
 *
 *	use-api FILE	prints "members N", "funcs N" and each FUNC's name
 */
#include <stdio.h>
#include <string.h>

#include <archive_btf.h>
#include <bpf/btf.h>

static void print(enum abtf_print_level level, void *ctx, const char *fmt,
		  va_list args)
{
	if (level != ABTF_WARN)
		return;
	fprintf(stderr, "use-api: error: ");
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	struct abtf_link_opts opts = { .sz = sizeof(opts), .print = print };
	struct abtf_link_stats st = { .sz = sizeof(st) };
	struct abtf_linker *l;
	const struct btf *btf;
	unsigned int id, n;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: use-api FILE\n");
		return 2;
	}
	l = abtf_linker__new(argv[1], &opts);
	if (!l)
		return 1;
	err = abtf_linker__link(l);
	if (err < 0 || abtf_linker__stats(l, &st))
		goto out;
	btf = abtf_linker__btf(l);
	printf("members %zu\nfuncs %zu\n", st.nr_members, st.funcs);
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			printf("func %s\n", btf__name_by_offset(btf, t->name_off));
	}
out:
	abtf_linker__free(l);
	return err < 0 ? 1 : 0;
}
