// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* DWARF -> BTF encoder: placeholder until the real encoder lands. */
#include <errno.h>
#include "internal.h"

ABTF_API struct abtf_encoder *
abtf_encoder__new(const char *path, const struct abtf_encode_opts *opts)
{
	errno = EOPNOTSUPP;
	return NULL;
}

ABTF_API void abtf_encoder__free(struct abtf_encoder *enc) {}
ABTF_API int abtf_encoder__encode(struct abtf_encoder *enc) { return -EOPNOTSUPP; }
ABTF_API const struct btf *abtf_encoder__btf(const struct abtf_encoder *enc) { return NULL; }
ABTF_API int abtf_encoder__write_object(struct abtf_encoder *enc, const char *dst) { return -EOPNOTSUPP; }
ABTF_API int abtf_encoder__write_raw(struct abtf_encoder *enc, const char *dst) { return -EOPNOTSUPP; }
