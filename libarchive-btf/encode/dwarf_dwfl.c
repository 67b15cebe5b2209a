// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdwfl's way into an object's DWARF: the one file of the library that
 * uses libdwfl.
 *
 * dwarf_reloc.c relocates the sections the type walk reads for the
 * objects it knows (64-bit little-endian x86-64 and arm64 relocatable
 * objects, RELA, uncompressed). Everything else comes here, through
 * enc_dwarf.c:
 *
 *  - other machines: riscv64, s390x (big-endian), 32-bit objects (i386's
 *    REL relocations), ...;
 *  - compressed debug sections (gcc -gz), which libdwfl decompresses;
 *  - a relocation type dwarf_reloc.c does not know, in a section it
 *    relocates: an x86-64 object with a thread-local variable (its
 *    DW_AT_location holds an R_X86_64_DTPOFF32 or DTPOFF64 relocation);
 *  - anything not ET_REL (an executable given to cc-btf --encode -o).
 *
 * dwfl_report_offline() lays the object's sections out one after the
 * other at distinct addresses and relocates every debug section (the
 * fast way's saving is not to) in libdwfl's own Elf, which dwarf_read.c
 * then reads as it reads the fast way's copy. An address read from the
 * DWARF (a variable's DW_OP_addr) is an address in that layout, which
 * libdwfl maps back to a section and an offset in it; the fast way tells
 * the section by the relocation of the address instead.
 *
 * tests/encoder-dwfl.bats holds each kind of object that comes here to
 * pahole's BTF, and to the fast way's bytes where both can read it.
 */
#include <elfutils/libdwfl.h>
#include <string.h>

#include "encode/encoder.h"

static int find_no_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc,
			     char **debuginfo_file_name)
{
	return -1;	/* the object's own DWARF or none */
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

Elf *dwarf_dwfl__open(struct dwarf_dwfl *d, const char *path)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;

	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl)
		return NULL;
	mod = dwfl_report_offline(d->dwfl, "", path, -1);
	if (!mod || dwfl_report_end(d->dwfl, NULL, NULL))
		return NULL;
	dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw)
		return NULL;
	d->mod = mod;
	return dwarf_getelf(dw);
}

const char *dwarf_dwfl__errmsg(void)
{
	return dwfl_errmsg(-1);
}

int dwarf_dwfl__section_of(const struct dwarf_dwfl *d, uint64_t *addr,
			   uint32_t *shndx)
{
	Dwarf_Addr a = *addr;
	GElf_Word sec;
	int idx;

	idx = dwfl_module_relocate_address(d->mod, &a);
	*addr = a;
	if (idx < 0 || !dwfl_module_relocation_info(d->mod, idx, &sec))
		return 1;
	*shndx = sec;
	return 0;
}

void dwarf_dwfl__close(struct dwarf_dwfl *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);	/* owns its Dwarf and Elf */
	memset(d, 0, sizeof(*d));
}
