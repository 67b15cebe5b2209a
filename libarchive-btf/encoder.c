// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-object encoder: one ELF object's DWARF -> one canonical,
 * deduplicated BTF, plus the .debug_btf_addr slots that let btf-link place each
 * function and variable in the final image.
 *
 * What goes in, following what pahole 1.24 produces for the kernel
 * (see docs/design.md for the evidence and the deliberate differences):
 *
 *  - every type DIE of every compile unit, at any depth, whether referenced
 *    or not (dwarf_types.c converts them; Rust units are skipped, as the
 *    kernel's --lang_exclude=rust does);
 *  - a FUNC for each top-level DW_TAG_subprogram that is a definition,
 *    whose parameters all have names, and whose name is a defined STT_FUNC
 *    symbol of the object; one FUNC per symbol; linkage "static" for all,
 *    as pahole 1.24 writes;
 *  - clang's btf_decl_tags of FUNCs, their parameters and VARs (and of
 *    types, dwarf_types.c), as DECL_TAGs added after every other type;
 *  - a VAR for each variable definition, at any depth, whose address
 *    (DW_OP_addr, or clang's DW_OP_addrx) is a non-empty object symbol in
 *    ".data..percpu" or one of its subsections
 *    (".data..percpu..shared_aligned", ...), named after that symbol; and
 *    one DATASEC per such input section, named after it, entries sorted
 *    by offset, sized as the section. pahole on a lone object sees only
 *    ".data..percpu" itself and loses the subsections, which the vmlinux
 *    linker script merges later.
 *
 * Everything is then deduplicated (ir_dedup.c), which keeps the surviving
 * types in their first-seen order: with the DWARF walked in file order, the
 * output is a pure function of the object.
 *
 * The .debug_btf_addr section holds a header naming the .BTF it belongs to (size
 * and hash), then one pointer-sized slot per FUNC and per VAR, in type ID
 * order, each with an absolute relocation against the symbol and addend 1:
 * after any link the slot reads address + 1, or 0 when the linker discarded
 * the symbol's section.
 *
 * For btf-link's optimized_func and consistent_func features (pahole
 * 1.31's function rules, docs/design.md) the group is of version 2: it
 * also holds a flags byte per FUNC (func_facts.c reads each function
 * DIE's parameter locations) and an "extension", a FUNC per .isra or
 * .constprop clone whose object has no FUNC of the clone's source name,
 * with its own slot. None of it changes .BTF, whose bytes stay those of
 * pahole 1.24's rules.
 */
#include <dwarf.h>
#include <endian.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "addr.h"
#include "encoder.h"
#include "verify.h"
#include "zmember.h"


struct sym {
	const char *name;
	const char *secname;
	uint64_t value;
	uint64_t size;
	uint32_t idx;		/* in .symtab */
	uint32_t shndx;
	uint8_t type;		/* STT_FUNC or STT_OBJECT */
	uint8_t bind;		/* STB_* */
	bool used;		/* already given to a FUNC or VAR */
};

/* A FUNC or VAR node and the symbol it stands for, in node order. */
struct placed {
	uint32_t id;		/* node (pre-dedup type ID) */
	struct sym *sym;
};

/* A function DIE with code and named parameters: one pahole "state". */
struct fstate {
	const char *name;
	uint64_t off;
	struct abtf_fn_facts ff;
};

/* A clone (foo.isra.0) whose object has no FUNC foo: an extension FUNC. */
struct extra {
	const struct fstate *st;
	struct sym *sym;
};

struct abtf_encoder {
	char *path;
	struct abtf_encode_opts opts;
	struct abtf_printer pr;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;

	struct sym *syms;	/* defined FUNC/OBJECT symbols, by name */
	size_t nr_syms;

	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *dw_elf;		/* our own relocated copy, without libdwfl */
	struct abtf_dwarf_rel dw_rel;	/* its address relocations */
	struct dw_file dwf;	/* the DWARF, read from either */
	struct ir ir;

	struct placed *placed;	/* FUNCs and VARs, in node order */
	size_t nr_placed, cap_placed;

	struct fstate *states;	/* function DIEs with code, in DIE order */
	size_t nr_states, cap_states;
	struct extra *extras;	/* clone FUNCs of the extension */
	size_t nr_extras;
	uint8_t *fflags;	/* a flags byte per FUNC, then per extra */
	size_t nr_fflags, cap_fflags;
	uint8_t *ext;		/* the extension: types, then strings */
	uint32_t ext_type_len, ext_str_len;

	bool has_percpu;	/* any non-empty object in a per-CPU section */
	uint32_t nr_units;	/* compile units with types */

	struct btf *btf;
	struct abtf_reloc *relocs;
	size_t nr_relocs;
	int reloc_type;		/* < 0: no .debug_btf_addr for this machine */
	bool encoded;
};

/* ---- opening ---- */

static int elf_error(struct abtf_encoder *enc, const char *what)
{
	pr_warn(&enc->pr, "%s: %s: %s", enc->path, what, elf_errmsg(-1));
	return -EINVAL;
}

/* Every section header readable and every section inside the file. */
static int check_sections(struct abtf_encoder *enc)
{
	struct stat st;

	if (fstat(enc->fd, &st))
		return -errno;
	return abtf__elf_check(enc->elf, st.st_size, enc->path, NULL, &enc->pr);
}

static int open_elf(struct abtf_encoder *enc)
{
	enc->fd = open(enc->path, O_RDONLY | O_CLOEXEC);
	if (enc->fd < 0) {
		int err = -errno;

		pr_warn(&enc->pr, "%s: cannot open: %s", enc->path,
			ABTF_STRERROR(errno));
		return err;
	}
	elf_version(EV_CURRENT);
	enc->elf = elf_begin(enc->fd, ELF_C_READ_MMAP, NULL);
	if (!enc->elf)
		return elf_error(enc, "cannot read ELF");
	if (elf_kind(enc->elf) != ELF_K_ELF) {
		pr_warn(&enc->pr, "%s: not an ELF object", enc->path);
		return -EINVAL;
	}
	if (!gelf_getehdr(enc->elf, &enc->ehdr))
		return elf_error(enc, "bad ELF header");
	if (elf_getshdrstrndx(enc->elf, &enc->shstrndx))
		return elf_error(enc, "bad section header string table");
	return check_sections(enc);
}

ABTF_API struct abtf_encoder *
abtf_encoder__new(const char *path, const struct abtf_encode_opts *opts)
{
	struct abtf_encoder *enc;
	int err;

	enc = calloc(1, sizeof(*enc));
	if (!enc) {
		errno = ENOMEM;
		return NULL;
	}
	enc->fd = -1;
	err = abtf__copy_opts(&enc->opts, sizeof(enc->opts), opts);
	if (err)
		goto out_free_enc;
	enc->pr.fn = enc->opts.print;
	enc->pr.ctx = enc->opts.print_ctx;
	enc->path = strdup(path);
	if (!enc->path) {
		err = -ENOMEM;
		goto out_free_enc;
	}
	err = open_elf(enc);
	if (err)
		goto out_free_enc;
	return enc;

out_free_enc:
	abtf_encoder__free(enc);
	errno = -err;
	return NULL;
}

static void close_dwarf(struct abtf_encoder *enc);

ABTF_API void abtf_encoder__free(struct abtf_encoder *enc)
{
	if (!enc)
		return;
	ir__fini(&enc->ir);
	btf__free(enc->btf);
	close_dwarf(enc);
	if (enc->elf)
		elf_end(enc->elf);
	if (enc->fd >= 0)
		close(enc->fd);
	free(enc->syms);
	free(enc->placed);
	free(enc->relocs);
	free(enc->states);
	free(enc->extras);
	free(enc->fflags);
	free(enc->ext);
	free(enc->path);
	free(enc);
}

/* ---- symbols ---- */

static bool is_percpu_section(const char *name)
{
	size_t len = strlen(ABTF_PERCPU_SEC);

	return name && !strncmp(name, ABTF_PERCPU_SEC, len) &&
	       (!name[len] || !strncmp(name + len, "..", 2));
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static const char *section_name(struct abtf_encoder *enc, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(enc->elf, shndx);
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return NULL;
	return elf_strptr(enc->elf, enc->shstrndx, shdr.sh_name);
}

static Elf_Scn *find_section(struct abtf_encoder *enc, uint32_t type,
			     const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(enc->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &shdr))
			return NULL;
		if (type != SHT_NULL && shdr.sh_type != type)
			continue;
		n = elf_strptr(enc->elf, enc->shstrndx, shdr.sh_name);
		if (!name || (n && !strcmp(n, name)))
			return scn;
	}
	return NULL;
}

static Elf_Data *symtab_shndx_data(struct abtf_encoder *enc, size_t symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(enc->elf, scn)))
		if (gelf_getshdr(scn, &shdr) &&
		    shdr.sh_type == SHT_SYMTAB_SHNDX && shdr.sh_link == symtab)
			return elf_getdata(scn, NULL);
	return NULL;
}

