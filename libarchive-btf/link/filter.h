/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* filter.c: the link's BTF features applied to each member before its merge. */
#ifndef __ABTF_LINK_FILTER_H
#define __ABTF_LINK_FILTER_H

#include <stdint.h>

struct abtf_linker;
struct input;

int abtf__filter_input(const struct abtf_linker *l, struct input *in,
		       uint8_t **buf);

#endif /* __ABTF_LINK_FILTER_H */
