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
 *     each once, merge them (merge.c) and deduplicate the result.
 *  3. Levels (parallel within a level): merge up to ABTF_FAN_IN results of
 *     the level below, in order, and deduplicate, until one node is left:
 *     the root, which also rebuilds the DATASECs and deduplicates against
 *     the base BTF for modules.
 *
 * Most of what a node takes in, it has already: each header's types come
 * again in every member that includes it. Before libbpf's dedup sees a
 * node, exact.c maps every input type that is exactly a type of the node
 * (libbpf's rule for a FWD and its struct apart) to that type instead of
 * appending it: on the 6.1 archive, of a million types in, 63 000 reach
 * the four leaves' dedups. libbpf's dedup then merges what only it can
 * (a FWD in one member, the struct in another), leaf by leaf, so that
 * what goes up the tree is consistent. (Leaving it all to one dedup at the
 * root was tried: libbpf's walk then fails on graphs that hold a FWD and
 * its struct side by side, and keeps a few identical structs twice.)
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
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "linker.h"
#include "verify.h"

/* A leaf merges about this many bytes of members; a node this many inputs. */
#ifndef ABTF_LEAF_BYTES
#define ABTF_LEAF_BYTES	(16u << 20)
#endif
#ifndef ABTF_FAN_IN
#define ABTF_FAN_IN	4
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int link_error(struct abtf_linker *l, int err, const char *what)
{
	pr_warn(&l->pr, "%s: %s", l->path, what);
	return err;
}

static int elf_fail(struct abtf_linker *l, const char *what)
{
	pr_warn(&l->pr, "%s: %s: %s", l->path, what, elf_errmsg(-1));
	return -EINVAL;
}

/* ---- input ---- */

static int pread_all(int fd, void *buf, size_t size, size_t off)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = pread(fd, (char *)buf + got, size - got, off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		got += n;
	}
	return 0;
}

/* A copy of every section header: threads never call libelf. */
static int load_sections(struct abtf_linker *l, size_t fsize)
{
	size_t i;
	int err;

	err = abtf__elf_check(l->elf, fsize, l->path, &l->pr);
	if (err)
		return err;
	if (elf_getshdrnum(l->elf, &l->nr_secs))
		return elf_fail(l, "bad section header table");
	l->secs = calloc(l->nr_secs + 1, sizeof(*l->secs));
	if (!l->secs)
		return -ENOMEM;
	for (i = 1; i < l->nr_secs; i++) {
		Elf_Scn *scn = elf_getscn(l->elf, i);
		GElf_Shdr shdr;

		if (!scn || !gelf_getshdr(scn, &shdr))
			return elf_fail(l, "bad section header");
		l->secs[i].name = elf_strptr(l->elf, l->shstrndx, shdr.sh_name);
		l->secs[i].addr = shdr.sh_addr;
		l->secs[i].size = shdr.sh_size;
		l->secs[i].flags = shdr.sh_flags;
	}
	return 0;
}

size_t abtf__find_section(const struct abtf_linker *l, const char *name)
{
	size_t i;

	for (i = 1; i < l->nr_secs; i++)
		if (l->secs[i].name && !strcmp(l->secs[i].name, name))
			return i;
	return 0;
}

static int load_relas(struct abtf_linker *l);
static int load_symbols(struct abtf_linker *l);

static int open_elf(struct abtf_linker *l, size_t fsize)
{
	GElf_Shdr shdr;
	Elf_Data *d;
	int err;

	if (!gelf_getehdr(l->elf, &l->ehdr))
		return elf_fail(l, "bad ELF header");
	if (elf_getshdrstrndx(l->elf, &l->shstrndx))
		return elf_fail(l, "bad section header string table");
	if (l->ehdr.e_ident[EI_DATA] !=
	    (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		return link_error(l, -EOPNOTSUPP,
				  "ELF of the other byte order is not supported");
	err = load_sections(l, fsize);
	if (err)
		return err;
	l->btf_shndx = abtf__find_section(l, ABTF_SEC_BTF);
	if (!l->btf_shndx)
		return link_error(l, -ENOENT, "no .BTF section: its objects "
				  "were not compiled through cc-btf, or were "
				  "built with LTO (-flto: no DWARF for cc-btf "
				  "to encode)");
	if (!gelf_getshdr(elf_getscn(l->elf, l->btf_shndx), &shdr))
		return elf_fail(l, "bad .BTF section header");
	if (shdr.sh_type == SHT_NOBITS)
		return link_error(l, -EINVAL, ".BTF has no contents (NOBITS)");
	l->btf_off = shdr.sh_offset;
	l->btf_size = shdr.sh_size;
	l->addr_shndx = abtf__find_section(l, ABTF_SEC_ADDR);
	if (l->addr_shndx && l->secs[l->addr_shndx].size) {
		d = elf_rawdata(elf_getscn(l->elf, l->addr_shndx), NULL);
		if (!d)
			return elf_fail(l, "cannot read " ABTF_SEC_ADDR);
		l->addr_data = d->d_buf;
		l->addr_size = d->d_size;
	}
	err = load_relas(l);
	return err ? err : load_symbols(l);
}

ABTF_API struct abtf_linker *
abtf_linker__new(const char *path, const struct abtf_link_opts *opts)
{
	struct abtf_linker *l = calloc(1, sizeof(*l));
	struct stat st;
	int err;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->fd = -1;
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
	if (err)
		goto out_free;
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0 || fstat(l->fd, &st)) {
		err = -errno;
		pr_warn(&l->pr, "%s: cannot open: %s", path, strerror(errno));
		goto out_free;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		pr_warn(&l->pr, "%s: not a regular file", path);
		goto out_free;
	}
	elf_version(EV_CURRENT);
	l->elf = elf_begin(l->fd, ELF_C_READ_MMAP, NULL);
	if (l->elf && elf_kind(l->elf) == ELF_K_ELF) {
		err = open_elf(l, st.st_size);
	} else {
		if (l->elf)
			elf_end(l->elf);
		l->elf = NULL;
		l->btf_size = st.st_size;	/* a raw BTF file */
	}
	if (err)
		goto out_free;
	return l;
out_free:
	abtf_linker__free(l);
	errno = -err;
	return NULL;
}

ABTF_API void abtf_linker__free(struct abtf_linker *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr_members && l->plans; i++)
		free(l->plans[i].vars);
	free(l->plans);
	btf__free(l->btf);
	btf__free(l->base);
	free(l->relas);
	free(l->secs);
	free(l->syms);
	free(l->symvals);
	free(l->sym_used);
	free(l->drop);
	free(l->skip);
	abtf__strtab_free(&l->drop_strs);
	abtf__free_kfuncs(l);
	if (l->elf)
		elf_end(l->elf);
	if (l->fd >= 0)
		close(l->fd);
	free(l->path);
	free(l);
}

