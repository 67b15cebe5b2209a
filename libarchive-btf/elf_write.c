// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Setting sections in ELF objects: placeholder. */
#include <errno.h>
#include "internal.h"

int abtf__elf_set_sections(Elf *elf, const char *src_path, const char *dst_path,
			   const struct abtf_section *secs, size_t nr_secs,
			   const struct abtf_printer *pr)
{
	return -EOPNOTSUPP;
}

int abtf__elf_abs_reloc(GElf_Half e_machine, bool *is_rela)
{
	return -EOPNOTSUPP;
}
