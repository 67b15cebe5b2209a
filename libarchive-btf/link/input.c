// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The linker's input (see the essay atop linker.c, step 1): the ELF file
 * read once at open (section headers, .debug_btf_addr and its
 * relocations), so that threads never call libelf; reading the archive's
 * bytes, a member, a leaf's members, in the host's byte order; a member
 * as a node's input.
 *
 * The bottom of the linker: it calls no other file of link/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/symbols.h"
#include "link/plan.h"
#include "link/node.h"
#include "btf/zmember.h"
#include "elf/elf_read.h"

/* ---- the file ---- */

int abtf__pread_all(int fd, void *buf, size_t size, size_t off)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = pread(fd, (char *)buf + got, size - got, off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		got += n;
	}
	return 0;
}

/* A copy of every section header: threads never call libelf. */
static int load_sections(struct abtf_linker *l, size_t fsize)
{
	struct link_symbols *sy = &l->sym;
	size_t i;
	int err;

	/* btf-link reads the relocations of .debug_btf_addr alone */
	err = abtf__elf_check(l->file.elf, fsize, l->path, ABTF_SEC_ADDR,
			      &l->pr);
	if (err)
		return err;
	if (elf_getshdrnum(l->file.elf, &sy->nr_secs))
		return abtf__link_elf_fail(l, "bad section header table");
	sy->secs = calloc(sy->nr_secs + 1, sizeof(*sy->secs));
	if (!sy->secs)
		return -ENOMEM;
	for (i = 1; i < sy->nr_secs; i++) {
		Elf_Scn *scn = elf_getscn(l->file.elf, i);
		GElf_Shdr shdr;

		if (!scn || !gelf_getshdr(scn, &shdr))
			return abtf__link_elf_fail(l, "bad section header");
		sy->secs[i].name = elf_strptr(l->file.elf, l->file.shstrndx,
					      shdr.sh_name);
		sy->secs[i].addr = shdr.sh_addr;
		sy->secs[i].size = shdr.sh_size;
		sy->secs[i].flags = shdr.sh_flags;
	}
	return 0;
}

/* .debug_btf_addr's relocations (a relocatable input), sorted (addr.c). */
static int load_relocs(struct abtf_linker *l)
{
	if (!l->file.addr.size)
		return 0;
	return abtf__addr_relocs_load(l->file.elf, l->file.addr_shndx, l->path,
				      &l->pr, &l->file.relocs);
}

/*
 * .debug_btf_addr's bytes. The section is a debug section to the linker,
 * which compresses it with the DWARF (--compress-debug-sections, as
 * kbuild's CONFIG_DEBUG_INFO_COMPRESSED asks): it is then inflated here,
 * in this process's copy; relocations apply to the inflated bytes.
 */
static int read_addr(struct abtf_linker *l)
{
	struct link_file *f = &l->file;
	Elf_Scn *scn = elf_getscn(f->elf, f->addr_shndx);
	Elf_Data *d;

	if (l->sym.secs[f->addr_shndx].flags & SHF_COMPRESSED &&
	    elf_compress(scn, 0, 0) < 0)
		return abtf__link_elf_fail(l, "cannot decompress " ABTF_SEC_ADDR);
	d = elf_rawdata(scn, NULL);
	if (!d)
		return abtf__link_elf_fail(l, "cannot read " ABTF_SEC_ADDR);
	f->addr.data = d->d_buf;
	f->addr.size = d->d_size;
	return 0;
}

/*
 * A BTF archive kept aside (ABTF_SEC_ARCHIVE, by a link with keep_archive,
 * or moved there while a module waited for vmlinux) is the archive to
 * link; .BTF then holds an earlier link's output, or nothing. An empty
 * one is none.
 */