/* ---- symbols and relocations ---- */

static int rela_cmp(const void *a, const void *b)
{
	const struct rela *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int read_rela(Elf_Data *d, int type, size_t i, struct rela *r)
{
	GElf_Rela ra;
	GElf_Rel rel;

	if (type == SHT_RELA) {
		if (!gelf_getrela(d, i, &ra))
			return -EINVAL;
		r->offset = ra.r_offset;
		r->sym = GELF_R_SYM(ra.r_info);
		r->addend = ra.r_addend;
		return 0;
	}
	if (!gelf_getrel(d, i, &rel))
		return -EINVAL;
	r->offset = rel.r_offset;
	r->sym = GELF_R_SYM(rel.r_info);
	r->addend = 0;
	return 0;
}

static int load_relas(struct abtf_linker *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	Elf_Data *d;
	size_t i, n;

	if (!l->addr_size)
		return 0;
	while ((scn = elf_nextscn(l->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_RELA && shdr.sh_type != SHT_REL) ||
		    shdr.sh_info != l->addr_shndx)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d && shdr.sh_size)
			return elf_fail(l, "cannot read .debug_btf_addr relocations");
		n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
		l->relas = calloc(n + 1, sizeof(*l->relas));
		if (!l->relas)
			return -ENOMEM;
		l->rel_inplace = shdr.sh_type == SHT_REL;
		for (i = 0; i < n; i++)
			if (read_rela(d, shdr.sh_type, i, &l->relas[i]))
				return elf_fail(l, "bad .debug_btf_addr relocation");
		l->nr_relas = n;
		qsort(l->relas, n, sizeof(*l->relas), rela_cmp);
		return 0;
	}
	return 0;
}

static int lsym_cmp(const void *a, const void *b)
{
	const struct lsym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

Elf_Data *abtf__symtab_shndx(const struct abtf_linker *l, size_t symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(l->elf, scn)))
		if (gelf_getshdr(scn, &shdr) &&
		    shdr.sh_type == SHT_SYMTAB_SHNDX && shdr.sh_link == symtab)
			return elf_getdata(scn, NULL);
	return NULL;
}

static void add_lsym(struct abtf_linker *l, const GElf_Sym *s, uint32_t i,
		     uint32_t shndx, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);
	struct lsym *e;

	if ((type != STT_FUNC && type != STT_OBJECT) || !shndx ||
	    shndx >= l->nr_secs || !name || !*name)
		return;
	e = &l->syms[l->nr_syms++];
	e->name = name;
	e->value = s->st_value;
	e->size = s->st_size;
	e->idx = i;
	e->shndx = shndx;
	e->type = type;
	e->bind = GELF_ST_BIND(s->st_info);
}

