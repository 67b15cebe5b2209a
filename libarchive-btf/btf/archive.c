// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BTF archive: what the linker makes of every object's .BTF section.
 *
 * An unmodified linker concatenates input sections of the same name, each
 * aligned to its sh_addralign, so an output .BTF is a sequence of complete
 * BTF blobs ("members") with zero padding between them. A member is found
 * from the previous one's end: its header says how long it is (hdr_len, the
 * header itself, 24 bytes today and longer in newer BTF, then the type and
 * string sections at offsets relative to the header's end). Padding is at
 * most ABTF_MAX_PAD zero bytes; a BTF magic never starts with a zero byte.
 *
 * Every member is validated before anything uses it, and each error names
 * the member index and the byte offset in the section: header fields,
 * section bounds, string termination, type record sizes, string offsets,
 * type IDs (all type IDs of a member are member-local, 1..nr_types) and
 * what each DECL_TAG tags.
 * See docs/archive-format.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "btf/archive.h"
#include "btf/verify.h"
#include "btf/layout.h"


struct check {
	const struct abtf_printer *pr;
	const char *path;
	size_t idx;		/* member index */
	size_t base;		/* member offset in the section */
	bool inflated;		/* a compressed member's BTF: offsets in it */
	const uint8_t *types;
	uint32_t type_len;
	const char *strs;
	uint32_t str_len;
	uint32_t nr_types;
	uint32_t nr_decl_tags;
	/* the first record to check, and its ID: what came before was */
	uint32_t from_off, from_id;
};

static int bad(const struct check *c, size_t off, const char *what)
{
	if (c->inflated) {
		pr_warn(c->pr, "%s member %zu at byte %zu: byte %zu of "
			"its inflated BTF: %s", c->path, c->idx, c->base, off,
			what);
		return -EINVAL;
	}
	pr_warn(c->pr, "%s member %zu at byte %zu: byte %zu: %s",
		c->path, c->idx, c->base, c->base + off, what);
	return -EINVAL;
}

/* Pass 1: record sizes and kinds, counting types. */
static int count_types(struct check *c, size_t types_at)
{
	uint32_t off = c->from_off;

	c->nr_types = c->from_id - 1;
	while (off < c->type_len) {
		struct btf_type t;
		size_t sz;

		if (c->type_len - off < sizeof(t))
			return bad(c, types_at + off, "truncated type record");
		memcpy(&t, c->types + off, sizeof(t));
		sz = abtf__record_size(&t);
		if (!sz)
			return bad(c, types_at + off, "unknown BTF kind");
		if (sz > c->type_len - off)
			return bad(c, types_at + off,
				   "type record runs past the type section");
		off += sz;
		c->nr_types++;
		c->nr_decl_tags += BTF_INFO_KIND(t.info) == BTF_KIND_DECL_TAG;
	}
	return 0;
}

/* Every string offset of the record @t inside the string section. */
static bool strs_ok(const struct check *c, const struct btf_type *t)
{
	uint16_t i, vlen = BTF_INFO_VLEN(t->info);
	const struct btf_member *m = (const void *)(t + 1);
	const struct btf_param *p = (const void *)(t + 1);
	const struct btf_enum *e = (const void *)(t + 1);
	const struct btf_enum64 *e64 = (const void *)(t + 1);
	uint32_t len = c->str_len;
	bool ok = t->name_off < len;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; ok && i < vlen; i++)
			ok = m[i].name_off < len;
		return ok;
	case BTF_KIND_ENUM:
		for (i = 0; ok && i < vlen; i++)
			ok = e[i].name_off < len;
		return ok;
	case BTF_KIND_ENUM64:
		for (i = 0; ok && i < vlen; i++)
			ok = e64[i].name_off < len;
		return ok;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; ok && i < vlen; i++)
			ok = p[i].name_off < len;
		return ok;
	default:
		return ok;
	}
}

