// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Semantic BTF comparison: placeholder until the real one lands. */
#include <errno.h>
#include "internal.h"

ABTF_API int abtf_btf__compare(const struct btf *a, const struct btf *b,
			       const struct abtf_compare_opts *opts)
{
	return -EOPNOTSUPP;
}
