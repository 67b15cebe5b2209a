// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btf-link's engine: a linked .BTF archive -> one deduplicated BTF.
 *
 * The archive is tens of MB of member BTFs that repeat each other ~25
 * times over; the result is one BTF of a few MB. The work is done as a
 * merge tree, so that it runs in parallel and never holds the whole
 * archive in memory:
 *
 *  1. Plan (sequential, cheap): walk the member headers; cut the members,
 *     in link order, into leaves of about ABTF_LEAF_BYTES each; pair each
 *     member with its .debug_btf_addr group (the group header carries the
 *     member's size and hash; members made by pahole have none). When
 *     there is a group per member, in order and of matching sizes (every
 *     member from cc-btf), the headers pair them and each leaf checks the
 *     hashes as it reads; otherwise every member is validated and hashed
 *     first (in parallel, one leaf per task, read with pread into a buffer
 *     freed right after). Place the VARs of members without a group by
 *     name, in link order (step 4 of merge.c's rules).
 *  2. Leaves (parallel): read the leaf's members one at a time, validate
 *     each once and merge them (merge.c), which merges every copy that
 *     may be merged there; a type that reaches a FWD is left to the root.
 *     (Letting the leaves pair a FWD with a struct of a name of one
 *     meaning was refuted: docs/design.md, "Names of one meaning".)
 *  3. The root: merge the leaves' results (up to ABTF_FAN_IN of them;
 *     more make levels), in order (without a base, a task per child:
 *     only FUNC names and strings are decided in order), and
 *     deduplicate them with libbpf's algorithm; it also rebuilds the
 *     DATASECs and deduplicates against the base BTF for modules.
 *
 * Most of what a node takes in, it has already: each header's types come
 * again in every member that includes it. exact.c maps every input type
 * that has the meaning of a type of the node to that type instead of
 * appending it, but for what reaches a FWD, which it leaves alone: on the
 * 6.12 test image, of 1.26 million types in, 673,000 reach the
 * root (docs/performance.md). Only the root runs libbpf's whole
 * algorithm, with its rules for a FWD and a struct of its name, which
 * depend on every struct of that name in the archive and on the order of
 * libbpf's walks, so a part of it cannot decide them (docs/design.md,
 * "one meaning"; tests/dedup/ checks the result against btf__dedup()
 * alone on random programs).
 *
 * What a merge keeps (merge.c): every type, except
 *  - a FUNC whose function is not in the final image (its slot reads 0, or
 *    its relocation's symbol is undefined; placed by name: no STT_FUNC of
 *    that name), or whose name already has a FUNC in this node: pahole
 *    keeps one FUNC per name, the first in DWARF order, which is link
 *    order; since every node keeps its first and nodes merge in order, the
 *    root keeps the first of the whole archive;
 *  - a VAR the linker discarded or that is not in the final ".data..percpu"
 *    (pahole encodes per-CPU variables only);
 *  - DATASECs (libbpf's dedup never merges VARs or DATASECs; the root
 *    rebuilds one per output section from the VARs' places, which travel
 *    up the tree in VAR order: dedup never reorders or merges VARs);
 *  - a DECL_TAG whose target did not survive;
 *  - what the link's BTF features leave out (docs/design.md, "BTF
 *    features"): VARs without var, DECL_TAGs without decl_tag, TYPE_TAGs
 *    without type_tag (filter.c has sent every reference past them), a
 *    VAR whose name BTF cannot carry with encode_force. filter.c also gives
 *    each member, before its merge, the shapes of float and enum64 off, so
 *    that every merge and dedup sees final shapes; the root adds the
 *    kfuncs' DECL_TAGs (kfuncs.c) before its dedup.
 *
 * With optimized_func or consistent_func (pahole 1.31's function rules),
 * funcs.c first decides, from every member, which function names get no
 * FUNC at all; a merge then leaves those out, and with optimized_func
 * appends to each member the clone FUNCs its .debug_btf_addr group carries.
 *
 * Determinism: the tree's shape depends only on the input (member sizes),
 * never on the thread count; every node merges its inputs in order; strings
 * are interned in first-use order; exact.c's choices depend only on the
 * node and its input; libbpf's dedup is deterministic. So the output is a
 * pure function of the input file, at any -j.
 *
 * The files, by phase (each calls only those listed before it):
 * input.c reads the input file at open, and a member or a leaf's members
 * as they are merged; symbols.c reads its symbols, by index and by name;
 * plan.c finds the members and cuts them into leaves; pool.c runs a
 * level's nodes on the threads; place.c pairs members with their
 * .debug_btf_addr groups (whose format addr.c owns) and places VARs by
 * name; merge_tree.c runs the leaves and the levels (merge.c merges one
 * input into one node); write.c writes the result. This file opens and
 * frees a link and runs the phases. explain.c comes after the link, on
 * request: why each FUNC and VAR of a name was kept or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/symbols.h"
#include "link/plan.h"
#include "link/place.h"
#include "link/merge_tree.h"
#include "link/funcs.h"
#include "link/kfuncs.h"
#include "link/merge.h"
#include "link/node.h"
#include "btf/verify.h"
#include "btf/features.h"
#include "btf/zmember.h"
#include "elf/elf_read.h"

/* ---- open and free ---- */

ABTF_API struct abtf_linker *
abtf_linker__new(const char *path, const struct abtf_link_opts *opts)
{
	struct abtf_linker *l = calloc(1, sizeof(*l));
	int err;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	abtf__link_file_init(&l->file);
	err = abtf__copy_opts(&l->opts, sizeof(l->opts), opts);
	if (err)
		goto out_free;
	l->pr.fn = l->opts.print;
	l->pr.ctx = l->opts.print_ctx;
	l->path = strdup(path);
	if (!l->path) {
		err = -ENOMEM;
		goto out_free;
	}
	err = abtf__link_features(l->opts.features, &l->pr, path, &l->feats);
	if (!err && (l->feats & ABTF_FEAT_DISTILLED_BASE) && !l->opts.base_path)
		err = abtf__link_error(l, -EINVAL, "distilled_base is for a "
				       "module's split BTF: it needs a base");
	if (err)
		goto out_free;
	err = abtf__link_file_open(l);
	if (err)
		goto out_free;
	if (asprintf(&l->where, "%s: %s", path, l->file.archive_shndx ?
		     ABTF_SEC_ARCHIVE : ABTF_SEC_BTF) < 0) {
		l->where = NULL;
		err = -ENOMEM;
		goto out_free;
	}
	return l;
out_free:
	abtf_linker__free(l);
	errno = -err;
	return NULL;
}

ABTF_API void abtf_linker__free(struct abtf_linker *l)
{
	if (!l)
		return;
	abtf__link_plan_free(&l->plan);
	btf__free(l->btf);
	btf__free(l->base);
	abtf__link_symbols_free(&l->sym);
	funcs__rules_free(&l->fn_rules);
	abtf__free_kfuncs(&l->kfuncs);
	abtf__link_file_free(&l->file);
	free(l->where);
	free(l->path);
	free(l);
}

void abtf__linker_set_testing(struct abtf_linker *l,
			      const struct abtf_link_testing *t)
{
	l->testing = *t;
}

/* ---- the link ---- */

static bool is_final(const struct abtf_linker *l);

/* What @l's input is, when it is not final BTF. */
static void unlinked_what(const struct abtf_linker *l, char *buf, size_t len)
{
	if (l->plan.nr_members > 1)
		snprintf(buf, len, "a BTF archive of %zu members",
			 l->plan.nr_members);
	else if (l->file.addr.size)
		snprintf(buf, len, "a BTF archive member with its "
			 ".debug_btf_addr group");
	else
		snprintf(buf, len, "a compressed BTF archive member");
}

/*
 * 1 if @l's input is final BTF, 0 after saying why it is not, or -errno.
 * A file that keeps its archive aside has its final BTF in .BTF, once
 * linked (its .debug_btf_addr is the kept archive's).
 */
static int check_final(struct abtf_linker *l, const char *role)
{
	char what[96];
	int err;

	if (l->file.archive_shndx && l->file.btf_shndx &&
	    l->sym.secs[l->file.btf_shndx].size)
		return 1;
	if (l->file.archive_shndx) {
		pr_warn(&l->pr, "%s: %snot final BTF but a BTF archive kept "
			"in " ABTF_SEC_ARCHIVE ", not yet linked: link it with "
			"btf-link first", l->path, role);
		return 0;
	}
	err = l->plan.nr_members ? 0 : abtf__walk_members(l);
	if (err)
		return err;
	if (is_final(l))
		return 1;
	unlinked_what(l, what, sizeof(what));
	pr_warn(&l->pr, "%s: %snot final BTF but %s: link it with btf-link "
		"first", l->path, role, what);
	return 0;
}

ABTF_API int abtf_linker__check_final(struct abtf_linker *l)
{
	if (!l)
		return -EINVAL;
	return check_final(l, "");
}

/*
 * Why the base cannot be read: libbpf 1.3 and later refuse a type ID or a
 * string offset out of range themselves, and say EINVAL; the archive's
 * checks of the file's bytes name the byte and the type (libbpf 1.1 reads
 * such a base, and abtf__verify_base() names them).
 */
static void base_error(struct abtf_linker *l, int err)
{
	char msg[512];

	if (err == -EINVAL &&
	    abtf_btf__check_file(l->opts.base_path, msg, sizeof(msg)) == -EINVAL)
		pr_warn(&l->pr, "%s: cannot read base BTF: %s",
			l->opts.base_path, msg);
	else
		pr_warn(&l->pr, "%s: cannot read base BTF: %s",
			l->opts.base_path, ABTF_STRERROR(-err));
}

/*
 * Whether the base @path is final BTF at a glance, saying nothing: an ELF
 * file that passes the ELF checks, with no archive kept aside and no
 * .debug_btf_addr, whose .BTF is one plain member with a 24-byte header
 * that fills the section. What this accepts, check_final() accepts.
 */
static bool base_plainly_final(const char *path)
{
	struct abtf_printer quiet = { 0 };
	struct btf_header hdr;
	GElf_Shdr btf, sh;
	GElf_Ehdr ehdr;
	struct stat st;
	bool final = false;
	size_t nr, size;
	Elf *elf = NULL;
	int fd;

	/* not blocking on a FIFO: check_final() opens it as it is */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) ||
	    elf_getshdrstrndx(elf, &nr) || elf_getshdrnum(elf, &nr) ||
	    abtf__elf_check(elf, st.st_size, path, ABTF_SEC_ADDR, &quiet))
		goto out;
	if ((abtf__elf_find(elf, SHT_NULL, ABTF_SEC_ARCHIVE, &sh) &&
	     sh.sh_size) ||
	    (abtf__elf_find(elf, SHT_NULL, ABTF_SEC_ADDR, &sh) && sh.sh_size))
		goto out;
	if (!abtf__elf_find(elf, SHT_NULL, ABTF_SEC_BTF, &btf) ||
	    btf.sh_type == SHT_NOBITS || (btf.sh_flags & SHF_COMPRESSED) ||
	    btf.sh_size < sizeof(hdr) ||
	    abtf__pread_all(fd, &hdr, sizeof(hdr), btf.sh_offset) ||
	    abtf__is_zmember(&hdr, btf.sh_size))
		goto out;
	if (!abtf__host_order(ehdr.e_ident[EI_DATA]))
		abtf__btf_swap(&hdr, sizeof(hdr));
	final = hdr.magic == BTF_MAGIC && hdr.hdr_len == sizeof(hdr) &&
		!archive__member_size(&hdr, btf.sh_size, 0, 0, path, &quiet,
				      &size) &&
		size == btf.sh_size;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return final;
}