static int add_sym(struct abtf_encoder *enc, size_t *cap, const GElf_Sym *s,
		   const char *name, uint32_t idx, uint32_t shndx)
{
	struct sym *e;

	if (abtf_grow(enc->syms, *cap, enc->nr_syms + 1))
		return -ENOMEM;
	e = &enc->syms[enc->nr_syms++];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->value = s->st_value;
	e->size = s->st_size;
	e->idx = idx;
	e->shndx = shndx;
	e->type = GELF_ST_TYPE(s->st_info) == STT_OBJECT ? STT_OBJECT : STT_FUNC;
	e->bind = GELF_ST_BIND(s->st_info);
	e->secname = section_name(enc, shndx);
	return 0;
}

static bool sym_wanted(const GElf_Sym *s, uint32_t shndx)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (shndx == SHN_UNDEF || (shndx >= SHN_LORESERVE && shndx != SHN_XINDEX))
		return false;
	return type == STT_FUNC || type == STT_OBJECT;
}

static int load_symbols(struct abtf_encoder *enc)
{
	Elf_Scn *scn = find_section(enc, SHT_SYMTAB, NULL);
	Elf_Data *data, *xdata;
	GElf_Shdr shdr;
	size_t i, n, cap = 0;

	if (!scn)
		return 0;	/* no symbols: no FUNC, no VAR */
	if (!gelf_getshdr(scn, &shdr) || !(data = elf_getdata(scn, NULL)))
		return elf_error(enc, "cannot read .symtab");
	xdata = symtab_shndx_data(enc, elf_ndxscn(scn));
	n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	for (i = 1; i < n; i++) {
		GElf_Word xndx = 0;
		GElf_Sym s;
		const char *name;
		uint32_t shndx;

		if (!gelf_getsymshndx(data, xdata, i, &s, &xndx))
			return elf_error(enc, "cannot read .symtab");
		shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		if (!sym_wanted(&s, s.st_shndx) || !shndx)
			continue;
		name = elf_strptr(enc->elf, shdr.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (add_sym(enc, &cap, &s, name, i, shndx))
			return -ENOMEM;
	}
	if (enc->nr_syms)
		qsort(enc->syms, enc->nr_syms, sizeof(*enc->syms), sym_cmp);
	for (i = 0; i < enc->nr_syms; i++)
		if (enc->syms[i].type == STT_OBJECT && enc->syms[i].size &&
		    is_percpu_section(enc->syms[i].secname))
			enc->has_percpu = true;
	return 0;
}


/* The first unused symbol called @name of @type. */
static struct sym *find_sym(struct abtf_encoder *enc, const char *name,
			    uint8_t type)
{
	struct sym key = { .name = name };
	size_t lo = 0, hi = enc->nr_syms;

	while (lo < hi) {	/* the first entry >= name */
		size_t mid = (lo + hi) / 2;

		if (strcmp(enc->syms[mid].name, key.name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < enc->nr_syms && !strcmp(enc->syms[lo].name, name); lo++) {
		struct sym *s = &enc->syms[lo];

		if (!s->used && s->type == type)
			return s;
	}
	return NULL;
}

/* ---- DWARF ---- */

static int find_no_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1;	/* the object's own DWARF or none */
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void close_dwarf(struct abtf_encoder *enc)
{
	dw_file__close(&enc->dwf);
	if (enc->dwfl)
		dwfl_end(enc->dwfl);	/* owns its Dwarf and Elf */
	if (enc->dw_elf)
		elf_end(enc->dw_elf);
	abtf__dwarf_rel_free(&enc->dw_rel);
	enc->dwfl = NULL;
	enc->mod = NULL;
	enc->dw_elf = NULL;
}

/* libdwfl's way: it relocates (and decompresses) the DWARF in its Elf. */
static Elf *open_dwfl(struct abtf_encoder *enc)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;

	enc->dwfl = dwfl_begin(&offline_callbacks);
	if (!enc->dwfl)
		return NULL;
	mod = dwfl_report_offline(enc->dwfl, "", enc->path, -1);
	if (!mod || dwfl_report_end(enc->dwfl, NULL, NULL))
		return NULL;
	dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw)
		return NULL;
	enc->mod = mod;
	return dwarf_getelf(dw);
}

/*
 * A GCC LTO object (-flto -g without -ffat-lto-objects): its code is GCC's
 * intermediate language (.gnu.lto_* sections) and its debug information
 * only "early debug" (.gnu.debuglto_.debug_info) until the final link, so
 * there is no DWARF to encode although -g asked for it.
 */
static bool gcc_lto(struct abtf_encoder *enc)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(enc->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &shdr))
			return false;
		n = elf_strptr(enc->elf, enc->shstrndx, shdr.sh_name);
		if (n && !strcmp(n, ".gnu.debuglto_.debug_info")) {
			pr_warn(&enc->pr, "%s: a GCC LTO object (-flto): an LTO "
				"object carries no DWARF to encode; build "
				"without LTO for BTF", enc->path);
			return true;
		}
	}
	return false;
}

