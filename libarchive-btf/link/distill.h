/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Distilled base BTF (distill.c): the distilled_base feature.
 */
#ifndef __ABTF_DISTILL_H
#define __ABTF_DISTILL_H

#include "util/internal.h"

struct btf;

/* The section of a module's distilled base, beside its .BTF. */
#define ABTF_SEC_BTF_BASE	".BTF.base"

/*
 * The distilled base of the split BTF @src (whose base is vmlinux's) in
 * *@base, and @src again in *@split, split on it, renumbered: what
 * libbpf's btf__distill_base() makes. Both are the caller's to free.
 * Returns 0, or a negative errno after a message through @pr naming @path.
 */
int abtf__distill_base(const struct btf *src, struct btf **base,
		       struct btf **split, const struct abtf_printer *pr,
		       const char *path);

#endif /* __ABTF_DISTILL_H */
