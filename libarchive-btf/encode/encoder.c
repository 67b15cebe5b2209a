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
 * This file is the public API and the pipeline; each step is a module of
 * its own (enc.h lists them), in the order abtf_encoder__encode() runs
 * them: the symbols (enc_syms.c), the DWARF relocated (enc_dwarf.c, by
 * dwarf_reloc.c), the walk that selects FUNCs
 * and VARs (enc_select.c), the DATASECs (enc_datasec.c), the BTF (here,
 * over ir_dedup.c), then the per-function extension (enc_funcext.c) and
 * the .debug_btf_addr slots (enc_slots.c); the sections are written here.
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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "elf/elf_reloc.h"
#include "encode/dwarf_types.h"
#include "encode/enc.h"
#include "btf/verify.h"
#include "btf/zmember.h"
#include "util/testing.h"

struct abtf_encoder {
	char *path;
	struct abtf_encode_opts opts;
	struct abtf_encode_testing testing;	/* util/testing.h */
	struct abtf_printer pr;

	struct enc_obj obj;	/* the object, open read-only */
	struct enc_syms syms;
	struct enc_dwarf dw;
	struct ir ir;
	struct enc_select sel;	/* the FUNCs and VARs, with their symbols */
	struct enc_funcext fx;
	struct enc_slots slots;

	struct btf *btf;
	bool encoded;
};

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
	enc->obj.fd = -1;
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
	err = enc_obj__open(&enc->obj, enc->path, &enc->pr);
	if (err)
		goto out_free_enc;
	return enc;

out_free_enc:
	abtf_encoder__free(enc);
	errno = -err;
	return NULL;
}

ABTF_API void abtf_encoder__free(struct abtf_encoder *enc)
{
	if (!enc)
		return;
	ir__fini(&enc->ir);
	btf__free(enc->btf);
	enc_dwarf__close(&enc->dw);
	enc_obj__close(&enc->obj);
	enc_syms__free(&enc->syms);
	enc_select__free(&enc->sel);
	enc_slots__free(&enc->slots);
	enc_funcext__free(&enc->fx);
	free(enc->path);
	free(enc);
}

void abtf__encoder_set_testing(struct abtf_encoder *enc,
			       const struct abtf_encode_testing *t)
{
	enc->testing = *t;
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

	err = enc->testing.libbpf_dedup ? ir_dedup__none(&enc->ir) :
				       ir_dedup__run(&enc->ir);
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
	if (err || (enc->sel.nr_units < 2 && !enc->testing.libbpf_dedup))
		return err;
	err = btf__dedup(enc->btf, NULL);
	if (err)
		pr_warn(&enc->pr, "%s: BTF deduplication of its %u compile "
			"units failed: %s", enc->path, enc->sel.nr_units,
			ABTF_STRERROR(-err));
	return err;
}

/* The object's DWARF, walked: every node of its BTF, before dedup. */
static int make_nodes(struct abtf_encoder *enc)
{
	int err;

	ir__init(&enc->ir, enc->path, &enc->pr);
	enc->ir.big_endian = enc->obj.ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	err = enc_syms__load(&enc->syms, &enc->obj);
	if (err)
		return err;
	err = enc_dwarf__open(&enc->dw, &enc->obj);
	if (err)
		return err;
	enc->ir.dw = &enc->dw.f;
	enc->ir.path = enc->dw.name;	/* a split object's names its .dwo */
	enc->sel.obj = &enc->obj;
	enc->sel.syms = &enc->syms;
	enc->sel.dw = &enc->dw;
	enc->sel.ir = &enc->ir;
	enc->sel.fx = &enc->fx;
	err = enc_select__walk(&enc->sel);
	if (err)
		return err;
	err = enc_datasec__add(&enc->obj, &enc->sel, &enc->ir);
	if (!err)
		err = dwarf_types__add_decl_tags(&enc->ir);
	if (!err)
		err = dwarf_types__check_loops(&enc->ir);
	return err;
}

ABTF_API int abtf_encoder__encode(struct abtf_encoder *enc)
{
	bool is_rela;
	int reloc_type;
	int err;

	if (enc->encoded)
		return 0;
	err = make_nodes(enc);
	if (err)
		return err;
	err = build_btf(enc);
	if (err)
		return err;
	reloc_type = abtf__reloc_abs(enc->obj.ehdr.e_machine,
				     enc->obj.ehdr.e_ident[EI_CLASS], &is_rela);
	if (reloc_type >= 0 && !enc->opts.no_addr) {
		err = enc_funcext__find_extras(&enc->fx, &enc->syms,
					       &enc->sel) ?:
		      enc_funcext__build(&enc->fx, &enc->obj, &enc->dw.f,
					 &enc->ir, enc->btf,
					 enc->sel.nr_units) ?:
		      enc_slots__make(&enc->slots, &enc->obj, enc->btf,
				      &enc->sel, &enc->fx, reloc_type);
		if (err)
			return err;
	}
	/* the DWARF is no longer needed: names now live in the BTF */
	ir__fini(&enc->ir);
	enc_dwarf__close(&enc->dw);
	enc->encoded = true;
	return 0;
}

ABTF_API const struct btf *abtf_encoder__btf(const struct abtf_encoder *enc)
{
	return enc->encoded ? enc->btf : NULL;
}

/* ---- output ---- */

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
	if (!raw || abtf__host_order(enc->obj.ehdr.e_ident[EI_DATA]))
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
		bool swap = !abtf__host_order(enc->obj.ehdr.e_ident[EI_DATA]);

		err = abtf__zmember_deflate(raw, size, swap, &zbtf,
					    &secs[0].size);
		if (err == -ERANGE)	/* compresses too well to be read: plain */
			secs[0].size = size;
		else if (err)
			return err;
		else
			secs[0].data = zbtf;
	}
	if (enc->slots.relocs) {
		slots = enc_slots__section(&enc->slots, &enc->obj, &enc->fx,
					   raw, size, &secs[1]);
		if (!slots) {
			free(zbtf);
			return -ENOMEM;
		}
		nr = 2;
	} else if (enc_obj__find_section(&enc->obj, SHT_NULL, ABTF_SEC_ADDR)) {
		/* no slots now: empty stale ones rather than mislead btf-link */
		enc_slots__empty_section(&enc->obj, &secs[1]);
		nr = 2;
	}
	err = abtf__elf_set_sections(enc->obj.elf, enc->path,
				     dst ? dst : enc->path, secs, nr, &enc->pr);
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
	if (enc->obj.ehdr.e_type != ET_REL) {
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
