// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The linker's output: what it writes, not how. The final BTF goes out as
 * a raw file, back into the input (a relocatable one laid out again; a
 * linked image rewritten in place, its layout unchanged), or as a new
 * relocatable object with an allocatable .BTF (for kbuild's
 * .tmp_vmlinux.btf.o). With distilled_base, a module's split BTF goes to
 * .BTF renumbered on its distilled base, which goes to .BTF.base
 * (distill.c). elf_write.c, the library's one ELF writer, writes the
 * ELF files.
 *
 * Calls no other linker_*.c file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "btf/zmember.h"
#include "link/distill.h"
#include "link/linker.h"
#include "link/input.h"
#include "link/plan.h"
#include "elf/elf_write.h"
#include "btf/layout.h"

/* What goes into the output: .BTF's bytes and, distilled, .BTF.base's. */
struct final {
	struct btf *base, *split;	/* distilled_base only */
	const void *raw, *base_raw;
	uint32_t size, base_size;
	void *laid_out;			/* raw with the layout table */
};

/*
 * The final BTF's bytes, in the input's byte order (libbpf swaps them),
 * into @f: with the layout feature, base BTF gets the table of the kinds'
 * sizes (btf/layout.c); split BTF none, as pahole gives it none.
 */
static int final_raw(struct abtf_linker *l, struct final *f)
{
	int err;

	if (btf__set_endianness(l->btf, abtf__link_endianness(l)))
		return -EINVAL;
	f->raw = btf__raw_data(l->btf, &f->size);
	if (!f->raw)
		return -ENOMEM;
	if (!(l->feats & ABTF_FEAT_LAYOUT) || l->base)
		return 0;
	err = abtf__btf_add_layout(f->raw, f->size, &f->laid_out, &f->size);
	if (err)
		return abtf__link_error(l, err, "cannot add the layout table "
					"to the final BTF");
	f->raw = f->laid_out;
	return 0;
}

static int final_out(struct abtf_linker *l, struct final *f)
{
	enum btf_endianness e = abtf__link_endianness(l);
	int err;

	memset(f, 0, sizeof(*f));
	if (!(l->feats & ABTF_FEAT_DISTILLED_BASE))
		return final_raw(l, f);
	err = abtf__distill_base(l->btf, &f->base, &f->split, &l->pr,
				 l->path);
	if (err)
		return err;
	if (btf__set_endianness(f->base, e) ||
	    btf__set_endianness(f->split, e))
		return -EINVAL;
	f->raw = btf__raw_data(f->split, &f->size);
	f->base_raw = btf__raw_data(f->base, &f->base_size);
	return f->raw && f->base_raw ? 0 : -ENOMEM;
}

static void final_free(struct final *f)
{
	btf__free(f->split);
	btf__free(f->base);
	free(f->laid_out);
}

ABTF_API int abtf_linker__write_raw(struct abtf_linker *l, const char *dst)
{
	struct final f;
	int err;

	if (!l->btf)
		return -EINVAL;
	if (l->feats & ABTF_FEAT_DISTILLED_BASE)
		return abtf__link_error(l, -EINVAL, "distilled_base makes two "
					"sections, .BTF and .BTF.base: write "
					"them into the module or an object");
	memset(&f, 0, sizeof(f));
	err = final_raw(l, &f);
	if (!err) {
		err = abtf_write_file(dst, f.raw, f.size);
		if (err)
			pr_warn(&l->pr, "%s: cannot write: %s", dst,
				ABTF_STRERROR(-err));
	}
	final_free(&f);
	return err;
}

