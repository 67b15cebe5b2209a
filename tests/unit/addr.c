// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The .debug_btf_addr format (libarchive-btf/elf/addr.c) on its own
 * (tests/unit.bats): groups written by abtf__addr_group_make() for the
 * four targets (64 and 32 bits, either byte order) and concatenated as
 * the linker concatenates them (version 1 groups, objects without a
 * group, padding between) are read back with their slots, extension and
 * flags; a group whose counts or lengths lie, or that is cut at any byte,
 * is not read; the relocation table is loaded from ELF files that libelf
 * writes (RELA and REL), sorted, and a table that lies is refused with a
 * message naming the file. Every section is a heap block of exactly its
 * size. Prints one line per failed check and exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "elf/addr.h"
#include "unit.h"

/* What each target's groups are written for. */
static const struct target {
	const char *name;
	unsigned char ei_class, ei_data;
} targets[] = {
	{ "64-bit LSB", ELFCLASS64, ELFDATA2LSB },
	{ "64-bit MSB", ELFCLASS64, ELFDATA2MSB },
	{ "32-bit LSB", ELFCLASS32, ELFDATA2LSB },
	{ "32-bit MSB", ELFCLASS32, ELFDATA2MSB },
};

/* The extension: a FUNC_PROTO (void) and a FUNC 'g' of it, its string. */
static const uint32_t ext_types[] = {
	0, BTF_KIND_FUNC_PROTO << 24, 0,
	1, BTF_KIND_FUNC << 24, UNIT_NR_TYPES + 1,
};
static const char ext_strs[] = "g";
static const uint8_t flags[] = { ABTF_FN_OPTIMIZED | ABTF_FN_WEAK,
				 ABTF_FN_REORDERED };

static uint32_t from_target(const struct target *t, uint32_t v)
{
	return t->ei_data == ELFDATA2MSB ? be32toh(v) : le32toh(v);
}

/* The sample's group for target @t (two slots, one extension FUNC). */
static void *make_group(const struct target *t, const void *btf,
			uint32_t btf_size, size_t *size)
{
	uint8_t ext[sizeof(ext_types) + sizeof(ext_strs)];
	struct abtf_addr_group_out g = {
		.ei_class = t->ei_class, .ei_data = t->ei_data,
		.nr_slots = UNIT_NR_SLOTS, .nr_extra = 1,
		.btf = btf, .btf_size = btf_size, .ext = ext,
		.ext_type_len = sizeof(ext_types),
		.ext_str_len = sizeof(ext_strs),
		.flags = flags, .nr_flags = sizeof(flags),
	};

	memcpy(ext, ext_types, sizeof(ext_types));
	memcpy(ext + sizeof(ext_types), ext_strs, sizeof(ext_strs));
	return abtf__addr_group_make(&g, size);
}

/* A version 1 group (an older cc-btf's), of @nr zeroed slots. */
static size_t v1_group(const struct target *t, uint32_t nr, uint8_t *buf)
{
	struct abtf_addr_hdr h = { .magic = "BTFA" };
	size_t ss = abtf__addr_slot_size(t->ei_class);

	h.nr_slots = from_target(t, nr);	/* the swap is its own inverse */
	h.btf_size = from_target(t, 1234);
	h.btf_hash = from_target(t, 0xabcd);
	memcpy(buf, &h, sizeof(h));
	memset(buf + sizeof(h), 0, nr * ss);
	return sizeof(h) + nr * ss;
}

/* Slot @k's value, an address + 1 as the final link writes it. */
static void put_slot(const struct target *t, uint8_t *p, uint64_t v)
{
	uint64_t v64 = t->ei_data == ELFDATA2MSB ? htobe64(v) : htole64(v);
	uint32_t v32 = t->ei_data == ELFDATA2MSB ? htobe32(v) : htole32(v);

	if (t->ei_class == ELFCLASS64)
		memcpy(p, &v64, 8);
	else
		memcpy(p, &v32, 4);
}

