// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: btf-link on an ELF object whose .BTF is an archive.
 *
 * The input is
 *
 *	2 bytes		feature bits (little-endian) for the link, masked by
 *			abtf_btf_features__supported(); 0: the default set
 *	...		the .BTF section: members back to back, with padding
 *	"=ADDR="	optional: the rest is a .debug_btf_addr section
 *	...		its groups ("BTFA"/"BTFB"), docs/archive-format.md
 *
 * The harness makes a relocatable object of these sections (and an empty
 * symbol table) with libelf: an s390x one (big-endian) when the .BTF
 * starts with a big-endian BTF magic, an x86-64 one otherwise, links it (the archive reader, groups,
 * merge, libbpf's dedup), compares the final BTF with itself (which must
 * find no difference) and writes it the three ways btf-link can: the
 * object rewritten, a .BTF-only object and a raw file.
 *
 * Seeds: tests/fuzz/make-corpus.sh. Run: make fuzz (docs/reliability.md).
 */
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>

#include "fuzz.h"

#define ADDR_SEP	"=ADDR="

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_init();
}

static const char shstrtab[] =
	"\0.shstrtab\0.BTF\0.debug_btf_addr\0.symtab\0.strtab";
enum { N_SHSTRTAB = 1, N_BTF = 11, N_ADDR = 16, N_SYMTAB = 32,
	N_STRTAB = 40 };

static const Elf64_Sym null_sym[1];

static Elf_Scn *add_scn(Elf *e, unsigned int name, unsigned int type,
			size_t align, const void *buf, size_t size)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d;
	GElf_Shdr sh;

	if (!scn || !(d = elf_newdata(scn)) || !gelf_getshdr(scn, &sh))
		fuzz_die(elf_errmsg(-1));
	d->d_buf = (void *)buf;
	d->d_size = size;
	d->d_align = align;
	d->d_type = type == SHT_SYMTAB ? ELF_T_SYM : ELF_T_BYTE;
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_addralign = align;
	if (!gelf_update_shdr(scn, &sh))
		fuzz_die(elf_errmsg(-1));
	return scn;
}

/* A relocatable object with .BTF (and .debug_btf_addr when @addr). */
static void write_object(const char *path, const void *btf, size_t btf_len,
			 const void *addr, size_t addr_len)
{
	Elf_Scn *symtab, *strtab;
	Elf64_Ehdr *eh;
	GElf_Shdr sh;
	bool big;
	Elf *e;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		fuzz_die(path);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e || !(eh = elf64_newehdr(e)))
		fuzz_die(elf_errmsg(-1));
	big = btf_len >= 2 && ((const uint8_t *)btf)[0] == 0xeb &&
	      ((const uint8_t *)btf)[1] == 0x9f;
	eh->e_ident[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	eh->e_type = ET_REL;
	eh->e_machine = big ? EM_S390 : EM_X86_64;
	eh->e_version = EV_CURRENT;
	add_scn(e, N_BTF, SHT_PROGBITS, 4, btf, btf_len);
	if (addr)
		add_scn(e, N_ADDR, SHT_PROGBITS, 8, addr, addr_len);
	symtab = add_scn(e, N_SYMTAB, SHT_SYMTAB, 8, null_sym,
			 sizeof(null_sym));
	strtab = add_scn(e, N_STRTAB, SHT_STRTAB, 1, "", 1);
	if (!gelf_getshdr(symtab, &sh))
		fuzz_die(elf_errmsg(-1));
	sh.sh_link = elf_ndxscn(strtab);
	sh.sh_info = 1;
	sh.sh_entsize = sizeof(Elf64_Sym);
	if (!gelf_update_shdr(symtab, &sh))
		fuzz_die(elf_errmsg(-1));
	eh->e_shstrndx = elf_ndxscn(add_scn(e, N_SHSTRTAB, SHT_STRTAB, 1,
					    shstrtab, sizeof(shstrtab)));
	if (elf_update(e, ELF_C_WRITE) < 0)
		fuzz_die(elf_errmsg(-1));
	elf_end(e);
	if (close(fd))
		fuzz_die(path);
}

static void link_object(const char *in, unsigned int features)
{
	struct abtf_link_opts opts = {
		.sz = sizeof(opts),
		.print = fuzz_print,
		.force = true,
		.nr_threads = 1,
		.features = features,
	};
	char out[PATH_MAX];
	struct abtf_linker *l;

	l = abtf_linker__new(in, &opts);
	if (!l)
		return;
	if (abtf_linker__link(l) == 0) {
		fuzz_check_self(abtf_linker__btf(l), "final");
		abtf_linker__write_elf(l, fuzz_path(out, sizeof(out), "out.o"));
		abtf_linker__write_object(l, fuzz_path(out, sizeof(out),
						       "btf.o"));
		abtf_linker__write_raw(l, fuzz_path(out, sizeof(out),
						    "out.btf"));
	}
	abtf_linker__free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep, *addr = NULL;
	size_t btf_len, addr_len = 0;
	unsigned int features;
	char in[PATH_MAX];

	if (size < 2)
		return 0;
	features = (data[0] | data[1] << 8) & abtf_btf_features__supported();
	if (features)
		features |= ABTF_FEATS_GIVEN;
	data += 2;
	size -= 2;
	btf_len = size;
	sep = memmem(data, size, ADDR_SEP, strlen(ADDR_SEP));
	if (sep) {
		btf_len = sep - data;
		addr = sep + strlen(ADDR_SEP);
		addr_len = size - btf_len - strlen(ADDR_SEP);
	}
	write_object(fuzz_path(in, sizeof(in), "in.o"), data, btf_len,
		     addr, addr_len);
	link_object(in, features);
	fuzz_rm("in.o");
	fuzz_rm("out.o");
	fuzz_rm("btf.o");
	fuzz_rm("out.btf");
	return 0;
}
