// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * decl_tag_kfuncs: a DECL_TAG "bpf_kfunc" (component -1) on the FUNC of
 * every kfunc, and "bpf_fastcall" on those registered with KF_FASTCALL,
 * found where upstream pahole finds them (btf_encoder.c,
 * btf_encoder__collect_kfuncs()): in the image's .BTF_ids section, as
 * include/linux/btf_ids.h lays it out, through the symbol table.
 *
 *  - A kfunc set is a symbol "__BTF_ID__set8__NAME" in .BTF_ids whose
 *    struct btf_id_set8 { u32 cnt; u32 flags; { u32 id; u32 flags; }[] }
 *    has BTF_SET8_KFUNCS (bit 0) in its flags (BTF_KFUNCS_START); it
 *    covers [st_value, st_value + st_size) (BTF_KFUNCS_END sets the size).
 *    Other sets (BTF_SET8_START, BTF_ID_LIST) hold no kfuncs.
 *  - A kfunc is a symbol "__BTF_ID__func__NAME__SUFFIX" in .BTF_ids whose
 *    address lies in a kfunc set; NAME is what lies between the prefix and
 *    the last "__" (pahole: the last '_' must follow another '_'), its
 *    flags the u32 after its ID. A name in several sets takes the flags of
 *    the last one in symbol table order, as pahole's loop leaves them.
 *  - Every FUNC of that name the link keeps gets the tags (pahole tags the
 *    FUNC it emits for the function); a kfunc without a FUNC gets none.
 *
 * Offsets are section-relative (st_value - sh_addr): the same for an image
 * and a relocatable module. The u32s are in the image's byte order (a
 * big-endian s390x image's flags read in the host's had no kfunc set).
 * Every offset and size read is checked against the section; a symbol
 * that lies outside it is an error naming it (pahole reads past the
 * section for a set, and stops for a kfunc).
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/kfuncs.h"
#include "btf/verify.h"
#include "elf/elf_read.h"

#define BTF_IDS_SEC		".BTF_ids"
#define BTF_ID_FUNC_PFX		"__BTF_ID__func__"
#define BTF_ID_SET8_PFX		"__BTF_ID__set8__"
#define BTF_SET8_KFUNCS		(1u << 0)
#define KF_FASTCALL		(1u << 12)

struct kset {
	uint64_t start, end;	/* section offsets */
};

/* What one run of the collection holds. */
struct kscan {
	struct abtf_linker *l;
	struct abtf_elf_syms syms;	/* .symtab */
	size_t shndx;		/* .BTF_ids */
	uint64_t addr;
	const uint8_t *data;
	size_t size;
	struct kset *sets;
	size_t nr_sets, cap_sets;
};

static int link_fail(struct abtf_linker *l, const char *what)
{
	pr_warn(&l->pr, "%s: %s", l->path, what);
	return -EINVAL;
}

static int kfunc_error(struct kscan *ks, const char *sym, uint64_t value,
		       const char *what)
{
	char name[96];

	pr_warn(&ks->l->pr, "%s: " BTF_IDS_SEC ": symbol '%s' at 0x%llx: %s",
		ks->l->path, abtf__safe_name(sym, name, sizeof(name)),
		(unsigned long long)value, what);
	return -EINVAL;
}

/* The u32 at section offset @off, in the image's byte order. */
static uint32_t u32_at(const struct kscan *ks, uint64_t off)
{
	uint32_t v;

	memcpy(&v, ks->data + off, sizeof(v));
	return ks->l->file.swapped ? bswap_32(v) : v;
}

/*
 * Symbol @i if it is defined in .BTF_ids: its name and value. The name is
 * read for those alone: the image's other symbols are hundreds of thousands.
 */
static bool ids_symbol(struct kscan *ks, size_t i, GElf_Sym *s,
		       const char **name)
{
	int shndx;

	if (abtf__elf_sym(&ks->syms, i, s, &shndx, NULL) ||
	    (size_t)shndx != ks->shndx)
		return false;
	*name = elf_strptr(ks->syms.elf, ks->syms.strndx, s->st_name);
	return *name != NULL;
}

/* The section offset of @s, which must have @need bytes in the section. */
static int ids_offset(struct kscan *ks, const GElf_Sym *s, const char *name,
		      uint64_t need, uint64_t *off)
{
	if (s->st_value < ks->addr || s->st_value - ks->addr > ks->size ||
	    need > ks->size - (s->st_value - ks->addr))
		return kfunc_error(ks, name, s->st_value,
				   "lies outside the section");
	*off = s->st_value - ks->addr;
	return 0;
}

/* Pass 1: the kfunc sets. */
static int find_sets(struct kscan *ks)
{
	size_t i;
	int err;

	for (i = 1; i < ks->syms.nr; i++) {
		const char *name;
		uint64_t off;
		GElf_Sym s;

		if (!ids_symbol(ks, i, &s, &name) ||
		    strncmp(name, BTF_ID_SET8_PFX, strlen(BTF_ID_SET8_PFX)))
			continue;
		err = ids_offset(ks, &s, name, 8, &off);
		if (err)
			return err;
		if (!(u32_at(ks, off + 4) & BTF_SET8_KFUNCS))
			continue;
		if (s.st_size > ks->size - off)
			return kfunc_error(ks, name, s.st_value,
					   "its size runs past the section");
		if (abtf_grow(ks->sets, ks->cap_sets, ks->nr_sets + 1))
			return -ENOMEM;
		ks->sets[ks->nr_sets].start = off;
		ks->sets[ks->nr_sets].end = off + s.st_size;
		ks->nr_sets++;
	}
	return 0;
}