/* The index of the first defined symbol called @name (or where it would be). */
size_t abtf__first_sym(const struct abtf_linker *l, const char *name)
{
	size_t lo = 0, hi = l->nr_syms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(l->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every symbol by index (for relocations), defined ones by name. */
static int load_symbols(struct abtf_linker *l)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d, *xd;
	GElf_Shdr shdr;
	size_t i, n;

	while ((scn = elf_nextscn(l->elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			break;
	if (!scn)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return elf_fail(l, "cannot read .symtab");
	xd = abtf__symtab_shndx(l, elf_ndxscn(scn));
	n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	l->syms = calloc(n + 1, sizeof(*l->syms));
	l->symvals = calloc(n + 1, sizeof(*l->symvals));
	l->sym_used = calloc(n + 1, sizeof(*l->sym_used));
	if (!l->syms || !l->symvals || !l->sym_used)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		GElf_Word xndx = 0;
		uint32_t shndx;
		GElf_Sym s;

		if (!gelf_getsymshndx(d, xd, i, &s, &xndx))
			return elf_fail(l, "bad symbol");
		shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		if (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_XINDEX)
			shndx = SHN_UNDEF;	/* absolute, common: nowhere */
		l->symvals[i].value = s.st_value;
		l->symvals[i].shndx = shndx;
		add_lsym(l, &s, i, shndx,
			 elf_strptr(l->elf, shdr.sh_link, s.st_name));
	}
	l->nr_symvals = n;
	qsort(l->syms, l->nr_syms, sizeof(*l->syms), lsym_cmp);
	return 0;
}

/* ---- plan ---- */

static int push_plan(struct abtf_linker *l, size_t *cap, size_t off,
		     size_t size)
{
	if (l->nr_members == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct mplan *n = realloc(l->plans, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->plans = n;
		*cap = ncap;
	}
	memset(&l->plans[l->nr_members], 0, sizeof(*l->plans));
	l->plans[l->nr_members].off = off;
	l->plans[l->nr_members].size = size;
	l->nr_members++;
	return 0;
}

/* Member boundaries from the headers alone: 24 bytes read per member. */
static int walk_members(struct abtf_linker *l)
{
	size_t off = 0, cap = 0, size, pad;
	uint8_t buf[64];	/* enough to tell padding from garbage */
	struct btf_header hdr;
	int err;

	if (!l->btf_size)
		return link_error(l, -EINVAL, ".BTF is empty");
	while (off < l->btf_size) {
		size_t avail = l->btf_size - off;

		memset(&hdr, 0, sizeof(hdr));
		err = pread_all(l->fd, &hdr, avail < sizeof(hdr) ? avail :
				sizeof(hdr), l->btf_off + off);
		if (err)
			return link_error(l, err, "cannot read .BTF");
		if (!l->elf && !off && avail >= 2 && hdr.magic != BTF_MAGIC &&
		    hdr.magic != 0x9feb)
			return link_error(l, -EINVAL,
					  "neither an ELF file nor raw BTF");
		err = abtf__member_size(&hdr, avail, l->nr_members, off,
					l->path, &l->pr, &size);
		if (err)
			return err;
		err = push_plan(l, &cap, off, size);
		if (err)
			return err;
		off += size;
		avail = l->btf_size - off;
		if (avail > sizeof(buf))
			avail = sizeof(buf);
		err = pread_all(l->fd, buf, avail, l->btf_off + off);
		if (!err)
			err = abtf__member_padding(buf, avail, l->nr_members - 1,
						   off, l->path, &l->pr, &pad);
		if (err)
			return err;
		off += pad;
	}
	return 0;
}

/* Leaves: consecutive members of about ABTF_LEAF_BYTES. */
static struct node *make_leaves(struct abtf_linker *l, size_t *nr)
{
	struct node *leaves = calloc(l->nr_members + 1, sizeof(*leaves));
	size_t i, bytes = 0;

	if (!leaves)
		return NULL;
	*nr = 0;
	for (i = 0; i < l->nr_members; i++) {
		if (!bytes)
			leaves[(*nr)++].first = i;
		leaves[*nr - 1].nr++;
		leaves[*nr - 1].leaf = true;
		bytes += l->plans[i].size;
		if (bytes >= ABTF_LEAF_BYTES)
			bytes = 0;
	}
	return leaves;
}

/* ---- threads ---- */

struct job {
	struct abtf_linker *l;
	struct node *nodes;
	size_t nr;
	int (*fn)(struct abtf_linker *l, struct node *n, void *ctx);
	void *ctx;
	atomic_size_t next;
};

/* A node's messages are kept, and printed in node order after the level. */
static void node_print(enum abtf_print_level level, void *ctx,
		       const char *fmt, va_list ap)
{
	struct node *n = ctx;

	if (level == ABTF_WARN && !n->msg[0])
		vsnprintf(n->msg, sizeof(n->msg), fmt, ap);
}

static void *worker(void *arg)
{
	struct job *job = arg;
	size_t i;

	while ((i = atomic_fetch_add(&job->next, 1)) < job->nr) {
		struct node *n = &job->nodes[i];

		n->pr.fn = node_print;
		n->pr.ctx = n;
		n->err = job->fn(job->l, n, job->ctx);
	}
	return NULL;
}

/* Run @fn on every node, on up to nr_threads threads; first error wins. */
int abtf__run_level(struct abtf_linker *l, struct node *nodes, size_t nr,
		     int (*fn)(struct abtf_linker *, struct node *, void *),
		     void *ctx)
{
	struct job job = { .l = l, .nodes = nodes, .nr = nr, .fn = fn,
			   .ctx = ctx };
	pthread_t tids[64];
	size_t i, nt = l->nr_threads;

	atomic_init(&job.next, 0);
	if (nt > nr)
		nt = nr;
	if (nt > ARRAY_SIZE(tids))
		nt = ARRAY_SIZE(tids);
	for (i = 1; i < nt; i++)
		if (pthread_create(&tids[i], NULL, worker, &job))
			break;
	nt = i;
	worker(&job);
	for (i = 1; i < nt; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < nr; i++) {
		if (!nodes[i].err)
			continue;
		if (nodes[i].msg[0])
			pr_warn(&l->pr, "%s", nodes[i].msg);
		else
			pr_warn(&l->pr, "%s: %s", l->path,
				strerror(-nodes[i].err));
		return nodes[i].err;
	}
	return 0;
}

/* ---- reading members ---- */

/* The leaf's bytes, one pread; members validated on the way. */
uint8_t *abtf__read_leaf(struct abtf_linker *l, struct node *n,
			  struct abtf_member *ms)
{
	const struct mplan *first = &l->plans[n->first];
	const struct mplan *last = &l->plans[n->first + n->nr - 1];
	size_t span = last->off + last->size - first->off, i;
	uint8_t *buf = malloc(span ? span : 1);

	if (!buf) {
		n->err = -ENOMEM;
		return NULL;
	}
	n->err = pread_all(l->fd, buf, span, l->btf_off + first->off);
	if (n->err) {
		pr_warn(&n->pr, "%s: cannot read .BTF: %s", l->path,
			strerror(-n->err));
		goto out_free;
	}
	for (i = 0; i < n->nr; i++) {
		struct mplan *mp = &l->plans[n->first + i];
		const uint8_t *p = buf + mp->off - first->off;

		if (mp->nr_types) {	/* validated by the plan already */
			abtf__member_describe(p, mp->off, mp->nr_types, &ms[i]);
			continue;
		}
		n->err = abtf__member_check(p, mp->size, n->first + i, mp->off,
					    l->path, &n->pr, &ms[i]);
		if (n->err)
			goto out_free;
		mp->nr_types = ms[i].nr_types;
	}
	return buf;
out_free:
	free(buf);
	return NULL;
}

/* Validate every member of a leaf, and hash it to pair it with its group. */
static int hash_leaf(struct abtf_linker *l, struct node *n, void *ctx)
{
	struct abtf_member *ms = calloc(n->nr, sizeof(*ms));
	uint8_t *buf;
	size_t i;

	if (!ms)
		return -ENOMEM;
	buf = abtf__read_leaf(l, n, ms);
	for (i = 0; buf && l->addr_size && i < n->nr; i++) {
		struct mplan *mp = &l->plans[n->first + i];

		mp->hash = abtf__hash32(buf + mp->off - l->plans[n->first].off,
					mp->size);
	}
	free(buf);
	free(ms);
	return buf ? 0 : n->err;
}

/* ---- pairing with .debug_btf_addr, placing by name ---- */

/* A group of .debug_btf_addr, version 1 ("BTFA") or 2 ("BTFB"). */
struct group {
	uint32_t btf_size, btf_hash;
	struct mplan g;		/* slots_off ... flags_off */
	size_t end;		/* past the group and its padding */
};

/* The group at @at, if one is there and fits in the section. */
static bool read_group(const struct abtf_linker *l, size_t at, struct group *g)
{
	uint64_t ss = abtf__slot_size(l), avail, need, tail;
	struct abtf_addr_hdr2 h;
	size_t hlen;

	memset(g, 0, sizeof(*g));
	if (l->addr_size < sizeof(struct abtf_addr_hdr) ||
	    at > l->addr_size - sizeof(struct abtf_addr_hdr))
		return false;
	memcpy(&h, l->addr_data + at, sizeof(struct abtf_addr_hdr));
	if (!memcmp(h.magic, ABTF_ADDR_MAGIC, sizeof(h.magic))) {
		hlen = sizeof(struct abtf_addr_hdr);
	} else if (!memcmp(h.magic, ABTF_ADDR_MAGIC2, sizeof(h.magic)) &&
		   l->addr_size - at >= sizeof(h)) {
		memcpy(&h, l->addr_data + at, sizeof(h));
		hlen = sizeof(h);
	} else {
		return false;
	}
	avail = l->addr_size - at - hlen;
	need = ((uint64_t)h.nr_slots + (hlen == sizeof(h) ? h.nr_extra : 0)) * ss;
	if (need > avail)
		return false;
	g->btf_size = h.btf_size;
	g->btf_hash = h.btf_hash;
	g->g.slots_off = at + hlen;
	g->g.nr_slots = h.nr_slots;
	g->end = g->g.slots_off + need;
	if (hlen == sizeof(h)) {
		tail = (uint64_t)h.ext_type_len + h.ext_str_len + h.nr_flags;
		tail = (tail + ss - 1) / ss * ss;
		if (tail > avail - need || h.ext_type_len % 4 ||
		    (h.ext_type_len && !h.ext_str_len) ||
		    (!h.ext_type_len && (h.ext_str_len || h.nr_extra)))
			return false;
		g->g.nr_extra = h.nr_extra;
		g->g.ext_off = g->end;
		g->g.ext_type_len = h.ext_type_len;
		g->g.ext_str_len = h.ext_str_len;
		g->g.flags_off = g->end + h.ext_type_len + h.ext_str_len;
		g->g.nr_flags = h.nr_flags;
		g->end += tail;
	}
	return true;
}

static void take_group(struct mplan *mp, const struct group *g)
{
	mp->slots_off = g->g.slots_off;
	mp->nr_slots = g->g.nr_slots;
	mp->nr_extra = g->g.nr_extra;
	mp->ext_off = g->g.ext_off;
	mp->ext_type_len = g->g.ext_type_len;
	mp->ext_str_len = g->g.ext_str_len;
	mp->flags_off = g->g.flags_off;
	mp->nr_flags = g->g.nr_flags;
}

static void pair_groups(struct abtf_linker *l)
{
	size_t ss = abtf__slot_size(l), off = 0, i;
	struct group g;

	for (i = 0; i < l->nr_members; i++) {
		struct mplan *mp = &l->plans[i];
		size_t at = off;

		while (at < l->addr_size && at % ss && !l->addr_data[at])
			at++;
		if (!read_group(l, at, &g) || g.btf_size != mp->size ||
		    g.btf_hash != mp->hash)
			continue;
		mp->has_group = true;
		take_group(mp, &g);
		off = g.end;
		l->st.nr_addr_groups++;
	}
}

/*
 * The common case, every member from cc-btf: as many groups as members, in
 * the same order and of matching sizes. Pair them without reading the
 * members; each leaf checks its members' hashes as it reads them.
 */
static bool pair_one_to_one(struct abtf_linker *l)
{
	size_t ss = abtf__slot_size(l), off = 0, i;
	struct group g;

	for (i = 0; i < l->nr_members; i++) {
		struct mplan *mp = &l->plans[i];

		if (!read_group(l, off, &g) || g.btf_size != mp->size)
			break;
		mp->hash = g.btf_hash;
		take_group(mp, &g);
		off = g.end;
		while (off < l->addr_size && off % ss && !l->addr_data[off])
			off++;
	}
	if (i < l->nr_members || off != l->addr_size)
		return false;
	for (i = 0; i < l->nr_members; i++)
		l->plans[i].has_group = l->plans[i].check_hash = true;
	l->st.nr_addr_groups = l->nr_members;
	return true;
}

/* Keeps the first warning, for one message of our own. */
static void keep_msg(enum abtf_print_level level, void *ctx, const char *fmt,
		     va_list ap)
{
	char *msg = ctx;

	if (level == ABTF_WARN && !msg[0])
		vsnprintf(msg, 256, fmt, ap);
}

/*
 * With optimized_func, a member whose group carries an extension (clone
 * FUNCs, docs/archive-format.md) is read as one BTF: its types then the
 * extension's, its strings then the extension's, validated as a whole.
 * 0 with *buf NULL when there is nothing to add (*xm = *m).
 */
int abtf__member_extend(struct abtf_linker *l, const struct abtf_printer *pr,
			size_t i, const struct abtf_member *m, uint8_t **buf,
			struct abtf_member *xm)
{
	const struct mplan *mp = &l->plans[i];
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h) };
	const uint8_t *ext = l->addr_data + mp->ext_off;
	char msg[256] = "";
	struct abtf_printer quiet = { .fn = keep_msg, .ctx = msg };
	uint8_t *p;
	size_t size;

	*buf = NULL;
	*xm = *m;
	if (!(l->feats & ABTF_FEAT_OPTIMIZED_FUNC) || !mp->has_group ||
	    !mp->ext_type_len)
		return 0;
	h.type_len = m->type_len + mp->ext_type_len;
	h.str_off = h.type_len;
	h.str_len = m->str_len + mp->ext_str_len;
	size = sizeof(h) + (size_t)h.type_len + h.str_len;
	p = *buf = malloc(size);
	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, m->types, m->type_len);
	p += m->type_len;
	memcpy(p, ext, mp->ext_type_len);
	p += mp->ext_type_len;
	memcpy(p, m->strs, m->str_len);
	p += m->str_len;
	memcpy(p, ext + mp->ext_type_len, mp->ext_str_len);
	if (abtf__member_check(*buf, size, i, mp->off, l->path, &quiet, xm)) {
		const char *what = strrchr(msg, ':');

		pr_warn(pr, "%s: .BTF member %zu at byte %zu: the extension "
			"in .debug_btf_addr at byte %zu: %s", l->path, i,
			mp->off, mp->ext_off, what ? what + 2 : "not valid BTF");
		free(*buf);
		*buf = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Symbols the slots already point at are nobody else's (mixed archives). */
static void claim_slot_symbols(struct abtf_linker *l)
{
	size_t ss = abtf__slot_size(l), i, k, j;

	for (i = 0; i < l->nr_members; i++) {
		const struct mplan *mp = &l->plans[i];

		for (k = 0; mp->has_group && k < mp->nr_slots; k++) {
			size_t at = mp->slots_off + k * ss;
			uint64_t v = 0;

			if (l->ehdr.e_type == ET_REL) {
				struct rela key = { .offset = at }, *r;

				r = bsearch(&key, l->relas, l->nr_relas,
					    sizeof(key), rela_cmp);
				if (r && r->sym < l->nr_symvals)
					l->sym_used[r->sym] = true;
				continue;
			}
			memcpy(&v, l->addr_data + at, ss);
			for (j = 0; v && j < l->nr_syms; j++)
				if (l->syms[j].type == STT_OBJECT &&
				    l->syms[j].value == v - 1)
					l->sym_used[l->syms[j].idx] = true;
		}
	}
}

/*
 * The n-th member defining a static "x" takes the n-th unused local "x" of
 * the same size (ld keeps each input's local symbols together, in input
 * order; the size keeps a static the linker dropped from taking the next
 * object's); a global takes the global. Only for members without a
 * .debug_btf_addr group.
 */
static int name_place(struct abtf_linker *l, const char *name, int linkage,
		      uint32_t size, struct place *pl)
{
	size_t lo = abtf__first_sym(l, name);

	memset(pl, 0, sizeof(*pl));
	for (; lo < l->nr_syms && !strcmp(l->syms[lo].name, name); lo++) {
		const struct lsym *s = &l->syms[lo];
		bool local = s->bind == STB_LOCAL;

		if (s->type != STT_OBJECT || l->sym_used[s->idx] ||
		    local != (linkage == BTF_VAR_STATIC) || s->size != size)
			continue;
		l->sym_used[s->idx] = true;
		pl->present = true;
		pl->key = s->shndx;
		pl->off = s->value;
		if (l->ehdr.e_type != ET_REL)
			pl->off -= l->secs[s->shndx].addr;
		return 0;
	}
	return 0;
}

static int place_member_vars(struct abtf_linker *l, struct mplan *mp,
			     const struct abtf_member *m)
{
	uint32_t off = 0, id, *size_of;
	const uint8_t *types = m->types;
	int err = 0;

	size_of = calloc(m->nr_types + 1, sizeof(*size_of));
	mp->vars = calloc(m->nr_types + 1, sizeof(*mp->vars));
	if (!size_of || !mp->vars) {
		free(size_of);
		return -ENOMEM;
	}
	for (id = 1; id <= m->nr_types; id++) {	/* VAR sizes from DATASECs */
		struct btf_type t;
		struct btf_var_secinfo v;
		uint16_t i;

		memcpy(&t, types + off, sizeof(t));
		for (i = 0; BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC &&
			    i < BTF_INFO_VLEN(t.info); i++) {
			memcpy(&v, types + off + sizeof(t) + i * sizeof(v),
			       sizeof(v));
			if (v.type && v.type <= m->nr_types)
				size_of[v.type] = v.size;
		}
		off += abtf__record_size(&t);
	}
	for (off = 0, id = 1; id <= m->nr_types; id++) {
		struct btf_type t;
		struct btf_var var;

		memcpy(&t, types + off, sizeof(t));
		if (BTF_INFO_KIND(t.info) == BTF_KIND_VAR) {
			struct place *pl = &mp->vars[mp->nr_vars++];

			memcpy(&var, types + off + sizeof(t), sizeof(var));
			err = name_place(l, m->strs + t.name_off, var.linkage,
					 size_of[id], pl);
			pl->size = size_of[id];
		}
		off += abtf__record_size(&t);
	}
	free(size_of);
	return err;
}

/* In link order, one member at a time: the claims must happen in order. */
static int place_by_name(struct abtf_linker *l)
{
	struct node one = { .nr = 1, .leaf = true };
	struct abtf_member m;
	size_t i;
	int err;

	if (l->st.nr_addr_groups == l->nr_members || !l->elf)
		return 0;
	claim_slot_symbols(l);
	one.pr = l->pr;
	for (i = 0; i < l->nr_members; i++) {
		uint8_t *buf;

		if (l->plans[i].has_group)
			continue;
		one.first = i;
		buf = abtf__read_leaf(l, &one, &m);
		if (!buf)
			return one.err;
		err = place_member_vars(l, &l->plans[i], &m);
		free(buf);
		if (err)
			return err;
	}
	return 0;
}

/* ---- merging ---- */

const uint8_t *abtf__aligned_types(const struct abtf_member *m, void **copy)
{
	*copy = NULL;
	if (!((uintptr_t)m->types % 4))
		return m->types;
	*copy = malloc(m->type_len ? m->type_len : 1);
	if (*copy)
		memcpy(*copy, m->types, m->type_len);
	return *copy;
}

void abtf__member_input(struct abtf_linker *l, const struct mplan *mp,
			 const struct abtf_member *m, const uint8_t *types,
			 struct input *in)
{
	memset(in, 0, sizeof(*in));
	in->kind = !l->elf ? IN_RAW : mp->has_group ? IN_SLOTS : IN_NAMES;
	in->types = types;
	in->type_len = m->type_len;
	in->strs = m->strs;
	in->str_len = m->str_len;
	in->nr_types = m->nr_types;
	in->plan = mp;
}

static int finish_node(struct abtf_linker *l, struct node *n)
{
	if (!n->root)
		return abtf__node_finish(l, n);
	l->btf = abtf__node_root_btf(l, n);
	return l->btf ? 0 : (errno ? -errno : -EINVAL);
}

/* Read member @i into @buf (grown as needed), validated and described. */
static int read_member(struct abtf_linker *l, struct node *n, size_t i,
		       uint8_t **buf, size_t *cap, struct abtf_member *m)
{
	struct mplan *mp = &l->plans[i];
	int err;

	if (mp->size > *cap) {
		uint8_t *nb = realloc(*buf, mp->size);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = mp->size;
	}
	err = pread_all(l->fd, *buf, mp->size, l->btf_off + mp->off);
	if (err) {
		pr_warn(&n->pr, "%s: cannot read .BTF: %s", l->path,
			strerror(-err));
		return err;
	}
	if (mp->nr_types) {	/* validated by the plan already */
		abtf__member_describe(*buf, mp->off, mp->nr_types, m);
	} else {
		err = abtf__member_check(*buf, mp->size, i, mp->off, l->path,
					 &n->pr, m);
		if (err)
			return err;
	}
	if (mp->check_hash && abtf__hash32(*buf, mp->size) != mp->hash) {
		pr_warn(&n->pr, "%s: .BTF member %zu at byte %zu: its "
			".debug_btf_addr group is for another member",
			l->path, i, mp->off);
		return -EINVAL;
	}
	return 0;
}

/* A leaf reads its members one at a time: memory is one member's size. */
static int merge_leaf(struct abtf_linker *l, struct node *n, void *ctx)
{
	uint8_t *buf = NULL, *xbuf = NULL;
	size_t cap = 0, i;
	int err = 0;

	for (i = n->first; !err && i < n->first + n->nr; i++) {
		const uint8_t *types;
		struct abtf_member m;
		struct input in;
		uint8_t *filtered = NULL;
		void *copy = NULL;

		err = read_member(l, n, i, &buf, &cap, &m);
		if (!err)
			err = abtf__member_extend(l, &n->pr, i, &m, &xbuf, &m);
		if (err)
			break;
		types = abtf__aligned_types(&m, &copy);
		if (!types) {
			err = -ENOMEM;
			break;
		}
		abtf__member_input(l, &l->plans[i], &m, types, &in);
		err = abtf__filter_input(l, &in, &filtered);
		if (!err)
			err = abtf__node_merge(l, n, &in);
		if (err && !n->msg[0])
			pr_warn(&n->pr, "%s: .BTF member %zu at byte %zu: "
				"cannot merge: %s", l->path, i,
				l->plans[i].off, strerror(-err));
		free(filtered);
		free(copy);
		free(xbuf);
		xbuf = NULL;
	}
	free(xbuf);
	free(buf);
	return err ? err : finish_node(l, n);
}

static void child_input(const struct node *c, struct input *in)
{
	const struct btf_header *hdr = c->raw;

	memset(in, 0, sizeof(*in));
	in->kind = IN_CHILD;
	in->types = (const uint8_t *)c->raw + hdr->hdr_len + hdr->type_off;
	in->type_len = hdr->type_len;
	in->strs = (const char *)c->raw + hdr->hdr_len + hdr->str_off;
	in->str_len = hdr->str_len;
	in->vars = c->vars;
	in->nr_vars = c->nr_vars;
}

static uint32_t count_types(const uint8_t *types, uint32_t len)
{
	uint32_t off = 0, n = 0;

	while (off < len) {
		off += abtf__record_size((const void *)(types + off));
		n++;
	}
	return n;
}

static int merge_children(struct abtf_linker *l, struct node *n, void *ctx)
{
	struct node *below = ctx;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n->nr; i++) {
		struct node *c = &below[n->first + i];
		struct input in;

		child_input(c, &in);
		in.nr_types = count_types(in.types, in.type_len);
		err = abtf__node_merge(l, n, &in);
		abtf__node_free(c);	/* merged: its memory can go */
	}
	return err ? err : finish_node(l, n);
}

/* Levels of up to ABTF_FAN_IN children each, until one root. */
static int merge_tree(struct abtf_linker *l, struct node *level, size_t nr)
{
	struct node *up;
	size_t i, nup;
	int err = 0;

	while (nr > 1 && !err) {
		nup = (nr + ABTF_FAN_IN - 1) / ABTF_FAN_IN;
		up = calloc(nup, sizeof(*up));
		if (!up) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < nup; i++) {
			up[i].first = i * ABTF_FAN_IN;
			up[i].nr = nr - up[i].first < ABTF_FAN_IN ?
				   nr - up[i].first : ABTF_FAN_IN;
			up[i].root = nup == 1;
		}
		err = abtf__run_level(l, up, nup, merge_children, level);
		for (i = 0; i < nr; i++)
			abtf__node_free(&level[i]);
		free(level);
		level = up;
		nr = nup;
	}
	for (i = 0; i < nr; i++)
		abtf__node_free(&level[i]);
	free(level);
	return err;
}

/* ---- the link ---- */

static int load_base(struct abtf_linker *l)
{
	if (!l->opts.base_path)
		return 0;
	l->base = btf__parse(l->opts.base_path, NULL);
	if (!l->base) {
		int err = -errno;

		pr_warn(&l->pr, "%s: cannot read base BTF: %s",
			l->opts.base_path, strerror(errno));
		return err;
	}
	return 0;
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

/* One member and no .debug_btf_addr left to apply: what btf-link writes. */
static bool is_final(const struct abtf_linker *l)
{
	return l->nr_members == 1 && !l->addr_size;
}

/* A final BTF may be split (a module's): libbpf checks it against the base. */
static int keep_final(struct abtf_linker *l)
{
	size_t size = l->plans[0].size;
	uint8_t *buf = malloc(size);
	int err;

	if (!buf)
		return -ENOMEM;
	err = pread_all(l->fd, buf, size, l->btf_off);
	if (!err) {
		l->btf = abtf__new_btf(buf, size, l->base);
		if (!l->btf)
			err = -errno ? -errno : -EINVAL;
	}
	free(buf);
	if (err)
		return link_error(l, err, l->base ?
				  "cannot load the final BTF against the base" :
				  "cannot load the final BTF (split BTF needs --base)");
	err = verify_final(l);
	if (err)
		return err;
	l->final_input = true;
	return 1;
}

static unsigned int thread_count(const struct abtf_linker *l)
{
	long n = l->opts.nr_threads;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n;
}

static int plan(struct abtf_linker *l, struct node **leaves, size_t *nr)
{
	int err;

	*leaves = make_leaves(l, nr);
	if (!*leaves)
		return -ENOMEM;
	/*
	 * Without groups to pair, or with one per member, the leaves validate
	 * their members as they merge them; otherwise every member is
	 * validated and hashed first, to find which have a group.
	 */
	if (l->elf && l->addr_size && !pair_one_to_one(l)) {
		err = abtf__run_level(l, *leaves, *nr, hash_leaf, NULL);
		if (err)
			return err;
		pair_groups(l);
	}
	err = place_by_name(l);
	if (err)
		return err;
	if (l->feats & (ABTF_FEAT_CONSISTENT_FUNC | ABTF_FEAT_OPTIMIZED_FUNC)) {
		err = abtf__funcs_select(l, *leaves, *nr);
		if (err)
			return err;
	}
	if (*nr == 1)
		(*leaves)[0].root = true;
	return 0;
}

/* ---- two identical structs: linking again ---- */

/* Structs and unions by name, kind, size and members (names, types, offsets). */
static int shape_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct btf *btf = ctx;
	const struct btf_type *a = btf__type_by_id(btf, *(const uint32_t *)pa);
	const struct btf_type *b = btf__type_by_id(btf, *(const uint32_t *)pb);
	const struct btf_member *ma = btf_members(a), *mb = btf_members(b);
	int d = strcmp(btf__name_by_offset(btf, a->name_off),
		       btf__name_by_offset(btf, b->name_off));
	uint16_t i;

	if (d)
		return d;
	if (a->info != b->info)
		return a->info < b->info ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	for (i = 0; i < btf_vlen(a); i++) {
		d = strcmp(btf__name_by_offset(btf, ma[i].name_off),
			   btf__name_by_offset(btf, mb[i].name_off));
		if (d)
			return d;
		if (ma[i].type != mb[i].type)
			return ma[i].type < mb[i].type ? -1 : 1;
		if (ma[i].offset != mb[i].offset)
			return ma[i].offset < mb[i].offset ? -1 : 1;
	}
	return 0;
}

/*
 * Whether the final BTF (its split part) holds two identical named structs
 * or unions (the same members, of the same types): the sign of exact.c's
 * FWD pairing gone wrong (exact.c's essay). libbpf's dedup leaves such
 * copies only when the graph it was given views one struct two ways
 * (structs of one name that differ in a member's type, it may keep, as in
 * pahole's BTF: not a sign). A false alarm only costs the link again.
 */
static int has_twin_structs(const struct abtf_linker *l, bool *twins)
{
	uint32_t id, first = l->base ? btf__type_cnt(l->base) : 1;
	uint32_t end = btf__type_cnt(l->btf), *ids, nr = 0, i;

	*twins = false;
	ids = malloc((end - first + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (id = first; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(l->btf, id);

		if ((btf_is_struct(t) || btf_is_union(t)) && t->name_off)
			ids[nr++] = id;
	}
	qsort_r(ids, nr, sizeof(*ids), shape_cmp, l->btf);
	for (i = 1; i < nr && !*twins; i++)
		*twins = !shape_cmp(&ids[i - 1], &ids[i], l->btf);
	free(ids);
	return 0;
}

/* The leaves merged, then the tree above them up to the final BTF. */
static int merge_levels(struct abtf_linker *l, struct node *leaves,
			size_t nr)
{
	double t1 = now(), t2;
	size_t i;
	int err;

	err = abtf__run_level(l, leaves, nr, merge_leaf, NULL);
	t2 = now();
	l->st.t_merge += t2 - t1;
	l->st.types_in = l->st.funcs = 0;
	for (i = 0; i < nr; i++) {
		l->st.types_in += leaves[i].types_in;
		l->st.funcs += leaves[i].funcs;
	}
	if (err) {
		for (i = 0; i < nr; i++)
			abtf__node_free(&leaves[i]);
		free(leaves);
		return err;
	}
	err = merge_tree(l, leaves, nr);	/* frees the leaves */
	l->st.t_dedup += now() - t2;
	return err;
}

/* The whole merge again, without exact.c's FWD-to-struct pairing. */
static int link_again(struct abtf_linker *l)
{
	struct node *leaves;
	size_t nr;

	pr_debug(&l->pr, "%s: two identical structs: linking again without "
		 "pairing FWDs to structs early", l->path);
	btf__free(l->btf);
	l->btf = NULL;
	l->no_fwd_pair = true;
	leaves = make_leaves(l, &nr);
	if (!leaves)
		return -ENOMEM;
	if (nr == 1)
		leaves[0].root = true;
	return merge_levels(l, leaves, nr);
}

ABTF_API int abtf_linker__link(struct abtf_linker *l)
{
	double t0 = now();
	struct node *leaves = NULL;
	size_t nr = 0, i;
	bool twins = false;
	int err;

	if (l->btf)
		return l->final_input;
	l->nr_threads = thread_count(l);
	err = walk_members(l);
	if (!err)
		err = load_base(l);
	if (err)
		return err;
	l->st.nr_members = l->nr_members;
	l->st.bytes_in = l->btf_size;
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
	l->st.t_parse = now() - t0;
	if (err) {
		for (i = 0; leaves && i < nr; i++)
			abtf__node_free(&leaves[i]);
		free(leaves);
		return err;
	}
	err = merge_levels(l, leaves, nr);
	if (!err)
		err = has_twin_structs(l, &twins);
	if (!err && twins)
		err = link_again(l);
	if (!err)
		err = verify_final(l);
	if (!err && !l->elf && l->nr_members > 1)
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

/* ---- output ---- */

ABTF_API int abtf_linker__write_raw(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;
	int err;

	if (!l->btf)
		return -EINVAL;
	raw = btf__raw_data(l->btf, &size);
	if (!raw)
		return -ENOMEM;
	err = abtf_write_file(dst, raw, size);
	if (err)
		pr_warn(&l->pr, "%s: cannot write: %s", dst, strerror(-err));
	return err;
}

/* A relocatable input: libelf lays it out again, sections keep indices. */
static int write_rel(struct abtf_linker *l, const char *dst, const void *raw,
		     uint32_t size)
{
	static const struct abtf_reloc none;
	struct abtf_section secs[2] = {
		{ .name = ABTF_SEC_BTF, .type = SHT_PROGBITS, .align = 4,
		  .data = raw, .size = size },
		{ .name = ABTF_SEC_ADDR, .type = SHT_PROGBITS, .align = 8,
		  .data = "", .size = 0, .relocs = &none, .nr_relocs = 0 },
	};

	return abtf__elf_set_sections(l->elf, l->path, dst, secs,
				      l->addr_shndx ? 2 : 1, &l->pr);
}

static int copy_file(int from, int to)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(from, buf, sizeof(buf), off)) > 0) {
		char *p = buf;
		ssize_t left = n;

		while (left > 0) {
			ssize_t w = write(to, p, left);

			if (w < 0)
				return -errno;
			p += w;
			left -= w;
		}
		off += n;
	}
	return n < 0 ? -errno : 0;
}

static int set_section(Elf *elf, size_t shndx, const void *data, size_t size)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr shdr;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &shdr) || !(d = elf_getdata(scn, NULL)))
		return -EINVAL;
	if (size > shdr.sh_size)
		return -EFBIG;
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	shdr.sh_size = size;
	if (!gelf_update_shdr(scn, &shdr))
		return -EINVAL;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

