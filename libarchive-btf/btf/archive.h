/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BTF archive: validated members of a linked .BTF section. */
#ifndef __ABTF_ARCHIVE_H
#define __ABTF_ARCHIVE_H

#include <stdint.h>

#include <linux/btf.h>

#include "util/internal.h"

/* One member: a complete BTF blob inside the section. */
struct abtf_member {
	const uint8_t *data;	/* its first byte, in memory */
	size_t off;		/* in the section */
	size_t size;		/* header + sections, without padding */
	uint32_t hdr_len;
	const uint8_t *types;	/* type section (not necessarily aligned) */
	uint32_t type_len;
	const char *strs;	/* string section */
	uint32_t str_len;
	uint32_t nr_types;
};

/* Members are separated by at most this many zero bytes of padding. */
#define ABTF_MAX_PAD	15

/*
 * In the checks below, @path is where the archive is, as messages name it:
 * "FILE: SECTION" (the section: .BTF, or .debug_btf_archive where a module
 * keeps its archive aside); offsets are in that section.
 */

/*
 * Check the header at the start of a member (at byte @base of the section,
 * @avail bytes left in it) and give the member's size. Errors name @path
 * (above), the member index @idx and the byte offset.
 */
int archive__member_size(const void *hdr, size_t avail, size_t idx, size_t base,
		      const char *path, const struct abtf_printer *pr,
		      size_t *size);
/*
 * The header of a member whose hdr_len passes libbpf 1.1's 24 bytes, all
 * @len of it at @bytes (either byte order): its layout table between the
 * types and the strings, its other fields zero (abtf__btf_header_fault()).
 */
int archive__long_header(const void *bytes, size_t len, size_t idx,
			 size_t base, const char *path,
			 const struct abtf_printer *pr);
/*
 * Check the BTF header @hdr (24 bytes) a compressed member inflates to
 * first, against the @raw_size bytes its own header says it makes, before
 * anything is allocated for them: a member is refused from its first
 * bytes, not after gigabytes of zeros.
 */
int abtf__zmember_head_check(const void *hdr, size_t raw_size, size_t idx,
			     size_t base, const char *path,
			     const struct abtf_printer *pr);
/*
 * Validate a whole member of @size bytes in memory and describe it.
 * @inflated: @data is a compressed member's BTF, inflated; errors give
 * offsets in it, after the compressed member's own offset @base.
 */
int archive__member_check(const void *data, size_t size, size_t idx, size_t base,
		       bool inflated, const char *path,
		       const struct abtf_printer *pr, struct abtf_member *m);
/*
 * The same for @size bytes at @data that start with a member @old that
 * archive__member_check() accepted, byte for byte (its types first, its
 * strings first), with types and strings appended (an extension): only
 * what was added is checked, against all of it. Errors give @old's place.
 */
int archive__member_check_ext(const void *data, size_t size,
			      const struct abtf_member *old, size_t idx,
			      bool inflated, const char *path,
			      const struct abtf_printer *pr,
			      struct abtf_member *m);
/* Describe a member archive__member_check() accepted before. */
void archive__member_describe(const void *data, size_t base, uint32_t nr_types,
			   struct abtf_member *m);
/* Count the zero padding (at most ABTF_MAX_PAD) after member @idx. */
int archive__member_padding(const uint8_t *p, size_t avail, size_t idx,
			 size_t base, const char *path,
			 const struct abtf_printer *pr, size_t *pad);

/* Each type's record offset in checked @types, by ID; malloc()ed. */
uint32_t *abtf__type_offsets(const uint8_t *types, uint32_t nr_types);

/* Size of the BTF type record @t, or 0 for an unknown kind. */
static inline size_t abtf__record_size(const struct btf_type *t)
{
	uint16_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_FWD: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_PTR: case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return sizeof(*t);
	case BTF_KIND_INT:
		return sizeof(*t) + sizeof(uint32_t);
	case BTF_KIND_ARRAY:
		return sizeof(*t) + sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return sizeof(*t) + vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return sizeof(*t) + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return sizeof(*t) + vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return sizeof(*t) + vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(*t) + sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return sizeof(*t) + vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(*t) + sizeof(struct btf_decl_tag);
	default:
		return 0;
	}
}


/*
 * A run of 32-bit fields of one type record: @n fields, the first at @p,
 * each @stride words after the one before. Every kind's type ID fields
 * lie so (the record's own type field, then its members', parameters' or
 * variables' at a fixed stride), and so do the string offsets of its
 * members, enumerators and parameters (the record's name comes first,
 * apart). A loop over a run visits the fields in record order without a
 * call per field: these are the hot loops of the link.
 */
struct abtf_field_run {
	uint32_t *p;
	uint32_t n;
	uint32_t stride;
};

/* The type ID fields of the record at @t (kind-checked), in order. */
static inline struct abtf_field_run abtf__type_id_run(struct btf_type *t)
{
	uint32_t *w = (uint32_t *)t, vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return (struct abtf_field_run){ w + 2, 1, 1 };
	case BTF_KIND_FUNC_PROTO:	/* return type, then each btf_param's */
		return (struct abtf_field_run){ w + 2, vlen + 1, 2 };
	case BTF_KIND_ARRAY:		/* btf_array's type, index_type */
		return (struct abtf_field_run){ w + 3, 2, 1 };
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return (struct abtf_field_run){ w + 4, vlen, 3 };
	case BTF_KIND_DATASEC:
		return (struct abtf_field_run){ w + 3, vlen, 3 };
	default:
		return (struct abtf_field_run){ w, 0, 1 };
	}
}

/* The string offsets after the name of the record at @t, in order. */
static inline struct abtf_field_run abtf__str_off_run(struct btf_type *t)
{
	uint32_t *w = (uint32_t *)t, vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM64:
		return (struct abtf_field_run){ w + 3, vlen, 3 };
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
		return (struct abtf_field_run){ w + 3, vlen, 2 };
	default:
		return (struct abtf_field_run){ w, 0, 1 };
	}
}

typedef int (*abtf_id_fn)(uint32_t *field, void *ctx);

/*
 * Call @fn on every type ID field (or string offset field) of one type
 * record, in order, until it returns non-zero. Inline, so that a static
 * @fn is called directly (or inlined) where the walk is hot.
 */
static inline int abtf__for_each_type_id(struct btf_type *t, abtf_id_fn fn,
					 void *ctx)
{
	struct abtf_field_run r = abtf__type_id_run(t);
	uint32_t i;
	int err;

	for (i = 0; i < r.n; i++)
		if ((err = fn(r.p + (size_t)i * r.stride, ctx)))
			return err;
	return 0;
}

static inline int abtf__for_each_str_off(struct btf_type *t, abtf_id_fn fn,
					 void *ctx)
{
	struct abtf_field_run r = abtf__str_off_run(t);
	uint32_t i;
	int err = fn(&t->name_off, ctx);

	for (i = 0; !err && i < r.n; i++)
		err = fn(r.p + (size_t)i * r.stride, ctx);
	return err;
}

#endif /* __ABTF_ARCHIVE_H */
