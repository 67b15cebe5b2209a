/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BTF archive: validated members of a linked .BTF section. */
#ifndef __ABTF_ARCHIVE_H
#define __ABTF_ARCHIVE_H

#include <stdint.h>

#include "internal.h"

struct btf_type;

/* One member: a complete BTF blob inside the section. */
struct abtf_member {
	size_t off;		/* in the section */
	size_t size;		/* header + sections, without padding */
	uint32_t hdr_len;
	const uint8_t *types;	/* type section (not necessarily aligned) */
	uint32_t type_len;
	const char *strs;	/* string section */
	uint32_t str_len;
	uint32_t nr_types;
};

struct abtf_archive {
	struct abtf_member *members;
	size_t nr, cap;
};

/*
 * Walk and validate the members of the .BTF data @data of @size bytes.
 * Errors name @path, the member index and the byte offset. The members
 * point into @data, which must outlive @ar.
 */
int abtf__archive_parse(struct abtf_archive *ar, const void *data, size_t size,
			const char *path, const struct abtf_printer *pr);
void abtf__archive_free(struct abtf_archive *ar);

/* Size of the BTF type record @t, or 0 for an unknown kind. */
size_t abtf__record_size(const struct btf_type *t);

typedef int (*abtf_id_fn)(uint32_t *field, void *ctx);

/* Visit every type ID field (or string offset field) of one type record. */
int abtf__for_each_type_id(struct btf_type *t, abtf_id_fn fn, void *ctx);
int abtf__for_each_str_off(struct btf_type *t, abtf_id_fn fn, void *ctx);

#endif /* __ABTF_ARCHIVE_H */