static void check_group(const struct target *t, const struct abtf_addr_sec *s,
			const struct abtf_addr_group *g, size_t at,
			size_t size, uint32_t btf_size, uint32_t hash)
{
	size_t ss = abtf__addr_slot_size(t->ei_class);
	uint8_t ext[sizeof(ext_types)];

	CHECK_ROW(t->name, g->btf_size == btf_size && g->btf_hash == hash);
	CHECK_ROW(t->name, g->nr_slots == UNIT_NR_SLOTS && g->nr_extra == 1);
	CHECK_ROW(t->name, g->slots_off == at + abtf__addr_slot_offset(t->ei_class, 0));
	CHECK_ROW(t->name, g->ext_off == g->slots_off + 3 * ss);
	CHECK_ROW(t->name, g->ext_type_len == sizeof(ext_types) &&
		  g->ext_str_len == sizeof(ext_strs));
	CHECK_ROW(t->name, g->flags_off == g->ext_off + sizeof(ext_types) +
		  sizeof(ext_strs));
	CHECK_ROW(t->name, g->nr_flags == 2 && g->end == at + size);
	CHECK_ROW(t->name, abtf__addr_flags(s, g, 0) == flags[0] &&
		  abtf__addr_flags(s, g, 1) == flags[1]);
	/* the extension's words in the target's order, its strings bytes */
	memcpy(ext, s->data + g->ext_off, sizeof(ext));
	if (s->swapped)
		abtf__swap32s(ext, sizeof(ext));
	CHECK_ROW(t->name, !memcmp(ext, ext_types, sizeof(ext)));
	CHECK_ROW(t->name, !memcmp(s->data + g->ext_off + sizeof(ext),
				   ext_strs, sizeof(ext_strs)));
}

/*
 * Per target: a version 2 group, a version 1 group, the version 2 group
 * again, its slots filled as a final link fills them.
 */
static void test_groups(const uint8_t *btf, size_t btf_size)
{
	uint32_t hash = abtf__hash32(btf, btf_size);
	size_t i, k;

	CHECK(abtf__addr_slot_size(ELFCLASS64) == 8);
	CHECK(abtf__addr_slot_size(ELFCLASS32) == 4);
	CHECK(abtf__addr_slot_offset(ELFCLASS64, 3) == 32 + 24);
	CHECK(abtf__addr_slot_offset(ELFCLASS32, 3) == 32 + 12);
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		const struct target *t = &targets[i];
		size_t ss = abtf__addr_slot_size(t->ei_class), gsize, at[3], n;
		uint8_t *g = make_group(t, btf, btf_size, &gsize), *p;
		uint8_t sec[512] = { 0 };
		struct abtf_addr_group rg;
		struct abtf_addr_sec s;

		if (!CHECK_ROW(t->name, g && gsize % ss == 0 &&
			       gsize + 3 * ss + 40 < sizeof(sec) / 2))
			continue;
		at[0] = 0;
		memcpy(sec, g, gsize);
		at[1] = gsize;
		n = v1_group(t, 2, sec + at[1]);
		at[2] = at[1] + n;
		memcpy(sec + at[2], g, gsize);
		for (k = 0; k < 3; k++)	/* slots: address + 1 */
			put_slot(t, sec + at[2] + 32 + k * ss, 0x1000 * k + 1);
		n = at[2] + gsize;
		p = unit_dup(sec, n);
		s = (struct abtf_addr_sec){ .data = p, .size = n,
			.slot_size = ss, .swapped = !abtf__host_order(t->ei_data) };
		CHECK_ROW(t->name, abtf__addr_group_read(&s, 0, &rg));
		check_group(t, &s, &rg, 0, gsize, btf_size, hash);
		CHECK_ROW(t->name, abtf__addr_skip_pad(&s, rg.end) == at[1]);
		CHECK_ROW(t->name, abtf__addr_group_read(&s, at[1], &rg));
		CHECK_ROW(t->name, rg.btf_size == 1234 && rg.btf_hash == 0xabcd &&
			  rg.nr_slots == 2 && !rg.nr_extra && !rg.nr_flags &&
			  rg.slots_off == at[1] + 16 &&
			  rg.end == at[1] + 16 + 2 * ss);
		CHECK_ROW(t->name, abtf__addr_skip_pad(&s, rg.end) == at[2]);
		CHECK_ROW(t->name, !abtf__addr_group_read(&s, at[2] - ss, &rg));
		CHECK_ROW(t->name, abtf__addr_group_read(&s, at[2], &rg));
		check_group(t, &s, &rg, at[2], gsize, btf_size, hash);
		for (k = 0; k < 3; k++)
			CHECK_ROW(t->name, abtf__addr_slot_value(&s, rg.slots_off +
						k * ss) == 0x1000 * k + 1);
		CHECK_ROW(t->name, abtf__addr_skip_pad(&s, rg.end) == n);
		/* nothing past the section */
		CHECK_ROW(t->name, !abtf__addr_group_read(&s, n, &rg));
		CHECK_ROW(t->name, !abtf__addr_group_read(&s, n - 1, &rg));
		CHECK_ROW(t->name, !abtf__addr_group_read(&s, SIZE_MAX, &rg));
		free(p);
		free(g);
	}
}