/*
 * A linked image: the layout must not move (program headers map it), so
 * the final BTF is written over the archive at the same offset and the
 * section shrinks; .debug_btf_addr and its relocations are emptied likewise.
 */
static int write_exec(struct abtf_linker *l, const char *dst, const void *raw,
		      uint32_t size)
{
	Elf *elf = NULL;
	char *tmp;
	int fd, err;

	fd = abtf__tmpfile_for(dst, &tmp);
	if (fd < 0)
		return fd;
	err = copy_file(l->fd, fd);
	if (err)
		goto out_abort;
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!elf) {
		err = -EINVAL;
		goto out_abort;
	}
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	err = set_section(elf, l->btf_shndx, raw, size);
	if (err == -EFBIG)
		pr_warn(&l->pr, "%s: the final BTF (%u bytes) is larger than "
			"the .BTF section; write it with -o", l->path, size);
	if (!err && l->addr_shndx)
		err = set_section(elf, l->addr_shndx, "", 0);
	if (!err && elf_update(elf, ELF_C_WRITE) < 0) {
		pr_warn(&l->pr, "%s: cannot write: %s", dst, elf_errmsg(-1));
		err = -EIO;
	}
	elf_end(elf);
	elf = NULL;
	if (close(fd) && !err)
		err = -errno;
	fd = -1;
	if (err)
		goto out_abort;
	return abtf__tmpfile_commit(tmp, dst);
