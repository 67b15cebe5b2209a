/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal interfaces of libarchive-btf. Not installed. */
#ifndef __ABTF_INTERNAL_H
#define __ABTF_INTERNAL_H

#include <endian.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include <bpf/btf.h>

#include "archive_btf.h"
#include "util/hashmap.h"

#define __abtf_printf(a, b) __attribute__((format(printf, a, b)))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))
#endif

/* Where messages of one run go: copied from the options of its object. */
struct abtf_printer {
	abtf_print_fn_t fn;
	void *ctx;
};

void abtf__print(const struct abtf_printer *p, enum abtf_print_level level,
		 const char *fmt, ...) __abtf_printf(3, 4);

#define pr_warn(p, fmt, ...) abtf__print(p, ABTF_WARN, fmt, ##__VA_ARGS__)
#define pr_info(p, fmt, ...) abtf__print(p, ABTF_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(p, fmt, ...) abtf__print(p, ABTF_DEBUG, fmt, ##__VA_ARGS__)

/*
 * Copy the options struct @opts (of size opts->sz, possibly older or newer
 * than ours) into @dst of size @dst_sz; fields we know of and the caller
 * did not set are zero. Returns -EINVAL if the caller's struct has non-zero
 * fields beyond the ones we know.
 */
int abtf__copy_opts(void *dst, size_t dst_sz, const void *opts);

/* ---- writing ELF (elf_write.c, the library's one ELF writer) ---- */

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

/* ---- reading ELF (elf_read.c) ---- */

/* The largest sh_addralign accepted: a huge page (x86-64's PMD). */
#define ABTF_MAX_ALIGN		(2u << 20)

/*
 * Check once what every reader of @elf (a file of @fsize bytes, named
 * @path in errors) relies on: the section header table and every section
 * inside the file, alignments, section indices in headers, with extended
 * numbering; the symbols of every relocation, or with @relocs_of only of
 * the relocations that apply to the section of that name. 0 or -EINVAL
 * after one message.
 */
int abtf__elf_check(Elf *elf, size_t fsize, const char *path,
		    const char *relocs_of, const struct abtf_printer *pr);
/*
 * The section index of symbol @s, number @idx of its table, reading
 * SHN_XINDEX through @xndx (the table's SHT_SYMTAB_SHNDX data, or NULL).
 * Reserved indices (SHN_ABS, SHN_COMMON) come back as they are; -EINVAL
 * for an SHN_XINDEX without its word.
 */
int abtf__sym_shndx(const GElf_Sym *s, Elf_Data *xndx, size_t idx);
/*
 * The section of symbol @s whose index abtf__sym_shndx() or abtf__elf_sym()
 * resolved to @shndx: SHN_UNDEF where it is in none (SHN_ABS, SHN_COMMON).
 */
int abtf__sym_section(const GElf_Sym *s, int shndx);
/* The data of the first section named @name (not SHT_NOBITS), or NULL. */
Elf_Data *abtf__elf_section_data(Elf *elf, const char *name);
/* The name of section @shndx, or NULL. */
const char *abtf__elf_scn_name(Elf *elf, size_t shndx);
/*
 * The index of the first section of type @type (SHT_NULL: any type) named
 * @name (NULL: any name), its header in *@shdr if not NULL; 0 if there is
 * none.
 */
size_t abtf__elf_find(Elf *elf, uint32_t type, const char *name,
		      GElf_Shdr *shdr);
/*
 * The index of the first SHT_RELA or SHT_REL section that applies to
 * section @target, its header in *@shdr if not NULL; 0 if there is none.
 */
size_t abtf__elf_relocs_of(Elf *elf, size_t target, GElf_Shdr *shdr);
/* The SHT_SYMTAB_SHNDX data of symbol table @symtab, or NULL. */
Elf_Data *abtf__elf_xndx(Elf *elf, size_t symtab);

/* A symbol table with its extended section indices and its names. */
struct abtf_elf_syms {
	Elf *elf;
	Elf_Data *data;		/* the symbols (libelf's, host order) */
	Elf_Data *xndx;		/* its SHT_SYMTAB_SHNDX words, or NULL */
	size_t nr;		/* symbols, the null one included */
	size_t shndx;		/* the table's section */
	size_t strndx;		/* the section of its names */
	bool in_place;		/* Elf64_Sym in the host's order: read as is */
};

/*
 * Symbol @i of @t read in place, where the table is Elf64_Sym in the
 * host's order and the symbol's section index needs no SHT_SYMTAB_SHNDX:
 * true; false: ask abtf__elf_sym(). Inline, for the loops over every
 * relocation of an object.
 */
static inline bool abtf__elf_sym_fast(const struct abtf_elf_syms *t, size_t i,
				      GElf_Sym *s)
{
	const GElf_Sym *p;

	if (!t->in_place || i >= t->nr)
		return false;
	p = (const GElf_Sym *)t->data->d_buf + i;
	if (p->st_shndx == SHN_XINDEX)
		return false;
	*s = *p;
	return true;
}
/*
 * The first table of type @type (SHT_SYMTAB, SHT_DYNSYM) of @elf into
 * *@t: 0, -ENOENT if there is none, -EINVAL if it does not read.
 */
