// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder's intermediate representation (struct ir, ir.h): the
 * type nodes and their items, the map from a type DIE's offset to its
 * node, and the emission of the deduplicated nodes as raw BTF. What fills
 * it is dwarf_types.c (DWARF type DIEs -> nodes); what deduplicates it,
 * ir_dedup.c. Its owner: nothing else touches the arrays.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "encode/ir.h"
#include "btf/verify.h"

/* ---- nodes and items ---- */

void ir__init(struct ir *ir, const char *path, const struct abtf_printer *pr)
{
	memset(ir, 0, sizeof(*ir));
	ir->path = path;
	ir->pr = pr;
}

void ir__fini(struct ir *ir)
{
	free(ir->nodes);
	free(ir->items);
	abtf__hmap_free(&ir->map.index);
	free(ir->map.ents);
	free(ir->out);
	free(ir->kept);
	free(ir->scratch);
	free(ir->decl_tags);
	free(ir->pending);
	abtf__strtab_free(&ir->strs);
	memset(ir, 0, sizeof(*ir));
}

int ir__add_node(struct ir *ir, const struct ir_node *node)
{
	if (abtf_grow(ir->nodes, ir->cap_nodes, ir->nr_nodes + 1))
		return -ENOMEM;
	ir->nodes[ir->nr_nodes++] = *node;
	return ir->nr_nodes;
}

int ir__set_items(struct ir *ir, uint32_t id, const struct ir_item *items,
		  uint32_t nr)
{
	struct ir_node *n = &ir->nodes[id - 1];

	n->first = ir->nr_items;
	n->nr = 0;
	if (!nr)
		return 0;	/* ir->items and @items may be NULL */
	if (abtf_grow(ir->items, ir->cap_items, ir->nr_items + nr))
		return -ENOMEM;
	memcpy(ir->items + ir->nr_items, items, nr * sizeof(*items));
	n->nr = nr;
	ir->nr_items += nr;
	return 0;
}

/* ---- DIE offset -> type ID ---- */

static uint32_t die_hash(uint64_t off)
{
	return (uint32_t)(((off + 1) * 0x9e3779b97f4a7c15ULL) >> 17);
}

/* The entry of @off, or the empty slot where it belongs. */
static struct abtf_hent *map_slot(const struct die_map *m, uint64_t off,
				  uint32_t h)
{
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&m->index, h); e->val;
	     e = abtf__hmap_next(&m->index, e))
		if (e->hash == h && m->ents[e->val - 1].off == off)
			break;
	return e;
}

/* Returns the ID, 0 if absent. IDs stored are never 0 (void is not stored). */
uint32_t ir__map_get(const struct die_map *m, uint64_t off)
{
	struct abtf_hent *e = map_slot(m, off, die_hash(off));

	return e->val ? m->ents[e->val - 1].id : 0;
}

int ir__map_put(struct die_map *m, uint64_t off, uint32_t id)
{
	uint32_t h = die_hash(off);
	struct abtf_hent *e;

	if (abtf__hmap_reserve(&m->index, 4096))
		return -ENOMEM;
	e = map_slot(m, off, h);
	if (e->val) {
		m->ents[e->val - 1].id = id;
		return 0;
	}
	if (m->nr >= UINT32_MAX - 1 || abtf_grow(m->ents, m->cap, m->nr + 1))
		return -ENOMEM;
	m->ents[m->nr].off = off;
	m->ents[m->nr].id = id;
	abtf__hmap_fill(&m->index, e, h, ++m->nr);
	return 0;
}

/* ---- emission ---- */

/*
 * The surviving nodes are written straight into a raw BTF buffer, with the
 * strings ir_dedup__run() interned: libbpf's btf__add_*() would intern every
 * string in a hash set one at a time.
 */
struct emit {
	struct ir *ir;
	uint8_t *buf;
	size_t len, cap;
};

/* Room for @nr more words; then emit_u32() cannot fail. */
static int emit_room(struct emit *e, size_t nr)
{
	return abtf_grow(e->buf, e->cap, e->len + nr * 4);
}

static void emit_u32(struct emit *e, uint32_t v)
{
	memcpy(e->buf + e->len, &v, 4);
	e->len += 4;
}

