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
 *    TYPE_TAGs ends at (pahole's pointer then points at its pointee).
 *
 * A pure function of the member and the features: the same at any -j.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "link/linker.h"

/* Does @feats change anything in this member? */
static bool needs_filter(unsigned int feats, const struct input *in)
{
	uint32_t off = 0, id;

	for (id = 1; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + off);

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
static int skip_type_tags(const struct input *in, uint8_t *types,
			  size_t len)
{
	struct tag_skip ts = { .in = in };
	uint32_t *toff = calloc(in->nr_types + 1, sizeof(*toff));
	uint32_t off = 0, id;
	int err = 0;

	if (!toff)
		return -ENOMEM;
	for (id = 1; id <= in->nr_types; id++) {	/* the original's */
		toff[id] = off;
		off += abtf__record_size((const void *)(in->types + off));
	}
	ts.toff = toff;
	for (off = 0, id = 1; !err && id <= in->nr_types && off < len; id++) {
		struct btf_type *t = (void *)(types + off);

		off += abtf__record_size(t);
		if (BTF_INFO_KIND(t->info) != BTF_KIND_TYPE_TAG)
			err = abtf__for_each_type_id(t, skip_tags, &ts);
	}
	free(toff);
	return err;
}

/*
 * Give member @in the shapes of the link's features. *@buf is NULL when
 * nothing changes; otherwise @in->types points into it (the caller frees
 * it after the merge).
 */
int abtf__filter_input(const struct abtf_linker *l, struct input *in,
		       uint8_t **buf)
{
	uint32_t off = 0, id;
	size_t len;
	int err = 0;

	*buf = NULL;
	if (in->kind == IN_CHILD || !needs_filter(l->feats, in))
		return 0;
	len = filtered_len(l->feats, in);
	if (len > UINT32_MAX)
		return -E2BIG;
	*buf = malloc(len ? len : 1);
	if (!*buf)
		return -ENOMEM;
	for (id = 1, len = 0; id <= in->nr_types; id++) {
		const struct btf_type *t = (const void *)(in->types + off);

		off += abtf__record_size(t);
		len += filter_record(l->feats, t, *buf + len);
	}
	if (!(l->feats & ABTF_FEAT_TYPE_TAG))
		err = skip_type_tags(in, *buf, len);
	if (err) {
		free(*buf);
		*buf = NULL;
		return err;
	}
	in->types = *buf;
	in->type_len = len;
	return 0;
}