/*
 * Relocate just what the type walk reads (dwarf_reloc.c) where we can;
 * libdwfl for anything unusual. Either way dwarf_read.c reads the result.
 */
static int open_dwarf(struct abtf_encoder *enc)
{
	const char *why = NULL;
	Elf *elf = NULL;
	int err;

	if (!find_section(enc, SHT_NULL, ".debug_info"))
		return gcc_lto(enc) ? -EOPNOTSUPP : -ENODATA;
	if (enc->ehdr.e_type == ET_REL)
		elf = enc->dw_elf = abtf__dwarf_open_rel(enc->fd, &enc->dw_rel);
	if (!elf)
		elf = open_dwfl(enc);
	if (!elf) {
		pr_warn(&enc->pr, "%s: cannot read DWARF: %s", enc->path,
			dwfl_errmsg(-1));
		return -EINVAL;
	}
	err = dw_file__open(&enc->dwf, elf, &why);
	if (err == -EINVAL)
		pr_warn(&enc->pr, "%s: .debug_info: %s", enc->path, why);
	if (err == -ENODATA)
		pr_warn(&enc->pr, "%s: cannot read DWARF: no .debug_info",
			enc->path);
	return err;
}

static int add_placed(struct abtf_encoder *enc, uint32_t id, struct sym *sym)
{
	if (abtf_grow(enc->placed, enc->cap_placed, enc->nr_placed + 1))
		return -ENOMEM;
	enc->placed[enc->nr_placed].id = id;
	enc->placed[enc->nr_placed].sym = sym;
	enc->nr_placed++;
	sym->used = true;
	return 0;
}

/* A reader error at @die: one message, the errno back. */
static int bad_dwarf(struct abtf_encoder *enc, const struct dw_die *die,
		     int err, const char *why)
{
	char buf[256], at[48] = "";

	if (err == -ENOMEM)
		return err;
	/* a DIE read under @die (its child, its sibling) is named too */
	if (enc->dwf.bad_off && enc->dwf.bad_off != die->off)
		snprintf(at, sizeof(at), "the DIE at 0x%llx: ",
			 (unsigned long long)enc->dwf.bad_off);
	snprintf(buf, sizeof(buf), "bad DWARF: %s%s", at, why ? why : "?");
	return ir__die_error(&enc->ir, die, err, buf);
}

/* Name, type and DW_AT_external from the DIE's origin where it has none. */
static int integrate(struct abtf_encoder *enc, struct dw_die *die)
{
	const char *why = NULL;
	int err = dw_die__integrate(&enc->dwf, die, &why);

	return err ? bad_dwarf(enc, die, err, why) : 0;
}

/* pahole skips functions with an unnamed parameter. */
static int all_params_named(struct abtf_encoder *enc, const struct dw_die *die)
{
	const char *why = NULL;
	struct dw_die child;
	int res, err;

	for (res = dw_die__child(&enc->dwf, die, &child, &why); !res;
	     res = dw_die__sibling(&enc->dwf, &child, &why)) {
		if (child.tag != DW_TAG_formal_parameter)
			continue;
		err = integrate(enc, &child);
		if (err)
			return err;
		if (!(child.have & DW_HAVE_NAME))
			return 0;
	}
	return res < 0 ? bad_dwarf(enc, die, res, why) : 1;
}

/*
 * The btf_decl_tags of FUNC @id: each parameter's (component_idx its
 * position), then the function's own, as pahole orders them.
 */
static int func_decl_tags(struct abtf_encoder *enc, const struct dw_die *die,
			  uint32_t id)
{
	const char *why = NULL;
	struct dw_die child;
	int res, err, idx = 0;

	if (!dw_unit__annotations(die->cu))
		return 0;	/* GCC's, or no tags in the unit */
	for (res = dw_die__child(&enc->dwf, die, &child, &why); !res;
	     res = dw_die__sibling(&enc->dwf, &child, &why)) {
		if (child.tag != DW_TAG_formal_parameter)
			continue;
		err = ir__decl_tags(&enc->ir, &child, id, idx++);
		if (err)
			return err;
	}
	if (res < 0)
		return bad_dwarf(enc, die, res, why);
	return ir__decl_tags(&enc->ir, die, id, -1);
}

static int encode_func(struct abtf_encoder *enc, struct dw_die *die)
{
	struct ir_node n = { .kind = BTF_KIND_FUNC, .flag = BTF_FUNC_STATIC };
	struct sym *sym;
	int proto, id, err;

	if (die->have & DW_HAVE_DECLARATION)
		return 0;
	err = integrate(enc, die);
	if (err)
		return err;
	if (!(die->have & DW_HAVE_NAME))
		return 0;
	sym = find_sym(enc, die->name, STT_FUNC);
	if (!sym)
		return 0;
	err = all_params_named(enc, die);
	if (err <= 0)
		return err;
	proto = ir__func_proto(&enc->ir, die);
	if (proto < 0)
		return proto;
	n.name = die->name;
	n.ref = proto;
	id = ir__add_node(&enc->ir, &n);
	if (id < 0)
		return id;
	err = func_decl_tags(enc, die, id);
	if (err)
		return err;
	return add_placed(enc, id, sym);
}

