/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Writing ELF (elf_write.c, the library's one ELF writer). Not installed. */
#ifndef __ABTF_ELF_WRITE_H
#define __ABTF_ELF_WRITE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"

/* One relocation to emit against a new section. */
struct abtf_reloc {
	uint64_t offset;	/* in the section */
	uint32_t sym;		/* index in the object's .symtab */
	uint32_t type;		/* machine-specific R_* type */
	int64_t addend;
};

/*
 * A section to set in an object: its contents replace those of the section
 * of the same name, or the section is appended. With @relocs, a relocation
 * section ".rela<name>" (or ".rel<name>" for REL machines) against it is set
 * the same way, linked to the object's .symtab. Or a section of a new
 * object (abtf__elf_new_object()), without relocations.
 */
struct abtf_section {
	const char *name;
	uint32_t type;		/* SHT_* */
	uint64_t flags;		/* SHF_* */
	uint64_t align;
	const void *data;
	size_t size;
	const struct abtf_reloc *relocs;
	size_t nr_relocs;
};

/*
 * Write a copy of the relocatable object @elf (read from @src_path) with
 * @secs set, to @dst_path, atomically. Only ET_REL objects are accepted.
 * Errors are reported through @pr naming @src_path. Returns 0 or -errno.
 */
int abtf__elf_set_sections(Elf *elf, const char *src_path,
			   const char *dst_path,
			   const struct abtf_section *secs, size_t nr_secs,
			   const struct abtf_printer *pr);

/* New contents for section @shndx of a linked file, no larger than it. */
struct abtf_scn_bytes {
	size_t shndx;
	const void *data;
	size_t size;
};

/*
 * Write a copy of the linked file open as @src_fd to @dst_path,
 * atomically, with each of @secs written over its section at the same
 * offset and the section shrunk to it: the layout, which program headers
 * map, does not move. -EFBIG, with nothing said, where contents are
 * larger than their section: the caller, who knows what they are, says
 * so. Other errors are reported through @pr naming @dst_path, but for a
 * temporary file that cannot be made or renamed. Returns 0 or -errno.
 */
int abtf__elf_overwrite_sections(int src_fd, const char *dst_path,
				 const struct abtf_scn_bytes *secs,
				 size_t nr_secs, const struct abtf_printer *pr);

/* The section name table of a new object. */
#define ABTF_SEC_SHSTRTAB	".shstrtab"

/*
 * Write a new relocatable object of @secs (sections 1 on, in order) to
 * @dst_path, atomically, with the class, byte order, machine and flags of
 * the ELF header @like. The one named ABTF_SEC_SHSTRTAB is the section
 * name table, its contents every section's name in order after a NUL (its
 * @data is not read). Errors are reported through @pr naming @dst_path,
 * but for a failed close() or rename. Returns 0 or -errno.
 */
int abtf__elf_new_object(const GElf_Ehdr *like, const char *dst_path,
			 const struct abtf_section *secs, size_t nr_secs,
			 const struct abtf_printer *pr);

#endif /* __ABTF_ELF_WRITE_H */
