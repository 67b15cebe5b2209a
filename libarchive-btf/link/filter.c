// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BTF features at link time: what a member's types become when the link
 * leaves a feature out (docs/design.md, "BTF features").
 *
 * cc-btf always encodes the most it can; btf-link gives the BTF the shape
 * pahole gives it without the feature. The shapes change member by member,
 * in the leaves, before anything is compared or deduplicated, so that
 * every merge and every dedup up the tree sees only final shapes (a FLOAT
 * turned INT at the root would meet types that its FLOAT kept apart below,
 * and exact.c would have mapped by the wrong shapes). Type IDs do not
 * change here: a record changes kind in place, and a type that goes away
 * (TYPE_TAG) stays in the buffer, unreferenced, for merge.c's decide() to
 * drop, along with DECL_TAGs and VARs, which nothing refers to.
 *
 *  - float off: FLOAT 'name' size N -> INT 'name' size N, N * 8 bits,
 *    no encoding (pahole's "compatibility mode", btf_encoder.c);
 *  - enum64 off: ENUM64 -> ENUM of the same size with each value's low
 *    32 bits, and every enum unsigned (kind_flag 0): pahole passes each
 *    value to libbpf as a u32 then;
 *  - type_tag off: every reference to a TYPE_TAG goes to what the chain of
 *    TYPE_TAGs ends at (pahole's pointer then points at its pointee);
 *  - flat arrays (--flat_arrays, pahole before 1.32): an ARRAY of ARRAYs
 *    becomes one ARRAY of the product of the counts, of the innermost
 *    element (int a[2][3]: ARRAY(6) of int); an inner ARRAY that only
 *    outer ones referred to is unreferenced then, and in->gone has it
 *    dropped, since pahole 1.31 never made it.
 *
 * A pure function of the member and the features: the same at any -j.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/filter.h"

/* The record of type @id of @in, by the offsets @toff. */
static const struct btf_type *type_at(const struct input *in,
				      const uint32_t *toff, uint32_t id)
{
	return (const void *)(in->types + toff[id]);
}

/* Is @t an ARRAY of an ARRAY (of @in, @toff)? */
static bool nested_array(const struct input *in, const uint32_t *toff,
			 const struct btf_type *t)
{
	const struct btf_array *a = (const void *)(t + 1);

	return BTF_INFO_KIND(t->info) == BTF_KIND_ARRAY &&
	       a->type && a->type <= in->nr_types &&
	       BTF_INFO_KIND(type_at(in, toff, a->type)->info) ==
	       BTF_KIND_ARRAY;
}

/*
 * Does the link's shape (@feats, @flat) change anything in this member?
 * @toff: its types' offsets, read with @flat only.
 */
static bool needs_filter(unsigned int feats, bool flat,
			 const struct input *in, const uint32_t *toff)
{
	uint32_t off = 0, id;

	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + off);

		if (flat && nested_array(in, toff, t))
			return true;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_FLOAT:
			if (!(feats & ABTF_FEAT_FLOAT))
				return true;
			break;
		case BTF_KIND_ENUM64:
			if (!(feats & ABTF_FEAT_ENUM64))
				return true;
			break;
		case BTF_KIND_ENUM:
			if (!(feats & ABTF_FEAT_ENUM64) &&
			    BTF_INFO_KFLAG(t->info))
				return true;
			break;
		case BTF_KIND_TYPE_TAG:
			if (!(feats & ABTF_FEAT_TYPE_TAG))
				return true;
			break;
		}
		off += abtf__record_size(t);
	}
	return false;
}

/* The size of the member's types once filtered. */
static size_t filtered_len(unsigned int feats, const struct input *in)
{
	uint32_t off = 0, id;
	size_t len = 0;

	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + off);
		size_t sz = abtf__record_size(t);

		if (BTF_INFO_KIND(t->info) == BTF_KIND_FLOAT &&
		    !(feats & ABTF_FEAT_FLOAT))
			len += sizeof(*t) + sizeof(uint32_t);
		else if (BTF_INFO_KIND(t->info) == BTF_KIND_ENUM64 &&
			 !(feats & ABTF_FEAT_ENUM64))
			len += sizeof(*t) +
			       BTF_INFO_VLEN(t->info) * sizeof(struct btf_enum);
		else
			len += sz;
		off += sz;
	}
	return len;
}