/*
 * The base must be final BTF: libbpf would take an archive's first member.
 * A base that is not final at a glance (or does not read) is opened as a
 * link of its own, whose check_final() says why.
 */
static int check_base_final(struct abtf_linker *l)
{
	struct abtf_link_opts o = {
		.sz = sizeof(o),
		.print = l->opts.print,
		.print_ctx = l->opts.print_ctx,
	};
	struct abtf_linker *b;
	int err;

	if (base_plainly_final(l->opts.base_path))
		return 0;
	b = abtf_linker__new(l->opts.base_path, &o);
	if (!b)
		return -errno;
	err = check_final(b, "the base is ");
	abtf_linker__free(b);
	return err == 1 ? 0 : err ? err : -EINVAL;
}

static int load_base(struct abtf_linker *l)
{
	int err;

	if (!l->opts.base_path)
		return 0;
	err = check_base_final(l);
	if (err)
		return err;
	l->base = abtf_btf__parse(l->opts.base_path, NULL);
	if (!l->base) {
		err = -errno;
		if (abtf_btf__is_split(l->opts.base_path) == 1)
			pr_warn(&l->pr, "%s: cannot be a base: it is split BTF "
				"(a module's, made on a base of its own)",
				l->opts.base_path);
		else
			base_error(l, err);
		return err;
	}
	/* libbpf's dedup trusts its base: a type ID past the end crashed it */
	err = abtf__verify_base(l->base, l->opts.base_path, &l->pr);
	if (err)
		return err;
	if (btf__endianness(l->base) != abtf__link_endianness(l)) {
		pr_warn(&l->pr, "%s: the base BTF is of the other byte order "
			"than %s", l->opts.base_path, l->path);
		return -EINVAL;
	}
	/* merge.c reads the base's raw types: in the host's order */
	return btf__set_endianness(l->base, abtf__host_endianness());
}

