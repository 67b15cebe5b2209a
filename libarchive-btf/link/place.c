// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where each member's FUNCs and VARs are (the essay atop linker.c, step
 * 1): pairing members with their .debug_btf_addr groups (addr.c reads
 * them), by the headers alone when there is one group per member, else by
 * size and hash; a group's optimized_func extension appended to its member;
 * the VARs of members without a group placed by name through the symbol
 * table, in link order; where a FUNC or VAR of a member is, for merge.c
 * and funcs.c.
 *
 * Calls input.c (reading members), symbols.c (symbols by name) and pool.c
 * (the threads).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/symbols.h"
#include "link/plan.h"
#include "link/pool.h"
#include "link/place.h"
#include "link/node.h"

/* ---- pairing with .debug_btf_addr ---- */

/* Validate every member of a leaf, and hash it to pair it with its group. */
static int hash_leaf(struct abtf_linker *l, struct node *n, void *ctx)
{
	struct abtf_member *ms = calloc(n->nr, sizeof(*ms));
	uint8_t *buf;
	size_t i;

	if (!ms)
		return -ENOMEM;
	buf = abtf__read_leaf(l, n, ms);
	for (i = 0; buf && l->file.addr.size && i < n->nr; i++) {
		struct mplan *mp = &l->plan.members[n->first + i];

		mp->hash = abtf__member_hash(l, n->first + i, ms[i].data);
	}
	free(buf);
	free(ms);
	return buf ? 0 : n->err;
}

/*
 * Pair each member with the next group if it is the member's (size and
 * hash). A group left over, one that no member matched (its slot count
 * or size changed, its bytes damaged), would be ignored without a word,
 * its member placed by name: it is an error.
 */
static int pair_groups(struct abtf_linker *l)
{
	struct abtf_addr_group g;
	size_t off = 0, i;

	for (i = 0; i < l->plan.nr_members; i++) {
		struct mplan *mp = &l->plan.members[i];
		size_t at = abtf__addr_skip_pad(&l->file.addr, off);

		if (!abtf__addr_group_read(&l->file.addr, at, &g) ||
		    g.btf_size != mp->size || g.btf_hash != mp->hash)
			continue;
		mp->has_group = true;
		mp->grp = g;
		off = g.end;
		l->st.nr_addr_groups++;
	}
	off = abtf__addr_skip_pad(&l->file.addr, off);
	if (off >= l->file.addr.size)
		return 0;
	pr_warn(&l->pr, "%s: .debug_btf_addr: byte %zu: a group that "
		"matches no .BTF member (damaged, or its slot count or size "
		"changed)", l->path, off);
	return -EINVAL;
}

/*
 * The common case, every member from cc-btf: as many groups as members, in
 * the same order and of matching sizes. Pair them without reading the
 * members; each leaf checks its members' hashes as it reads them.
 */
static bool pair_one_to_one(struct abtf_linker *l)
{
	struct abtf_addr_group g;
	size_t off = 0, i;

	for (i = 0; i < l->plan.nr_members; i++) {
		struct mplan *mp = &l->plan.members[i];

		if (!abtf__addr_group_read(&l->file.addr, off, &g) ||
		    g.btf_size != mp->size)
			break;
		mp->hash = g.btf_hash;
		mp->grp = g;
		off = abtf__addr_skip_pad(&l->file.addr, g.end);
	}
	if (i < l->plan.nr_members || off != l->file.addr.size)
		return false;
	for (i = 0; i < l->plan.nr_members; i++) {
		l->plan.members[i].has_group = true;
		l->plan.members[i].check_hash = true;
	}
	l->st.nr_addr_groups = l->plan.nr_members;
	return true;
}

/* Keeps the first warning, for one message of our own. */
static void __abtf_printf(3, 0)
keep_msg(enum abtf_print_level level, void *ctx, const char *fmt, va_list ap)
{
	char *msg = ctx;

	if (level == ABTF_WARN && !msg[0])
		vsnprintf(msg, 256, fmt, ap);
}