out_abort:
	if (err != -EFBIG && err != -EIO)
		pr_warn(&l->pr, "%s: cannot write: %s", dst,
			elf ? elf_errmsg(-1) : strerror(-err));
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	abtf__tmpfile_abort(tmp);
	return err;
}

ABTF_API int abtf_linker__write_elf(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;

	if (!l->btf)
		return -EINVAL;
	if (!l->elf)
		return link_error(l, -EINVAL, "not an ELF file; write it with -o");
	if (!dst && l->final_input)
		return 0;	/* already final: leave the file alone */
	raw = btf__raw_data(l->btf, &size);
	if (!raw)
		return -ENOMEM;
	if (l->ehdr.e_type == ET_REL)
		return write_rel(l, dst ? dst : l->path, raw, size);
	return write_exec(l, dst ? dst : l->path, raw, size);
}

static int new_section(Elf *elf, uint32_t name, uint32_t type, uint64_t flags,
		       uint64_t align, const void *data, size_t size)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d;
	GElf_Shdr shdr;

	if (!scn || !(d = elf_newdata(scn)) || !gelf_getshdr(scn, &shdr))
		return -EINVAL;
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align;
	shdr.sh_name = name;
	shdr.sh_type = type;
	shdr.sh_flags = flags;
	shdr.sh_addralign = align;
	shdr.sh_size = size;
	return gelf_update_shdr(scn, &shdr) ? 0 : -EINVAL;
}