/* Every type ID of the record @t at most the member's last. */
static bool ids_ok(const struct check *c, const struct btf_type *t)
{
	uint16_t i, vlen = BTF_INFO_VLEN(t->info);
	const struct btf_member *m = (const void *)(t + 1);
	const struct btf_param *p = (const void *)(t + 1);
	const struct btf_var_secinfo *v = (const void *)(t + 1);
	const struct btf_array *a = (const void *)(t + 1);
	uint32_t last = c->nr_types;
	bool ok = true;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return t->type <= last;
	case BTF_KIND_ARRAY:
		return a->type <= last && a->index_type <= last;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; ok && i < vlen; i++)
			ok = m[i].type <= last;
		return ok;
	case BTF_KIND_FUNC_PROTO:
		ok = t->type <= last;
		for (i = 0; ok && i < vlen; i++)
			ok = p[i].type <= last;
		return ok;
	case BTF_KIND_DATASEC:
		for (i = 0; ok && i < vlen; i++)
			ok = v[i].type <= last;
		return ok;
	default:
		return true;
	}
}

/*
 * What a DECL_TAG may tag, as the kernel checks it: a struct or union (the
 * whole, or member @comp), a FUNC (the whole, or parameter @comp of its
 * FUNC_PROTO), a VAR or a TYPEDEF (the whole). NULL if fine, else why not.
 */
static const char *decl_tag_error(const uint8_t *types, const uint32_t *offs,
				  uint32_t nr_types, const struct btf_type *tag)
{
	const struct btf_type *t, *proto;
	int32_t comp;

	memcpy(&comp, tag + 1, sizeof(comp));
	if (!tag->type || tag->type > nr_types)
		return "a DECL_TAG of no type";
	t = (const void *)(types + offs[tag->type]);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (comp >= -1 && comp < (int32_t)BTF_INFO_VLEN(t->info))
			return NULL;
		return "a DECL_TAG's component_idx past its struct's members";
	case BTF_KIND_FUNC:
		if (comp == -1)
			return NULL;
		if (!t->type || t->type > nr_types)
			return "a DECL_TAG of a FUNC without a prototype";
		proto = (const void *)(types + offs[t->type]);
		if (BTF_INFO_KIND(proto->info) == BTF_KIND_FUNC_PROTO &&
		    comp >= 0 && comp < (int32_t)BTF_INFO_VLEN(proto->info))
			return NULL;
		return "a DECL_TAG's component_idx past its function's parameters";
	case BTF_KIND_VAR: case BTF_KIND_TYPEDEF:
		return comp == -1 ? NULL :
		       "a DECL_TAG with a component_idx on a VAR or TYPEDEF";
	default:
		return "a DECL_TAG of a kind that cannot be tagged";
	}
}

/*
 * Each type's offset in @types, by ID (1 to @nr_types; the records checked
 * before): malloc()ed, NULL on ENOMEM.
 */
uint32_t *abtf__type_offsets(const uint8_t *types, uint32_t nr_types)
{
	uint32_t *offs, off = 0, id;

	offs = malloc(((size_t)nr_types + 1) * sizeof(*offs));
	if (!offs)
		return NULL;
	for (id = 1; id <= nr_types; id++) {
		offs[id] = off;
		off += abtf__record_size((const void *)(types + off));
	}
	return offs;
}

static uint32_t *type_offsets(const struct check *c, const uint8_t *types)
{
	return abtf__type_offsets(types, c->nr_types);
}

/* Pass 3, for members with DECL_TAGs: each tags what it may. */
static int check_decl_tags(const struct check *c, const uint8_t *types,
			   size_t types_at)
{
	uint32_t *offs, id;
	const char *why;
	int err = 0;

	offs = type_offsets(c, types);
	if (!offs)
		return -ENOMEM;
	for (id = c->from_id; id <= c->nr_types && !err; id++) {
		const struct btf_type *t = (const void *)(types + offs[id]);

		if (BTF_INFO_KIND(t->info) != BTF_KIND_DECL_TAG)
			continue;
		why = decl_tag_error(types, offs, c->nr_types, t);
		if (why)
			err = bad(c, types_at + offs[id], why);
	}
	free(offs);
	return err;
}

/* 8, or 4 if the member's "long" is 4 bytes (libbpf's guess too). */
static uint32_t member_ptr_size(const struct check *c, const uint8_t *types,
				const uint32_t *offs)
{
	uint32_t id;

	for (id = 1; id <= c->nr_types; id++) {
		const struct btf_type *t = (const void *)(types + offs[id]);
		const char *n = c->strs + t->name_off;

		if (BTF_INFO_KIND(t->info) == BTF_KIND_INT &&
		    (!strcmp(n, "long int") || !strcmp(n, "long unsigned int")))
			return t->size == 4 ? 4 : 8;
	}
	return 8;
}