/*
 * Member @i read alone, so that a pass over the archive holds one member's
 * bytes at a time, not a whole leaf's (16 MB), with its extension (with
 * optimized_func, or whatever the features if @any_ext), as an input: @fn
 * gets it and the number of slots its FUNCs and VARs use. Read into @rb's
 * buffer if not NULL: a pass over many members then reuses its pages,
 * where each member's own buffer, if over malloc's mmap threshold, is
 * new pages to fault in and clear. Messages go to @pr; @fn's error is
 * returned.
 */
int place__with_member(struct abtf_linker *l, const struct abtf_printer *pr,
		       size_t i, bool any_ext, struct abtf_rbuf *rb,
		       abtf_member_fn_t fn, void *ctx)
{
	struct node one = { .nr = 1, .leaf = true, .first = i, .pr = *pr };
	const struct mplan *mp = &l->plan.members[i];
	const uint8_t *types = NULL;
	struct abtf_member m, xm;
	uint8_t *buf, *xbuf = NULL;
	void *copy = NULL;
	struct input in;
	int err;

	buf = abtf__read_leaf_in(l, &one, &m, rb);
	if (!buf)
		return one.err;
	err = any_ext ? place__member_extend_any(l, pr, i, &m, &xbuf, &xm) :
			place__member_extend(l, pr, i, &m, &xbuf, &xm);
	if (!err)
		types = abtf__aligned_types(&xm, &copy);
	if (!err && !types)
		err = -ENOMEM;
	if (!err) {
		abtf__member_input(l, mp, &xm, types, &in);
		err = fn(&in, mp->grp.nr_slots + (xbuf ? mp->grp.nr_extra : 0),
			 ctx);
	}
	free(copy);
	free(xbuf);
	if (!rb)
		free(buf);
	return err;
}

/*
 * With optimized_func, a member whose group carries an extension (clone
 * FUNCs, docs/archive-format.md) is read as one BTF: its types then the
 * extension's, its strings then the extension's; @m was validated, so the
 * extension's records are checked, against the whole (a member checked
 * again, in the rules' pass and in its leaf, was 6 % of the link's CPU).
 * 0 with *buf NULL when there is nothing to add (*xm = *m).
 */
int place__member_extend(struct abtf_linker *l, const struct abtf_printer *pr,
			size_t i, const struct abtf_member *m, uint8_t **buf,
			struct abtf_member *xm)
{
	if (!(l->feats & ABTF_FEAT_OPTIMIZED_FUNC)) {
		*buf = NULL;
		*xm = *m;
		return 0;
	}
	return place__member_extend_any(l, pr, i, m, buf, xm);
}

int place__member_extend_any(struct abtf_linker *l,
			    const struct abtf_printer *pr, size_t i,
			    const struct abtf_member *m, uint8_t **buf,
			    struct abtf_member *xm)
{
	const struct mplan *mp = &l->plan.members[i];
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h) };
	const uint8_t *ext;
	char msg[256] = "";
	struct abtf_printer quiet = { .fn = keep_msg, .ctx = msg };
	uint8_t *p;
	size_t size;

	*buf = NULL;
	*xm = *m;
	if (!mp->has_group || !mp->grp.ext_type_len)
		return 0;
	ext = l->file.addr.data + mp->grp.ext_off;
	h.type_len = m->type_len + mp->grp.ext_type_len;
	h.str_off = h.type_len;
	h.str_len = m->str_len + mp->grp.ext_str_len;
	size = sizeof(h) + (size_t)h.type_len + h.str_len;
	p = *buf = malloc(size);
	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, m->types, m->type_len);
	p += m->type_len;
	memcpy(p, ext, mp->grp.ext_type_len);
	if (l->file.swapped)
		abtf__swap32s(p, mp->grp.ext_type_len);
	p += mp->grp.ext_type_len;
	memcpy(p, m->strs, m->str_len);
	p += m->str_len;
	memcpy(p, ext + mp->grp.ext_type_len, mp->grp.ext_str_len);
	/* @m was validated: only the extension's records need checking */
	if (archive__member_check_ext(*buf, size, m, i, mp->zsize != 0,
				      l->where, &quiet, xm)) {
		const char *what = strrchr(msg, ':');

		pr_warn(pr, "%s member %zu at byte %zu: the extension "
			"in .debug_btf_addr at byte %zu: %s", l->where, i,
			mp->off, mp->grp.ext_off, what ? what + 2 : "not valid BTF");
		free(*buf);
		*buf = NULL;
		return -EINVAL;
	}
	return 0;
}