static int find_archive(struct abtf_linker *l)
{
	struct link_file *f = &l->file;
	GElf_Shdr shdr;
	size_t i;

	i = abtf__elf_find(f->elf, SHT_NULL, ABTF_SEC_ARCHIVE, &shdr);
	if (!i || !shdr.sh_size)
		return 0;
	if (shdr.sh_type == SHT_NOBITS)
		return abtf__link_error(l, -EINVAL, ABTF_SEC_ARCHIVE
					" has no contents (NOBITS)");
	if (shdr.sh_flags & SHF_COMPRESSED)
		return abtf__link_error(l, -EINVAL, ABTF_SEC_ARCHIVE
					" is compressed: inflate it first "
					"(objcopy --decompress-debug-sections)");
	f->archive_shndx = i;
	f->btf_off = shdr.sh_offset;
	f->btf_size = shdr.sh_size;
	return 0;
}

/* The ELF input: its sections, archive, .debug_btf_addr and relocations. */
static int open_elf(struct abtf_linker *l, size_t fsize)
{
	struct link_file *f = &l->file;
	GElf_Shdr shdr;
	int err;

	if (!gelf_getehdr(f->elf, &f->ehdr))
		return abtf__link_elf_fail(l, "bad ELF header");
	f->addr.slot_size = abtf__addr_slot_size(f->ehdr.e_ident[EI_CLASS]);
	if (elf_getshdrstrndx(f->elf, &f->shstrndx))
		return abtf__link_elf_fail(l, "bad section header string table");
	f->swapped = !abtf__host_order(f->ehdr.e_ident[EI_DATA]);
	f->addr.swapped = f->swapped;
	err = load_sections(l, fsize);
	if (err)
		return err;
	f->btf_shndx = abtf__elf_find(f->elf, SHT_NULL, ABTF_SEC_BTF, &shdr);
	err = find_archive(l);
	if (err)
		return err;
	if (f->archive_shndx)
		;	/* .BTF, if any, is a link's output */
	else if (!f->btf_shndx)
		return abtf__link_error(l, -ENOENT, "no .BTF section: its objects "
				  "were not compiled through cc-btf, or were "
				  "built with LTO (-flto: no DWARF for cc-btf "
				  "to encode)");
	else if (shdr.sh_type == SHT_NOBITS)
		return abtf__link_error(l, -EINVAL, ".BTF has no contents (NOBITS)");
	else {
		f->btf_off = shdr.sh_offset;
		f->btf_size = shdr.sh_size;
	}
	f->addr_shndx = abtf__elf_find(f->elf, SHT_NULL, ABTF_SEC_ADDR, NULL);
	if (f->addr_shndx && l->sym.secs[f->addr_shndx].size) {
		err = read_addr(l);
		if (err)
			return err;
	}
	return load_relocs(l);
}


