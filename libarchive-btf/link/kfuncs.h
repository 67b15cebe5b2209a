/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* kfuncs.c: the image's kfuncs (.BTF_ids), for decl_tag_kfuncs. */
#ifndef __ABTF_LINK_KFUNCS_H
#define __ABTF_LINK_KFUNCS_H

#include <stddef.h>
#include <stdint.h>

struct abtf_linker;

/* A kfunc of the image's .BTF_ids (kfuncs.c). */
struct kfunc {
	char *name;
	uint32_t flags;		/* its KF_* flags */
	size_t sym;		/* the symbol it came from */
};

/* kfuncs.c's: the image's kfuncs, by name, one each; frozen once collected. */
struct kfunc_list {
	struct kfunc *v;
	size_t nr, cap;
};

/* Fill l->kfuncs from the image's .BTF_ids. */
int abtf__collect_kfuncs(struct abtf_linker *l);
void abtf__free_kfuncs(struct kfunc_list *kl);
const struct kfunc *abtf__find_kfunc(const struct kfunc_list *kl,
				     const char *name);
int abtf__kfunc_tags(const struct kfunc *k, const char **tags);

#endif /* __ABTF_LINK_KFUNCS_H */
