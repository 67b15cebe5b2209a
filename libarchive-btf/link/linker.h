/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The state of one link (struct abtf_linker), which every file of link/
 * reads: the options, and each phase's part of the state, a type of its
 * own declared in the header named for the file that owns it (input.h:
 * link_file; symbols.h: link_symbols; plan.h: link_plan; funcs.h:
 * func_rules; kfuncs.h: kfunc_list), made, reset and freed by its owner's
 * functions; no file frees another's. The phases' functions are declared
 * in their own headers, named for their files (see the essay atop
 * linker.c, "The files, by phase"); node.h is a merge tree node's.
 */
#ifndef __ABTF_LINKER_H
#define __ABTF_LINKER_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <bpf/btf.h>

#include "btf/archive.h"
#include "util/testing.h"
#include "link/funcs.h"
#include "link/input.h"
#include "link/kfuncs.h"
#include "link/plan.h"
#include "link/symbols.h"

/*
 * A link: each part is made by its owner (the file named) and freed by
 * its owner's function from abtf_linker__free(). The options, file,
 * symbols, plan, kfuncs and function rules are frozen once planning is
 * done (linker.c's plan()): the leaves and levels read them from every
 * thread. One exception: a leaf notes its own members' mplan.nr_types
 * once it validated them.
 */
struct abtf_linker {
	/* linker.c, at abtf_linker__new(): frozen from then on */
	char *path;
	char *where;	/* "PATH: SECTION": the archive, in messages */
	struct abtf_link_opts opts;
	struct abtf_link_testing testing;	/* util/testing.h: set before the link */
	struct abtf_printer pr;
	unsigned int feats;	/* ABTF_FEAT_* the link does */

	struct link_file file;	/* input.c */
	struct link_symbols sym;	/* symbols.c */
	struct link_plan plan;	/* plan.c, place.c */
	struct kfunc_list kfuncs;	/* kfuncs.c (decl_tag_kfuncs) */
	struct func_rules fn_rules;	/* funcs.c (optimized_func...) */

	struct btf *base;	/* linker.c: --base, loaded before planning */
	/* the result: the root's (merge_tree.c), or the input (linker.c) */
	struct btf *btf;
	bool final_input;	/* linker.c: the input was final BTF already */
	/* each phase adds its own figures; place.c reads its own back */
	struct abtf_link_stats st;
};

/* The index of member @mp of the plan. */
static inline size_t abtf__member_idx(const struct abtf_linker *l,
				      const struct mplan *mp)
{
	return mp - l->plan.members;
}

/* The input's byte order: the final BTF is written in it. */
static inline enum btf_endianness
abtf__link_endianness(const struct abtf_linker *l)
{
	enum btf_endianness h = abtf__host_endianness();

	if (!l->file.swapped)
		return h;
	return h == BTF_LITTLE_ENDIAN ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN;
}

/* A leaf merges about this many bytes of members; a node this many inputs. */
#ifndef ABTF_LEAF_BYTES
#define ABTF_LEAF_BYTES	(16u << 20)
#endif
/*
 * The root merges every leaf: below it, a type that reaches a FWD is
 * never merged (docs/design.md, "one meaning"), so a level between the
 * leaves and the root copied most of its input up again (the 6.12 test
 * image: 1.1 s at level 1, 673,000 types passed up).
 */
#ifndef ABTF_FAN_IN
#define ABTF_FAN_IN	4096
#endif

static inline double abtf__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int abtf__link_error(struct abtf_linker *l, int err,
				   const char *what)
{
	pr_warn(&l->pr, "%s: %s", l->path, what);
	return err;
}

static inline int abtf__link_elf_fail(struct abtf_linker *l, const char *what)
{
	pr_warn(&l->pr, "%s: %s: %s", l->path, what, elf_errmsg(-1));
	return -EINVAL;
}

#endif /* __ABTF_LINKER_H */
