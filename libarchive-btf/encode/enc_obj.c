// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The object being encoded, open read-only with libelf: its ELF header
 * and its sections by index and by name, for the encoder's other modules.
 * Every section header is checked at open (abtf__elf_check(), elf_read.c);
 * sections are found and named through elf_read.c too.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encode/enc.h"
#include "elf/elf_read.h"

int enc_obj__elf_error(const struct enc_obj *o, const char *what)
{
	pr_warn(o->pr, "%s: %s: %s", o->path, what, elf_errmsg(-1));
	return -EINVAL;
}

/* Every section header readable and every section inside the file. */
static int check_sections(struct enc_obj *o)
{
	struct stat st;

	if (fstat(o->fd, &st))
		return -errno;
	return abtf__elf_check(o->elf, st.st_size, o->path, NULL, o->pr);
}

int enc_obj__open(struct enc_obj *o, const char *path,
		  const struct abtf_printer *pr)
{
	o->path = path;
	o->pr = pr;
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0) {
		int err = -errno;

		pr_warn(pr, "%s: cannot open: %s", path, ABTF_STRERROR(errno));
		return err;
	}
	elf_version(EV_CURRENT);
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf)
		return enc_obj__elf_error(o, "cannot read ELF");
	if (elf_kind(o->elf) != ELF_K_ELF) {
		pr_warn(pr, "%s: not an ELF object", path);
		return -EINVAL;
	}
	if (!gelf_getehdr(o->elf, &o->ehdr))
		return enc_obj__elf_error(o, "bad ELF header");
	if (elf_getshdrstrndx(o->elf, &o->shstrndx))
		return enc_obj__elf_error(o, "bad section header string table");
	return check_sections(o);
}

void enc_obj__close(struct enc_obj *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	o->elf = NULL;
	o->fd = -1;
}

const char *enc_obj__section_name(const struct enc_obj *o, size_t shndx)
{
	return abtf__elf_scn_name(o->elf, shndx);
}

Elf_Scn *enc_obj__find_section(const struct enc_obj *o, uint32_t type,
			       const char *name)
{
	size_t shndx = abtf__elf_find(o->elf, type, name, NULL);

	return shndx ? elf_getscn(o->elf, shndx) : NULL;
}