/*
 * A definition with code whose parameters all have names is one of
 * pahole 1.31's "states" of its name (docs/design.md): keep its facts.
 */
static int note_state(struct abtf_encoder *enc, struct dw_die *die)
{
	const char *why = NULL;
	struct fstate *st;
	int err;

	if ((die->have & DW_HAVE_DECLARATION) || !(die->have & DW_HAVE_CODE))
		return 0;
	err = integrate(enc, die);
	if (err || !(die->have & DW_HAVE_NAME))
		return err;
	err = all_params_named(enc, die);
	if (err <= 0)
		return err;
	if (abtf_grow(enc->states, enc->cap_states, enc->nr_states + 1))
		return -ENOMEM;
	st = &enc->states[enc->nr_states];
	st->name = die->name;
	st->off = die->off;
	err = abtf__fn_facts(&enc->dwf, die, enc->ehdr.e_machine, &st->ff,
			     &why);
	if (err)
		return bad_dwarf(enc, die, err, why);
	enc->nr_states++;
	return 0;
}

/*
 * Where a variable's address is, as pahole reads DW_AT_location: the first
 * operation, DW_OP_addr (its operand, in .debug_info) or DW_OP_addrx
 * (clang's DWARF 5: an entry of .debug_addr), then nothing, one
 * DW_OP_plus_uconst (added, as pahole does) or DW_OP_piece (clang splits
 * a static it optimised into pieces; the first piece is at the variable's
 * address). Anything else (a location list, a register, a computed
 * value) is not a fixed address: 1. A bad DW_OP_addrx: an error.
 */
static int var_operand(struct abtf_encoder *enc, const struct dw_die *die,
		       const uint8_t **where, uint64_t *addr, uint64_t *add)
{
	const struct dw_value *loc = &die->location;
	const uint8_t *p, *end;
	unsigned int i, size = die->cu->addr_size;
	const char *why = NULL;
	uint64_t idx;
	int err;

	*add = 0;
	if (!(die->have & DW_HAVE_LOCATION) || loc->cls != DW_CLASS_BLOCK ||
	    !loc->u)
		return 1;
	p = loc->block;
	end = p + loc->u;
	switch (*p++) {
	case DW_OP_addr:
		if ((size_t)(end - p) < size)
			return 1;
		*where = p;
		for (*addr = 0, i = 0; i < size; i++)
			*addr |= (uint64_t)p[i] <<
				 (8 * (enc->dwf.big_endian ? size - 1 - i : i));
		p += size;
		break;
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		if (!dw_uleb(&p, end, &idx))
			return bad_dwarf(enc, die, -EINVAL,
					 "DW_OP_addrx: truncated operand");
		err = dw_unit__addrx(&enc->dwf, die->cu, idx, addr, where, &why);
		if (err)
			return bad_dwarf(enc, die, err, why);
		break;
	default:
		return 1;
	}
	if (p == end || *p == DW_OP_piece)
		return 0;
	if (*p++ == DW_OP_plus_uconst && dw_uleb(&p, end, add) && p == end)
		return 0;
	return 1;
}

/*
 * The section and offset of a variable's address (var_operand()). Without
 * libdwfl: the relocation of the operand or of the .debug_addr entry
 * names the section, and the relocated value is the offset in it. With
 * libdwfl, which laid the object's sections out at distinct addresses when
 * it relocated the DWARF: it maps the address back to a section and an
 * offset in it. 0, 1 (no address), or < 0.
 */
static int var_address(struct abtf_encoder *enc, const struct dw_die *die,
		       uint64_t *addr, GElf_Word *shndx)
{
	const uint8_t *where;
	uint64_t add;
	uint32_t sec;
	int idx, err;

	err = var_operand(enc, die, &where, addr, &add);
	if (err)
		return err;
	if (!enc->mod) {
		if (abtf__dwarf_addr_section(&enc->dw_rel, where, &sec))
			return 1;
		*shndx = sec;
		*addr += add;
		return 0;
	}
	idx = dwfl_module_relocate_address(enc->mod, addr);
	if (idx < 0 || !dwfl_module_relocation_info(enc->mod, idx, shndx))
		return 1;
	*addr += add;
	return 0;
}

/* The per-CPU symbol at the variable's address: 0, 1 (none) or < 0. */
static int var_symbol(struct abtf_encoder *enc, const struct dw_die *die,
		      struct sym **sym)
{
	GElf_Word shndx;
	uint64_t addr;
	size_t i;
	int err;

	err = var_address(enc, die, &addr, &shndx);
	if (err)
		return err;
	for (i = 0; i < enc->nr_syms; i++) {
		struct sym *s = &enc->syms[i];

		if (s->shndx == shndx && s->value == addr && !s->used &&
		    s->type == STT_OBJECT && s->size &&
		    is_percpu_section(s->secname)) {
			*sym = s;
			return 0;
		}
	}
	return 1;
}

/*
 * Whether symbol @sym can be variable @name's: the name itself, or one of
 * its '.'-separated parts (GCC's function-local static "hits.0", clang's
 * "func.hits").
 */
static bool sym_of_var(const char *sym, const char *name)
{
	size_t len = strlen(name);
	const char *p = sym;

	for (;;) {
		if (!strncmp(p, name, len) && (p[len] == '.' || !p[len]))
			return true;
		p = strchr(p, '.');
		if (!p)
			return false;
		p++;
	}
}

/*
 * A VAR for a variable, at any depth, whose address is a non-empty per-CPU
 * object symbol of its name; named after the symbol, as pahole does (a
 * function-local static "hits" is "hits.0"). The name is checked because
 * an address alone may mislead: libdwfl lays an object's sections out one
 * after the other, so a variable of no size at the end of its section
 * (mm/vmstat.c's vm_numa_event[0] without NUMA) has the address of the
 * next section's first symbol (vmstat_work, per-CPU, on riscv64).
 */