/*
 * Pass 4: the kernel's rules (verify.c), so that no member libbpf is
 * handed breaks what its dedup takes for granted (a FWD's type is 0, ...)
 * and the error names the member and the type.
 */
static int verify_member(const struct check *c, const uint8_t *types,
			 size_t types_at)
{
	struct abtf_vsrc src = {
		.types = types, .strs = c->strs, .str_len = c->str_len,
		.start_id = c->from_id, .nr_types = c->nr_types - c->from_id + 1,
		.member = true,
	};
	struct abtf_vfault f;
	uint32_t *offs;
	char msg[512];
	int err;

	offs = type_offsets(c, types);
	if (!offs)
		return -ENOMEM;
	src.offs = offs;
	src.ptr_size = member_ptr_size(c, types, offs);
	err = abtf__verify(&src, &f);
	if (err == -EINVAL) {
		abtf__vfault_str(&src, &f, msg, sizeof(msg));
		err = bad(c, types_at + offs[f.id], msg);
	}
	free(offs);
	return err;
}

/* Pass 2: every string offset and type ID in range. */
static int check_refs(struct check *c, size_t types_at)
{
	const uint8_t *types = c->types;
	uint8_t *copy = NULL;
	uint32_t off = c->from_off, id = c->from_id;
	int err = 0;

	if ((uintptr_t)types % 4) {	/* records are read in place if aligned */
		copy = malloc(c->type_len ? c->type_len : 1);
		if (!copy)
			return -ENOMEM;
		types = memcpy(copy, c->types, c->type_len);
	}
	while (off < c->type_len) {
		const struct btf_type *t = (const void *)(types + off);

		if (!strs_ok(c, t)) {
			err = bad(c, types_at + off,
				  "string offset past the string section");
			break;
		}
		if (!ids_ok(c, t)) {
			char msg[80];

			snprintf(msg, sizeof(msg),
				 "type [%u] refers to a type ID past the last (%u)",
				 id, c->nr_types);
			err = bad(c, types_at + off, msg);
			break;
		}
		off += abtf__record_size(t);
		id++;
	}
	if (!err && c->nr_decl_tags)
		err = check_decl_tags(c, types, types_at);
	if (!err)
		err = verify_member(c, types, types_at);
	free(copy);
	return err;
}

static int check_header(struct check *c, const struct btf_header *hdr,
			size_t avail, size_t *size)
{
	uint64_t end;

	if (hdr->magic != BTF_MAGIC) {
		if (hdr->magic == 0x9feb)
			return bad(c, 0, "BTF of the other byte order than its file's");
		return bad(c, 0, "bad BTF magic");
	}
	if (hdr->version != BTF_VERSION)
		return bad(c, 2, "unsupported BTF version");
	if (hdr->flags)
		return bad(c, 3, "unsupported BTF flags");
	if (hdr->hdr_len < sizeof(*hdr) || hdr->hdr_len > avail)
		return bad(c, 4, "bad header length");
	if (hdr->type_off % 4 || hdr->type_len % 4)
		return bad(c, 8, "misaligned type section");
	if ((uint64_t)hdr->type_off + hdr->type_len > hdr->str_off)
		return bad(c, 8, "type section overlaps the string section");
	end = (uint64_t)hdr->hdr_len + hdr->str_off + hdr->str_len;
	if (end > avail)
		return bad(c, 16, "member runs past the end of the section");
	if (!hdr->str_len)
		return bad(c, hdr->hdr_len + hdr->str_off, "empty string section");
	*size = end;
	return 0;
}

int archive__member_size(const void *hdr, size_t avail, size_t idx, size_t base,
		      const char *path, const struct abtf_printer *pr,
		      size_t *size)
{
	struct check c = { .pr = pr, .path = path, .idx = idx, .base = base };
	struct btf_header h;

	if (avail < sizeof(h))
		return bad(&c, 0, "truncated BTF header");
	memcpy(&h, hdr, sizeof(h));
	return check_header(&c, &h, avail, size);
}

int archive__long_header(const void *bytes, size_t len, size_t idx,
			  size_t base, const char *path,
			  const struct abtf_printer *pr)
{
	struct check c = { .pr = pr, .path = path, .idx = idx, .base = base };
	size_t at;
	const char *why = abtf__btf_header_fault(bytes, len, &at);

	return why ? bad(&c, at, why) : 0;
}

