// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The object's DWARF, relocated: the one place that chooses the way.
 * dwarf_reloc.c relocates just what the type walk reads where it can;
 * libdwfl (dwarf_dwfl.c) takes anything unusual. Either way dwarf_read.c
 * reads the result, and an address read from it is mapped back to its
 * section here: by the address's relocation (the fast way) or by
 * libdwfl's layout of the sections.
 */
#include <errno.h>
#include <string.h>

#include "encode/enc.h"

/*
 * A GCC LTO object (-flto -g without -ffat-lto-objects): its code is GCC's
 * intermediate language (.gnu.lto_* sections) and its debug information
 * only "early debug" (.gnu.debuglto_.debug_info) until the final link, so
 * there is no DWARF to encode although -g asked for it.
 */
static bool gcc_lto(const struct enc_obj *o)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(o->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &shdr))
			return false;
		n = elf_strptr(o->elf, o->shstrndx, shdr.sh_name);
		if (n && !strcmp(n, ".gnu.debuglto_.debug_info")) {
			pr_warn(o->pr, "%s: a GCC LTO object (-flto): an LTO "
				"object carries no DWARF to encode; build "
				"without LTO for BTF", o->path);
			return true;
		}
	}
	return false;
}

int enc_dwarf__open(struct enc_dwarf *d, const struct enc_obj *o)
{
	const char *why = NULL;
	Elf *elf = NULL;
	int err;

	if (!enc_obj__find_section(o, SHT_NULL, ".debug_info"))
		return gcc_lto(o) ? -EOPNOTSUPP : -ENODATA;
	if (o->ehdr.e_type == ET_REL)
		elf = d->rel_elf = abtf__dwarf_open_rel(o->fd, &d->rel);
	if (!elf)
		elf = dwarf_dwfl__open(&d->dwfl, o->path);
	if (!elf) {
		pr_warn(o->pr, "%s: cannot read DWARF: %s", o->path,
			dwarf_dwfl__errmsg());
		return -EINVAL;
	}
	err = dw_file__open(&d->f, elf, &why);
	if (err == -EINVAL)
		pr_warn(o->pr, "%s: .debug_info: %s", o->path, why);
	if (err == -ENODATA)
		pr_warn(o->pr, "%s: cannot read DWARF: no .debug_info",
			o->path);
	return err;
}

void enc_dwarf__close(struct enc_dwarf *d)
{
	dw_file__close(&d->f);
	dwarf_dwfl__close(&d->dwfl);
	if (d->rel_elf)
		elf_end(d->rel_elf);
	abtf__dwarf_rel_free(&d->rel);
	d->rel_elf = NULL;
}

int enc_dwarf__section_of(const struct enc_dwarf *d, const uint8_t *where,
			  uint64_t *addr, uint32_t *shndx)
{
	if (d->dwfl.mod)
		return dwarf_dwfl__section_of(&d->dwfl, addr, shndx);
	return abtf__dwarf_addr_section(&d->rel, where, shndx) ? 1 : 0;
}