/* Member @m of the archive as it is kept: compressed (as it is, if it was). */
static int keep_member(struct abtf_linker *l, const struct mplan *m,
		       void **out, size_t *out_size)
{
	size_t len = m->zsize ? m->zsize : m->size;
	void *raw = malloc(len ? len : 1);
	int err;

	if (!raw)
		return -ENOMEM;
	err = abtf__read_btf(l, raw, len, m->off);
	if (!err && m->zsize) {
		*out = raw;
		*out_size = len;
		return 0;
	}
	if (!err)
		err = abtf__zmember_deflate(raw, len, l->file.swapped, out,
					    out_size);
	if (err == -ERANGE) {	/* compresses too well to be read: plain */
		*out = raw;
		*out_size = len;
		return 0;
	}
	free(raw);
	return err;
}

/*
 * The archive for ABTF_SEC_ARCHIVE, when a link that keeps it takes it
 * from .BTF: its members in order, each compressed as cc-btf --compress
 * writes one (docs/archive-format.md), at 4-byte boundaries. Only
 * btf-link reads it again, and the .debug_btf_addr groups name each
 * member by its inflated bytes, so they pair with it as with the plain
 * members; it is about 0.4 times their size. NULL, with *@size 0, when
 * nothing moves (it is kept where it is, or not kept; no members), or on
 * failure (*@err).
 */
static void *archive_to_keep(struct abtf_linker *l, size_t *size, int *err)
{
	uint8_t *buf = NULL;
	size_t cap = 0, used = 0, i;

	*size = 0;
	*err = 0;
	if (!l->opts.keep_archive || l->file.archive_shndx)
		return NULL;
	for (i = 0; i < l->plan.nr_members && !*err; i++) {
		size_t zsize = 0, pad = (4 - used % 4) % 4;
		void *z = NULL;

		*err = keep_member(l, &l->plan.members[i], &z, &zsize);
		if (!*err && abtf_grow(buf, cap, used + pad + zsize))
			*err = -ENOMEM;
		if (!*err) {
			memset(buf + used, 0, pad);
			memcpy(buf + used + pad, z, zsize);
			used += pad + zsize;
		}
		free(z);
	}
	if (*err) {
		free(buf);
		return NULL;
	}
	*size = used;
	return buf;
}

/*
 * A relocatable input: libelf lays it out again, sections keep indices.
 * .BTF gets the final BTF. The archive and its .debug_btf_addr are
 * emptied, or with keep_archive kept: the archive in ABTF_SEC_ARCHIVE
 * (moved there from .BTF, or left where it is) and .debug_btf_addr, with
 * its relocations, as it is.
 */
static int write_rel(struct abtf_linker *l, const char *dst,
		     const struct final *f)
{
	static const struct abtf_reloc none;
	struct abtf_section secs[4];
	size_t n = 0, kept_size;
	void *kept;
	int err;

	kept = archive_to_keep(l, &kept_size, &err);
	if (err)
		return err;
	secs[n++] = (struct abtf_section){
		.name = ABTF_SEC_BTF, .type = SHT_PROGBITS, .align = 4,
		.data = f->raw, .size = f->size };
	/* the archive moved here, or emptied where it is not kept */
	if (kept || (!l->opts.keep_archive && l->file.archive_shndx))
		secs[n++] = (struct abtf_section){
			.name = ABTF_SEC_ARCHIVE, .type = SHT_PROGBITS,
			.align = 4, .data = kept ? kept : "", .size = kept_size };
	if (!l->opts.keep_archive && l->file.addr_shndx)
		secs[n++] = (struct abtf_section){
			.name = ABTF_SEC_ADDR, .type = SHT_PROGBITS, .align = 8,
			.data = "", .size = 0, .relocs = &none, .nr_relocs = 0 };
	if (f->base_raw)
		secs[n++] = (struct abtf_section){
			.name = ABTF_SEC_BTF_BASE, .type = SHT_PROGBITS,
			.align = 4, .data = f->base_raw, .size = f->base_size };
	err = abtf__elf_set_sections(l->file.elf, l->path, dst, secs, n, &l->pr);
	free(kept);
	return err;
}

/*
 * A linked image: its layout must not move (program headers map it), so
 * the final BTF is written over the archive in .BTF, which shrinks, and
 * .debug_btf_addr is emptied likewise.
 */
