// SPDX-License-Identifier: GPL-2.0-only
/* Links through the library for the dedup tests: test_link.h. */
#include <stdio.h>

#include <bpf/btf.h>

#include "archive_btf.h"
#include "util/testing.h"
#include "test_link.h"

static void print(enum abtf_print_level level, void *ctx, const char *fmt,
		  va_list ap)
{
	if (level != ABTF_WARN)
		return;
	fprintf(stderr, "%s: ", (const char *)ctx);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

struct abtf_linker *test_link(const char *path, const char *base,
			      bool reference, size_t leaf_bytes)
{
	LIBBPF_OPTS(abtf_link_opts, opts, .print = print,
		    .print_ctx = (void *)path,
		    .base_path = base, .leaf_bytes = leaf_bytes,
		    .force = true);
	struct abtf_link_testing t = {
		.no_exact = reference,
		.libbpf_dedup = reference,
	};
	struct abtf_linker *l = abtf_linker__new(path, &opts);

	if (l)
		abtf__linker_set_testing(l, &t);
	if (l && abtf_linker__link(l)) {
		abtf_linker__free(l);
		return NULL;
	}
	return l;
}