/* A relocatable object with the final BTF in an allocatable .BTF. */
static int write_btf_object(struct abtf_linker *l, int fd, const void *raw,
			    uint32_t size)
{
	static const char shstrtab[] = "\0.BTF\0.shstrtab\0.note.GNU-stack";
	GElf_Ehdr ehdr;
	Elf *elf;
	int err = -EINVAL;

	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, l->ehdr.e_ident[EI_CLASS]) ||
	    !gelf_getehdr(elf, &ehdr))
		goto out;
	memcpy(ehdr.e_ident, l->ehdr.e_ident, EI_NIDENT);
	ehdr.e_type = ET_REL;
	ehdr.e_machine = l->ehdr.e_machine;
	ehdr.e_version = EV_CURRENT;
	ehdr.e_flags = l->ehdr.e_flags;
	ehdr.e_shstrndx = 2;
	if (!gelf_update_ehdr(elf, &ehdr) ||
	    new_section(elf, 1, SHT_PROGBITS, SHF_ALLOC, 4, raw, size) ||
	    new_section(elf, 6, SHT_STRTAB, 0, 1, shstrtab, sizeof(shstrtab)) ||
	    new_section(elf, 16, SHT_PROGBITS, 0, 1, "", 0) ||
	    elf_update(elf, ELF_C_WRITE) < 0)
		goto out;
	err = 0;
out:
	if (err)
		pr_warn(&l->pr, "%s: cannot make the BTF object: %s", l->path,
			elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	return err;
}

ABTF_API int abtf_linker__write_object(struct abtf_linker *l, const char *dst)
{
	const void *raw;
	uint32_t size;
	char *tmp;
	int fd, err;

	if (!l->btf)
		return -EINVAL;
	if (!l->elf)
		return link_error(l, -EINVAL,
				  "a raw BTF input does not say the target: "
				  "no object can be made for it");
	raw = btf__raw_data(l->btf, &size);
	if (!raw)
		return -ENOMEM;
	fd = abtf__tmpfile_for(dst, &tmp);
	if (fd < 0) {
		pr_warn(&l->pr, "%s: cannot write: %s", dst, strerror(-fd));
		return fd;
	}
	err = write_btf_object(l, fd, raw, size);
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		abtf__tmpfile_abort(tmp);
		return err;
	}
	return abtf__tmpfile_commit(tmp, dst);
}
