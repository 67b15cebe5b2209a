// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The object's DWARF, relocated and decompressed by dwarf_reloc.c, which
 * dwarf_read.c reads; an address read from it is mapped back to its
 * section here: by the address's relocation in a relocatable object, by
 * the sections' addresses in a linked file.
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
	if (!enc_obj__find_section(o, SHT_NULL, ".gnu.debuglto_.debug_info"))
		return false;
	pr_warn(o->pr, "%s: a GCC LTO object (-flto): an LTO object carries "
		"no DWARF to encode; build without LTO for BTF", o->path);
	return true;
}

int enc_dwarf__open(struct enc_dwarf *d, const struct enc_obj *o)
{
	const char *why = NULL;
	char buf[256];
	int err;

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
	return err;
}

void enc_dwarf__close(struct enc_dwarf *d)
{
	dw_file__close(&d->f);
	if (d->rel_elf)
		elf_end(d->rel_elf);
	abtf__dwarf_rel_free(&d->rel);
	d->rel_elf = NULL;
}

int enc_dwarf__section_of(const struct enc_dwarf *d, const uint8_t *where,
			  uint64_t *addr, uint32_t *shndx)
{
	return abtf__dwarf_addr_section(&d->rel, where, *addr, shndx) ? 1 : 0;
}
