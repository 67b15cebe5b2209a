// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btf-link's engine: a linked .BTF archive -> one deduplicated BTF.
 *
 * The algorithm, in one pass over the archive members in link order:
 *
 *  1. Pair the member with its .BTF.addr group, if it has one (the group's
 *     header carries the member's size and hash; members made by pahole
 *     have none and are placed by name, see 4).
 *  2. Decide which of its types survive: every type, except
 *     - a FUNC whose function is not in the final image (its slot reads 0,
 *       or, placed by name, no STT_FUNC symbol of that name exists), or
 *       whose name already has a FUNC: pahole keeps one FUNC per name, the
 *       first in DWARF order, which is link order;
 *     - a VAR whose variable the linker discarded, or that is not in the
 *       final ".data..percpu" (pahole's rule: per-CPU variables only);
 *     - the member's DATASECs, rebuilt at the end (libbpf's dedup never
 *       merges VARs or DATASECs, so this is our job);
 *     - a DECL_TAG whose target did not survive.
 *     Survivors get consecutive final IDs; nothing refers to a dropped type
 *     except DATASECs and DECL_TAGs, which are handled above.
 *  3. Append the surviving records to one type buffer, rewriting every
 *     type ID through the member's ID map (a plain offset plus the gaps of
 *     dropped types) and every string offset through one interning table.
 *     This is linear in the archive's size: no libbpf object per member.
 *  4. Place each surviving VAR: from its slot (address + 1 in a final
 *     image; symbol + addend through .rela.BTF.addr in a relocatable one)
 *     or, without a slot, from the symbol table by name, the n-th member
 *     defining a static "x" taking the n-th local "x" (ld keeps each input
 *     file's local symbols together, in input order).
 *
 * Then one DATASEC per output section holding VARs, named after it and
 * sized as it, entries sorted by offset (overlaps dropped, the first kept),
 * is appended; the whole buffer becomes one BTF (split on top of the base
 * for modules) and goes through a single btf__dedup().
 *
 * Determinism: members are visited in archive order, strings interned in
 * first-use order, DATASECs emitted in section index order and entries in
 * (offset, type ID) order; libbpf's dedup is deterministic. The output is
 * a pure function of the input file.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "archive.h"

/* ---- string interning ---- */

struct strtab {
	char *data;
	size_t len, cap;
	uint32_t *slots;	/* offset + 1; 0 = empty */
	size_t nslots, cnt;
};

static uint32_t str_hash(const char *s)
{
	return abtf__hash32(s, strlen(s));
}

static int strtab_grow_slots(struct strtab *st)
{
	size_t n = st->nslots ? st->nslots * 2 : 1 << 16, i, j;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < st->nslots; i++) {
		if (!st->slots[i])
			continue;
		j = str_hash(st->data + st->slots[i] - 1) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = st->slots[i];
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = n;
	return 0;
}

/* The offset of @s in the table, adding it if new; -ENOMEM on failure. */
static int64_t strtab_add(struct strtab *st, const char *s)
{
	size_t len = strlen(s) + 1, i;

	if ((st->cnt + 1) * 2 > st->nslots && strtab_grow_slots(st))
		return -ENOMEM;
	for (i = str_hash(s) & (st->nslots - 1); st->slots[i];
	     i = (i + 1) & (st->nslots - 1))
		if (!strcmp(st->data + st->slots[i] - 1, s))
			return st->slots[i] - 1;
	if (st->len + len > st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 1 << 20;
		char *n;

		while (ncap < st->len + len)
			ncap *= 2;
		n = realloc(st->data, ncap);
		if (!n)
			return -ENOMEM;
		st->data = n;
		st->cap = ncap;
	}
	memcpy(st->data + st->len, s, len);
	st->slots[i] = st->len + 1;
	st->cnt++;
	st->len += len;
	return st->len - len;
}

static void strtab_free(struct strtab *st)
{
	free(st->data);
	free(st->slots);
}

/* ---- the linker ---- */

/* An output section receiving VARs, and those VARs. */
struct out_var {
	uint32_t id;		/* final type ID */
	uint32_t off;
	uint32_t size;
};

struct out_sec {
	char *name;
	uint32_t key;		/* ELF: section index; raw: string offset */
	uint32_t size;
	struct out_var *vars;
	size_t nr, cap;
};

/* A defined symbol of the input, for placement by name. */
struct name_sym {
	const char *name;
	uint32_t idx;		/* in .symtab: ties sort by it */
	uint64_t value;
	uint32_t shndx;
	uint8_t type;
	bool used;
};

struct rela {
	uint64_t offset;
	uint32_t sym;
	int64_t addend;
};

struct abtf_linker {
	char *path;
	struct abtf_link_opts opts;
	struct abtf_printer pr;
	int fd;
	Elf *elf;		/* NULL for raw BTF input */
	GElf_Ehdr ehdr;
	size_t shstrndx;
	void *raw;		/* raw input's bytes */

	const uint8_t *btf_data;
	size_t btf_size;
	size_t btf_shndx;
	const uint8_t *addr_data;
	size_t addr_size;
	size_t addr_off;	/* next unread byte of .BTF.addr */
	size_t addr_shndx;
	struct rela *relas;	/* .rela.BTF.addr, by offset */
	size_t nr_relas;
	bool rel_inplace;	/* SHT_REL: addend in the slot */

	Elf_Data *symtab, *symshndx;
	size_t symstr;
	struct name_sym *syms;	/* by name, then symbol index */
	size_t nr_syms;

	struct abtf_archive ar;
	struct btf *base;

	uint8_t *types;
	size_t types_len, types_cap;
	struct strtab strs;
	uint32_t first_id;	/* first final ID (1, or after the base) */
	uint32_t next_id;
	uint32_t *fn_seen;	/* hash set of FUNC name offsets + 1 */
	size_t fn_slots, fn_cnt;
	struct out_sec *secs;
	size_t nr_secs;

	struct btf *btf;
	bool final_input;
	struct abtf_link_stats st;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int link_error(struct abtf_linker *l, int err, const char *what)
{
	pr_warn(&l->pr, "%s: %s", l->path, what);
	return err;
}

static int elf_fail(struct abtf_linker *l, const char *what)
{
	pr_warn(&l->pr, "%s: %s: %s", l->path, what, elf_errmsg(-1));
	return -EINVAL;
}

/* ---- input ---- */

static int read_all(struct abtf_linker *l, size_t size)
{
	size_t got = 0;

	l->raw = malloc(size ? size : 1);
	if (!l->raw)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = pread(l->fd, (char *)l->raw + got, size - got, got);

		if (n <= 0)
			return link_error(l, n ? -errno : -EIO, "cannot read");
		got += n;
	}
	l->btf_data = l->raw;
	l->btf_size = size;
	return 0;
}

static Elf_Scn *section_by_name(struct abtf_linker *l, const char *name,
				size_t *idx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(l->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		n = elf_strptr(l->elf, l->shstrndx, shdr.sh_name);
		if (n && !strcmp(n, name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

static int section_bytes(struct abtf_linker *l, Elf_Scn *scn,
			 const uint8_t **data, size_t *size)
{
	GElf_Shdr shdr;
	Elf_Data *d;
	struct stat st;

	if (!gelf_getshdr(scn, &shdr) || fstat(l->fd, &st))
		return elf_fail(l, "bad section header");
	if (shdr.sh_type == SHT_NOBITS ||
	    shdr.sh_offset > (uint64_t)st.st_size ||
	    shdr.sh_size > (uint64_t)st.st_size - shdr.sh_offset) {
		pr_warn(&l->pr, "%s: section %zu runs past the end of the file",
			l->path, elf_ndxscn(scn));
		return -EINVAL;
	}
	d = elf_rawdata(scn, NULL);
	if (!d && shdr.sh_size)
		return elf_fail(l, "cannot read section");
	*data = d ? d->d_buf : NULL;
	*size = d ? d->d_size : 0;
	return 0;
}

static int load_relas(struct abtf_linker *l);

static int open_elf(struct abtf_linker *l)
{
	Elf_Scn *scn;
	int err;

	if (!gelf_getehdr(l->elf, &l->ehdr))
		return elf_fail(l, "bad ELF header");
	if (elf_getshdrstrndx(l->elf, &l->shstrndx))
		return elf_fail(l, "bad section header string table");
	if (l->ehdr.e_ident[EI_DATA] !=
	    (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		return link_error(l, -EOPNOTSUPP,
				  "ELF of the other byte order is not supported");
	scn = section_by_name(l, ABTF_SEC_BTF, &l->btf_shndx);
	if (!scn)
		return link_error(l, -ENOENT, "no .BTF section");
	err = section_bytes(l, scn, &l->btf_data, &l->btf_size);
	if (err)
		return err;
	scn = section_by_name(l, ABTF_SEC_ADDR, &l->addr_shndx);
	if (scn) {
		err = section_bytes(l, scn, &l->addr_data, &l->addr_size);
		if (err)
			return err;
	}
	return load_relas(l);
}

ABTF_API struct abtf_linker *
abtf_linker__new(const char *path, const struct abtf_link_opts *opts)
{
	struct abtf_linker *l = calloc(1, sizeof(*l));
	struct stat st;
	int err;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->fd = -1;
	err = abtf__copy_opts(&l->opts, sizeof(l->opts), opts);
	if (err)
		goto out_free;
	l->pr.fn = l->opts.print;
	l->pr.ctx = l->opts.print_ctx;
	l->path = strdup(path);
	if (!l->path) {
		err = -ENOMEM;
		goto out_free;
	}
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0 || fstat(l->fd, &st)) {
		err = -errno;
		pr_warn(&l->pr, "%s: cannot open: %s", path, strerror(errno));
		goto out_free;
	}
	elf_version(EV_CURRENT);
	l->elf = elf_begin(l->fd, ELF_C_READ_MMAP, NULL);
	if (l->elf && elf_kind(l->elf) == ELF_K_ELF) {
		err = open_elf(l);
	} else {
		if (l->elf)
			elf_end(l->elf);
		l->elf = NULL;
		err = read_all(l, st.st_size);	/* a raw BTF file */
	}
	if (err)
		goto out_free;
	return l;
out_free:
	abtf_linker__free(l);
	errno = -err;
	return NULL;
}

ABTF_API void abtf_linker__free(struct abtf_linker *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr_secs; i++) {
		free(l->secs[i].name);
		free(l->secs[i].vars);
	}
	free(l->secs);
	btf__free(l->btf);
	btf__free(l->base);
	abtf__archive_free(&l->ar);
	strtab_free(&l->strs);
	free(l->types);
	free(l->fn_seen);
	free(l->relas);
	free(l->syms);
	free(l->raw);
	if (l->elf)
		elf_end(l->elf);
	if (l->fd >= 0)
		close(l->fd);
	free(l->path);
	free(l);
}

/* ---- symbols and relocations of the input ---- */

static int rela_cmp(const void *a, const void *b)
{
	const struct rela *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int load_relas(struct abtf_linker *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	Elf_Data *d;
	size_t i, n;

	if (!l->addr_shndx)
		return 0;
	while ((scn = elf_nextscn(l->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_RELA && shdr.sh_type != SHT_REL) ||
		    shdr.sh_info != l->addr_shndx)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d && shdr.sh_size)
			return elf_fail(l, "cannot read .BTF.addr relocations");
		n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
		l->relas = calloc(n + 1, sizeof(*l->relas));
		if (!l->relas)
			return -ENOMEM;
		l->rel_inplace = shdr.sh_type == SHT_REL;
		for (i = 0; i < n; i++) {
			GElf_Rela r = { 0 };
			GElf_Rel rel;

			if (shdr.sh_type == SHT_RELA) {
				if (!gelf_getrela(d, i, &r))
					return elf_fail(l, "bad relocation");
			} else {
				if (!gelf_getrel(d, i, &rel))
					return elf_fail(l, "bad relocation");
				r.r_offset = rel.r_offset;
				r.r_info = rel.r_info;
			}
			l->relas[i].offset = r.r_offset;
			l->relas[i].sym = GELF_R_SYM(r.r_info);
			l->relas[i].addend = r.r_addend;
		}
		l->nr_relas = n;
		qsort(l->relas, n, sizeof(*l->relas), rela_cmp);
		return 0;
	}
	return 0;
}

static int name_sym_cmp(const void *a, const void *b)
{
	const struct name_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int load_symtab(struct abtf_linker *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t i, n;

	while ((scn = elf_nextscn(l->elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			break;
	if (!scn)
		return 0;
	l->symtab = elf_getdata(scn, NULL);
	if (!l->symtab)
		return elf_fail(l, "cannot read .symtab");
	l->symstr = shdr.sh_link;
	for (Elf_Scn *x = NULL; (x = elf_nextscn(l->elf, x));) {
		GElf_Shdr xs;

		if (gelf_getshdr(x, &xs) && xs.sh_type == SHT_SYMTAB_SHNDX &&
		    xs.sh_link == elf_ndxscn(scn))
			l->symshndx = elf_getdata(x, NULL);
	}
	n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	l->syms = calloc(n + 1, sizeof(*l->syms));
	if (!l->syms)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		GElf_Word xndx = 0;
		GElf_Sym s;
		struct name_sym *e;
		int type;

		if (!gelf_getsymshndx(l->symtab, l->symshndx, i, &s, &xndx))
			return elf_fail(l, "bad symbol");
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_OBJECT) ||
		    s.st_shndx == SHN_UNDEF ||
		    (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_XINDEX))
			continue;
		e = &l->syms[l->nr_syms++];
		e->name = elf_strptr(l->elf, l->symstr, s.st_name);
		if (!e->name) {
			l->nr_syms--;
			continue;
		}
		e->idx = i;
		e->value = s.st_value;
		e->shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		e->type = type;
	}
	qsort(l->syms, l->nr_syms, sizeof(*l->syms), name_sym_cmp);
	return 0;
}

/* The first (unused, for objects) defined symbol @name of @type. */
static struct name_sym *lookup_sym(struct abtf_linker *l, const char *name,
				   int type)
{
	size_t lo = 0, hi = l->nr_syms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(l->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->nr_syms && !strcmp(l->syms[lo].name, name); lo++)
		if (l->syms[lo].type == type &&
		    (type == STT_FUNC || !l->syms[lo].used))
			return &l->syms[lo];
	return NULL;
}

static int symbol_at(struct abtf_linker *l, uint32_t idx, GElf_Sym *s,
		     uint32_t *shndx)
{
	GElf_Word xndx = 0;

	if (!l->symtab || !gelf_getsymshndx(l->symtab, l->symshndx, idx, s, &xndx))
		return -ENOENT;
	*shndx = s->st_shndx == SHN_XINDEX ? xndx : s->st_shndx;
	return 0;
}

static int section_info(struct abtf_linker *l, uint32_t shndx, GElf_Shdr *shdr,
			const char **name)
{
	Elf_Scn *scn = elf_getscn(l->elf, shndx);

	if (!scn || !gelf_getshdr(scn, shdr))
		return -ENOENT;
	if (name)
		*name = elf_strptr(l->elf, l->shstrndx, shdr->sh_name);
	return 0;
}

/* The allocated section holding @addr in a final image. */
static int section_of_addr(struct abtf_linker *l, uint64_t addr,
			   uint32_t *shndx, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(l->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
			continue;
		if (addr >= shdr.sh_addr && addr - shdr.sh_addr < shdr.sh_size) {
			*shndx = elf_ndxscn(scn);
			*off = addr - shdr.sh_addr;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- placing FUNCs and VARs ---- */

/* Where one FUNC or VAR of a member is in the output, if anywhere. */
struct place {
	bool present;
	uint32_t key;		/* out_sec key */
	uint64_t off;
	uint32_t dsec_size;	/* raw input: the member DATASEC's size */
	const char *dsec_name;	/* raw input: the member DATASEC's name */
};

struct member_ctx {
	const struct abtf_member *m;
	uint8_t *types;		/* aligned, writable copy */
	uint32_t *map;		/* local ID -> final ID, 0: dropped */
	uint32_t *var_size;	/* local VAR ID -> its DATASEC entry */
	uint32_t *var_off;
	uint32_t *var_dsec;	/* local VAR ID -> its DATASEC's record offset */
	struct place *places;	/* local VAR ID -> where it goes */
	const uint8_t *slots;	/* NULL: no .BTF.addr group */
	size_t slots_off;	/* of the first slot in .BTF.addr */
	uint32_t nr_slots;
	uint32_t next_slot;
};

static size_t slot_size(const struct abtf_linker *l)
{
	return l->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
}

static uint64_t slot_value(const struct abtf_linker *l, const uint8_t *p)
{
	uint64_t v64;
	uint32_t v32;

	if (slot_size(l) == 8) {
		memcpy(&v64, p, 8);
		return v64;
	}
	memcpy(&v32, p, 4);
	return v32;
}

/* Pair the member with the next .BTF.addr group, if that group is its. */
static void find_group(struct abtf_linker *l, struct member_ctx *mc)
{
	struct abtf_addr_hdr hdr;
	size_t off = l->addr_off, ss;

	if (!l->elf)
		return;
	ss = slot_size(l);
	while (off < l->addr_size && off % ss && !l->addr_data[off])
		off++;
	if (l->addr_size - off < sizeof(hdr))
		return;
	memcpy(&hdr, l->addr_data + off, sizeof(hdr));
	if (memcmp(hdr.magic, ABTF_ADDR_MAGIC, sizeof(hdr.magic)) ||
	    hdr.btf_size != mc->m->size ||
	    (l->addr_size - off - sizeof(hdr)) / ss < hdr.nr_slots ||
	    hdr.btf_hash != abtf__hash32(l->btf_data + mc->m->off, mc->m->size))
		return;
	mc->slots_off = off + sizeof(hdr);
	mc->slots = l->addr_data + mc->slots_off;
	mc->nr_slots = hdr.nr_slots;
	l->addr_off = mc->slots_off + (size_t)hdr.nr_slots * ss;
	l->st.nr_addr_groups++;
}

static const struct rela *find_rela(const struct abtf_linker *l, uint64_t off)
{
	struct rela key = { .offset = off };

	return bsearch(&key, l->relas, l->nr_relas, sizeof(key), rela_cmp);
}

/* Through the slot: final image (address + 1) or relocatable (reloc). */
static int slot_place(struct abtf_linker *l, struct member_ctx *mc,
		      struct place *pl)
{
	size_t ss = slot_size(l), at = mc->next_slot * ss;
	uint64_t v;

	if (mc->next_slot >= mc->nr_slots)
		return link_error(l, -EINVAL,
				  ".BTF.addr has fewer slots than its member");
	v = slot_value(l, mc->slots + at);
	mc->next_slot++;
	if (l->ehdr.e_type == ET_REL) {
		const struct rela *r = find_rela(l, mc->slots_off + at);
		uint32_t shndx;
		GElf_Sym s;

		if (!r || symbol_at(l, r->sym, &s, &shndx) ||
		    shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
			return 0;
		pl->present = true;
		pl->key = shndx;
		pl->off = s.st_value + (l->rel_inplace ? (int64_t)v : r->addend) - 1;
		return 0;
	}
	if (!v)
		return 0;	/* the linker discarded it */
	pl->present = !section_of_addr(l, v - 1, &pl->key, &pl->off);
	return 0;
}

/* Without a slot: by name in the symbol table (pahole's archives). */
static void name_place(struct abtf_linker *l, struct member_ctx *mc,
		       uint32_t id, const char *name, bool is_func,
		       struct place *pl)
{
	struct name_sym *s;
	GElf_Shdr shdr;

	if (!l->elf) {
		/* raw input: keep all, where the member's DATASEC says */
		pl->present = true;
		if (!is_func && mc->var_dsec[id]) {
			const struct btf_type *d = (void *)
				(mc->types + mc->var_dsec[id]);

			pl->dsec_name = mc->m->strs + d->name_off;
			pl->dsec_size = d->size;
			pl->off = mc->var_off[id];
		} else if (!is_func) {
			pl->present = false;
		}
		return;
	}
	s = lookup_sym(l, name, is_func ? STT_FUNC : STT_OBJECT);
	if (!s)
		return;
	pl->present = true;
	if (is_func)
		return;
	s->used = true;
	pl->key = s->shndx;
	pl->off = s->value;
	if (l->ehdr.e_type != ET_REL && !section_info(l, s->shndx, &shdr, NULL))
		pl->off -= shdr.sh_addr;
}

static int place_of(struct abtf_linker *l, struct member_ctx *mc, uint32_t id,
		    const char *name, bool is_func, struct place *pl)
{
	memset(pl, 0, sizeof(*pl));
	if (mc->slots)
		return slot_place(l, mc, pl);
	name_place(l, mc, id, name, is_func, pl);
	return 0;
}

/* ---- output sections ---- */

static struct out_sec *out_sec_get(struct abtf_linker *l, const struct place *pl)
{
	struct out_sec *sec, *n;
	const char *name = pl->dsec_name;
	GElf_Shdr shdr = { 0 };
	uint32_t key = pl->key;
	size_t i;

	if (!l->elf) {
		int64_t off = strtab_add(&l->strs, name);

		if (off < 0)
			return NULL;
		key = off;
	}
	for (i = 0; i < l->nr_secs; i++)
		if (l->secs[i].key == key)
			return &l->secs[i];
	if (l->elf && section_info(l, key, &shdr, &name))
		return NULL;
	n = realloc(l->secs, (l->nr_secs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	l->secs = n;
	sec = &l->secs[l->nr_secs];
	memset(sec, 0, sizeof(*sec));
	sec->key = key;
	sec->size = l->elf ? shdr.sh_size : pl->dsec_size;
	sec->name = strdup(name ? name : "");
	if (!sec->name)
		return NULL;
	l->nr_secs++;
	return sec;
}

static int add_out_var(struct abtf_linker *l, const struct place *pl,
		       uint32_t id, uint32_t size)
{
	struct out_sec *sec = out_sec_get(l, pl);
	struct out_var *v;

	if (!sec)
		return -ENOMEM;
	if (pl->off > UINT32_MAX)
		return link_error(l, -ERANGE, "variable offset does not fit BTF");
	if (sec->nr == sec->cap) {
		size_t ncap = sec->cap ? sec->cap * 2 : 64;

		v = realloc(sec->vars, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sec->vars = v;
		sec->cap = ncap;
	}
	v = &sec->vars[sec->nr++];
	v->id = id;
	v->off = pl->off;
	v->size = size;
	return 0;
}

/* ---- merging one member ---- */

static int fn_seen_add(struct abtf_linker *l, uint32_t name_off)
{
	size_t i;

	if ((l->fn_cnt + 1) * 2 > l->fn_slots) {
		size_t n = l->fn_slots ? l->fn_slots * 2 : 4096, j;
		uint32_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (j = 0; j < l->fn_slots; j++) {
			size_t k;

			if (!l->fn_seen[j])
				continue;
			for (k = (l->fn_seen[j] * 2654435761u) & (n - 1);
			     slots[k]; k = (k + 1) & (n - 1))
				;
			slots[k] = l->fn_seen[j];
		}
		free(l->fn_seen);
		l->fn_seen = slots;
		l->fn_slots = n;
	}
	for (i = ((name_off + 1) * 2654435761u) & (l->fn_slots - 1);
	     l->fn_seen[i]; i = (i + 1) & (l->fn_slots - 1))
		if (l->fn_seen[i] == name_off + 1)
			return 1;	/* already there */
	l->fn_seen[i] = name_off + 1;
	l->fn_cnt++;
	return 0;
}

static struct btf_type *member_type(struct member_ctx *mc, uint32_t *off)
{
	struct btf_type *t = (void *)(mc->types + *off);

	*off += abtf__record_size(t);
	return t;
}

/* The DATASEC entries give each VAR its size (and, raw, its offset). */
static void collect_datasecs(struct member_ctx *mc)
{
	uint32_t off = 0, id, cur;

	for (id = 1; id <= mc->m->nr_types; id++) {
		struct btf_type *t;
		struct btf_var_secinfo *v;
		uint16_t i;

		cur = off;
		t = member_type(mc, &off);
		if (BTF_INFO_KIND(t->info) != BTF_KIND_DATASEC)
			continue;
		v = (void *)(t + 1);
		for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
			mc->var_size[v[i].type] = v[i].size;
			mc->var_off[v[i].type] = v[i].offset;
			mc->var_dsec[v[i].type] = cur;
		}
	}
}

/*
 * pahole keeps the variables of the final ".data..percpu" only: the vmlinux
 * linker script has merged its input subsections into it by now.
 */
static bool in_percpu_section(struct abtf_linker *l, const struct place *pl)
{
	const char *name = pl->dsec_name;
	GElf_Shdr shdr;

	if (l->elf && section_info(l, pl->key, &shdr, &name))
		return false;
	return name && !strcmp(name, ABTF_PERCPU_SEC);
}

static int decide(struct abtf_linker *l, struct member_ctx *mc, uint32_t id,
		  struct btf_type *t, struct place *pl)
{
	const char *name = mc->m->strs + t->name_off;
	int64_t soff;
	int err;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_DATASEC:
		return 0;
	case BTF_KIND_DECL_TAG:
		return t->type < id && mc->map[t->type];
	case BTF_KIND_FUNC:
		err = place_of(l, mc, id, name, true, pl);
		if (err || !pl->present)
			return err;
		soff = strtab_add(&l->strs, name);
		if (soff < 0)
			return soff;
		err = fn_seen_add(l, soff);
		return err < 0 ? err : !err;
	case BTF_KIND_VAR:
		err = place_of(l, mc, id, name, false, pl);
		return err ? err : pl->present && in_percpu_section(l, pl);
	default:
		return 1;
	}
}

struct remap {
	struct abtf_linker *l;
	struct member_ctx *mc;
};

static int remap_id(uint32_t *id, void *ctx)
{
	struct remap *r = ctx;

	if (!*id)
		return 0;
	if (!r->mc->map[*id])
		return -EINVAL;
	*id = r->mc->map[*id];
	return 0;
}

static int remap_str(uint32_t *off, void *ctx)
{
	struct remap *r = ctx;
	int64_t n;

	if (!*off)
		return 0;
	n = strtab_add(&r->l->strs, r->mc->m->strs + *off);
	if (n < 0)
		return n;
	*off = n;
	return 0;
}

static int append_type(struct abtf_linker *l, struct member_ctx *mc,
		       const struct btf_type *t)
{
	size_t sz = abtf__record_size(t);
	struct remap r = { .l = l, .mc = mc };
	struct btf_type *dst;

	if (l->types_len + sz > l->types_cap) {
		size_t ncap = l->types_cap ? l->types_cap * 2 : 1 << 20;
		uint8_t *n;

		while (ncap < l->types_len + sz)
			ncap *= 2;
		n = realloc(l->types, ncap);
		if (!n)
			return -ENOMEM;
		l->types = n;
		l->types_cap = ncap;
	}
	dst = (void *)(l->types + l->types_len);
	memcpy(dst, t, sz);
	l->types_len += sz;
	if (abtf__for_each_type_id(dst, remap_id, &r))
		return link_error(l, -EINVAL, "a type refers to a dropped type");
	return abtf__for_each_str_off(dst, remap_str, &r);
}

/* Pass 1: which types survive, their final IDs, where the VARs go. */
static int decide_all(struct abtf_linker *l, struct member_ctx *mc)
{
	uint32_t off = 0, id;
	int keep;

	for (id = 1; id <= mc->m->nr_types; id++) {
		struct btf_type *t = member_type(mc, &off);

		keep = decide(l, mc, id, t, &mc->places[id]);
		if (keep < 0)
			return keep;
		if (keep)
			mc->map[id] = l->next_id++;
	}
	return 0;
}

/* Pass 2: append the survivors, every reference now resolvable. */
static int merge_types(struct abtf_linker *l, struct member_ctx *mc)
{
	uint32_t off = 0, id;
	int err;

	err = decide_all(l, mc);
	if (err)
		return err;
	for (id = 1; id <= mc->m->nr_types; id++) {
		struct btf_type *t = member_type(mc, &off);

		if (!mc->map[id])
			continue;
		err = append_type(l, mc, t);
		if (err)
			return err;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_VAR) {
			err = add_out_var(l, &mc->places[id], mc->map[id],
					  mc->var_size[id]);
			if (err)
				return err;
			l->st.vars++;
		} else if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC) {
			l->st.funcs++;
		}
	}
	return 0;
}

static int link_member(struct abtf_linker *l, const struct abtf_member *m)
{
	struct member_ctx mc = { .m = m };
	size_t n = m->nr_types + 1;
	int err = -ENOMEM;

	mc.types = malloc(m->type_len ? m->type_len : 1);
	mc.map = calloc(n, sizeof(*mc.map));
	mc.var_size = calloc(n, sizeof(*mc.var_size));
	mc.var_off = calloc(n, sizeof(*mc.var_off));
	mc.var_dsec = calloc(n, sizeof(*mc.var_dsec));
	mc.places = calloc(n, sizeof(*mc.places));
	if (!mc.types || !mc.map || !mc.var_size || !mc.var_off ||
	    !mc.var_dsec || !mc.places)
		goto out_free;
	memcpy(mc.types, m->types, m->type_len);
	find_group(l, &mc);
	collect_datasecs(&mc);
	err = merge_types(l, &mc);
	l->st.types_in += m->nr_types;
out_free:
	free(mc.types);
	free(mc.map);
	free(mc.var_size);
	free(mc.var_off);
	free(mc.var_dsec);
	free(mc.places);
	return err;
}

/* ---- DATASECs ---- */

static int out_var_cmp(const void *a, const void *b)
{
	const struct out_var *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int sec_cmp(const void *a, const void *b)
{
	const struct out_sec *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Sorted, without overlaps (the kernel rejects them), inside the section. */
static size_t clean_vars(struct out_sec *sec)
{
	size_t i, n = 0;
	uint64_t end = 0;

	qsort(sec->vars, sec->nr, sizeof(*sec->vars), out_var_cmp);
	for (i = 0; i < sec->nr; i++) {
		struct out_var *v = &sec->vars[i];

		if ((n && v->off < end) || (uint64_t)v->off + v->size > sec->size)
			continue;
		end = (uint64_t)v->off + v->size;
		sec->vars[n++] = *v;
	}
	sec->nr = n;
	return n;
}

static int append_datasec(struct abtf_linker *l, struct out_sec *sec)
{
	size_t sz = sizeof(struct btf_type) +
		    sec->nr * sizeof(struct btf_var_secinfo), i;
	struct btf_type *t;
	struct btf_var_secinfo *v;
	int64_t name;
	uint8_t *n;

	name = strtab_add(&l->strs, sec->name);
	if (name < 0)
		return name;
	if (l->types_len + sz > l->types_cap) {
		n = realloc(l->types, l->types_len + sz);
		if (!n)
			return -ENOMEM;
		l->types = n;
		l->types_cap = l->types_len + sz;
	}
	t = (void *)(l->types + l->types_len);
	t->name_off = name;
	t->info = (BTF_KIND_DATASEC << 24) | sec->nr;
	t->size = sec->size;
	v = (void *)(t + 1);
	for (i = 0; i < sec->nr; i++) {
		v[i].type = sec->vars[i].id;
		v[i].offset = sec->vars[i].off;
		v[i].size = sec->vars[i].size;
	}
	l->types_len += sz;
	l->next_id++;
	return 0;
}

static int append_datasecs(struct abtf_linker *l)
{
	size_t i;
	int err;

	qsort(l->secs, l->nr_secs, sizeof(*l->secs), sec_cmp);
	for (i = 0; i < l->nr_secs; i++) {
		if (!clean_vars(&l->secs[i]))
			continue;
		if (l->secs[i].nr > 0xffff)
			return link_error(l, -E2BIG, "too many variables in a section");
		err = append_datasec(l, &l->secs[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- the final BTF ---- */

/*
 * libbpf 1.1 declares btf__new_split() but does not export it, so split
 * BTF is parsed from an anonymous in-memory file with btf__parse_raw_split().
 */
static struct btf *new_btf(const void *raw, size_t size, struct btf *base)
{
	char path[64];
	struct btf *btf;
	int fd, err = 0;

	if (!base)
		return btf__new(raw, size);
	fd = memfd_create("abtf-split-btf", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, raw, size) != (ssize_t)size)
		err = errno ? errno : EIO;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	btf = err ? NULL : btf__parse_raw_split(path, base);
	if (!btf && !err)
		err = errno;
	close(fd);
	errno = err;
	return btf;
}

/* Split BTF names its own strings from the end of the base's. */
static uint32_t base_str_len(const struct btf *base)
{
	const struct btf_header *hdr;
	uint32_t size;

	if (!base)
		return 0;
	hdr = btf__raw_data(base, &size);
	return hdr ? hdr->str_len : 0;
}

static int shift_str(uint32_t *off, void *ctx)
{
	uint32_t *shift = ctx;

	if (*off)
		*off += *shift;
	return 0;
}

static int build_btf(struct abtf_linker *l)
{
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(hdr),
	};
	uint32_t shift = base_str_len(l->base), off = 0;
	uint8_t *raw;
	size_t size;

	while (shift && off < l->types_len) {
		struct btf_type *t = (void *)(l->types + off);

		abtf__for_each_str_off(t, shift_str, &shift);
		off += abtf__record_size(t);
	}
	hdr.type_len = l->types_len;
	hdr.str_off = l->types_len;
	hdr.str_len = l->strs.len;
	size = sizeof(hdr) + l->types_len + l->strs.len;
	raw = malloc(size);
	if (!raw)
		return -ENOMEM;
	memcpy(raw, &hdr, sizeof(hdr));
	memcpy(raw + sizeof(hdr), l->types, l->types_len);
	memcpy(raw + sizeof(hdr) + l->types_len, l->strs.data, l->strs.len);
	l->btf = new_btf(raw, size, l->base);
	free(raw);
	if (!l->btf) {
		int err = -errno;

		pr_warn(&l->pr, "%s: the merged BTF is invalid: %s", l->path,
			strerror(errno));
		return err;
	}
	return 0;
}

static int load_base(struct abtf_linker *l)
{
	if (!l->opts.base_path)
		return 0;
	l->base = btf__parse(l->opts.base_path, NULL);
	if (!l->base) {
		int err = -errno;

		pr_warn(&l->pr, "%s: cannot read base BTF: %s",
			l->opts.base_path, strerror(errno));
		return err;
	}
	return 0;
}

/* One member and no .BTF.addr left to apply: what btf-link writes. */
static bool is_final(const struct abtf_linker *l)
{
	return l->ar.nr == 1 && !l->addr_size;
}

static int keep_final(struct abtf_linker *l)
{
	const struct abtf_member *m = &l->ar.members[0];

	l->btf = new_btf(l->btf_data + m->off, m->size, l->base);
	if (!l->btf)
		return link_error(l, -errno, "cannot load the final BTF");
	l->final_input = true;
	return 1;
}

static int merge_all(struct abtf_linker *l)
{
	size_t i;
	int err;

	if (strtab_add(&l->strs, "") < 0)
		return -ENOMEM;
	l->first_id = l->base ? btf__type_cnt(l->base) : 1;
	l->next_id = l->first_id;
	for (i = 0; i < l->ar.nr; i++) {
		err = link_member(l, &l->ar.members[i]);
		if (err) {
			pr_warn(&l->pr, "%s: .BTF member %zu at byte %zu: "
				"cannot merge: %s", l->path, i,
				l->ar.members[i].off, strerror(-err));
			return err;
		}
	}
	return append_datasecs(l);
}

ABTF_API int abtf_linker__link(struct abtf_linker *l)
{
	double t0 = now(), t1, t2;
	int err;

	if (l->btf)
		return l->final_input;
	err = abtf__archive_parse(&l->ar, l->btf_data, l->btf_size, l->path,
				  &l->pr);
	if (err)
		return err;
	l->st.nr_members = l->ar.nr;
	l->st.bytes_in = l->btf_size;
	err = load_base(l);
	if (err)
		return err;
	if (is_final(l) && !l->opts.force)
		return keep_final(l);
	if (l->elf) {
		err = load_symtab(l);
		if (err)
			return err;
	}
	t1 = now();
	l->st.t_parse = t1 - t0;
	err = merge_all(l);
	if (!err)
		err = build_btf(l);
	if (err)
		return err;
	l->st.types_merged = l->next_id - l->first_id;
	t2 = now();
	l->st.t_merge = t2 - t1;
	err = btf__dedup(l->btf, NULL);
	if (err)
		return link_error(l, err, "BTF deduplication failed");
	l->st.t_dedup = now() - t2;
	return 0;
}

ABTF_API const struct btf *abtf_linker__btf(const struct abtf_linker *l)
{
	return l->btf;
}

ABTF_API int abtf_linker__stats(const struct abtf_linker *l,
				struct abtf_link_stats *stats)
{
	struct abtf_link_stats st = l->st;
	uint32_t size = 0;
	size_t sz;

	if (!stats || stats->sz < sizeof(size_t))
		return -EINVAL;
	if (l->btf) {
		btf__raw_data(l->btf, &size);
		st.bytes_out = size;
		st.types_out = btf__type_cnt(l->btf) -
			       (l->base ? btf__type_cnt(l->base) : 1);
	}
	sz = stats->sz < sizeof(st) ? stats->sz : sizeof(st);
	st.sz = stats->sz;
	memcpy(stats, &st, sz);
	return 0;
}

/* ---- output ---- */

ABTF_API int abtf_linker__write_raw(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;
	int err;

	if (!l->btf)
		return -EINVAL;
	raw = btf__raw_data(l->btf, &size);
	if (!raw)
		return -ENOMEM;
	err = abtf_write_file(dst, raw, size);
	if (err)
		pr_warn(&l->pr, "%s: cannot write: %s", dst, strerror(-err));
	return err;
}

/* A relocatable input: libelf lays it out again, sections keep indices. */
static int write_rel(struct abtf_linker *l, const char *dst, const void *raw,
		     uint32_t size)
{
	static const struct abtf_reloc none;
	struct abtf_section secs[2] = {
		{ .name = ABTF_SEC_BTF, .type = SHT_PROGBITS, .align = 4,
		  .data = raw, .size = size },
		{ .name = ABTF_SEC_ADDR, .type = SHT_PROGBITS, .align = 8,
		  .data = "", .size = 0, .relocs = &none, .nr_relocs = 0 },
	};

	return abtf__elf_set_sections(l->elf, l->path, dst, secs,
				      l->addr_shndx ? 2 : 1, &l->pr);
}

static int copy_file(int from, int to)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(from, buf, sizeof(buf), off)) > 0) {
		char *p = buf;
		ssize_t left = n;

		while (left > 0) {
			ssize_t w = write(to, p, left);

			if (w < 0)
				return -errno;
			p += w;
			left -= w;
		}
		off += n;
	}
	return n < 0 ? -errno : 0;
}

static int set_section(Elf *elf, size_t shndx, const void *data, size_t size)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr shdr;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &shdr) || !(d = elf_getdata(scn, NULL)))
		return -EINVAL;
	if (size > shdr.sh_size)
		return -EFBIG;
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	shdr.sh_size = size;
	if (!gelf_update_shdr(scn, &shdr))
		return -EINVAL;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

/*
 * A linked image: the layout must not move (program headers map it), so
 * the final BTF is written over the archive at the same offset and the
 * section shrinks; .BTF.addr and its relocations are emptied likewise.
 */
static int write_exec(struct abtf_linker *l, const char *dst, const void *raw,
		      uint32_t size)
{
	Elf *elf = NULL;
	char *tmp;
	int fd, err;

	fd = abtf__tmpfile_for(dst, &tmp);
	if (fd < 0)
		return fd;
	err = copy_file(l->fd, fd);
	if (err)
		goto out_abort;
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!elf) {
		err = -EINVAL;
		goto out_abort;
	}
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	err = set_section(elf, l->btf_shndx, raw, size);
	if (err == -EFBIG)
		pr_warn(&l->pr, "%s: the final BTF (%u bytes) is larger than "
			"the .BTF section; write it with -o", l->path, size);
	if (!err && l->addr_shndx)
		err = set_section(elf, l->addr_shndx, "", 0);
	if (!err && elf_update(elf, ELF_C_WRITE) < 0) {
		pr_warn(&l->pr, "%s: cannot write: %s", dst, elf_errmsg(-1));
		err = -EIO;
	}
	elf_end(elf);
	elf = NULL;
	if (close(fd) && !err)
		err = -errno;
	fd = -1;
	if (err)
		goto out_abort;
	return abtf__tmpfile_commit(tmp, dst);
out_abort:
	if (err != -EFBIG && err != -EIO)
		pr_warn(&l->pr, "%s: cannot write: %s", dst,
			elf ? elf_errmsg(-1) : strerror(-err));
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	abtf__tmpfile_abort(tmp);
	return err;
}

ABTF_API int abtf_linker__write_elf(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;

	if (!l->btf)
		return -EINVAL;
	if (!l->elf)
		return link_error(l, -EINVAL, "not an ELF file; write it with -o");
	if (!dst && l->final_input)
		return 0;	/* already final: leave the file alone */
	raw = btf__raw_data(l->btf, &size);
	if (!raw)
		return -ENOMEM;
	if (l->ehdr.e_type == ET_REL)
		return write_rel(l, dst ? dst : l->path, raw, size);
	return write_exec(l, dst ? dst : l->path, raw, size);
}

static int new_section(Elf *elf, uint32_t name, uint32_t type, uint64_t flags,
		       uint64_t align, const void *data, size_t size)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d;
	GElf_Shdr shdr;

	if (!scn || !(d = elf_newdata(scn)) || !gelf_getshdr(scn, &shdr))
		return -EINVAL;
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align;
	shdr.sh_name = name;
	shdr.sh_type = type;
	shdr.sh_flags = flags;
	shdr.sh_addralign = align;
	shdr.sh_size = size;
	return gelf_update_shdr(scn, &shdr) ? 0 : -EINVAL;
}

/* A relocatable object with the final BTF in an allocatable .BTF. */
static int write_btf_object(struct abtf_linker *l, int fd, const void *raw,
			    uint32_t size)
{
	static const char shstrtab[] = "\0.BTF\0.shstrtab";
	GElf_Ehdr ehdr;
	Elf *elf;
	int err = -EINVAL;

	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, l->ehdr.e_ident[EI_CLASS]) ||
	    !gelf_getehdr(elf, &ehdr))
		goto out;
	memcpy(ehdr.e_ident, l->ehdr.e_ident, EI_NIDENT);
	ehdr.e_type = ET_REL;
	ehdr.e_machine = l->ehdr.e_machine;
	ehdr.e_version = EV_CURRENT;
	ehdr.e_flags = l->ehdr.e_flags;
	ehdr.e_shstrndx = 2;
	if (!gelf_update_ehdr(elf, &ehdr) ||
	    new_section(elf, 1, SHT_PROGBITS, SHF_ALLOC, 4, raw, size) ||
	    new_section(elf, 7, SHT_STRTAB, 0, 1, shstrtab, sizeof(shstrtab)) ||
	    elf_update(elf, ELF_C_WRITE) < 0)
		goto out;
	err = 0;
out:
	if (err)
		pr_warn(&l->pr, "%s: cannot make the BTF object: %s", l->path,
			elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	return err;
}

ABTF_API int abtf_linker__write_object(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;
	char *tmp;
	int fd, err;

	if (!l->btf)
		return -EINVAL;
	if (!l->elf)
		return link_error(l, -EINVAL,
				  "a raw BTF input does not say the target: "
				  "no object can be made for it");
	raw = btf__raw_data(l->btf, &size);
	if (!raw)
		return -ENOMEM;
	fd = abtf__tmpfile_for(dst, &tmp);
	if (fd < 0) {
		pr_warn(&l->pr, "%s: cannot write: %s", dst, strerror(-fd));
		return fd;
	}
	err = write_btf_object(l, fd, raw, size);
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		abtf__tmpfile_abort(tmp);
		return err;
	}
	return abtf__tmpfile_commit(tmp, dst);
}