int abtf__elf_syms_open(Elf *elf, uint32_t type, struct abtf_elf_syms *t);
/* The symbol table of section @shndx into *@t: 0 or -EINVAL. */
int abtf__elf_syms_at(Elf *elf, size_t shndx, struct abtf_elf_syms *t);
/*
 * Symbol @i of @t into *@s, with its section index (SHN_XINDEX resolved,
 * reserved indices as they are) into *@shndx and its name (NULL if it has
 * none that reads) into *@name, each if not NULL. 0 or -EINVAL.
 */
int abtf__elf_sym(const struct abtf_elf_syms *t, size_t i, GElf_Sym *s,
		  int *shndx, const char **name);

/*
 * Create a temporary file next to @path for an atomic replacement. On
 * success *tmp is a malloc()ed path and the open fd is returned.
 */
int abtf__tmpfile_for(const char *path, char **tmp);

/*
 * Rename @tmp over @path, keeping @path's owner, group and mode if it
 * exists (set-user/group-ID dropped where the owner cannot be kept), or
 * unlink it.
 */
int abtf__tmpfile_commit(char *tmp, const char *path);
void abtf__tmpfile_abort(char *tmp);

/*
 * An errno value (either sign) in words, libbpf's own codes (4000 up,
 * LIBBPF_ERRNO__*) too, which strerror() calls "Unknown error 4001".
 * ABTF_STRERROR() gives it a buffer that lasts the statement.
 */
const char *abtf__strerror(int err, char *buf, size_t size);
#define ABTF_STRERROR(err)	abtf__strerror((err), (char[96]){ 0 }, 96)

/* The per-CPU section, and the prefix of its input subsections. */
#define ABTF_PERCPU_SEC		".data..percpu"

/* pahole's name for an integer of a size BTF cannot express (4 bytes). */
#define ABTF_FAKE_INT		"__SANITIZED_FAKE_INT__"

/*
 * A fast 32-bit hash of @size bytes, defined on their little-endian 64-bit
 * words (so the same on every host): identifies a .BTF member and interns
 * strings; not a security measure.
 */
uint32_t abtf__hash32(const void *data, size_t size);

/*
 * btf__new(), or on @base btf__new_split(), which libbpf 1.1 declares but
 * does not export (util.c). NULL with errno set.
 */
struct btf *abtf__new_btf(const void *raw, size_t size, struct btf *base);
/*
 * @btf, or NULL with errno EINVAL (@btf freed) if its own types do not
 * start on a 4-byte boundary: libbpf reads a header of 26 bytes, say, and
 * its records would then be read misaligned. NULL stays NULL.
 */
struct btf *abtf__btf_aligned(struct btf *btf);
/*
 * The length of the string section of @btf (not split BTF), from libbpf's
 * raw data: 0 where it has none. In the host's byte order only (for the
 * other, libbpf would build a swapped copy).
 */
uint32_t abtf__btf_str_len(const struct btf *btf);

/* libbpf's name of the host's byte order. */
static inline enum btf_endianness abtf__host_endianness(void)
{
	return __BYTE_ORDER == __LITTLE_ENDIAN ? BTF_LITTLE_ENDIAN :
						 BTF_BIG_ENDIAN;
}

/* ---- the layout feature (btf/layout.c) ---- */

/*
 * @raw, a BTF as libbpf 1.1 writes it (24-byte header, either byte order),
 * with pahole 1.31's layout table: a new buffer the caller frees.
 */
int abtf__btf_add_layout(const void *raw, uint32_t size, void **out,
			 uint32_t *out_size);

/* A BTF of the other byte order with a layout table, made readable by
 * libbpf 1.1 in place: -ENOTSUP if it is not one. */
int abtf__btf_cut_layout(uint8_t *p, size_t *size);

/*
 * The first rule of a BTF header (@size bytes at @p, either byte order)
 * that the bytes break, libbpf 1.1's own checks aside: version, flags, a
 * longer header's layout table and zero fields. Its message, with *@at
 * the byte of the field, or NULL (layout.c).
 */
const char *abtf__btf_header_fault(const void *p, size_t size, size_t *at);

/* ---- byte order (util.c) ---- */

/* Whether @ei_data (ELFDATA2LSB or ELFDATA2MSB) is this host's order. */
static inline bool abtf__host_order(unsigned char ei_data)
{
	return ei_data == (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB :
						       ELFDATA2MSB);
}

/* Swap each 32-bit word of the @len bytes at @p (any alignment). */
void abtf__swap32s(void *p, size_t len);

