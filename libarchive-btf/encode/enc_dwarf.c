// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The object's DWARF, relocated and decompressed by dwarf_reloc.c, which
 * dwarf_read.c reads; an address read from it is mapped back to its
 * section here: by the address's relocation in a relocatable object, by
 * the sections' addresses in a linked file.
 *
 * Split DWARF (-gsplit-dwarf): the object holds a skeleton unit and its
 * .debug_addr; the DIEs, their strings and location lists are in the .dwo
 * file the skeleton names (DW_AT_dwo_name under DW_AT_comp_dir), whose
 * split unit carries the skeleton's dwo_id. That file is what the walk
 * reads, its addresses the object's .debug_addr entries, relocated here
 * (docs/design.md, "Split DWARF"). A .dwo that is missing, of another
 * compile (its dwo_id not the skeleton's) or damaged is an error: BTF of
 * the skeleton alone would be BTF without types.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "encode/enc.h"
#include "elf/elf_read.h"

/*
 * A GCC LTO object (-flto -g without -ffat-lto-objects): its code is GCC's
 * intermediate language (.gnu.lto_* sections) and its debug information
 * only "early debug" (.gnu.debuglto_.debug_info) until the final link, so
 * there is no DWARF to encode although -g asked for it.
 */
static bool gcc_lto(const struct enc_obj *o)
{
	if (!enc_obj__find_section(o, SHT_NULL, ".gnu.debuglto_.debug_info"))
		return false;
	pr_warn(o->pr, "%s: a GCC LTO object (-flto): an LTO object carries "
		"no DWARF to encode; build without LTO for BTF", o->path);
	return true;
}

/* "@o's path: the .dwo's path" into d->name: what messages name. */
static int split_name(struct enc_dwarf *d, const struct enc_obj *o,
		      const struct dw_skeleton *sk)
{
	char *path, safe[512];
	int res;

	if (sk->dwo_name[0] == '/' || !sk->comp_dir || !*sk->comp_dir)
		res = asprintf(&path, "%s", sk->dwo_name);
	else
		res = asprintf(&path, "%s/%s", sk->comp_dir, sk->dwo_name);
	if (res < 0)
		return -ENOMEM;
	/* a path is the input's bytes: never a control byte to a terminal */
	abtf__safe_name(path, safe, sizeof(safe));
	res = asprintf(&d->split_name, "%s: %s", o->path, safe);
	if (res < 0) {
		free(path);
		return -ENOMEM;
	}
	d->name = d->split_name;
	d->dwo_path = path;
	return 0;
}

/*
 * The .dwo of @o open as d->dwo_elf, decompressed: every section inside
 * the file (abtf__elf_check()), and of @o's machine, class and byte order.
 */
static int read_dwo(struct enc_dwarf *d, const struct enc_obj *o)
{
	GElf_Ehdr eh;
	struct stat st;
	char buf[256];
	Elf *elf;
	int fd, err;

	fd = open(d->dwo_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_warn(o->pr, "%s: cannot open the split DWARF file: %s",
			d->name, ABTF_STRERROR(-err));
		return err;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && (!elf || elf_kind(elf) != ELF_K_ELF ||
		     !gelf_getehdr(elf, &eh))) {
		pr_warn(o->pr, "%s: bad split DWARF file: not ELF", d->name);
		err = -EINVAL;
	}
	if (!err)
		err = abtf__elf_check(elf, st.st_size, d->name, NULL, o->pr);
	if (!err && (eh.e_machine != o->ehdr.e_machine ||
		     memcmp(eh.e_ident, o->ehdr.e_ident, EI_DATA + 1))) {
		pr_warn(o->pr, "%s: bad split DWARF file: not of the object's "
			"machine, class and byte order", d->name);
		err = -EINVAL;
	}
	elf_end(elf);
	if (!err) {
		d->dwo_elf = abtf__dwarf_open(fd, &d->dwo_rel, buf,
					      sizeof(buf));
		err = d->dwo_elf ? 0 : -errno;
		if (err)
			pr_warn(o->pr, "%s: bad split DWARF file: %s", d->name,
				buf);
	}
	/* all of it read: libelf needs the descriptor no more */
	if (!err && elf_cntl(d->dwo_elf, ELF_C_FDREAD)) {
		pr_warn(o->pr, "%s: cannot read the split DWARF file: %s",
			d->name, elf_errmsg(-1));
		err = -EINVAL;
	}
	close(fd);
	return err;
}

/*
 * The one compile unit of the .dwo @f, which must carry the skeleton's
 * dwo_id @id (type units are the walk's to refuse where used).
 */
static int check_dwo_units(const struct enc_dwarf *d, const struct enc_obj *o,
			   struct dw_file *f, uint64_t id)
{
	const char *why = NULL;
	size_t i, nr = 0;
	uint64_t got;
	int res;

	for (i = 0; i < f->nr_units; i++) {
		struct dw_unit *u = &f->units[i];

		if (u->unit_type == DW_UT_split_type)
			continue;
		res = dw_unit__dwo_id(f, u, &got, &why);
		if (res == -ENOMEM)
			return res;
		if (res < 0 || res == 1) {
			pr_warn(o->pr, "%s: bad split DWARF file: "
				".debug_info.dwo: unit at 0x%llx: %s", d->name,
				(unsigned long long)u->off, res < 0 ? why :
				"no split compile unit (no dwo_id)");
			return res < 0 ? res : -EINVAL;
		}
		if (got != id) {
			pr_warn(o->pr, "%s: stale split DWARF file: its dwo_id "
				"0x%016llx is not the object's 0x%016llx (the "
				".dwo of another compile)", d->name,
				(unsigned long long)got,
				(unsigned long long)id);
			return -EINVAL;
		}
		nr++;
	}
	if (nr == 1)
		return 0;
	pr_warn(o->pr, "%s: bad split DWARF file: %zu split compile units, "
		"not one", d->name, nr);
	return -EINVAL;
}

/* The .dwo of skeleton @sk, read: 0 with d->f its DWARF, or < 0. */
static int open_dwo(struct enc_dwarf *d, const struct enc_obj *o,
		    const struct dw_skeleton *sk)
{
	struct dw_sec addr = d->f.addr;	/* the object's, relocated */
	const char *why = NULL;
	struct dw_file dwo;
	int err;

	err = split_name(d, o, sk) ?: read_dwo(d, o);
	if (err)
		return err;
	err = dw_file__open_dwo(&dwo, d->dwo_elf, &addr, sk->addr_base, &why);
	if (err == -ENODATA)
		pr_warn(o->pr, "%s: bad split DWARF file: no .debug_info.dwo",
			d->name);
	else if (err == -EINVAL)
		pr_warn(o->pr, "%s: bad split DWARF file: .debug_info.dwo: %s",
			d->name, why);
	if (!err)
		err = check_dwo_units(d, o, &dwo, sk->dwo_id);
	if (err) {
		dw_file__close(&dwo);
		return err == -ENODATA ? -EINVAL : err;
	}
	dw_file__close(&d->f);
	d->f = dwo;
	return 0;
}

/*
 * A split object (a skeleton unit): its .dwo into d->f. One skeleton in
 * an object of several units (ld -r of split objects) would need a .dwo
 * per unit: refused.
 */
static int open_split(struct enc_dwarf *d, const struct enc_obj *o)
{
	const char *why = NULL;
	struct dw_skeleton sk;
	struct dw_unit *u;
	size_t i;
	int res = 0;

	for (i = 0; i < d->f.nr_units && !res; i++) {
		u = &d->f.units[i];
		res = dw_unit__skeleton(&d->f, u, &sk, &why);
	}
	if (res == 0 || res == -ENOMEM)
		return res;
	if (res < 0) {
		pr_warn(o->pr, "%s: .debug_info: unit at 0x%llx: DIE 0x%llx: "
			"%s", o->path, (unsigned long long)u->off,
			(unsigned long long)u->die, why);
		return res;
	}
	if (d->f.nr_units > 1) {
		pr_warn(o->pr, "%s: split DWARF in an object of %zu units "
			"(ld -r): not supported", o->path, d->f.nr_units);
		return -EOPNOTSUPP;
	}
	return open_dwo(d, o, &sk);
}

int enc_dwarf__open(struct enc_dwarf *d, const struct enc_obj *o)
{
	const char *why = NULL;
	char buf[256];
	int err;

	d->name = o->path;
	if (!enc_obj__find_section(o, SHT_NULL, ".debug_info") &&
	    !enc_obj__find_section(o, SHT_NULL, ".zdebug_info"))
		return gcc_lto(o) ? -EOPNOTSUPP : -ENODATA;
	d->rel_elf = abtf__dwarf_open(o->fd, &d->rel, buf, sizeof(buf));
	if (!d->rel_elf) {
		err = -errno;
		pr_warn(o->pr, "%s: cannot read DWARF: %s", o->path, buf);
		return err;
	}
	err = dw_file__open(&d->f, d->rel_elf, &why);
	if (err == -EINVAL)
		pr_warn(o->pr, "%s: .debug_info: %s", o->path, why);
	if (err == -ENODATA)
		pr_warn(o->pr, "%s: cannot read DWARF: no .debug_info",
			o->path);
	return err ?: open_split(d, o);
}

void enc_dwarf__close(struct enc_dwarf *d)
{
	dw_file__close(&d->f);
	if (d->dwo_elf)
		elf_end(d->dwo_elf);
	abtf__dwarf_rel_free(&d->dwo_rel);
	if (d->rel_elf)
		elf_end(d->rel_elf);
	abtf__dwarf_rel_free(&d->rel);
	free(d->split_name);
	free(d->dwo_path);
	d->rel_elf = d->dwo_elf = NULL;
	d->split_name = d->dwo_path = NULL;
	d->name = NULL;
}

int enc_dwarf__section_of(const struct enc_dwarf *d, const uint8_t *where,
			  uint64_t *addr, uint32_t *shndx)
{
	return abtf__dwarf_addr_section(&d->rel, where, *addr, shndx) ? 1 : 0;
}