void abtf__link_file_init(struct link_file *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

int abtf__link_file_open(struct abtf_linker *l)
{
	struct link_file *f = &l->file;
	struct stat st;
	int err = 0;

	f->fd = open(l->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		err = -errno;
		pr_warn(&l->pr, "%s: cannot open: %s", l->path,
			ABTF_STRERROR(errno));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		pr_warn(&l->pr, "%s: not a regular file", l->path);
		return -EINVAL;
	}
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (f->elf && elf_kind(f->elf) == ELF_K_ELF) {
		err = open_elf(l, st.st_size);
	} else {
		if (f->elf)
			elf_end(f->elf);
		f->elf = NULL;
		f->btf_size = st.st_size;	/* a raw BTF file */
	}
	return err;
}

void abtf__link_file_free(struct link_file *f)
{
	abtf__addr_relocs_free(&f->relocs);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	abtf__link_file_init(f);
}

/* @len bytes of .BTF at @off, from the file. */
int abtf__read_btf(const struct abtf_linker *l, void *buf, size_t len,
		   size_t off)
{
	if (off > l->file.btf_size || len > l->file.btf_size - off)
		return -EIO;
	return abtf__pread_all(l->file.fd, buf, len, l->file.btf_off + off);
}


/* ---- reading members ---- */

/*
 * Member @i, read into @p, in the host's byte order: a file of the other
 * order has its members swapped as they are read, after their hash is
 * taken of the bytes the file holds (.debug_btf_addr's, in its order).
 */
static void member_to_host(const struct abtf_linker *l, size_t i, void *p)
{
	struct mplan *mp = &l->plan.members[i];

	if (!l->file.swapped)
		return;
	if (l->file.addr.size)
		mp->stored_hash = abtf__hash32(p, mp->size);
	abtf__btf_swap(p, mp->size);
}

uint32_t abtf__member_hash(const struct abtf_linker *l, size_t i,
			   const void *p)
{
	const struct mplan *mp = &l->plan.members[i];

	return l->file.swapped ? mp->stored_hash : abtf__hash32(p, mp->size);
}

int abtf__read_member(const struct abtf_linker *l, size_t i, void *dst,
		      const struct abtf_printer *pr)
{
	const struct mplan *mp = &l->plan.members[i];
	uint8_t *z;
	int err;

	if (!mp->zsize) {
		err = abtf__read_btf(l, dst, mp->size, mp->off);
		goto out;
	}
	z = malloc(mp->zsize);
	if (!z)
		return -ENOMEM;
	err = abtf__read_btf(l, z, mp->zsize, mp->off);
	if (!err)
		err = abtf__zmember_inflate(z, mp->zsize, dst, mp->size, i,
					    mp->off, l->where, pr);
	free(z);
out:
	if (!err)
		member_to_host(l, i, dst);
	return err;
}

/*
 * A member's group has a slot for each of its FUNCs and VARs, in type ID
 * order (docs/archive-format.md): a group with more or fewer would place
 * them by the wrong slots (a FUNC dropped without a word), so it is an
 * error.
 */
static int check_slot_count(const struct abtf_linker *l, size_t i,
			    const struct abtf_member *m,
			    const struct abtf_printer *pr)
{
	const struct mplan *mp = &l->plan.members[i];
	uint32_t off = 0, n = 0;
	struct btf_type t;

	if (!mp->has_group)
		return 0;
	while (off < m->type_len) {
		memcpy(&t, m->types + off, sizeof(t));
		n += btf_is_func(&t) || btf_is_var(&t);
		off += abtf__record_size(&t);
	}
	if (n == mp->grp.nr_slots)
		return 0;
	pr_warn(pr, "%s member %zu at byte %zu: its .debug_btf_addr "
		"group has %u slots for %u FUNCs and VARs", l->where, i,
		mp->off, mp->grp.nr_slots, n);
	return -EINVAL;
}

int abtf__check_member(const struct abtf_linker *l, size_t i, const void *p,
		       const struct abtf_printer *pr, struct abtf_member *m)
{
	const struct mplan *mp = &l->plan.members[i];
	int err;

	if (mp->nr_types) {	/* validated before */
		archive__member_describe(p, mp->off, mp->nr_types, m);
		return check_slot_count(l, i, m, pr);
	}
	err = archive__member_check(p, mp->size, i, mp->off, mp->zsize != 0,
				 l->where, pr, m);
	if (!err && m->size != mp->size) {
		/* a plain member's size came from this very header */
		pr_warn(pr, "%s member %zu at byte %zu: %zu bytes "
			"inflated, of which its BTF header covers %zu",
			l->where, i, mp->off, mp->size, m->size);
		err = -EINVAL;
	}
	return err ? err : check_slot_count(l, i, m, pr);
}

/*
 * Where each member of leaf @n goes in its buffer, *@span bytes in all:
 * plain members where they lie in .BTF (one pread reads them all),
 * compressed ones inflated one after the other at 4-byte boundaries.
 */
static size_t *leaf_layout(const struct abtf_linker *l, const struct node *n,
			   bool plain, size_t *span)
{
	const struct mplan *first = &l->plan.members[n->first];
	size_t *at = malloc(n->nr * sizeof(*at)), i;

	if (!at)
		return NULL;
	*span = 0;
	for (i = 0; i < n->nr; i++) {
		const struct mplan *mp = &l->plan.members[n->first + i];
		size_t sz = (mp->size + 3) & ~(size_t)3;

		if (plain) {
			at[i] = mp->off - first->off;
			*span = at[i] + mp->size;
			continue;
		}
		at[i] = *span;
		if (*span > SIZE_MAX - sz) {
			free(at);
			return NULL;
		}
		*span += sz;
	}
	return at;
}

/* The leaf's bytes into @buf, laid out by leaf_layout(). */
static int read_leaf_bytes(struct abtf_linker *l, struct node *n, bool plain,
			   const size_t *at, size_t span, uint8_t *buf)
{
	size_t i;
	int err = 0;

	if (plain) {
		err = abtf__read_btf(l, buf, span,
				     l->plan.members[n->first].off);
		for (i = 0; !err && i < n->nr; i++)
			member_to_host(l, n->first + i, buf + at[i]);
		return err;
	}
	for (i = 0; !err && i < n->nr; i++)
		err = abtf__read_member(l, n->first + i, buf + at[i], &n->pr);
	return err;
}

/* A buffer of @span bytes: @rb's, grown if need be, or a new one. */
static uint8_t *leaf_buffer(struct abtf_rbuf *rb, size_t span)
{
	uint8_t *p;

	if (!span)
		span = 1;
	if (!rb)
		return malloc(span);
	if (span > rb->cap) {
		/* no copy to keep: free first, the peak stays one buffer */
		free(rb->data);
		rb->data = NULL;
		rb->cap = 0;
		p = malloc(span);
		if (!p)
			return NULL;
		rb->data = p;
		rb->cap = span;
	}
	return rb->data;
}

/*
 * The leaf's members, each validated and described in @ms, in @rb's
 * buffer (a pass that reads one member after another reuses its pages)
 * or, with @rb NULL, in one of their own that the caller frees.
 */
uint8_t *abtf__read_leaf_in(struct abtf_linker *l, struct node *n,
			    struct abtf_member *ms, struct abtf_rbuf *rb)
{
	bool plain = true;
	uint8_t *buf = NULL;
	size_t i, span, *at;

	for (i = 0; i < n->nr; i++)
		plain &= !l->plan.members[n->first + i].zsize;
	at = leaf_layout(l, n, plain, &span);
	buf = at ? leaf_buffer(rb, span) : NULL;
	n->err = buf ? read_leaf_bytes(l, n, plain, at, span, buf) : -ENOMEM;
	if (n->err == -EIO)
		pr_warn(&n->pr, "%s: cannot read .BTF: %s", l->path,
			ABTF_STRERROR(-n->err));
	for (i = 0; !n->err && i < n->nr; i++) {
		n->err = abtf__check_member(l, n->first + i, buf + at[i],
					    &n->pr, &ms[i]);
		if (!n->err)
			l->plan.members[n->first + i].nr_types = ms[i].nr_types;
	}
	free(at);
	if (n->err) {
		if (!rb)
			free(buf);
		return NULL;
	}
	return buf;
}

uint8_t *abtf__read_leaf(struct abtf_linker *l, struct node *n,
			 struct abtf_member *ms)
{
	return abtf__read_leaf_in(l, n, ms, NULL);
}

/* ---- a member as a merge input ---- */

const uint8_t *abtf__aligned_types(const struct abtf_member *m, void **copy)
{
	*copy = NULL;
	if (!((uintptr_t)m->types % 4))
		return m->types;
	*copy = malloc(m->type_len ? m->type_len : 1);
	if (*copy)
		memcpy(*copy, m->types, m->type_len);
	return *copy;
}

void abtf__member_input(struct abtf_linker *l, const struct mplan *mp,
			 const struct abtf_member *m, const uint8_t *types,
			 struct input *in)
{
	memset(in, 0, sizeof(*in));
	in->kind = !l->file.elf ? IN_RAW : mp->has_group ? IN_SLOTS : IN_NAMES;
	in->types = types;
	in->type_len = m->type_len;
	in->strs = m->strs;
	in->str_len = m->str_len;
	in->nr_types = m->nr_types;
	in->plan = mp;
}