/* ---- placing by name ---- */

/* Symbols the slots already point at are nobody else's (mixed archives). */
static void claim_slot_symbols(struct abtf_linker *l)
{
	const struct link_symbols *sy = &l->sym;
	bool *used = l->plan.sym_used;
	size_t ss = l->file.addr.slot_size, i, k, j;

	for (i = 0; i < l->plan.nr_members; i++) {
		const struct mplan *mp = &l->plan.members[i];

		for (k = 0; mp->has_group && k < mp->grp.nr_slots; k++) {
			size_t at = mp->grp.slots_off + k * ss;
			const struct abtf_addr_rela *r;
			uint64_t v;

			if (l->file.ehdr.e_type == ET_REL) {
				r = abtf__addr_reloc_at(&l->file.relocs, at);
				if (r && r->sym < sy->nr_vals)
					used[r->sym] = true;
				continue;
			}
			v = abtf__addr_slot_value(&l->file.addr, at);
			for (j = 0; v && j < sy->nr_syms; j++)
				if (sy->syms[j].type == STT_OBJECT &&
				    sy->syms[j].value == v - 1)
					used[sy->syms[j].idx] = true;
		}
	}
}

/*
 * The n-th member defining a static "x" takes the n-th unused local "x" of
 * the same size (ld keeps each input's local symbols together, in input
 * order; the size keeps a static the linker dropped from taking the next
 * object's); a global takes the global. Only for members without a
 * .debug_btf_addr group.
 */
static int name_place(struct abtf_linker *l, const char *name, int linkage,
		      uint32_t size, struct place *pl)
{
	const struct link_symbols *sy = &l->sym;
	size_t lo = abtf__first_sym(l, name);

	memset(pl, 0, sizeof(*pl));
	for (; lo < sy->nr_syms && !strcmp(sy->syms[lo].name, name); lo++) {
		const struct lsym *s = &sy->syms[lo];
		bool local = s->bind == STB_LOCAL;

		if (s->type != STT_OBJECT || l->plan.sym_used[s->idx] ||
		    local != (linkage == BTF_VAR_STATIC) || s->size != size)
			continue;
		l->plan.sym_used[s->idx] = true;
		pl->present = true;
		pl->key = s->shndx;
		pl->off = s->value;
		if (l->file.ehdr.e_type != ET_REL)
			pl->off -= sy->secs[s->shndx].addr;
		return 0;
	}
	return 0;
}

static int place_member_vars(struct abtf_linker *l, struct mplan *mp,
			     const struct abtf_member *m)
{
	uint32_t off = 0, id, *size_of;
	const uint8_t *types = m->types;
	int err = 0;

	size_of = calloc(m->nr_types + 1, sizeof(*size_of));
	mp->vars = calloc(m->nr_types + 1, sizeof(*mp->vars));
	if (!size_of || !mp->vars) {
		free(size_of);
		return -ENOMEM;
	}
	for (id = 1; id <= m->nr_types; id++) {	/* VAR sizes from DATASECs */
		struct btf_type t;
		struct btf_var_secinfo v;
		uint16_t i;

		memcpy(&t, types + off, sizeof(t));
		for (i = 0; BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC &&
			    i < BTF_INFO_VLEN(t.info); i++) {
			memcpy(&v, types + off + sizeof(t) + i * sizeof(v),
			       sizeof(v));
			if (v.type && v.type <= m->nr_types)
				size_of[v.type] = v.size;
		}
		off += abtf__record_size(&t);
	}
	for (off = 0, id = 1; id <= m->nr_types; id++) {
		struct btf_type t;
		struct btf_var var;

		memcpy(&t, types + off, sizeof(t));
		if (BTF_INFO_KIND(t.info) == BTF_KIND_VAR) {
			struct place *pl = &mp->vars[mp->nr_vars++];

			memcpy(&var, types + off + sizeof(t), sizeof(var));
			err = name_place(l, m->strs + t.name_off, var.linkage,
					 size_of[id], pl);
			pl->size = size_of[id];
		}
		off += abtf__record_size(&t);
	}
	free(size_of);
	return err;
}

