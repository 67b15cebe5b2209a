/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __ABTF_FUNC_FACTS_H
#define __ABTF_FUNC_FACTS_H

#include <stdbool.h>

#include "encode/dwarf_read.h"

/* What pahole 1.31 learns from a function's parameters (func_facts.c). */
struct abtf_fn_facts {
	bool optimized_parms;	/* a parameter optimized out or without a location */
	bool unexpected_reg;	/* one not where the calling convention puts it */
	bool reordered;		/* parameters not in their origin's order */
	bool nocall;		/* DW_CC_nocall: the signature was changed */
	bool varargs_differ;	/* "..." in the copy, not its origin, or back */
	bool no_low_pc;		/* code in DW_AT_ranges alone: pahole reads
				 * its address as 0, at no symbol */
};

/*
 * The facts of the DW_TAG_subprogram @fn (with code), for machine
 * @machine (EM_*). 0 or < 0 with *why saying what is wrong in the DWARF.
 */
int abtf__fn_facts(struct dw_file *f, const struct dw_die *fn, int machine,
		   struct abtf_fn_facts *ff, const char **why);

#endif /* __ABTF_FUNC_FACTS_H */