/*
 * The padding a group's end may leave before the next (up to a slot's
 * alignment): skipped while zero, never past the section.
 */
static void test_skip_pad(void)
{
	uint8_t *p = calloc(1, 20);
	struct abtf_addr_sec s = { .data = p, .size = 20, .slot_size = 8 };

	CHECK(abtf__addr_skip_pad(&s, 3) == 8);
	CHECK(abtf__addr_skip_pad(&s, 8) == 8);
	CHECK(abtf__addr_skip_pad(&s, 17) == 20);
	CHECK(abtf__addr_skip_pad(&s, 20) == 20);
	p[5] = 'B';
	CHECK(abtf__addr_skip_pad(&s, 3) == 5);
	s.slot_size = 4;
	CHECK(abtf__addr_skip_pad(&s, 1) == 4);
	free(p);
}

/* A header field of a group that lies: the group is not read. */
struct glie {
	const char *name;
	unsigned int field;	/* byte of the field, or 0: the magic */
	uint32_t val;
};

static const struct glie glies[] = {
	{ "nr_slots one more", 4, UNIT_NR_SLOTS + 1 },
	{ "nr_slots 4G-1", 4, 0xffffffff },
	{ "nr_extra 4G-1", 16, 0xffffffff },
	{ "nr_extra without an extension", 16, 0 },
	{ "ext_type_len odd", 20, 6 },
	{ "ext_type_len 4G-4", 20, 0xfffffffc },
	{ "ext_type_len without strings", 24, 0 },
	{ "ext_str_len 4G-1", 24, 0xffffffff },
	{ "nr_flags 4G-1", 28, 0xffffffff },
	{ "nr_flags past the end", 28, 64 },
};