/* The BTF type ID of node @id (0: void). */
static uint32_t out_id(const struct emit *e, uint32_t id)
{
	return e->ir->out[id];
}

static int emit_head(struct emit *e, const struct ir_node *n, uint32_t vlen,
		     uint32_t size_or_type, size_t words)
{
	if (vlen > 0xffff)
		return -E2BIG;
	if (emit_room(e, 3 + words))
		return -ENOMEM;
	emit_u32(e, n->name_off);
	emit_u32(e, (uint32_t)ir__kflag(e->ir, n) << 31 |
		    (uint32_t)n->kind << 24 | vlen);
	emit_u32(e, size_or_type);
	return 0;
}

static bool has_bitfield(const struct ir *ir, const struct ir_node *n)
{
	uint32_t i;

	for (i = 0; i < n->nr; i++)
		if (ir->items[n->first + i].bit_sz)
			return true;
	return false;
}

static bool has_negative(const struct ir *ir, const struct ir_node *n)
{
	uint32_t i;

	for (i = 0; i < n->nr; i++)
		if ((int64_t)ir->items[n->first + i].val < 0)
			return true;
	return false;
}

int ir__kflag(const struct ir *ir, const struct ir_node *n)
{
	switch (n->kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return has_bitfield(ir, n);
	case BTF_KIND_ENUM:
		return has_negative(ir, n);
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return n->flag;
	default:
		return 0;
	}
}

static int emit_members(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = ir__items(e->ir, n);
	uint32_t i;
	int err = emit_head(e, n, n->nr, n->size, 3 * (size_t)n->nr);

	for (i = 0; i < n->nr && !err; i++, it++) {
		if (it->bit_sz > 255 || (it->bit_sz && it->bit_off > 0xffffff))
			return -E2BIG;
		emit_u32(e, it->name_off);
		emit_u32(e, out_id(e, it->type));
		emit_u32(e, it->bit_off | it->bit_sz << 24);
	}
	return err;
}

static int emit_enum(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = ir__items(e->ir, n);
	size_t words = n->kind == BTF_KIND_ENUM64 ? 3 : 2;
	uint32_t i;
	int err;

	for (i = 0; i < n->nr; i++) {
		int64_t v = it[i].val;

		if (n->kind == BTF_KIND_ENUM && (v < INT32_MIN || v > UINT32_MAX))
			return -E2BIG;
	}
	err = emit_head(e, n, n->nr, n->size, words * n->nr);
	for (i = 0; i < n->nr && !err; i++, it++) {
		emit_u32(e, it->name_off);
		emit_u32(e, it->val);
		if (n->kind == BTF_KIND_ENUM64)
			emit_u32(e, it->val >> 32);
	}
	return err;
}

static int emit_params(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = ir__items(e->ir, n);
	uint32_t i;
	int err = emit_head(e, n, n->nr, out_id(e, n->ref), 2 * (size_t)n->nr);

	for (i = 0; i < n->nr && !err; i++, it++) {
		emit_u32(e, it->name_off);
		emit_u32(e, out_id(e, it->type));
	}
	return err;
}

static int emit_datasec(struct emit *e, const struct ir_node *n)
{
	const struct ir_item *it = ir__items(e->ir, n);
	uint32_t i;
	int err = emit_head(e, n, n->nr, n->size, 3 * (size_t)n->nr);

	for (i = 0; i < n->nr && !err; i++, it++) {
		emit_u32(e, out_id(e, it->type));
		emit_u32(e, it->bit_off);
		emit_u32(e, it->bit_sz);
	}
	return err;
}

