// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The linker's output: the final BTF as a raw file, back into the input
 * (a relocatable one laid out again by elf_write.c; a linked image
 * rewritten in place, its layout unchanged), or as a new relocatable
 * object with an allocatable .BTF (for kbuild's .tmp_vmlinux.btf.o).
 * With distilled_base, a module's split BTF goes to .BTF renumbered on its
 * distilled base, which goes to .BTF.base (distill.c).
 *
 * Calls no other linker_*.c file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/distill.h"
#include "link/linker.h"

/* The final BTF's bytes, in the input's byte order (libbpf swaps them). */
static const void *final_raw(struct abtf_linker *l, uint32_t *size)
{
	if (btf__set_endianness(l->btf, abtf__link_endianness(l)))
		return NULL;
	return btf__raw_data(l->btf, size);
}

/* What goes into the output: .BTF's bytes and, distilled, .BTF.base's. */
struct final {
	struct btf *base, *split;	/* distilled_base only */
	const void *raw, *base_raw;
	uint32_t size, base_size;
};

static int final_out(struct abtf_linker *l, struct final *f)
{
	enum btf_endianness e = abtf__link_endianness(l);
	int err;

	memset(f, 0, sizeof(*f));
	if (!(l->feats & ABTF_FEAT_DISTILLED_BASE)) {
		f->raw = final_raw(l, &f->size);
		return f->raw ? 0 : -ENOMEM;
	}
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
}

ABTF_API int abtf_linker__write_raw(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;
	int err;

	if (!l->btf)
		return -EINVAL;
	if (l->feats & ABTF_FEAT_DISTILLED_BASE)
		return abtf__link_error(l, -EINVAL, "distilled_base makes two "
					"sections, .BTF and .BTF.base: write "
					"them into the module or an object");
	raw = final_raw(l, &size);
	if (!raw)
		return -ENOMEM;
	err = abtf_write_file(dst, raw, size);
	if (err)
		pr_warn(&l->pr, "%s: cannot write: %s", dst, ABTF_STRERROR(-err));
	return err;
}

/* A relocatable input: libelf lays it out again, sections keep indices. */
static int write_rel(struct abtf_linker *l, const char *dst,
		     const struct final *f)
{
	static const struct abtf_reloc none;
	struct abtf_section secs[3] = {
		{ .name = ABTF_SEC_BTF, .type = SHT_PROGBITS, .align = 4,
		  .data = f->raw, .size = f->size },
		{ .name = ABTF_SEC_ADDR, .type = SHT_PROGBITS, .align = 8,
		  .data = "", .size = 0, .relocs = &none, .nr_relocs = 0 },
		{ .name = ABTF_SEC_BTF_BASE, .type = SHT_PROGBITS, .align = 4,
		  .data = f->base_raw, .size = f->base_size },
	};
	size_t n = l->file.addr_shndx ? 2 : 1;

	if (f->base_raw)
		secs[n++] = secs[2];
	return abtf__elf_set_sections(l->file.elf, l->path, dst, secs, n, &l->pr);
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
 * section shrinks; .debug_btf_addr and its relocations are emptied likewise.
 */
/*
 * elf_update() of @elf into @dst. A failed write says errno's reason (No
 * space left on device), which libelf's own message leaves out.
 */
static int update_elf(const struct abtf_linker *l, Elf *elf, const char *dst)
{
	int err;

	errno = 0;
	if (elf_update(elf, ELF_C_WRITE) >= 0)
		return 0;
	err = errno ? -errno : -EIO;
	pr_warn(&l->pr, "%s: cannot write: %s (%s)", dst, ABTF_STRERROR(-err),
		elf_errmsg(-1));
	return err;
}

static int write_exec(struct abtf_linker *l, const char *dst, const void *raw,
		      uint32_t size)
{
	Elf *elf = NULL;
	bool said = false;
	char *tmp;
	int fd, err;

	fd = abtf__tmpfile_for(dst, &tmp);
	if (fd < 0)
		return fd;
	err = copy_file(l->file.fd, fd);
	if (err)
		goto out_abort;
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!elf) {
		err = -EINVAL;
		goto out_abort;
	}
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	err = set_section(elf, l->file.btf_shndx, raw, size);
	said = err == -EFBIG;
	if (err == -EFBIG)
		pr_warn(&l->pr, "%s: the final BTF (%u bytes) is larger than "
			"the .BTF section; write it with -o", l->path, size);
	if (!err && l->file.addr_shndx)
		err = set_section(elf, l->file.addr_shndx, "", 0);
	if (!err) {
		err = update_elf(l, elf, dst);
		said = err;
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
	if (!said)
		pr_warn(&l->pr, "%s: cannot write: %s", dst,
			elf ? elf_errmsg(-1) : ABTF_STRERROR(-err));
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	abtf__tmpfile_abort(tmp);
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
	if (l->file.ehdr.e_type != ET_REL &&
	    (l->feats & ABTF_FEAT_DISTILLED_BASE))
		return abtf__link_error(l, -EINVAL, "distilled_base is for "
					"modules: a linked image has no room "
					"for .BTF.base");
	err = final_out(l, &f);
	if (!err && l->file.ehdr.e_type == ET_REL)
		err = write_rel(l, dst ? dst : l->path, &f);
	else if (!err)
		err = write_exec(l, dst ? dst : l->path, f.raw, f.size);
	final_free(&f);
	return err;
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

/*
 * The BTF object's sections, in index order after the null section, and
 * their names' offsets in its section header string table. .BTF.base,
 * last, only with distilled_base.
 */
#define OBJ_SHSTRTAB_NAME	".shstrtab"
#define OBJ_NOTE_NAME		".note.GNU-stack"
enum {
	OBJ_SEC_BTF = 1,
	OBJ_SEC_SHSTRTAB,
	OBJ_SEC_NOTE,
};
enum {
	OBJ_NAME_BTF = 1,
	OBJ_NAME_SHSTRTAB = OBJ_NAME_BTF + sizeof(ABTF_SEC_BTF),
	OBJ_NAME_NOTE = OBJ_NAME_SHSTRTAB + sizeof(OBJ_SHSTRTAB_NAME),
	OBJ_NAME_BASE = OBJ_NAME_NOTE + sizeof(OBJ_NOTE_NAME),
};

/* The object's sections after its header. */
static int object_sections(Elf *elf, const struct final *f)
{
	static const char shstrtab[] = "\0" ABTF_SEC_BTF "\0"
				       OBJ_SHSTRTAB_NAME "\0" OBJ_NOTE_NAME
				       "\0" ABTF_SEC_BTF_BASE;
	size_t shstr_size = f->base_raw ? sizeof(shstrtab) : OBJ_NAME_BASE;

	if (new_section(elf, OBJ_NAME_BTF, SHT_PROGBITS, SHF_ALLOC, 4, f->raw,
			f->size) ||
	    new_section(elf, OBJ_NAME_SHSTRTAB, SHT_STRTAB, 0, 1, shstrtab,
			shstr_size) ||
	    new_section(elf, OBJ_NAME_NOTE, SHT_PROGBITS, 0, 1, "", 0))
		return -EINVAL;
	if (f->base_raw &&
	    new_section(elf, OBJ_NAME_BASE, SHT_PROGBITS, 0, 4, f->base_raw,
			f->base_size))
		return -EINVAL;
	return 0;
}

/* A relocatable object with the final BTF in an allocatable .BTF. */
static int write_btf_object(struct abtf_linker *l, int fd, const char *dst,
			    const struct final *f)
{
	GElf_Ehdr ehdr;
	Elf *elf;
	int err = -EINVAL;

	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, l->file.ehdr.e_ident[EI_CLASS]) ||
	    !gelf_getehdr(elf, &ehdr))
		goto out;
	memcpy(ehdr.e_ident, l->file.ehdr.e_ident, EI_NIDENT);
	ehdr.e_type = ET_REL;
	ehdr.e_machine = l->file.ehdr.e_machine;
	ehdr.e_version = EV_CURRENT;
	ehdr.e_flags = l->file.ehdr.e_flags;
	ehdr.e_shstrndx = OBJ_SEC_SHSTRTAB;
	if (!gelf_update_ehdr(elf, &ehdr) || object_sections(elf, f))
		goto out;
	err = update_elf(l, elf, dst);
	elf_end(elf);
	return err;
out:
	pr_warn(&l->pr, "%s: cannot make the BTF object: %s", dst,
		elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	return err;
}

ABTF_API int abtf_linker__write_object(struct abtf_linker *l, const char *dst)
{
	struct final f;
	char *tmp;
	int fd, err;

	if (!l->btf)
		return -EINVAL;
	if (!l->file.elf)
		return abtf__link_error(l, -EINVAL,
				  "a raw BTF input does not say the target: "
				  "no object can be made for it");
	err = final_out(l, &f);
	if (err)
		goto out_free;
	fd = abtf__tmpfile_for(dst, &tmp);
	if (fd < 0) {
		pr_warn(&l->pr, "%s: cannot write: %s", dst, ABTF_STRERROR(-fd));
		err = fd;
		goto out_free;
	}
	err = write_btf_object(l, fd, dst, &f);
	if (close(fd) && !err)
		err = -errno;
	if (err)
		abtf__tmpfile_abort(tmp);
	else
		err = abtf__tmpfile_commit(tmp, dst);
out_free:
	final_free(&f);
	return err;
}