static void test_lies(const uint8_t *btf, size_t btf_size)
{
	size_t i, k, n, gsize;

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		const struct target *t = &targets[i];
		size_t ss = abtf__addr_slot_size(t->ei_class);
		uint8_t *g = make_group(t, btf, btf_size, &gsize), *p;
		struct abtf_addr_group rg;
		struct abtf_addr_sec s = { .slot_size = ss,
			.swapped = !abtf__host_order(t->ei_data) };

		for (k = 0; k < ARRAY_SIZE(glies); k++) {
			uint32_t v = from_target(t, glies[k].val);

			p = unit_dup(g, gsize);
			if (!strcmp(glies[k].name, "nr_extra without an extension")) {
				memset(p + 20, 0, 8);	/* no types, no strings */
				v = from_target(t, 1);
			}
			if (!strcmp(glies[k].name, "ext_type_len without strings")) {
				v = 0;
				memcpy(p + 20, &v, 4);
				memset(p + 16, 0, 4);
				v = from_target(t, 4);	/* strings, no types */
			}
			memcpy(p + glies[k].field, &v, 4);
			s.data = p;
			s.size = gsize;
			memset(&rg, 0xff, sizeof(rg));
			CHECK_ROW(glies[k].name, !abtf__addr_group_read(&s, 0, &rg));
			free(p);
		}
		/* no magic of either version */
		p = unit_dup(g, gsize);
		memcpy(p, "BTFz", 4);
		s.data = p;
		s.size = gsize;
		CHECK_ROW(t->name, !abtf__addr_group_read(&s, 0, &rg));
		free(p);
		/* cut at every byte: never read, nothing read past the cut */
		for (n = 0; n < gsize; n++) {
			p = unit_dup(g, n);
			s.data = p;
			s.size = n;
			CHECK_ROW(t->name, !abtf__addr_group_read(&s, 0, &rg));
			free(p);
		}
		/* read in the other byte order: counts out of all bounds */
		p = unit_dup(g, gsize);
		s.data = p;
		s.size = gsize;
		s.swapped = !s.swapped;
		CHECK_ROW(t->name, !abtf__addr_group_read(&s, 0, &rg));
		free(p);
		free(g);
	}
}

/* ---- relocations, from ELF files libelf writes ---- */

struct rel_file {
	const char *path;
	unsigned char ei_class;
	bool rela;
	uint32_t type;		/* of every relocation; 0: the slot's */
};

static const uint64_t rel_offs[] = { 72, 32, 48, 40 };	/* not sorted */

/*
 * Section @i (1 to 5) of write_elf()'s object: .debug_btf_addr, its
 * relocations (in @rels), .symtab (in @syms), .strtab and .shstrtab.
 */
static void rel_file_section(Elf *e, const struct rel_file *f, int i,
			     Elf_Scn *scn, Elf_Data *d, uint8_t *syms,
			     uint8_t *rels)
{
	static uint8_t addr[64];
	static const char strtab[] = "\0a\0b\0c\0d";
	static const char shstr[] = "\0.debug_btf_addr\0.rela.debug_btf_addr"
				    "\0.symtab\0.strtab\0.shstrtab";
	GElf_Shdr sh;

	gelf_getshdr(scn, &sh);
	sh.sh_addralign = 1;
	d->d_align = 1;
	d->d_version = EV_CURRENT;
	switch (i) {
	case 1:
		sh.sh_name = 1;
		sh.sh_type = SHT_PROGBITS;
		d->d_buf = addr;
		d->d_size = sizeof(addr);
		break;
	case 2:
		sh.sh_name = f->rela ? 17 : 18;
		sh.sh_type = f->rela ? SHT_RELA : SHT_REL;
		sh.sh_link = 3;
		sh.sh_info = 1;
		d->d_type = f->rela ? ELF_T_RELA : ELF_T_REL;
		d->d_buf = rels;
		d->d_size = gelf_fsize(e, d->d_type, 4, EV_CURRENT);
		sh.sh_entsize = gelf_fsize(e, d->d_type, 1, EV_CURRENT);
		break;
	case 3:
		sh.sh_name = 38;
		sh.sh_type = SHT_SYMTAB;
		sh.sh_link = 4;
		sh.sh_info = 1;
		d->d_type = ELF_T_SYM;
		d->d_buf = syms;
		d->d_size = gelf_fsize(e, ELF_T_SYM, 5, EV_CURRENT);
		sh.sh_entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
		break;
	case 4:
		sh.sh_name = 46;
		sh.sh_type = SHT_STRTAB;
		d->d_buf = (void *)strtab;
		d->d_size = sizeof(strtab);
		break;
	case 5:
		sh.sh_name = 54;
		sh.sh_type = SHT_STRTAB;
		d->d_buf = (void *)shstr;
		d->d_size = sizeof(shstr);
		break;
	}
	gelf_update_shdr(scn, &sh);
}