static int write_exec(struct abtf_linker *l, const char *dst,
		      const struct final *f)
{
	struct abtf_scn_bytes secs[3] = {
		{ .shndx = l->file.btf_shndx, .data = f->raw, .size = f->size },
	};
	size_t n = 1;
	int err;

	if (!l->file.btf_shndx)
		return abtf__link_error(l, -EINVAL, "no .BTF section to write "
					"the final BTF into; write it with -o");
	if (l->file.addr_shndx)
		secs[n++] = (struct abtf_scn_bytes){
			.shndx = l->file.addr_shndx, .data = "", .size = 0 };
	if (l->file.archive_shndx)
		secs[n++] = (struct abtf_scn_bytes){
			.shndx = l->file.archive_shndx, .data = "", .size = 0 };

	err = abtf__elf_overwrite_sections(l->file.fd, dst, secs, n, &l->pr);
	if (err == -EFBIG)
		pr_warn(&l->pr, "%s: the final BTF (%u bytes) is larger than "
			"the .BTF section; write it with -o", l->path, f->size);
	return err;
}

ABTF_API int abtf_linker__write_elf(struct abtf_linker *l, const char *dst)
{
	struct final f;
	int err;

	if (!l->btf)
		return -EINVAL;
	if (!l->file.elf)
		return abtf__link_error(l, -EINVAL, "not an ELF file; write it with -o");
	if (!dst && l->final_input)
		return 0;	/* already final: leave the file alone */
	if (l->file.ehdr.e_type != ET_REL && l->opts.keep_archive)
		return abtf__link_error(l, -EINVAL, "keeping the archive is "
					"for a relocatable object (a module): "
					"a linked image's sections cannot grow");
	if (l->file.ehdr.e_type != ET_REL &&
	    (l->feats & ABTF_FEAT_DISTILLED_BASE))
		return abtf__link_error(l, -EINVAL, "distilled_base is for "
					"modules: a linked image has no room "
					"for .BTF.base");
	err = final_out(l, &f);
	if (!err && l->file.ehdr.e_type == ET_REL)
		err = write_rel(l, dst ? dst : l->path, &f);
	else if (!err)
		err = write_exec(l, dst ? dst : l->path, &f);
	final_free(&f);
	return err;
}

/*
 * kbuild's BTF object, for the input's machine: an allocatable .BTF, the
 * section names, an empty .note.GNU-stack (the stack is not executable)
 * and, with distilled_base, .BTF.base.
 */
static int write_btf_object(struct abtf_linker *l, const char *dst,
			    const struct final *f)
{
	const struct abtf_section secs[] = {
		{ .name = ABTF_SEC_BTF, .type = SHT_PROGBITS,
		  .flags = SHF_ALLOC, .align = 4,
		  .data = f->raw, .size = f->size },
		{ .name = ABTF_SEC_SHSTRTAB, .type = SHT_STRTAB, .align = 1 },
		{ .name = ".note.GNU-stack", .type = SHT_PROGBITS, .align = 1,
		  .data = "", .size = 0 },
		{ .name = ABTF_SEC_BTF_BASE, .type = SHT_PROGBITS, .align = 4,
		  .data = f->base_raw, .size = f->base_size },
	};
	size_t n = f->base_raw ? 4 : 3;

	return abtf__elf_new_object(&l->file.ehdr, dst, secs, n, &l->pr);
}

ABTF_API int abtf_linker__write_object(struct abtf_linker *l, const char *dst)
{
	struct final f;
	int err;

	if (!l->btf)
		return -EINVAL;
	if (!l->file.elf)
		return abtf__link_error(l, -EINVAL,
				  "a raw BTF input does not say the target: "
				  "no object can be made for it");
	err = final_out(l, &f);
	if (!err)
		err = write_btf_object(l, dst, &f);
	final_free(&f);
	return err;
}