/*
 * What is written must load: the kernel's rules (verify.c) on the final
 * BTF, a module's against its base, so that a bad type fails the build
 * here, named, rather than the boot or the module load.
 */
static int verify_final(struct abtf_linker *l)
{
	return abtf__verify_btf(l->btf, false, l->path, l->base ?
				"the module's split BTF" : "the final BTF",
				&l->pr);
}

/*
 * One member and no .debug_btf_addr left to apply: what btf-link writes.
 * An archive kept aside is linked whatever it holds.
 */
static bool is_final(const struct abtf_linker *l)
{
	return l->plan.nr_members == 1 && !l->file.addr.size &&
	       !l->file.nr_zmembers && !l->file.archive_shndx;
}

/* A final BTF may be split (a module's): libbpf checks it against the base. */
static int keep_final(struct abtf_linker *l)
{
	size_t size = l->plan.members[0].size;
	uint8_t *buf = malloc(size);
	int err;

	if (!buf)
		return -ENOMEM;
	err = abtf__read_btf(l, buf, size, 0);
	if (!err) {
		l->btf = abtf__new_btf(buf, size, l->base);
		if (!l->btf)
			err = -errno ? -errno : -EINVAL;
	}
	free(buf);
	if (err)
		return abtf__link_error(l, err, l->base ?
				  "cannot load the final BTF against the base" :
				  "cannot load the final BTF (split BTF needs --base)");
	err = verify_final(l);
	if (err)
		return err;
	l->final_input = true;
	return 1;
}

