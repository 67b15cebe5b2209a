/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* BTF features (features.c): what a link honours. Not installed. */
#ifndef __ABTF_BTF_FEATURES_H
#define __ABTF_BTF_FEATURES_H

#include "util/internal.h"

/*
 * The features a link honours, on or off. reproducible_build is always
 * true of btf-link's output; decl_tag_kfuncs is kfuncs.c's, the others
 * filter.c's and merge.c's,
 * optimized_func and consistent_func funcs.c's, distilled_base distill.c's.
 */
#define ABTF_FEATS_SUPPORTED						\
	(ABTF_FEAT_ENCODE_FORCE | ABTF_FEAT_VAR | ABTF_FEAT_FLOAT |		\
	 ABTF_FEAT_DECL_TAG | ABTF_FEAT_TYPE_TAG | ABTF_FEAT_ENUM64 |	\
	 ABTF_FEAT_DECL_TAG_KFUNCS | ABTF_FEAT_REPRODUCIBLE_BUILD |	\
	 ABTF_FEAT_OPTIMIZED_FUNC | ABTF_FEAT_CONSISTENT_FUNC |		\
	 ABTF_FEAT_DISTILLED_BASE | ABTF_FEAT_LAYOUT)

int abtf__link_features(unsigned int asked, const struct abtf_printer *pr,
			const char *path, unsigned int *feats);

#endif /* __ABTF_BTF_FEATURES_H */