static bool in_a_set(const struct kscan *ks, uint64_t off)
{
	size_t i;

	for (i = 0; i < ks->nr_sets; i++)
		if (off >= ks->sets[i].start && off < ks->sets[i].end)
			return true;
	return false;
}

/*
 * The function of "__BTF_ID__func__NAME__SUFFIX": NAME, up to the last '_'
 * if another '_' comes before it (pahole's get_func_name()); 0 if none.
 */
static size_t func_name_len(const char *sym)
{
	const char *name = sym + strlen(BTF_ID_FUNC_PFX), *last;

	if (strncmp(sym, BTF_ID_FUNC_PFX, strlen(BTF_ID_FUNC_PFX)) ||
	    !strstr(name, "__"))
		return 0;
	last = strrchr(name, '_');
	if (last == name || last[-1] != '_')
		return 0;
	return last - 1 - name;
}

static int add_kfunc(struct kfunc_list *kl, const char *name, size_t len,
		     uint32_t flags, size_t sym)
{
	struct kfunc *k;

	if (abtf_grow(kl->v, kl->cap, kl->nr + 1))
		return -ENOMEM;
	k = &kl->v[kl->nr];
	k->name = strndup(name, len);
	if (!k->name)
		return -ENOMEM;
	k->flags = flags;
	k->sym = sym;
	kl->nr++;
	return 0;
}

/* Pass 2: the functions listed in kfunc sets. */
static int find_kfuncs(struct kscan *ks)
{
	size_t i, len;
	int err;

	for (i = 1; i < ks->syms.nr; i++) {
		const char *name;
		uint64_t off;
		GElf_Sym s;

		if (!ids_symbol(ks, i, &s, &name) ||
		    !(len = func_name_len(name)))
			continue;
		if (s.st_value < ks->addr ||
		    !in_a_set(ks, s.st_value - ks->addr))
			continue;
		err = ids_offset(ks, &s, name, 8, &off);
		if (!err)
			err = add_kfunc(&ks->l->kfuncs,
					name + strlen(BTF_ID_FUNC_PFX), len,
					u32_at(ks, off + 4), i);
		if (err)
			return err;
	}
	return 0;
}

/* By name; of one name, the last symbol first (its flags win). */
static int kfunc_cmp(const void *a, const void *b)
{
	const struct kfunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->sym > y->sym ? -1 : x->sym < y->sym;
}

static void sort_kfuncs(struct kfunc_list *kl)
{
	size_t i, n = 0;

	if (!kl->nr)
		return;
	qsort(kl->v, kl->nr, sizeof(*kl->v), kfunc_cmp);
	for (i = 0; i < kl->nr; i++) {
		if (n && !strcmp(kl->v[n - 1].name, kl->v[i].name)) {
			free(kl->v[i].name);
			continue;
		}
		kl->v[n++] = kl->v[i];
	}
	kl->nr = n;
}

/* .BTF_ids, section @ks->shndx of header @shdr: its address and bytes. */
static int open_ids(struct abtf_linker *l, struct kscan *ks,
		    const GElf_Shdr *shdr)
{
	Elf_Data *d;

	if (shdr->sh_type == SHT_NOBITS)
		return link_fail(l, BTF_IDS_SEC " has no contents (NOBITS)");
	ks->addr = shdr->sh_addr;
	if (!shdr->sh_size)
		return 0;
	d = elf_rawdata(elf_getscn(l->file.elf, ks->shndx), NULL);
	if (!d || d->d_size != shdr->sh_size)
		return link_fail(l, "cannot read " BTF_IDS_SEC);
	ks->data = d->d_buf;
	ks->size = d->d_size;
	return 0;
}

int abtf__collect_kfuncs(struct abtf_linker *l)
{
	struct kscan ks = { .l = l };
	GElf_Shdr shdr;
	int err, syms_err;

	if (!l->file.elf)
		return link_fail(l, "raw BTF has no " BTF_IDS_SEC " section: "
				 "BTF feature 'decl_tag_kfuncs' needs the "
				 "ELF image");
	ks.shndx = abtf__elf_find(l->file.elf, SHT_NULL, BTF_IDS_SEC, &shdr);
	syms_err = abtf__elf_syms_open(l->file.elf, SHT_SYMTAB, &ks.syms);
	if (!ks.shndx || syms_err == -ENOENT)
		return 0;	/* no kfuncs: nothing to tag */
	err = open_ids(l, &ks, &shdr);
	if (err)
		return err;
	if (syms_err)
		return link_fail(l, "cannot read .symtab");
	err = find_sets(&ks);
	if (!err)
		err = find_kfuncs(&ks);
	free(ks.sets);
	if (!err)
		sort_kfuncs(&l->kfuncs);
	return err;
}

void abtf__free_kfuncs(struct kfunc_list *kl)
{
	size_t i;

	for (i = 0; i < kl->nr; i++)
		free(kl->v[i].name);
	free(kl->v);
	memset(kl, 0, sizeof(*kl));
}

const struct kfunc *abtf__find_kfunc(const struct kfunc_list *kl,
				     const char *name)
{
	size_t lo = 0, hi = kl->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(kl->v[mid].name, name);

		if (!c)
			return &kl->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The tags of a kfunc's FUNC: "bpf_kfunc", maybe "bpf_fastcall". */
int abtf__kfunc_tags(const struct kfunc *k, const char **tags)
{
	int n = 0;

	tags[n++] = "bpf_kfunc";
	if (k->flags & KF_FASTCALL)
		tags[n++] = "bpf_fastcall";
	return n;
}
