// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Distilled base BTF (the distilled_base feature): a module's split BTF
 * made relocatable against any vmlinux with the types it names.
 *
 * A module built out of tree may be loaded by a kernel whose vmlinux BTF
 * is not the one it was linked against, so the split BTF cannot rely on
 * the base's type IDs. Instead the module carries in .BTF.base a small
 * base of its own, the "distilled" base, made of the base types it refers
 * to reduced to what names them; at load the kernel (btf_relocate())
 * finds each in the running vmlinux's BTF and renumbers the split types.
 * pahole 1.28 and later make it with libbpf's btf__distill_base() (libbpf
 * 1.5, which the system libbpf 1.1 predates); the rules and the order here
 * are the same, so that the two tools write the same bytes for the same
 * split BTF (tests/distill.bats checks both against pahole):
 *
 *  1. Mark. Every base type a split type refers to is needed, and so is
 *     every base type a needed one refers to, except through a named
 *     STRUCT or UNION: those stay opaque, their members are not needed.
 *     A split type may refer only to types a distilled base can hold:
 *     not to a FUNC, VAR, DATASEC or DECL_TAG of the base.
 *
 *  2. The distilled base, in base ID order: every needed INT, FLOAT and
 *     FWD copied as it is; every needed named STRUCT or UNION as one of
 *     the same kind, name and size, without members; every needed named
 *     ENUM or ENUM64 as an ENUM of its name and size without values
 *     (relocation matches either kind by name and size). Every needed
 *     STRUCT is sized, whether a split type embeds it or only points to
 *     it: the kernel tells the two apart when it relocates.
 *
 *  3. The new split BTF: the split types in their order, then every other
 *     needed base type (TYPEDEF, PTR, ARRAY, qualifiers, TYPE_TAG,
 *     FUNC_PROTO, anonymous STRUCT, UNION and ENUM) copied whole, in base
 *     ID order. Then every type ID is renumbered: a base type to its new
 *     place, a split type down by as many IDs as the base lost.
 *
 * Strings are added as the types are, in that order, each once; a split
 * string found in the distilled base is the base's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/distill.h"
#include "link/linker.h"
#include "elf/elf_read.h"

struct distill {
	const struct btf *src;		/* split BTF on the full base */
	uint32_t nr_base;		/* the full base's type count */
	uint32_t *map;			/* base ID -> new ID; NEEDED: marked */
	uint32_t *stack;		/* marked types whose references wait */
	size_t nr_stack, cap_stack;
	const struct abtf_printer *pr;
	const char *path;
};

#define NEEDED	UINT32_MAX

/*
 * Call @fn on each type ID field of @t, until one returns non-zero. The
 * fields are those of every kind libbpf 1.1 knows, in field order.
 */
static int for_each_id(struct btf_type *t, int (*fn)(uint32_t *id, void *ctx),
		       void *ctx)
{
	uint16_t i, vlen = btf_vlen(t);
	int err = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		return fn(&t->type, ctx);
	case BTF_KIND_ARRAY:
		err = fn(&btf_array(t)->type, ctx);
		return err ? err : fn(&btf_array(t)->index_type, ctx);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < vlen && !err; i++)
			err = fn(&btf_members(t)[i].type, ctx);
		return err;
	case BTF_KIND_FUNC_PROTO:
		err = fn(&t->type, ctx);
		for (i = 0; i < vlen && !err; i++)
			err = fn(&btf_params(t)[i].type, ctx);
		return err;
	case BTF_KIND_DATASEC:
		for (i = 0; i < vlen && !err; i++)
			err = fn(&btf_var_secinfos(t)[i].type, ctx);
		return err;
	default:
		return 0;
	}
}

static struct btf_type *type_of(const struct btf *btf, uint32_t id)
{
	/* a type of a BTF being built: libbpf lets its owner change it */
	return (struct btf_type *)btf__type_by_id(btf, id);
}

static bool distillable(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
		return false;
	default:
		return btf_kind(t) <= BTF_KIND_ENUM64;
	}
}

/* Mark the base type *@id needed, and queue it if its references are. */
static int mark(uint32_t *id, void *ctx)
{
	struct distill *d = ctx;
	const struct btf_type *t;
	int err;

	if (!*id || *id >= d->nr_base || d->map[*id])
		return 0;
	t = btf__type_by_id(d->src, *id);
	if (!distillable(t)) {
		pr_warn(d->pr, "%s: distilled_base: a split type refers to "
			"the base's type [%u] '%s' of kind %u, which a "
			"distilled base cannot hold", d->path, *id,
			btf__name_by_offset(d->src, t->name_off), btf_kind(t));
		return -EINVAL;
	}
	d->map[*id] = NEEDED;
	if ((btf_is_struct(t) || btf_is_union(t)) && t->name_off)
		return 0;
	err = abtf__grow((void **)&d->stack, &d->cap_stack, d->nr_stack + 1,
			 sizeof(*d->stack));
	if (err)
		return err;
	d->stack[d->nr_stack++] = *id;
	return 0;
}