static int encode_var(struct abtf_encoder *enc, struct dw_die *die)
{
	struct ir_node n = { .kind = BTF_KIND_VAR };
	struct sym *sym;
	int type, id, err;

	if (die->have & DW_HAVE_DECLARATION)
		return 0;
	err = var_symbol(enc, die, &sym);
	if (err)
		return err < 0 ? err : 0;
	err = integrate(enc, die);
	if (err)
		return err;
	if ((die->have & DW_HAVE_NAME) && !sym_of_var(sym->name, die->name))
		return 0;
	type = ir__type_of_attr(&enc->ir, die);
	if (type < 0)
		return type;
	n.name = sym->name;
	n.ref = type;
	n.flag = (die->have & DW_HAVE_EXTERNAL) && die->external ?
		 BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
	id = ir__add_node(&enc->ir, &n);
	if (id < 0)
		return id;
	err = ir__decl_tags(&enc->ir, die, id, -1);
	if (err)
		return err;
	return add_placed(enc, id, sym);
}

/*
 * Subtrees that hold neither type definitions nor (without per-CPU
 * variables) anything else of ours: GCC defines a function's local types
 * in its abstract instance, never under an inlined copy or a call site.
 * Skipping them lets the reader jump over them through DW_AT_sibling.
 */
static bool skip_subtree(const struct abtf_encoder *enc, int tag)
{
	switch (tag) {
	case DW_TAG_inlined_subroutine:
	case DW_TAG_call_site:
	case DW_TAG_GNU_call_site:
	case DW_TAG_formal_parameter:
		return !enc->has_percpu;
	default:
		return false;
	}
}

static int walk_die(struct abtf_encoder *enc, struct dw_die *die, int depth)
{
	const char *why = NULL;
	struct dw_die child;
	int err = 0, res;

	if (ir__is_type_tag(die->tag))
		err = ir__type_of_die(&enc->ir, die);
	else if (depth == 1 && die->tag == DW_TAG_subprogram)
		err = encode_func(enc, die) ?: note_state(enc, die);
	else if (die->tag == DW_TAG_variable && enc->has_percpu)
		err = encode_var(enc, die);
	if (err < 0)
		return err;
	/* a type's children are its members, enumerators, subranges and
	 * parameters: converted with it, and GCC defines no C type there */
	if (ir__is_type_tag(die->tag) || skip_subtree(enc, die->tag))
		return 0;
	for (res = dw_die__child(&enc->dwf, die, &child, &why); !res;
	     res = dw_die__sibling(&enc->dwf, &child, &why)) {
		err = walk_die(enc, &child, depth + 1);
		if (err)
			return err;
	}
	return res < 0 ? bad_dwarf(enc, die, res, why) : 0;
}

static int walk_unit(struct abtf_encoder *enc, struct dw_unit *u)
{
	const char *why = NULL;
	struct dw_die cu;
	int err;

	switch (u->unit_type) {
	case DW_UT_compile:
	case DW_UT_partial:
		break;
	case DW_UT_type:
	case DW_UT_split_type:
		return 0;	/* pulled in through references */
	default:
		goto out_split;
	}
	err = dw_die__read(&enc->dwf, u, u->die, &cu, &why);
	if (err && err != -ENOMEM)
		pr_warn(&enc->pr, "%s: .debug_info: unit at 0x%llx: DIE "
			"0x%llx: %s", enc->path, (unsigned long long)u->off,
			(unsigned long long)u->die, why);
	if (err)
		return err;
	if (cu.have & DW_HAVE_DWO)	/* DWARF 4's GNU split DWARF */
		goto out_split;
	if ((cu.have & DW_HAVE_LANGUAGE) && cu.language == DW_LANG_Rust)
		return 0;
	enc->nr_units++;
	return walk_die(enc, &cu, 0);
out_split:
	pr_warn(&enc->pr, "%s: DIE 0x%llx: split DWARF is not supported",
		enc->path, (unsigned long long)u->die);
	return -EOPNOTSUPP;
}