/*
 * Raw BTF of either byte order into the other, in place: the magic, every
 * 32-bit word of the header and of the type section (each record of each
 * kind is made of 32-bit words); strings are bytes. Leniently: header
 * words past @size are left, and so is a type section that does not fit
 * in @size, is misaligned or follows a header shorter than its fields, for
 * archive__member_check() to report on the swapped header. Returns false, and
 * changes nothing, where @data starts with no BTF magic of either order.
 */
bool abtf__btf_swap(void *data, size_t size);

/* ---- growing arrays (util.c) ---- */

/*
 * Make room for @need elements of @elem_sz bytes in the array *@arr, of
 * *@cap elements: realloc() it to at least twice its capacity (16
 * elements at first, or @need if more), so that appending one element at
 * a time costs amortized O(1). Elements past the old capacity are left
 * uninitialized. Returns 0, or -ENOMEM with *@arr and *@cap unchanged
 * when memory runs out or the size in bytes does not fit a size_t (a
 * count read from a file may be anything).
 */
int abtf__grow_slow(void **arr, size_t *cap, size_t need, size_t elem_sz);

static inline int abtf__grow(void **arr, size_t *cap, size_t need,
			     size_t elem_sz)
{
	return need <= *cap ? 0 : abtf__grow_slow(arr, cap, need, elem_sz);
}

/* abtf__grow() of the array @arr (any pointer type) of @cap elements. */
#define abtf_grow(arr, cap, need)					\
	abtf__grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Give back the whole pages in [@from, @to): read for the last time. */
void abtf__release_pages(const void *from, const void *to);

/* ---- symbol names (util.c) ---- */

/*
 * Whether symbol @sym is the @len bytes at @name and ".llvm.<digits>":
 * clang's ThinLTO name for a static function it promoted.
 */
bool abtf__is_thinlto_name(const char *sym, const char *name, size_t len);

/* ---- names in messages (util.c) ---- */

/*
 * @s with control bytes, non-ASCII and backslashes as \xNN, cut to fit
 * @buf; returns @buf.
 */
const char *abtf__safe_name(const char *s, char *buf, size_t size);

/* ---- string interning (util.c) ---- */

struct strtab {
	char *data;		/* the strings, each NUL-terminated */
	size_t len, cap;
	struct abtf_hmap map;	/* by abtf__str_hash(): offset + 1 */
};

/*
 * A hash of the string @s, odd, and its length in *@len: its length,
 * then its bytes eight at a time (the tail alone). Inline: interning
 * calls it for every string of a link.
 */
static inline uint32_t abtf__str_hash(const char *s, size_t *len)
{
	size_t n = strlen(s), i;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	*len = n;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	for (w = 0, i = 0; i < n; i++)
		w = w << 8 | (unsigned char)s[i];
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return (uint32_t)h | 1;	/* odd, as when 0 marked empty slots */
}

int64_t abtf__strtab_add(struct strtab *st, const char *s);
int64_t abtf__strtab_find(const struct strtab *st, const char *s);
void abtf__strtab_free(struct strtab *st);

/*
 * ---- a growing string with a sticky error (util.c) ----
 * Zero-initialised it is empty; every add keeps it NUL-terminated, and
 * the first failure (-ENOMEM, -EINVAL) stops the adds that follow.
 */
struct sbuf {
	char *buf;
	size_t len, cap;
	int err;
};

void abtf__sb_addn(struct sbuf *sb, const char *s, size_t n);
void abtf__sb_add(struct sbuf *sb, const char *s);
void abtf__sb_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
	__abtf_printf(2, 0);
void abtf__sb_addf(struct sbuf *sb, const char *fmt, ...) __abtf_printf(2, 3);
/* Empty again (the buffer kept), the error cleared. */
void abtf__sb_reset(struct sbuf *sb);
/* Hand over the string (never NULL on success), or free it and fail. */
int abtf__sb_take(struct sbuf *sb, char **out);

/* ---- BTF features (features.c) ---- */

/*
 * The features a link honours, on or off. reproducible_build is always
 * true of btf-link's output; decl_tag_kfuncs is kfuncs.c's, the others
 * filter.c's and merge.c's,
 * optimized_func and consistent_func funcs.c's, distilled_base distill.c's.
 */
#define ABTF_FEATS_SUPPORTED						\
	(ABTF_FEAT_ENCODE_FORCE | ABTF_FEAT_VAR | ABTF_FEAT_FLOAT |		\
	 ABTF_FEAT_DECL_TAG | ABTF_FEAT_TYPE_TAG | ABTF_FEAT_ENUM64 |	\
	 ABTF_FEAT_DECL_TAG_KFUNCS | ABTF_FEAT_REPRODUCIBLE_BUILD |	\
	 ABTF_FEAT_OPTIMIZED_FUNC | ABTF_FEAT_CONSISTENT_FUNC |		\
	 ABTF_FEAT_DISTILLED_BASE | ABTF_FEAT_LAYOUT)

int abtf__link_features(unsigned int asked, const struct abtf_printer *pr,
			const char *path, unsigned int *feats);

#endif /* __ABTF_INTERNAL_H */