/* Step 1: what the split types need of the base, transitively. */
static int mark_needed(struct distill *d)
{
	uint32_t id, n = btf__type_cnt(d->src);
	int err = 0;

	for (id = d->nr_base; id < n && !err; id++)
		err = for_each_id(type_of(d->src, id), mark, d);
	while (!err && d->nr_stack) {
		id = d->stack[--d->nr_stack];
		err = for_each_id(type_of(d->src, id), mark, d);
	}
	return err;
}

/* Whether the base type @t goes into the distilled base (or the split). */
static bool in_base(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_FWD:
		return true;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return t->name_off;
	default:
		return false;
	}
}

/* A base type of the distilled base: @t, reduced to what names it. */
static int add_base_type(struct distill *d, struct btf *dst,
			 const struct btf_type *t)
{
	const char *name = btf__name_by_offset(d->src, t->name_off);

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
		return btf__add_struct(dst, name, t->size);
	case BTF_KIND_UNION:
		return btf__add_union(dst, name, t->size);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return btf__add_enum(dst, name, t->size);
	default:
		return btf__add_type(dst, d->src, t);
	}
}

/* Steps 2 and 3: the needed base types that go to @dst, in ID order. */
static int add_needed(struct distill *d, struct btf *dst, bool base)
{
	uint32_t id;
	int ret;

	for (id = 1; id < d->nr_base; id++) {
		const struct btf_type *t = btf__type_by_id(d->src, id);

		if (d->map[id] != NEEDED || in_base(t) != base)
			continue;
		ret = base ? add_base_type(d, dst, t) :
			     btf__add_type(dst, d->src, t);
		if (ret < 0)
			return ret;
		d->map[id] = ret;
	}
	return 0;
}

struct renumber {
	const struct distill *d;
	uint32_t shift;			/* how many IDs the base lost */
};

static int renumber_id(uint32_t *id, void *ctx)
{
	const struct renumber *r = ctx;

	if (*id >= r->d->nr_base)
		*id -= r->shift;
	else if (*id)
		*id = r->d->map[*id];
	return 0;
}

/* Step 3: the new split BTF on @base. */
static struct btf *new_split(struct distill *d, struct btf *base)
{
	uint32_t id, n = btf__type_cnt(d->src);
	struct renumber r = {
		.d = d,
		.shift = d->nr_base - btf__type_cnt(base),
	};
	struct btf *split = btf__new_empty_split(base);
	int err = split ? 0 : -errno;

	for (id = d->nr_base; id < n && !err; id++) {
		int ret = btf__add_type(split, d->src, type_of(d->src, id));

		err = ret < 0 ? ret : 0;
	}
	if (!err)
		err = add_needed(d, split, false);
	n = split ? btf__type_cnt(split) : 0;
	for (id = btf__type_cnt(base); id < n && !err; id++)
		err = for_each_id(type_of(split, id), renumber_id, &r);
	if (err) {
		btf__free(split);
		errno = -err;
		return NULL;
	}
	return split;
}

int abtf__distill_base(const struct btf *src, struct btf **base,
		       struct btf **split, const struct abtf_printer *pr,
		       const char *path)
{
	struct distill d = { .src = src, .pr = pr, .path = path };
	const struct btf *old = btf__base_btf(src);
	int err;

	if (!old || !base || !split)
		return -EINVAL;
	d.nr_base = btf__type_cnt(old);
	d.map = calloc(btf__type_cnt(src), sizeof(*d.map));
	*base = btf__new_empty();
	err = d.map && *base ? mark_needed(&d) : -ENOMEM;
	if (!err)
		err = add_needed(&d, *base, true);
	if (!err) {
		*split = new_split(&d, *base);
		err = *split ? 0 : -errno;
	}
	if (err) {
		pr_warn(pr, "%s: cannot make the distilled base: %s", path,
			ABTF_STRERROR(-err));
		btf__free(*base);
		*base = NULL;
	}
	free(d.stack);
	free(d.map);
	return err;
}

/* .BTF on .BTF.base of @elf; errno ENOENT without .BTF.base. */
static struct btf *parse_sections(Elf *elf, struct btf **base)
{
	Elf_Data *b = abtf__elf_section_data(elf, ABTF_SEC_BTF_BASE);
	Elf_Data *s = abtf__elf_section_data(elf, ABTF_SEC_BTF);
	struct btf *split;

	if (!b || !s) {
		errno = ENOENT;
		return NULL;
	}
	*base = btf__new(b->d_buf, b->d_size);
	if (!*base)
		return NULL;
	split = abtf__new_btf(s->d_buf, s->d_size, *base);
	if (!split) {
		int err = errno;

		btf__free(*base);
		*base = NULL;
		errno = err;
	}
	return split;
}

ABTF_API struct btf *abtf_btf__parse_distilled(const char *path,
					       struct btf **base)
{
	struct btf *split = NULL;
	int fd, err = ENOENT;
	Elf *elf;

	if (!path || !base) {
		errno = EINVAL;
		return NULL;
	}
	*base = NULL;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		split = parse_sections(elf, base);
		err = split ? 0 : errno;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	errno = err;
	return split;
}