static int walk_units(struct abtf_encoder *enc)
{
	size_t i;
	int err;

	for (i = 0; i < enc->dwf.nr_units; i++) {
		err = walk_unit(enc, &enc->dwf.units[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- DATASECs ---- */

static int datasec_item_cmp(const void *a, const void *b)
{
	const struct ir_item *x = a, *y = b;

	if (x->bit_off != y->bit_off)
		return x->bit_off < y->bit_off ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

static int add_datasec(struct abtf_encoder *enc, uint32_t shndx,
		       struct ir_item *items, uint32_t nr)
{
	struct ir_node n = { .kind = BTF_KIND_DATASEC };
	Elf_Scn *scn = elf_getscn(enc->elf, shndx);
	GElf_Shdr shdr;
	int id;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return elf_error(enc, "bad section header");
	n.name = section_name(enc, shndx);
	n.size = shdr.sh_size;
	qsort(items, nr, sizeof(*items), datasec_item_cmp);
	id = ir__add_node(&enc->ir, &n);
	if (id < 0)
		return id;
	return ir__set_items(&enc->ir, id, items, nr);
}

/* One DATASEC per input section holding per-CPU VARs, by section index. */
static int add_datasecs(struct abtf_encoder *enc)
{
	struct ir_item *items;
	uint32_t shndx, next = 0, nr;
	size_t i;
	int err = 0;

	items = calloc(enc->nr_placed + 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (shndx = 1; shndx && !err; shndx = next) {
		next = 0;
		nr = 0;
		for (i = 0; i < enc->nr_placed; i++) {
			const struct sym *s = enc->placed[i].sym;

			if (s->type != STT_OBJECT)
				continue;
			if (s->shndx == shndx) {
				items[nr].type = enc->placed[i].id;
				items[nr].bit_off = s->value;
				items[nr].bit_sz = s->size;
				nr++;
			} else if (s->shndx > shndx && (!next || s->shndx < next)) {
				next = s->shndx;
			}
		}
		if (nr)
			err = add_datasec(enc, shndx, items, nr);
	}
	free(items);
	return err;
}

/* ---- the .debug_btf_addr slots ---- */

static size_t slot_size(const struct abtf_encoder *enc)
{
	return abtf__addr_slot_size(enc->ehdr.e_ident[EI_CLASS]);
}

/* ---- pahole 1.31's per-function facts, and the extension ---- */

static bool is_piece_sym(const char *name)
{
	return strstr(name, ".cold") || strstr(name, ".part");
}

static bool is_optimized_sym(const char *name)
{
	return strstr(name, ".isra") || strstr(name, ".constprop");
}

static int fstate_cmp(const void *a, const void *b)
{
	const struct fstate *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* strcmp() of @n with the @len bytes at @key. */
static int name_cmp(const char *n, const char *key, size_t len)
{
	int c = strncmp(n, key, len);

	return c ? c : n[len] ? 1 : 0;
}

/* The first state named exactly the @len bytes at @name, or NULL. */
static const struct fstate *find_state(const struct abtf_encoder *enc,
				       const char *name, size_t len)
{
	size_t lo = 0, hi = enc->nr_states;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (name_cmp(enc->states[mid].name, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < enc->nr_states && !name_cmp(enc->states[lo].name, name, len))
		return &enc->states[lo];
	return NULL;
}

/*
 * The flags byte of a FUNC named @name standing for symbol @sym: the
 * or of the name's states' unexpected register and reordered facts;
 * optimized if the first state (the code at the symbol: one per symbol)
 * lost parameters and either its ABI changed or the symbol says so.
 */
static uint8_t func_flags(const struct abtf_encoder *enc, const char *name,
			  const char *sym)
{
	const struct fstate *st = find_state(enc, name, strlen(name));
	const struct fstate *end;
	uint8_t f = 0;

	if (!st)	/* no states: enc->states may be NULL */
		return 0;
	if (st->ff.optimized_parms && (st->ff.nocall || is_optimized_sym(sym)))
		f |= ABTF_FN_OPTIMIZED;
	if (st->ff.optimized_parms && st->ff.nocall)
		f |= ABTF_FN_OPTIMIZED_ABI;
	for (end = enc->states + enc->nr_states;
	     st < end && !strcmp(st->name, name); st++) {
		if (st->ff.unexpected_reg)
			f |= ABTF_FN_UNEXPECTED_REG;
		if (st->ff.reordered)
			f |= ABTF_FN_REORDERED;
	}
	return f;
}

/* Does the object have a FUNC named @name (its symbol given to one)? */
static bool has_func(const struct abtf_encoder *enc, const char *name,
		     size_t len)
{
	size_t i;

	for (i = 0; i < enc->nr_placed; i++) {
		const char *n = enc->placed[i].sym->name;

		if (enc->placed[i].sym->type == STT_FUNC &&
		    !strncmp(n, name, len) && !n[len])
			return true;
	}
	return false;
}

/*
 * Clones: a function symbol "foo.suffix" (not a .cold or .part piece)
 * whose object has a state "foo" but no FUNC "foo". One per name, at the
 * first such symbol; a second one would make the address ambiguous.
 */
static int find_extras(struct abtf_encoder *enc)
{
	size_t i, k;

	enc->extras = calloc(enc->nr_syms + 1, sizeof(*enc->extras));
	if (!enc->extras)
		return -ENOMEM;
	for (i = 0; i < enc->nr_syms; i++) {
		struct sym *s = &enc->syms[i];
		const char *dot = strchr(s->name, '.');
		const struct fstate *st;
		size_t len;

		if (s->type != STT_FUNC || !dot || dot == s->name ||
		    is_piece_sym(s->name))
			continue;
		len = dot - s->name;
		st = find_state(enc, s->name, len);
		if (!st || has_func(enc, s->name, len))
			continue;
		for (k = 0; k < enc->nr_extras; k++)
			if (enc->extras[k].st == st)
				break;
		if (k < enc->nr_extras)
			continue;
		enc->extras[enc->nr_extras].st = st;
		enc->extras[enc->nr_extras].sym = s;
		enc->nr_extras++;
	}
	return 0;
}

/* A BTF type's info word (vlen, kind; no kind_flag here). */
static uint32_t btf_info(uint32_t kind, uint32_t vlen)
{
	return kind << 24 | (vlen & 0xffff);
}

struct grow {
	uint8_t *b;
	size_t len, cap;
};

static int grow_put(struct grow *g, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (g->len + n < g->len || abtf_grow(g->b, g->cap, g->len + n))
		return -ENOMEM;
	memcpy(g->b + g->len, p, n);
	g->len += n;
	return 0;
}

static int type_id_of(struct abtf_encoder *enc, const struct dw_die *die,
		      uint32_t *id)
{
	*id = 0;
	if (!(die->have & DW_HAVE_TYPE))
		return 0;
	return ir__btf_id_of_off(&enc->ir, die->type, id);
}

/* An extension FUNC_PROTO + FUNC for @x; -ENOENT: a type not converted. */
static int add_extra_types(struct abtf_encoder *enc, const struct extra *x,
			   struct grow *types, struct grow *strs,
			   uint32_t str_base, uint32_t *next_id)
{
	struct btf_type t = { 0 }, fn = { 0 };
	struct grow params = { 0 };
	const char *why = NULL;
	struct dw_die die, c;
	bool varargs = false;
	uint32_t vlen = 0;
	int res, err;

	err = dw_die__read(&enc->dwf, NULL, x->st->off, &die, &why);
	if (!err)
		err = dw_die__integrate(&enc->dwf, &die, &why);
	if (!err)
		err = type_id_of(enc, &die, &t.type);
	for (res = err ? 1 : dw_die__child(&enc->dwf, &die, &c, &why);
	     !err && !res; res = dw_die__sibling(&enc->dwf, &c, &why)) {
		struct btf_param p = { 0 };

		if (c.tag == DW_TAG_formal_parameter) {
			err = dw_die__integrate(&enc->dwf, &c, &why);
			if (!err)
				err = type_id_of(enc, &c, &p.type);
			if (!err && !(c.have & DW_HAVE_NAME))
				err = -ENOENT;
			p.name_off = str_base + strs->len;
			if (!err)
				err = grow_put(strs, c.name, strlen(c.name) + 1);
		} else {
			/* the vararg marker last (ir__func_proto()) */
			varargs |= c.tag == DW_TAG_unspecified_parameters;
			continue;
		}
		if (!err)
			err = grow_put(&params, &p, sizeof(p));
		vlen++;
	}
	if (!err && res < 0)
		err = res;
	if (!err && varargs) {
		struct btf_param p = { 0 };

		err = grow_put(&params, &p, sizeof(p));
		vlen++;
	}
	if (!err && vlen > BTF_MAX_VLEN)
		err = -ENOENT;
	if (!err) {
		t.info = btf_info(BTF_KIND_FUNC_PROTO, vlen);
		fn.name_off = str_base + strs->len;
		fn.info = btf_info(BTF_KIND_FUNC, BTF_FUNC_STATIC);
		fn.type = (*next_id)++;
		(*next_id)++;
		err = grow_put(strs, x->st->name, strlen(x->st->name) + 1) ?:
		      grow_put(types, &t, sizeof(t)) ?:
		      grow_put(types, params.b, params.len) ?:
		      grow_put(types, &fn, sizeof(fn));
	}
	free(params.b);
	return err;
}

/*
 * The extension: a FUNC_PROTO and a FUNC per clone, numbered after the
 * object's types, strings after its strings. Only for one-unit objects,
 * whose BTF IDs are the deduplicated nodes' (ir->out). A clone whose
 * types cannot be named is left out (nothing is ever added to the BTF).
 */
static int build_extension(struct abtf_encoder *enc)
{
	struct grow types = { 0 }, strs = { 0 };
	uint32_t size, next_id = btf__type_cnt(enc->btf), str_base;
	const struct btf_header *h = btf__raw_data(enc->btf, &size);
	size_t i, kept = 0;
	int err = 0;

	if (!h)
		return -ENOMEM;
	str_base = h->str_len;
	if (enc->nr_units > 1)
		enc->nr_extras = 0;
	for (i = 0; !err && i < enc->nr_extras; i++) {
		size_t tl = types.len, sl = strs.len;
		uint32_t id = next_id;

		err = add_extra_types(enc, &enc->extras[i], &types, &strs,
				      str_base, &next_id);
		if (err == -ENOENT || err == -EINVAL) {
			pr_debug(&enc->pr, "%s: no FUNC for clone %s: its "
				 "types are not the unit's", enc->path,
				 enc->extras[i].sym->name);
			types.len = tl;
			strs.len = sl;
			next_id = id;
			err = 0;
			continue;
		}
		enc->extras[kept++] = enc->extras[i];
	}
	enc->nr_extras = kept;
	if (!err && (types.len > UINT32_MAX / 2 || strs.len > UINT32_MAX / 2))
		err = -E2BIG;
	if (!err && types.len) {
		enc->ext = malloc(types.len + strs.len);
		if (!enc->ext)
			err = -ENOMEM;
	}
	if (!err && types.len) {
		memcpy(enc->ext, types.b, types.len);
		memcpy(enc->ext + types.len, strs.b, strs.len);
		enc->ext_type_len = types.len;
		enc->ext_str_len = strs.len;
	}
	free(types.b);
	free(strs.b);
	return err;
}

static int push_flags(struct abtf_encoder *enc, uint8_t f)
{
	if (abtf_grow(enc->fflags, enc->cap_fflags, enc->nr_fflags + 1))
		return -ENOMEM;
	enc->fflags[enc->nr_fflags++] = f;
	return 0;
}

static int add_reloc(struct abtf_encoder *enc, const struct sym *sym)
{
	struct abtf_reloc *r = &enc->relocs[enc->nr_relocs];

	r->offset = abtf__addr_slot_offset(enc->ehdr.e_ident[EI_CLASS],
					   enc->nr_relocs);
	r->sym = sym->idx;
	r->type = enc->reloc_type;
	r->addend = 1;
	enc->nr_relocs++;
	return 0;
}

/*
 * Dedup keeps FUNCs and VARs in their order (VARs are never merged; two
 * FUNCs merge only if name and prototype are equal), so walking the final
 * types against the pre-dedup list by name pairs each with its symbol.
 */
static int compute_relocs(struct abtf_encoder *enc)
{
	uint32_t id, n = btf__type_cnt(enc->btf);
	size_t p = 0;

	enc->relocs = calloc(enc->nr_placed + enc->nr_extras + 1,
			     sizeof(*enc->relocs));
	if (!enc->relocs)
		return -ENOMEM;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(enc->btf, id);
		const char *name;

		if (!btf_is_func(t) && !btf_is_var(t))
			continue;
		name = btf__name_by_offset(enc->btf, t->name_off);
		while (p < enc->nr_placed &&
		       strcmp(enc->placed[p].sym->name, name))
			p++;
		if (p == enc->nr_placed) {
			pr_warn(&enc->pr, "%s: internal error: no symbol for %s",
				enc->path, name);
			return -EINVAL;
		}
		if (btf_is_func(t) &&
		    push_flags(enc, func_flags(enc, name,
					       enc->placed[p].sym->name) |
			       (enc->placed[p].sym->bind == STB_WEAK ?
				ABTF_FN_WEAK : 0)))
			return -ENOMEM;
		add_reloc(enc, enc->placed[p].sym);
		p++;
	}
	for (p = 0; p < enc->nr_extras; p++) {
		const struct extra *x = &enc->extras[p];

		if (push_flags(enc, func_flags(enc, x->st->name, x->sym->name)))
			return -ENOMEM;
		add_reloc(enc, x->sym);
	}
	return 0;
}

/*
 * The nodes, deduplicated (ir_dedup.c), as the object's BTF. An object of
 * several compile units (an `ld -r` output; never a compiler's) may hold a
 * struct forward-declared in one unit and defined in another, which
 * libbpf resolves and we do not: it goes through btf__dedup() as well.
 */
static int build_btf(struct abtf_encoder *enc)
{
	size_t size;
	void *raw;
	int err;

	err = enc->opts.libbpf_dedup ? ir__dedup_none(&enc->ir) :
				       ir__dedup(&enc->ir);
	if (err)
		return err;
	raw = ir__emit_raw(&enc->ir, &size);
	if (!raw)
		return -errno;
	enc->btf = btf__new(raw, size);
	free(raw);
	if (!enc->btf) {
		err = -errno;
		pr_warn(&enc->pr, "%s: internal error: the BTF built is invalid: "
			"%s", enc->path, ABTF_STRERROR(-err));
		return err;
	}
	/* what btf-link checks of each member, checked where it is made */
	err = abtf__verify_btf(enc->btf, true, enc->path, "the BTF encoded",
			       &enc->pr);
	if (err || (enc->nr_units < 2 && !enc->opts.libbpf_dedup))
		return err;
	err = btf__dedup(enc->btf, NULL);
	if (err)
		pr_warn(&enc->pr, "%s: BTF deduplication of its %u compile "
			"units failed: %s", enc->path, enc->nr_units,
			ABTF_STRERROR(-err));
	return err;
}

ABTF_API int abtf_encoder__encode(struct abtf_encoder *enc)
{
	bool is_rela;
	int err;

	if (enc->encoded)
		return 0;
	ir__init(&enc->ir, enc->path, &enc->pr);
	enc->ir.big_endian = enc->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	err = load_symbols(enc);
	if (err)
		return err;
	err = open_dwarf(enc);
	if (err)
		return err;
	enc->ir.dw = &enc->dwf;
	err = walk_units(enc);
	if (err)
		return err;
	err = add_datasecs(enc);
	if (!err)
		err = ir__add_decl_tags(&enc->ir);
	if (err)
		return err;
	err = build_btf(enc);
	if (err)
		return err;
	enc->reloc_type = abtf__elf_abs_reloc(enc->ehdr.e_machine, &is_rela);
	if (enc->reloc_type >= 0 && !enc->opts.no_addr) {
		if (enc->nr_states)
			qsort(enc->states, enc->nr_states, sizeof(*enc->states),
			      fstate_cmp);
		err = find_extras(enc) ?: build_extension(enc) ?:
		      compute_relocs(enc);
		if (err)
			return err;
	}
	/* the DWARF is no longer needed: names now live in the BTF */
	ir__fini(&enc->ir);
	close_dwarf(enc);
	enc->encoded = true;
	return 0;
}

ABTF_API const struct btf *abtf_encoder__btf(const struct abtf_encoder *enc)
{
	return enc->encoded ? enc->btf : NULL;
}

/* ---- output ---- */

/*
 * The .debug_btf_addr contents (a version 2 group, addr.c): header, zeroed
 * slots the linker fills, the extension, the FUNCs' flags, padding.
 */
static void *addr_section(const struct abtf_encoder *enc, const void *btf,
			  uint32_t btf_size, size_t *size)
{
	struct abtf_addr_group_out g = {
		.ei_class = enc->ehdr.e_ident[EI_CLASS],
		.ei_data = enc->ehdr.e_ident[EI_DATA],
		.nr_slots = enc->nr_relocs - enc->nr_extras,
		.nr_extra = enc->nr_extras,
		.btf = btf,
		.btf_size = btf_size,
		.ext = enc->ext,
		.ext_type_len = enc->ext_type_len,
		.ext_str_len = enc->ext_str_len,
		.flags = enc->fflags,
		.nr_flags = enc->nr_fflags,
	};

	return abtf__addr_group_make(&g, size);
}

/*
 * The object's BTF in the object's own byte order, as pahole writes it:
 * where that is not the host's, a swapped copy in *@copy for the caller
 * to free.
 */
static const void *target_raw(const struct abtf_encoder *enc, uint32_t *size,
			      void **copy)
{
	const void *raw = btf__raw_data(enc->btf, size);

	*copy = NULL;
	if (!raw || abtf__host_order(enc->ehdr.e_ident[EI_DATA]))
		return raw;
	*copy = malloc(*size);
	if (!*copy)
		return NULL;
	memcpy(*copy, raw, *size);
	abtf__btf_swap(*copy, *size);
	return *copy;
}

/* .BTF (@raw, @size bytes: the object's order) and .debug_btf_addr. */
static int write_sections(struct abtf_encoder *enc, const char *dst,
			  const void *raw, uint32_t size)
{
	struct abtf_section secs[2];
	void *slots = NULL, *zbtf = NULL;
	size_t nr = 1;
	int err;

	memset(secs, 0, sizeof(secs));
	secs[0].name = ABTF_SEC_BTF;
	secs[0].type = SHT_PROGBITS;
	secs[0].align = 4;
	secs[0].data = raw;
	secs[0].size = size;
	if (enc->opts.compress) {
		err = abtf__zmember_deflate(raw, size,
				!abtf__host_order(enc->ehdr.e_ident[EI_DATA]),
				&zbtf, &secs[0].size);
		if (err)
			return err;
		secs[0].data = zbtf;
	}
	if (enc->relocs) {
		slots = addr_section(enc, raw, size, &secs[1].size);
		if (!slots) {
			free(zbtf);
			return -ENOMEM;
		}
		secs[1].name = ABTF_SEC_ADDR;
		secs[1].type = SHT_PROGBITS;
		secs[1].align = slot_size(enc);
		secs[1].data = slots;
		secs[1].relocs = enc->relocs;
		secs[1].nr_relocs = enc->nr_relocs;
		nr = 2;
	} else if (find_section(enc, SHT_NULL, ABTF_SEC_ADDR)) {
		/* no slots now: empty stale ones rather than mislead btf-link */
		static const struct abtf_reloc none;

		secs[1].name = ABTF_SEC_ADDR;
		secs[1].type = SHT_PROGBITS;
		secs[1].align = slot_size(enc);
		secs[1].data = "";
		secs[1].relocs = &none;
		nr = 2;
	}
	err = abtf__elf_set_sections(enc->elf, enc->path, dst ? dst : enc->path,
				     secs, nr, &enc->pr);
	free(slots);
	free(zbtf);
	return err;
}

ABTF_API int abtf_encoder__write_object(struct abtf_encoder *enc,
					const char *dst)
{
	const void *raw;
	void *copy;
	uint32_t size;
	int err;

	if (!enc->encoded)
		return -EINVAL;
	if (enc->ehdr.e_type != ET_REL) {
		pr_warn(&enc->pr, "%s: not a relocatable object (ET_REL)",
			enc->path);
		return -EINVAL;
	}
	raw = target_raw(enc, &size, &copy);
	if (!raw)
		return -ENOMEM;
	err = write_sections(enc, dst, raw, size);
	free(copy);
	return err;
}

ABTF_API int abtf_encoder__write_raw(struct abtf_encoder *enc, const char *dst)
{
	const void *raw;
	void *copy;
	uint32_t size;
	int err;

	if (!enc->encoded)
		return -EINVAL;
	raw = target_raw(enc, &size, &copy);
	if (!raw)
		return -ENOMEM;
	err = abtf_write_file(dst, raw, size);
	free(copy);
	if (err)
		pr_warn(&enc->pr, "%s: cannot write: %s", dst, ABTF_STRERROR(-err));
	return err;
}