int abtf__zmember_head_check(const void *hdr, size_t raw_size, size_t idx,
			     size_t base, const char *path,
			     const struct abtf_printer *pr)
{
	struct check c = { .pr = pr, .path = path, .idx = idx, .base = base,
			   .inflated = true };
	struct btf_header h;
	size_t end;
	int err;

	memcpy(&h, hdr, sizeof(h));
	err = check_header(&c, &h, raw_size, &end);
	if (err || end == raw_size)
		return err;
	pr_warn(pr, "%s member %zu at byte %zu: its header says %zu "
		"bytes inflated, of which its BTF header covers %zu", path,
		idx, base, raw_size, end);
	return -EINVAL;
}

/* A member validated before: where its sections are. */
static void describe(const uint8_t *p, const struct btf_header *hdr,
		     size_t base, size_t end, uint32_t nr_types,
		     struct abtf_member *m)
{
	m->data = p;
	m->off = base;
	m->size = end;
	m->hdr_len = hdr->hdr_len;
	m->types = p + hdr->hdr_len + hdr->type_off;
	m->type_len = hdr->type_len;
	m->strs = (const char *)p + hdr->hdr_len + hdr->str_off;
	m->str_len = hdr->str_len;
	m->nr_types = nr_types;
}

void archive__member_describe(const void *data, size_t base, uint32_t nr_types,
			   struct abtf_member *m)
{
	struct btf_header hdr;

	memcpy(&hdr, data, sizeof(hdr));
	describe(data, &hdr, base,
		 (size_t)hdr.hdr_len + hdr.str_off + hdr.str_len, nr_types, m);
}

/* Validate @data as a member from record c->from_off (type c->from_id) on. */
static int member_check_from(struct check *c, const void *data, size_t size,
			     uint32_t old_str_len, struct abtf_member *m)
{
	const uint8_t *p = data;
	struct btf_header hdr;
	size_t end, types_at;
	int err;

	if (size < sizeof(hdr))
		return bad(c, 0, "truncated BTF header");
	memcpy(&hdr, p, sizeof(hdr));
	err = check_header(c, &hdr, size, &end);
	if (err)
		return err;
	if (p[hdr.hdr_len + hdr.str_off] || p[end - 1])
		return bad(c, hdr.hdr_len + hdr.str_off,
			   "string section not NUL-delimited");
	if (c->from_off > hdr.type_len || old_str_len > hdr.str_len)
		return bad(c, 8, "shorter than the member it extends");
	types_at = hdr.hdr_len + hdr.type_off;
	c->types = p + types_at;
	c->type_len = hdr.type_len;
	c->strs = (const char *)p + hdr.hdr_len + hdr.str_off;
	c->str_len = hdr.str_len;
	err = count_types(c, types_at);
	if (!err)
		err = check_refs(c, types_at);
	if (err)
		return err;
	describe(p, &hdr, c->base, end, c->nr_types, m);
	return 0;
}

int archive__member_check(const void *data, size_t size, size_t idx, size_t base,
		       bool inflated, const char *path,
		       const struct abtf_printer *pr, struct abtf_member *m)
{
	struct check c = { .pr = pr, .path = path, .idx = idx, .base = base,
			   .inflated = inflated, .from_id = 1 };

	return member_check_from(&c, data, size, 0, m);
}

int archive__member_check_ext(const void *data, size_t size,
			      const struct abtf_member *old, size_t idx,
			      bool inflated, const char *path,
			      const struct abtf_printer *pr,
			      struct abtf_member *m)
{
	struct check c = { .pr = pr, .path = path, .idx = idx,
			   .base = old->off, .inflated = inflated,
			   .from_off = old->type_len,
			   .from_id = old->nr_types + 1 };

	if (old->nr_types == UINT32_MAX)
		return bad(&c, 8, "too many types");
	return member_check_from(&c, data, size, old->str_len, m);
}

int archive__member_padding(const uint8_t *p, size_t avail, size_t idx,
			 size_t base, const char *path,
			 const struct abtf_printer *pr, size_t *pad)
{
	size_t n = 0;

	while (n < avail && !p[n])
		n++;
	if (n > ABTF_MAX_PAD) {
		pr_warn(pr, "%s: byte %zu: %zu zero bytes after member "
			"%zu: not alignment padding", path, base, n, idx);
		return -EINVAL;
	}
	*pad = n;
	return 0;
}