/* The symbols a to d of write_elf()'s .symtab, @d: 1 to 4, SHN_ABS. */
static void rel_file_syms(Elf_Data *d)
{
	for (int k = 1; k <= 4; k++) {
		GElf_Sym sym = { .st_name = 2 * k - 1,
			.st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC),
			.st_shndx = SHN_ABS, .st_value = k };

		gelf_update_sym(d, k, &sym);
	}
}

/* write_elf()'s relocations, @d: one per offset of rel_offs. */
static void rel_file_relocs(Elf_Data *d, const struct rel_file *f, bool is64)
{
	for (int k = 0; k < 4; k++) {
		GElf_Rela ra = { .r_offset = rel_offs[k],
			.r_info = GELF_R_INFO(k + 1, f->type ?:
					      (is64 ?
					       R_X86_64_64 :
					       R_386_32)),
			.r_addend = 1 };
		GElf_Rel rl = { .r_offset = ra.r_offset,
				.r_info = ra.r_info };

		if (f->rela)
			gelf_update_rela(d, k, &ra);
		else
			gelf_update_rel(d, k, &rl);
	}
}

/*
 * An ET_REL object of a .debug_btf_addr (at section index 1) of 64
 * bytes, a symbol table and a relocation section against it, one
 * relocation per offset of rel_offs, symbol i + 1, addend 1.
 */
static int write_elf(const struct rel_file *f)
{
	int fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC, 0644), i;
	bool is64 = f->ei_class == ELFCLASS64;
	uint8_t syms[5 * sizeof(Elf64_Sym)] = { 0 }, rels[4 * sizeof(Elf64_Rela)];
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e || !gelf_newehdr(e, f->ei_class)) {
		close(fd);
		return -EINVAL;
	}
	{
		GElf_Ehdr eh;

		gelf_getehdr(e, &eh);
		eh.e_ident[EI_DATA] = ELFDATA2LSB;
		eh.e_type = ET_REL;
		eh.e_machine = is64 ? EM_X86_64 : EM_386;
		eh.e_version = EV_CURRENT;
		eh.e_shstrndx = 5;
		gelf_update_ehdr(e, &eh);
	}
	for (i = 1; i <= 5; i++) {
		Elf_Scn *scn = elf_newscn(e);
		Elf_Data *d = elf_newdata(scn);

		rel_file_section(e, f, i, scn, d, syms, rels);
		if (i == 3)
			rel_file_syms(d);
		if (i == 2)
			rel_file_relocs(d, f, is64);
	}
	i = elf_update(e, ELF_C_WRITE) < 0 ? -EINVAL : 0;
	elf_end(e);
	close(fd);
	return i;
}

static int load(const char *path, size_t shndx, struct unit_log *log,
		struct abtf_addr_relocs *t)
{
	int fd = open(path, O_RDONLY), err;
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);

	memset(t, 0, sizeof(*t));
	unit_log_reset(log);
	err = e ? abtf__addr_relocs_load(e, shndx, path, &log->pr, t) : -EIO;
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return err;
}

/* Sorted, found by offset; the one kind of each machine; none: empty. */
static void test_relocs(struct unit_log *log)
{
	static const struct rel_file files[] = {
		{ "rela64.o", ELFCLASS64, true },
		{ "rel32.o", ELFCLASS32, false },
		{ "rela32.o", ELFCLASS32, true },
	};
	struct abtf_addr_relocs t;
	const struct abtf_addr_rela *r;
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		const char *row = files[i].path;

		if (!CHECK_ROW(row, !write_elf(&files[i])))
			continue;
		CHECK_ROW(row, !load(row, 1, log, &t) && !log->nr);
		CHECK_ROW(row, t.nr == 4 && t.inplace == !files[i].rela);
		for (k = 1; k < t.nr; k++)
			CHECK_ROW(row, t.r[k - 1].offset < t.r[k].offset);
		for (k = 0; k < 4; k++) {
			r = abtf__addr_reloc_at(&t, rel_offs[k]);
			CHECK_ROW(row, r && r->offset == rel_offs[k] &&
				  r->sym == k + 1 &&
				  r->addend == (files[i].rela ? 1 : 0));
		}
		CHECK_ROW(row, !abtf__addr_reloc_at(&t, 33));
		CHECK_ROW(row, !abtf__addr_reloc_at(&t, 0));
		abtf__addr_relocs_free(&t);
		CHECK_ROW(row, !t.r && !t.nr);
		/* relocations against another section: none for this one */
		CHECK_ROW(row, !load(row, 3, log, &t) && !t.nr && !t.r);
		CHECK_ROW(row, !abtf__addr_reloc_at(&t, 32));
		abtf__addr_relocs_free(&t);
		unlink(row);
	}
}