static int emit_node(struct emit *e, const struct ir_node *n)
{
	int err;

	switch (n->kind) {
	case BTF_KIND_INT:
		err = emit_head(e, n, 0, n->size, 1);
		if (!err)
			emit_u32(e, (uint32_t)n->flag << 24 | n->size * 8);
		return err;
	case BTF_KIND_FLOAT:
	case BTF_KIND_FWD:
		return emit_head(e, n, 0, n->kind == BTF_KIND_FWD ? 0 : n->size,
				 0);
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		return emit_head(e, n, 0, out_id(e, n->ref), 0);
	case BTF_KIND_ARRAY:
		err = emit_head(e, n, 0, 0, 3);
		if (!err) {
			emit_u32(e, out_id(e, n->ref));
			emit_u32(e, out_id(e, n->first));	/* index type */
			emit_u32(e, n->size);
		}
		return err;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return emit_members(e, n);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return emit_enum(e, n);
	case BTF_KIND_FUNC_PROTO:
		return emit_params(e, n);
	case BTF_KIND_FUNC:	/* vlen: linkage */
		return emit_head(e, n, n->flag, out_id(e, n->ref), 0);
	case BTF_KIND_VAR:
		err = emit_head(e, n, 0, out_id(e, n->ref), 1);
		if (!err)
			emit_u32(e, n->flag);
		return err;
	case BTF_KIND_DATASEC:
		return emit_datasec(e, n);
	case BTF_KIND_TYPE_TAG:
		return emit_head(e, n, 0, out_id(e, n->ref), 0);
	case BTF_KIND_DECL_TAG:	/* size: component_idx */
		err = emit_head(e, n, 0, out_id(e, n->ref), 1);
		if (!err)
			emit_u32(e, n->size);
		return err;
	default:
		return -EINVAL;
	}
}

static const char *kind_str(int kind)
{
	static const char *const names[] = {
		[BTF_KIND_INT] = "INT", [BTF_KIND_PTR] = "PTR",
		[BTF_KIND_ARRAY] = "ARRAY", [BTF_KIND_STRUCT] = "STRUCT",
		[BTF_KIND_UNION] = "UNION", [BTF_KIND_ENUM] = "ENUM",
		[BTF_KIND_FWD] = "FWD", [BTF_KIND_TYPEDEF] = "TYPEDEF",
		[BTF_KIND_VOLATILE] = "VOLATILE", [BTF_KIND_CONST] = "CONST",
		[BTF_KIND_RESTRICT] = "RESTRICT", [BTF_KIND_FUNC] = "FUNC",
		[BTF_KIND_FUNC_PROTO] = "FUNC_PROTO", [BTF_KIND_VAR] = "VAR",
		[BTF_KIND_DATASEC] = "DATASEC", [BTF_KIND_FLOAT] = "FLOAT",
		[BTF_KIND_ENUM64] = "ENUM64", [BTF_KIND_TYPE_TAG] = "TYPE_TAG",
		[BTF_KIND_DECL_TAG] = "DECL_TAG",
	};

	if (kind < 0 || kind >= (int)ARRAY_SIZE(names) || !names[kind])
		return "UNKNOWN";
	return names[kind];
}

void *ir__emit_raw(struct ir *ir, size_t *size)
{
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(hdr),
	};
	struct emit e = { .ir = ir };
	uint8_t *raw = NULL;
	size_t i;
	int err = 0;

	for (i = 0; i < ir->nr_out && !err; i++) {
		const struct ir_node *n = &ir->nodes[ir->kept[i] - 1];

		err = emit_node(&e, n);
		if (err) {
			char name[96];

			pr_warn(ir->pr, "%s: cannot encode BTF %s '%s': %s",
				ir->path, kind_str(n->kind),
				abtf__safe_name(n->name ? n->name : "", name,
						sizeof(name)), ABTF_STRERROR(-err));
		}
	}
	if (!err) {
		hdr.type_len = e.len;
		hdr.str_off = e.len;
		hdr.str_len = ir->strs.len;
		*size = sizeof(hdr) + e.len + ir->strs.len;
		raw = malloc(*size);
	}
	if (raw) {
		memcpy(raw, &hdr, sizeof(hdr));
		if (e.len)	/* no types: e.buf is NULL */
			memcpy(raw + sizeof(hdr), e.buf, e.len);
		memcpy(raw + sizeof(hdr) + e.len, ir->strs.data, ir->strs.len);
	} else {
		errno = err ? -err : ENOMEM;
	}
	free(e.buf);
	return raw;
}

int ir__btf_id_of_off(const struct ir *ir, uint64_t off, uint32_t *id)
{
	uint32_t n = ir__map_get(&ir->map, off);

	if (!n || !ir->out)
		return -ENOENT;
	*id = ir->out[n];
	return 0;
}