/* Write @t as pahole writes it without the features, at @dst. */
static size_t filter_record(unsigned int feats, const struct btf_type *t,
			    uint8_t *dst)
{
	struct btf_type *d = (void *)dst;
	size_t sz = abtf__record_size(t);
	uint16_t vlen = BTF_INFO_VLEN(t->info), i;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_FLOAT:
		if (feats & ABTF_FEAT_FLOAT)
			break;
		*d = *t;
		d->info = BTF_KIND_INT << 24;
		*(uint32_t *)(d + 1) = t->size * 8;	/* BTF_INT_ENC(0, 0, bits) */
		return sizeof(*d) + sizeof(uint32_t);
	case BTF_KIND_ENUM64:
		if (feats & ABTF_FEAT_ENUM64)
			break;
		*d = *t;
		d->info = (BTF_KIND_ENUM << 24) | vlen;
		for (i = 0; i < vlen; i++) {
			const struct btf_enum64 *s = (const void *)(t + 1);
			struct btf_enum *e = (void *)(d + 1);

			e[i].name_off = s[i].name_off;
			e[i].val = s[i].val_lo32;
		}
		return sizeof(*d) + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM:
		if (feats & ABTF_FEAT_ENUM64)
			break;
		memcpy(d, t, sz);
		d->info = (BTF_KIND_ENUM << 24) | vlen;
		return sz;
	}
	memcpy(d, t, sz);
	return sz;
}

struct tag_skip {
	const struct input *in;
	const uint32_t *toff;
};

/* Follow a chain of TYPE_TAGs from @id to the type it ends at. */
static int skip_tags(uint32_t *id, void *ctx)
{
	const struct tag_skip *ts = ctx;
	uint32_t steps;

	for (steps = 0; *id && *id <= ts->in->nr_types; steps++) {
		const struct btf_type *t =
			(const void *)(ts->in->types + ts->toff[*id]);

		if (BTF_INFO_KIND(t->info) != BTF_KIND_TYPE_TAG)
			return 0;
		if (steps >= ts->in->nr_types)
			return -ELOOP;
		*id = t->type;
	}
	return *id > ts->in->nr_types ? -EINVAL : 0;
}

/* Rewrite every reference to a TYPE_TAG in the filtered types @types. */
static int skip_type_tags(const struct input *in, const uint32_t *toff,
			  uint8_t *types, size_t len)
{
	struct tag_skip ts = { .in = in, .toff = toff };
	uint32_t off, id;
	int err = 0;

	for (off = 0, id = 1; !err && id <= in->nr_types && off < len; id++) {
		struct btf_type *t = (void *)(types + off);

		off += abtf__record_size(t);
		if (BTF_INFO_KIND(t->info) != BTF_KIND_TYPE_TAG)
			err = abtf__for_each_type_id(t, skip_tags, &ts);
	}
	return err;
}

/* The offset of each type of @in's @types (@len bytes), by ID. */
static uint32_t *type_offsets(const struct input *in, const uint8_t *types,
			      size_t len)
{
	uint32_t *toff = calloc((size_t)in->nr_types + 1, sizeof(*toff));
	uint32_t off = 0, id;

	for (id = 1; toff && id <= in->nr_types && off < len; id++) {
		toff[id] = off;
		off += abtf__record_size((const void *)(types + off));
	}
	return toff;
}

struct flat {
	const struct input *in;
	uint8_t *types;		/* the filtered types */
	const uint32_t *toff;	/* their offsets */
	uint8_t *gone;		/* a byte per type ID */
};

static struct btf_type *flat_type(const struct flat *f, uint32_t id)
{
	return (void *)(f->types + f->toff[id]);
}

/* Is type @id of the member an ARRAY? */
static bool is_array(const struct flat *f, uint32_t id)
{
	return id && id <= f->in->nr_types &&
	       BTF_INFO_KIND(flat_type(f, id)->info) == BTF_KIND_ARRAY;
}