/*
 * A slot's relocation of another type than the absolute, pointer-sized
 * one (a 32-bit one of a 64-bit object, a PC-relative one) is refused,
 * naming it, rather than read as a slot's.
 */
static void test_reloc_types(struct unit_log *log)
{
	static const struct rel_file files[] = {
		{ "abs32.o", ELFCLASS64, true, R_X86_64_32 },
		{ "pc32.o", ELFCLASS64, true, R_X86_64_PC32 },
		{ "pc386.o", ELFCLASS32, false, R_386_PC32 },
	};
	struct abtf_addr_relocs t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		const char *row = files[i].path;

		if (!CHECK_ROW(row, !write_elf(&files[i])))
			continue;
		CHECK_ROW(row, load(row, 1, log, &t) == -EINVAL);
		CHECK_ROW(row, unit_log_says(log, row, ".debug_btf_addr: "
					     "relocation 0: type "));
		abtf__addr_relocs_free(&t);
		unlink(row);
	}
}

/* Patch @len bytes at @off of the file @path. */
static bool patch(const char *path, off_t off, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && pwrite(fd, p, len, off) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * A relocation section whose entsize or size lies (elf_read.c checks
 * these before the linker gets here; the loader must still not read
 * past its data): refused with a message that names the file.
 */
static void test_reloc_lies(struct unit_log *log)
{
	static const struct rel_file f = { "lies.o", ELFCLASS64, true };
	struct abtf_addr_relocs t;
	off_t sh = 0;
	uint64_t v;
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	if (!CHECK(!write_elf(&f)))
		return;
	fd = open(f.path, O_RDONLY);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (CHECK(e && gelf_getehdr(e, &eh)))
		sh = eh.e_shoff + 2 * sizeof(Elf64_Shdr);
	elf_end(e);
	close(fd);
	/* entsize 8: 12 "relocations" in the 96 bytes of 4 */
	v = 8;
	CHECK(patch(f.path, sh + offsetof(Elf64_Shdr, sh_entsize), &v, 8));
	CHECK(load(f.path, 1, log, &t) == -EINVAL);
	CHECK(unit_log_says(log, "lies.o: ", "bad .debug_btf_addr relocation"));
	abtf__addr_relocs_free(&t);
	/* the section past the end of the file */
	v = 24;
	CHECK(patch(f.path, sh + offsetof(Elf64_Shdr, sh_entsize), &v, 8));
	v = 1 << 20;
	CHECK(patch(f.path, sh + offsetof(Elf64_Shdr, sh_size), &v, 8));
	CHECK(load(f.path, 1, log, &t) == -EINVAL);
	CHECK(unit_log_says(log, "lies.o: ",
			    "cannot read .debug_btf_addr relocations"));
	abtf__addr_relocs_free(&t);
	unlink(f.path);
}

int main(void)
{
	struct btf *btf = unit_sample_btf();
	struct unit_log log;
	size_t size;
	uint8_t *raw;

	unit_log_init(&log);
	elf_version(EV_CURRENT);
	raw = btf ? unit_raw(btf, &size) : NULL;
	if (CHECK(raw)) {
		test_groups(raw, size);
		test_lies(raw, size);
	}
	test_skip_pad();
	test_relocs(&log);
	test_reloc_types(&log);
	test_reloc_lies(&log);
	free(raw);
	btf__free(btf);
	return unit_status();
}
