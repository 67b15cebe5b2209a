/* SPDX-License-Identifier: GPL-2.0-only */
/* Links through the library for the dedup tests (tests/dedup/). */
#ifndef TEST_LINK_H
#define TEST_LINK_H

#include <stdbool.h>
#include <stddef.h>

struct abtf_linker;

/*
 * Link @path (on @base, or NULL) through libarchive-btf: btf-link's
 * default, or with @reference the link with every step before or instead
 * of btf__dedup() off (no exact.c, btf__dedup() at the root: the switches
 * of util/testing.h); @leaf_bytes as abtf_link_opts.leaf_bytes. Warnings
 * go to stderr, after @path. NULL on failure.
 */
struct abtf_linker *test_link(const char *path, const char *base,
			      bool reference, size_t leaf_bytes);

#endif