/*
 * ARRAY @t as one ARRAY: the product of the counts down its chain of
 * ARRAYs, of the first element that is none. An inner ARRAY flattened
 * already holds its own chain's product: any order gives the same.
 */
static int flatten(const struct flat *f, struct btf_type *t)
{
	struct btf_array *a = (void *)(t + 1);
	uint64_t nelems = a->nelems;
	uint32_t elem = a->type, steps;

	for (steps = 0; is_array(f, elem); steps++) {
		const struct btf_array *e = (const void *)(flat_type(f, elem) + 1);

		if (steps >= f->in->nr_types)
			return -ELOOP;
		nelems *= e->nelems;
		if (nelems > UINT32_MAX)
			return -E2BIG;	/* BTF's nelems has 32 bits */
		elem = e->type;
	}
	a->nelems = nelems;
	a->type = elem;
	return 0;
}

/* A type that a type other than an ARRAY refers to stays. */
static int still_used(uint32_t *id, void *ctx)
{
	const struct flat *f = ctx;

	if (*id && *id <= f->in->nr_types)
		f->gone[*id] = 0;
	return 0;
}

/*
 * --flat_arrays: every ARRAY of ARRAYs in the filtered @types made one
 * ARRAY; an inner ARRAY that nothing but ARRAYs referred to is gone.
 */
static int flatten_arrays(const struct input *in, uint8_t *types,
			  size_t len, uint8_t *gone)
{
	struct flat f = { .in = in, .types = types, .gone = gone };
	uint32_t *toff = type_offsets(in, types, len), id;
	int err = 0;

	if (!toff)
		return -ENOMEM;
	f.toff = toff;
	memset(gone, 0, (size_t)in->nr_types + 1);
	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_array *a = (const void *)(flat_type(&f, id) + 1);

		if (is_array(&f, id) && is_array(&f, a->type))
			gone[a->type] = 1;
	}
	for (id = 1; !err && id <= in->nr_types; id++)
		if (is_array(&f, id))
			err = flatten(&f, flat_type(&f, id));
	for (id = 1; !err && id <= in->nr_types; id++)
		if (!is_array(&f, id))
			err = abtf__for_each_type_id(flat_type(&f, id),
						     still_used, &f);
	free(toff);
	return err;
}

/*
 * Give member @in the shapes of the link's features and of --flat_arrays.
 * *@buf is NULL when nothing changes; otherwise @in->types (and with
 * --flat_arrays @in->gone) point into it (the caller frees it after the
 * merge).
 */
int abtf__filter_input(const struct abtf_linker *l, struct input *in,
		       uint8_t **buf)
{
	bool flat = l->opts.flat_arrays;
	uint32_t off = 0, id, *toff = NULL;
	size_t len, gone_at;
	int err = 0;

	*buf = NULL;
	if (in->kind == IN_CHILD)
		return 0;
	/* the member's offsets, only for what reads types by ID */
	if (flat || !(l->feats & ABTF_FEAT_TYPE_TAG)) {
		toff = type_offsets(in, in->types, in->type_len);
		if (!toff)
			return -ENOMEM;
	}
	if (!needs_filter(l->feats, flat, in, toff))
		goto out;
	len = filtered_len(l->feats, in);
	gone_at = flat ? (len + 3) & ~(size_t)3 : len;
	err = -E2BIG;
	if (len > UINT32_MAX)
		goto out;
	err = -ENOMEM;
	*buf = malloc(gone_at + (flat ? (size_t)in->nr_types + 1 : 1));
	if (!*buf)
		goto out;
	for (id = 1, len = 0; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + off);

		off += abtf__record_size(t);
		len += filter_record(l->feats, t, *buf + len);
	}
	err = 0;
	if (!(l->feats & ABTF_FEAT_TYPE_TAG))
		err = skip_type_tags(in, toff, *buf, len);
	if (!err && flat)
		err = flatten_arrays(in, *buf, len, *buf + gone_at);
	if (err) {
		free(*buf);
		*buf = NULL;
		goto out;
	}
	in->types = *buf;
	in->type_len = len;
	in->gone = flat ? *buf + gone_at : NULL;
out:
	free(toff);
	return err;
}