/* In link order, one member at a time: the claims must happen in order. */
static int place_by_name(struct abtf_linker *l)
{
	struct node one = { .nr = 1, .leaf = true };
	struct abtf_member m;
	size_t i;
	int err;

	if (l->st.nr_addr_groups == l->plan.nr_members || !l->file.elf)
		return 0;
	err = abtf__syms_by_name(l);	/* for place__func_present() too */
	if (err)
		return err;
	claim_slot_symbols(l);
	one.pr = l->pr;
	for (i = 0; i < l->plan.nr_members; i++) {
		uint8_t *buf;

		if (l->plan.members[i].has_group)
			continue;
		one.first = i;
		buf = abtf__read_leaf(l, &one, &m);
		if (!buf)
			return one.err;
		err = place_member_vars(l, &l->plan.members[i], &m);
		free(buf);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Pair the members with their .debug_btf_addr groups, then place by name
 * the VARs of those without one. Without groups to pair, or with one per
 * member, the leaves validate their members as they merge them; otherwise
 * every member is validated and hashed first, to find which have a group.
 */
static bool section_of_addr(const struct abtf_linker *l, uint64_t addr,
			    uint32_t *shndx, uint64_t *off);

/*
 * In a final image every slot is 0 (the linker discarded what it held) or
 * an address + 1 inside one of the image's sections: a slot outside them
 * all would drop its FUNC or VAR without a word, so it is an error.
 */
static int check_slot_addrs(const struct abtf_linker *l)
{
	size_t ss = l->file.addr.slot_size, i;
	uint32_t k, shndx;
	uint64_t v, off;

	for (i = 0; l->file.ehdr.e_type != ET_REL && i < l->plan.nr_members;
	     i++) {
		const struct mplan *mp = &l->plan.members[i];
		uint32_t n = mp->has_group ? mp->grp.nr_slots + mp->grp.nr_extra : 0;

		for (k = 0; k < n; k++) {
			v = abtf__addr_slot_value(&l->file.addr,
						  mp->grp.slots_off + k * ss);
			if (!v || section_of_addr(l, v - 1, &shndx, &off))
				continue;
			pr_warn(&l->pr, "%s member %zu at byte %zu: "
				".debug_btf_addr slot %u: address 0x%llx is in "
				"no section of the image", l->where, i, mp->off,
				k, (unsigned long long)(v - 1));
			return -EINVAL;
		}
	}
	return 0;
}

/* The first member at or after @j whose group's slots do not end by @off. */
static size_t group_at(const struct abtf_linker *l, size_t j, uint64_t off)
{
	size_t ss = l->file.addr.slot_size;

	for (; j < l->plan.nr_members; j++) {
		const struct mplan *mp = &l->plan.members[j];

		if (mp->has_group && off < mp->grp.slots_off +
		    ((uint64_t)mp->grp.nr_slots + mp->grp.nr_extra) * ss)
			return j;
	}
	return j;
}

/* Why relocation @r, after @prev (or NULL), is not a slot's, or NULL. */
static const char *reloc_fault(const struct abtf_linker *l, size_t j,
			       const struct abtf_addr_rela *r,
			       const struct abtf_addr_rela *prev)
{
	size_t ss = l->file.addr.slot_size;
	const struct mplan *mp = &l->plan.members[j];
	uint64_t v;

	if (r->offset >= l->file.addr.size)
		return "past the end of the section";
	if (j == l->plan.nr_members || r->offset < mp->grp.slots_off)
		return "on no slot of a group";
	if ((r->offset - mp->grp.slots_off) % ss)
		return "inside a slot, not at its start";
	if (prev && prev->offset == r->offset)
		return "a second relocation of one slot";
	if (ss == 4 && !l->file.relocs.inplace && r->sym < l->sym.nr_vals) {
		v = l->sym.vals[r->sym].value + r->addend;
		if ((v >> 32) && (v >> 31) != UINT64_MAX >> 31)
			return "its value does not fit the 4-byte slot";
	}
	return NULL;
}

/*
 * Every relocation against .debug_btf_addr lies at the start of a slot of
 * a group, one to a slot, with a value the slot holds: one past the
 * section or into a slot left the slot unrelocated, read as a symbol the
 * linker discarded (a FUNC lost without a word). Images, ld -r objects
 * and modules alike.
 */
static int check_slot_relocs(const struct abtf_linker *l)
{
	const struct abtf_addr_relocs *t = &l->file.relocs;
	const char *why;
	size_t i, j = 0;

	for (i = 0; i < t->nr; i++) {
		const struct abtf_addr_rela *r = &t->r[i];

		j = group_at(l, j, r->offset);
		why = reloc_fault(l, j, r, i ? r - 1 : NULL);
		if (!why)
			continue;
		pr_warn(&l->pr, "%s: .debug_btf_addr relocation %u at byte "
			"%llu: %s", l->path, r->idx,
			(unsigned long long)r->offset, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * A FUNC's flags byte holds only the bits docs/archive-format.md defines
 * (the others are zero): an undefined one is a group this btf-link cannot
 * read, not one to read in part.
 */
static int check_flags(const struct abtf_linker *l)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < l->plan.nr_members; i++) {
		const struct mplan *mp = &l->plan.members[i];
		uint8_t fl;

		for (k = 0; mp->has_group && k < mp->grp.nr_flags; k++) {
			fl = abtf__addr_flags(&l->file.addr, &mp->grp, k);
			if (!(fl & ~ABTF_FN_ALL))
				continue;
			pr_warn(&l->pr, "%s member %zu at byte %zu: "
				".debug_btf_addr byte %zu: FUNC %u's flags "
				"0x%02x: bits 0x%02x are not defined",
				l->where, i, mp->off, mp->grp.flags_off + k,
				k, fl, fl & ~ABTF_FN_ALL);
			return -EINVAL;
		}
	}
	return 0;
}

int place__link(struct abtf_linker *l, struct node *leaves, size_t nr)
{
	int err;

	if (l->file.elf && l->file.addr.size && !pair_one_to_one(l)) {
		err = abtf__run_level(l, leaves, nr, hash_leaf, NULL);
		if (err)
			return err;
		err = pair_groups(l);
		if (err)
			return err;
	}
	if (l->file.elf && l->file.addr.size) {
		err = check_slot_addrs(l) ?: check_slot_relocs(l) ?:
		      check_flags(l);
		if (err)
			return err;
		/* place__func_present() asks for the names of slots' FUNCs */
		err = abtf__syms_by_name(l);
		if (err)
			return err;
	}
	return place_by_name(l);
}

/* ---- where a member's FUNCs and VARs are (merge.c, funcs.c) ---- */

/* The allocated section holding @addr in a final image. */
static bool section_of_addr(const struct abtf_linker *l, uint64_t addr,
			    uint32_t *shndx, uint64_t *off)
{
	size_t i;

	for (i = 1; i < l->sym.nr_secs; i++) {
		const struct lsec *s = &l->sym.secs[i];

		if ((s->flags & SHF_ALLOC) && addr >= s->addr &&
		    addr - s->addr < s->size) {
			*shndx = i;
			*off = addr - s->addr;
			return true;
		}
	}
	return false;
}

/* Slot @k of a member: final image (address + 1) or relocatable (reloc). */
int place__slot(const struct abtf_linker *l, const struct mplan *mp,
		uint32_t k, struct place *pl)
{
	size_t at = mp->grp.slots_off + (size_t)k * l->file.addr.slot_size;
	const struct abtf_addr_rela *r;
	uint64_t v;

	memset(pl, 0, sizeof(*pl));
	if (k >= (uint64_t)mp->grp.nr_slots + mp->grp.nr_extra)
		return -EINVAL;
	v = abtf__addr_slot_value(&l->file.addr, at);
	if (l->file.ehdr.e_type != ET_REL) {
		if (v)	/* 0: the linker discarded it */
			pl->present = section_of_addr(l, v - 1, &pl->key,
						      &pl->off);
		return 0;
	}
	r = abtf__addr_reloc_at(&l->file.relocs, at);
	if (!r || r->sym >= l->sym.nr_vals)
		return 0;
	pl->key = l->sym.vals[r->sym].shndx;
	if (pl->key == SHN_UNDEF || pl->key >= l->sym.nr_secs)
		return 0;
	pl->present = true;
	pl->off = l->sym.vals[r->sym].value +
		  (l->file.relocs.inplace ? (int64_t)v : r->addend) - 1;
	return 0;
}

/*
 * pahole's rule: a FUNC survives if a defined STT_FUNC has its name, or
 * with @suffixed, its name and a suffix ("name.isra.0": a clone), or with
 * optimized_func its ThinLTO name "name.llvm.<digits>": clang's ThinLTO
 * renames a static function that another unit imports (promotes it to a
 * global of hidden visibility), and the kernel's kallsyms matches it by
 * its name without the suffix. pahole 1.25 and later take such a symbol
 * for the function's (they strip any suffix), 1.24 does not; a tree gives
 * optimized_func to pahole 1.25 and later.
 */
static bool func_by_name(const struct abtf_linker *l, const char *name,
			 bool suffixed)
{
	const struct link_symbols *sy = &l->sym;
	bool thinlto = l->feats & ABTF_FEAT_OPTIMIZED_FUNC;
	size_t len = strlen(name), lo = abtf__first_sym(l, name);

	/* sorted by name: "name" first, then "name" and any byte, those
	 * above '.' ("name_x") after every "name.suffix" */
	for (; lo < sy->nr_syms &&
	       !strncmp(sy->syms[lo].name, name, len); lo++) {
		const struct lsym *s = &sy->syms[lo];
		unsigned char next = s->name[len];

		if (next > '.' || (next && !suffixed && !thinlto))
			break;
		if (s->type != STT_FUNC)
			continue;
		if (!next || (next == '.' &&
			      (suffixed ||
			       abtf__is_thinlto_name(s->name, name, len))))
			return true;
	}
	return false;
}

/*
 * Is the function of a member's FUNC in the image? @slot: its slot (FUNCs
 * and VARs count, in type ID order). ABTF_EXPLAIN_KEPT (0) yes; else why
 * not; < 0 error.
 */
int place__func_placed(struct abtf_linker *l, const struct input *in,
		      uint32_t slot, const char *name)
{
	struct place pl;
	int err;

	switch (in->kind) {
	case IN_SLOTS:
		/*
		 * Where the slot says, and under its name: objcopy
		 * --prefix-symbols (arm64's and riscv's pi/, their EFI
		 * stubs) renames a function after cc-btf saw it, and
		 * pahole, which goes by name, has no FUNC for it then.
		 */
		err = place__slot(l, in->plan, slot, &pl);
		if (err)
			return err;
		if (!pl.present)
			return ABTF_EXPLAIN_DISCARDED;
		/* a clone of the extension goes by its symbol "name.isra.0" */
		return func_by_name(l, name, slot >= in->plan->grp.nr_slots) ?
		       ABTF_EXPLAIN_KEPT : ABTF_EXPLAIN_RENAMED;
	case IN_NAMES:
		return func_by_name(l, name, false) ? ABTF_EXPLAIN_KEPT :
						      ABTF_EXPLAIN_NO_SYMBOL;
	default:
		return ABTF_EXPLAIN_KEPT;
	}
}

/* Is the function of a member's FUNC in the image? 1 yes, 0 no, < 0 error. */
int place__func_present(struct abtf_linker *l, const struct input *in,
		       uint32_t slot, const char *name)
{
	int ret = place__func_placed(l, in, slot, name);

	return ret < 0 ? ret : ret == ABTF_EXPLAIN_KEPT;
}
