/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * place.c: where each member's FUNCs and VARs are (struct place): pairing
 * members with their .debug_btf_addr groups, a group's optimized_func
 * extension, the VARs of members without a group placed by name.
 */
#ifndef __ABTF_LINK_PLACE_H
#define __ABTF_LINK_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct abtf_linker;
struct abtf_member;
struct abtf_printer;
struct abtf_rbuf;
struct input;
struct mplan;
struct node;

/* Where one VAR goes; !present: nowhere (dropped). */
struct place {
	bool present;
	uint32_t key;		/* section index (raw input: DATASEC name's strtab offset) */
	uint64_t off;
	uint32_t size;
	/* raw input: the member DATASEC's name (in a node: its own copy) and size */
	const char *dsec_name;
	uint32_t dsec_size;
};

int place__link(struct abtf_linker *l, struct node *leaves, size_t nr);
int place__member_extend(struct abtf_linker *l, const struct abtf_printer *pr,
			size_t i, const struct abtf_member *m, uint8_t **buf,
			struct abtf_member *xm);
/* The same whatever the features (explain: clones optimized_func leaves). */
int place__member_extend_any(struct abtf_linker *l,
			    const struct abtf_printer *pr, size_t i,
			    const struct abtf_member *m, uint8_t **buf,
			    struct abtf_member *xm);
typedef int (*abtf_member_fn_t)(const struct input *in, uint32_t nr_slots,
				void *ctx);
int place__with_member(struct abtf_linker *l, const struct abtf_printer *pr,
		       size_t i, bool any_ext, struct abtf_rbuf *rb,
		       abtf_member_fn_t fn, void *ctx);
/* Slot @k of member @mp: where its FUNC or VAR is. */
int place__slot(const struct abtf_linker *l, const struct mplan *mp,
		uint32_t k, struct place *pl);
int place__func_present(struct abtf_linker *l, const struct input *in,
		       uint32_t slot, const char *name);
/*
 * The same, saying why not: ABTF_EXPLAIN_KEPT (0) if it is there,
 * ABTF_EXPLAIN_DISCARDED, _RENAMED or _NO_SYMBOL if not, < 0 error.
 */
int place__func_placed(struct abtf_linker *l, const struct input *in,
		      uint32_t slot, const char *name);

#endif /* __ABTF_LINK_PLACE_H */