/* Step 1 of the essay: the leaves, each member's places, funcs.c's choices. */
static int plan(struct abtf_linker *l, struct node **leaves, size_t *nr)
{
	int err;

	*leaves = abtf__make_leaves(l, nr);
	if (!*leaves)
		return -ENOMEM;
	err = place__link(l, *leaves, *nr);
	if (err)
		return err;
	if (l->feats & (ABTF_FEAT_CONSISTENT_FUNC | ABTF_FEAT_OPTIMIZED_FUNC)) {
		err = funcs__select(l, *leaves, *nr);
		if (err)
			return err;
	}
	if (*nr == 1)
		(*leaves)[0].root = true;
	return 0;
}

ABTF_API int abtf_linker__link(struct abtf_linker *l)
{
	double t0 = abtf__now();
	struct node *leaves = NULL;
	size_t nr = 0, i;
	int err;

	if (l->btf)
		return l->final_input;
	abtf__plan_threads(l);
	err = abtf__link_symbols_load(l);
	if (!err && !l->plan.nr_members)
		err = abtf__walk_members(l);
	l->st.bytes_in = l->file.btf_size;
	if (!err)
		err = load_base(l);
	if (err)
		return err;
	l->st.nr_members = l->plan.nr_members;
	if (is_final(l) && !l->opts.force)
		return keep_final(l);
	/* pahole tags kfuncs only when it writes decl tags at all */
	if ((l->feats & ABTF_FEAT_DECL_TAG_KFUNCS) &&
	    (l->feats & ABTF_FEAT_DECL_TAG)) {
		err = abtf__collect_kfuncs(l);
		if (err)
			return err;
	}
	err = plan(l, &leaves, &nr);
	l->st.t_parse = abtf__now() - t0;
	if (err) {
		for (i = 0; leaves && i < nr; i++)
			merge__node_free(&leaves[i]);
		free(leaves);
		return err;
	}
	err = abtf__merge_levels(l, leaves, nr);
	if (!err)
		err = verify_final(l);
	if (!err && !l->file.elf && l->plan.nr_members > 1)
		pr_info(&l->pr, "%s: a raw archive has no symbol table: "
			"variables cannot be placed and were left out", l->path);
	return err;
}

ABTF_API const struct btf *abtf_linker__btf(const struct abtf_linker *l)
{
	return l->btf;
}

static void count_final(const struct btf *btf, uint32_t first,
			struct abtf_link_stats *st)
{
	uint32_t id, n = btf__type_cnt(btf);

	st->funcs = st->vars = 0;
	for (id = first; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		st->funcs += btf_is_func(t);
		st->vars += btf_is_var(t);
	}
}

ABTF_API int abtf_linker__stats(const struct abtf_linker *l,
				struct abtf_link_stats *stats)
{
	struct abtf_link_stats st = l->st;
	uint32_t size = 0, first;
	size_t sz;

	if (!stats || stats->sz < sizeof(size_t))
		return -EINVAL;
	if (l->btf) {
		first = l->base ? btf__type_cnt(l->base) : 1;
		btf__raw_data(l->btf, &size);
		st.bytes_out = size;
		st.types_out = btf__type_cnt(l->btf) - first;
		count_final(l->btf, first, &st);
	}
	sz = stats->sz < sizeof(st) ? stats->sz : sizeof(st);
	st.sz = stats->sz;
	memcpy(stats, &st, sz);
	return 0;
}

