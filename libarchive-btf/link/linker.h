/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal state of the archive linker, shared by its phases (linker.c,
 * the entry; linker_plan.c, input, plan and threads; linker_place.c,
 * pairing with .debug_btf_addr and placing by name; linker_merge.c, the
 * merge tree; linker_write.c, output; linker_explain.c, why a FUNC or VAR
 * is kept or not) and by merge.c (one merge node), funcs.c, kfuncs.c,
 * filter.c and exact.c. See the essay atop linker.c.
 *
 * Each module's state is its own type, declared here beside the others
 * and made, reset and freed by the functions of the file that owns it:
 * struct smap (node_str.c), exact_index (exact.c), func_sigs and
 * func_rules (funcs.c), node_vars (merge.c), kfunc_list (kfuncs.c),
 * link_file, link_symbols and link_plan (linker_plan.c). struct node and
 * struct abtf_linker hold them by value; no file frees another's.
 */
#ifndef __ABTF_LINKER_H
#define __ABTF_LINKER_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <bpf/btf.h>

#include "elf/addr.h"
#include "btf/archive.h"
#include "util/testing.h"

struct btf;

/* ---- the input, read once at open; threads never call libelf ---- */

struct lsec {
	const char *name;
	uint64_t addr, size, flags;
};

/* A defined FUNC or OBJECT symbol, for placement by name. */
struct lsym {
	const char *name;
	/* its first 16 bytes, big-endian, zero after the NUL: sorting */
	uint64_t key[2];
	uint64_t value;
	uint64_t size;
	uint32_t idx;		/* in .symtab */
	uint32_t shndx;
	uint8_t type;		/* STT_FUNC or STT_OBJECT */
	uint8_t bind;
};

/* Every symbol by index: what a relocation of .debug_btf_addr points at. */
struct lsymval {
	uint64_t value;
	uint32_t shndx;
};

/* Where one VAR goes; !present: nowhere (dropped). */
struct place {
	bool present;
	uint32_t key;		/* section index (raw input: DATASEC name's strtab offset) */
	uint64_t off;
	uint32_t size;
	/* raw input: the member DATASEC's name (in a node: its own copy) and size */
	const char *dsec_name;
	uint32_t dsec_size;
};

/* One archive member, as planned before any merging. */
struct mplan {
	size_t off;		/* in .BTF */
	size_t size;		/* its BTF's bytes (inflated, if compressed) */
	size_t zsize;		/* compressed: its bytes in .BTF; 0 if plain */
	uint32_t nr_types;	/* set by its leaf once validated */
	uint32_t hash;
	uint32_t stored_hash;	/* swapped: its bytes' as in the file */
	bool has_group;		/* paired with a .debug_btf_addr group */
	bool check_hash;	/* paired by size: the leaf checks the hash */
	struct abtf_addr_group grp;	/* has_group: its slots, extension, flags */
	struct place *vars;	/* placed by name: one per VAR, in VAR order */
	size_t nr_vars;
};

enum input_kind {
	IN_SLOTS,		/* member with a .debug_btf_addr group */
	IN_NAMES,		/* member placed by name (pahole's) */
	IN_RAW,			/* member of a raw BTF file: no symbols at all */
	IN_CHILD,		/* a merge node's deduplicated result */
};

/* What a merge node takes in: a member or a child node's BTF. */
struct input {
	enum input_kind kind;
	const uint8_t *types;	/* 4-aligned */
	uint32_t type_len;
	const char *strs;
	uint32_t str_len;
	uint32_t nr_types;
	const struct mplan *plan;	/* IN_SLOTS, IN_NAMES */
	const struct place *vars;	/* IN_CHILD: its VARs, in order */
	size_t nr_vars;
	const uint8_t *held;	/* IN_CHILD: its types' FWD reach, or NULL */
	const uint8_t *gone;	/* filter.c: a byte per type ID, 1: dropped */
};

/* A FUNC of a member, for consistent_func (funcs.c): offsets in its strs. */
struct fsig {
	uint32_t name;
	uint32_t sig;		/* its loose signature */
	uint8_t flags;		/* ABTF_FN_* from its group */
	uint32_t member;	/* its member */
	uint32_t ordinal;	/* its place among the member's FUNCs */
};

/*
 * node_str.c's: a node's map of one input's string offsets to its own
 * (node offset + 1, 0: not mapped yet, SMAP_ABSENT: the node has no such
 * string, so no type of the node names it), reset per input from @used.
 */
#define SMAP_ABSENT	UINT32_MAX
struct smap {
	uint32_t *map;
	size_t cap;
	uint32_t *used;		/* the offsets set, to reset */
	size_t nr_used, cap_used;
};

/* exact.c's: a node's types by ID and by hash, for mapping inputs to them. */
struct exact_index {
	uint32_t *type_off;	/* ID - first_id -> offset in the node's types */
	size_t cap_type_off;
	struct abtf_hmap map;	/* can_map() types by their hash: IDs */
	uint32_t *pending;	/* structs appended, indexed after the input */
	size_t nr_pending, cap_pending;
	/*
	 * 1 + ID - first_id -> held back (abtf__fwd_reach()), [0] unused:
	 * a parent takes it as its input's reach instead of working it out
	 * again, where it is known for every type (held_unknown false).
	 * Kept until the node is freed.
	 */
	uint8_t *held;
	size_t nr_held, cap_held;
	bool held_unknown;
};

/* funcs.c's, before the merge: a leaf's FUNCs in the image, by name. */
struct func_sigs {
	struct strtab strs;	/* their names and signatures */
	struct fsig *sigs;
	size_t nr, cap;
};

/*
 * merge.c's: the VARs a node kept, in order, with their places (->size
 * set, ->dsec_name its own copy) and their IDs in the node's types (freed
 * once the node is deduplicated: VARs stay in order).
 */
struct node_vars {
	struct place *places;
	uint32_t *ids;
	size_t nr, cap, cap_ids;
};

/* One node of the merge tree: leaves take members, the others children. */
struct node {
	size_t first, nr;	/* members or child nodes */
	bool leaf, root;
	bool libbpf_dedup;	/* deduplicated by btf__dedup() */
	double t;		/* seconds its thread spent on it */

	struct strtab strs;
	uint8_t *types;
	size_t types_len, types_cap;
	uint32_t first_id, next_id;
	struct abtf_hmap fn_seen;	/* FUNC name offsets + 1 */
	struct node_vars vars;	/* merge.c: the VARs kept */

	struct smap smap;	/* node_str.c: the input's strings to strs */
	struct exact_index ex;	/* exact.c: the node's types by ID and hash */

	struct func_sigs fsigs;	/* funcs.c, before the merge */

	void *raw;		/* result (not root): deduplicated raw BTF */
	uint32_t raw_size;
	size_t types_in, funcs;

	int err;
	char msg[512];		/* the first error, printed in node order */
	struct abtf_printer pr;
};

/* A name funcs.c leaves without a FUNC, and why (ABTF_EXPLAIN_*). */
struct fdrop {
	const char *name;
	uint8_t why;
};

/* A FUNC funcs.c leaves out although its name keeps one, and why. */
struct fskip {
	uint64_t key;		/* member << 32 | its FUNC ordinal */
	uint8_t why;
};

/*
 * funcs.c's function rules (consistent_func, optimized_func), built by
 * abtf__funcs_select() while planning and read-only after: the names left
 * without a FUNC and the FUNCs left out although their name keeps one.
 */
struct func_rules {
	struct strtab drop_strs;	/* drop's names */
	struct fdrop *drop;	/* sorted by name */
	size_t nr_drop, cap_drop;
	struct fskip *skip;	/* sorted by key */
	size_t nr_skip, cap_skip;
};

/* A kfunc of the image's .BTF_ids (kfuncs.c). */
struct kfunc {
	char *name;
	uint32_t flags;		/* its KF_* flags */
	size_t sym;		/* the symbol it came from */
};

/* kfuncs.c's: the image's kfuncs, by name, one each; frozen once collected. */
struct kfunc_list {
	struct kfunc *v;
	size_t nr, cap;
};

/*
 * The input file, opened and read by linker_plan.c (abtf__link_file_open()
 * and, for nr_zmembers, abtf__walk_members()), read-only after planning;
 * freed by its abtf__link_file_free().
 */
struct link_file {
	int fd;
	Elf *elf;		/* NULL for raw BTF input */
	GElf_Ehdr ehdr;
	size_t shstrndx;
	bool swapped;		/* its byte order is not the host's */

	size_t btf_off;		/* the archive (or BTF) in the file */
	size_t btf_size;
	size_t nr_zmembers;
	size_t btf_shndx;	/* .BTF */
	size_t archive_shndx;	/* ABTF_SEC_ARCHIVE, the archive; 0: .BTF */
	struct abtf_addr_sec addr;	/* .debug_btf_addr, mapped */
	size_t addr_shndx;
	struct abtf_addr_relocs relocs;	/* .rela.debug_btf_addr, by offset */
};

/*
 * The input's sections and symbols, read at open (the symbols by name
 * made on demand while planning, abtf__syms_by_name()), read-only after:
 * linker_plan.c's, freed by its abtf__link_symbols_free().
 */
struct link_symbols {
	struct lsec *secs;	/* by section index */
	size_t nr_secs;
	Elf_Scn *symtab;	/* .symtab, NULL without one */
	size_t symtab_strs;	/* its string table's section index */
	struct lsym *syms;	/* defined FUNC/OBJECT symbols, by name */
	size_t nr_syms;
	bool sorted;		/* syms made (abtf__syms_by_name()) */
	bool loaded;		/* vals read (abtf__link_symbols_load()) */
	struct lsymval *vals;	/* every symbol, by index */
	size_t nr_vals;
};

/*
 * The plan: every member as planned before any merging, and which symbols
 * VARs claimed. Made while planning, by linker_plan.c (the members) and
 * linker_place.c (their groups and places); frozen after: the merge reads
 * it from every thread. Freed by linker_plan.c's abtf__link_plan_free().
 */
struct link_plan {
	struct mplan *members;
	size_t nr_members;
	unsigned int nr_threads;
	bool *sym_used;		/* by symbol index: claimed by a VAR */
};

/*
 * A link: each part is made by its owner (the file named) and freed by
 * its owner's function from abtf_linker__free(). The options, file,
 * symbols, plan, kfuncs and function rules are frozen once planning is
 * done (linker.c's plan()): the leaves and levels read them from every
 * thread. One exception: a leaf notes its own members' mplan.nr_types
 * once it validated them.
 */
struct abtf_linker {
	/* linker.c, at abtf_linker__new(): frozen from then on */
	char *path;
	char *where;	/* "PATH: SECTION": the archive, in messages */
	struct abtf_link_opts opts;
	struct abtf_link_testing testing;	/* util/testing.h: set before the link */
	struct abtf_printer pr;
	unsigned int feats;	/* ABTF_FEAT_* the link does */

	struct link_file file;	/* linker_plan.c */
	struct link_symbols sym;	/* linker_plan.c */
	struct link_plan plan;	/* linker_plan.c, linker_place.c */
	struct kfunc_list kfuncs;	/* kfuncs.c (decl_tag_kfuncs) */
	struct func_rules fn_rules;	/* funcs.c (optimized_func...) */

	struct btf *base;	/* linker.c: --base, loaded before planning */
	/* the result: the root's (linker_merge.c), or the input (linker.c) */
	struct btf *btf;
	bool final_input;	/* linker.c: the input was final BTF already */
	/* each phase adds its own figures; linker_place.c reads its own back */
	struct abtf_link_stats st;
};

/* The index of member @mp of the plan. */
static inline size_t abtf__member_idx(const struct abtf_linker *l,
				      const struct mplan *mp)
{
	return mp - l->plan.members;
}

/* The input's byte order: the final BTF is written in it. */
static inline enum btf_endianness
abtf__link_endianness(const struct abtf_linker *l)
{
	enum btf_endianness h = abtf__host_endianness();

	if (!l->file.swapped)
		return h;
	return h == BTF_LITTLE_ENDIAN ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN;
}

/* A leaf merges about this many bytes of members; a node this many inputs. */
#ifndef ABTF_LEAF_BYTES
#define ABTF_LEAF_BYTES	(16u << 20)
#endif
/*
 * The root merges every leaf: below it, a type that reaches a FWD is
 * never merged (docs/design.md, "one meaning"), so a level between the
 * leaves and the root copied most of its input up again (the 6.12 test
 * image: 1.1 s at level 1, 673,000 types passed up).
 */
#ifndef ABTF_FAN_IN
#define ABTF_FAN_IN	4096
#endif

static inline double abtf__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int abtf__link_error(struct abtf_linker *l, int err,
				   const char *what)
{
	pr_warn(&l->pr, "%s: %s", l->path, what);
	return err;
}

static inline int abtf__link_elf_fail(struct abtf_linker *l, const char *what)
{
	pr_warn(&l->pr, "%s: %s: %s", l->path, what, elf_errmsg(-1));
	return -EINVAL;
}

/* linker_plan.c: the input, the plan, the threads, reading members */
int abtf__pread_all(int fd, void *buf, size_t size, size_t off);
void abtf__link_file_init(struct link_file *f);
/* Open l->path: an ELF file's sections, or a raw BTF file. */
int abtf__link_file_open(struct abtf_linker *l);
/* Its symbols' values and sections (l->sym.vals), once; 0 or -errno. */
int abtf__link_symbols_load(struct abtf_linker *l);
void abtf__link_file_free(struct link_file *f);
/*
 * Make l->sym.syms, the defined FUNC and OBJECT symbols sorted by name,
 * for abtf__first_sym(): only placing and choosing by name need them (a
 * member without a .debug_btf_addr group, funcs.c's choices), so a kernel
 * image whose members all have groups pays for neither the memory nor the
 * sort. Single-threaded: before the leaves run. 0 or a negative errno.
 */
int abtf__syms_by_name(struct abtf_linker *l);
size_t abtf__first_sym(const struct abtf_linker *l, const char *name);
/* @len bytes of .BTF at @off, as they are in the file. */
int abtf__read_btf(const struct abtf_linker *l, void *buf, size_t len,
		   size_t off);
/*
 * Member @i's BTF (mplan.size bytes) into @dst: read, or read and inflated,
 * in the host's byte order (errors of the stream are printed to @pr; -EIO:
 * the file could not be read).
 */
int abtf__read_member(const struct abtf_linker *l, size_t i, void *dst,
		      const struct abtf_printer *pr);
/* The hash of member @i (read into @p) that its group's btf_hash is of. */
uint32_t plan__member_hash(const struct abtf_linker *l, size_t i,
			   const void *p);
/* Validate member @i's BTF, read into @p, and describe it in @m. */
int abtf__check_member(const struct abtf_linker *l, size_t i, const void *p,
		       const struct abtf_printer *pr, struct abtf_member *m);
int abtf__walk_members(struct abtf_linker *l);
/* l->plan.nr_threads: the option's, or one per CPU. */
void abtf__plan_threads(struct abtf_linker *l);
void abtf__link_plan_free(struct link_plan *p);
void abtf__link_symbols_free(struct link_symbols *s);
struct node *abtf__make_leaves(struct abtf_linker *l, size_t *nr);
int abtf__run_level(struct abtf_linker *l, struct node *nodes, size_t nr,
		    int (*fn)(struct abtf_linker *, struct node *, void *),
		    void *ctx);
uint8_t *abtf__read_leaf(struct abtf_linker *l, struct node *n,
			 struct abtf_member *ms);
/* A read buffer that a pass over many members keeps: freed by its owner. */
struct abtf_rbuf {
	uint8_t *data;
	size_t cap;
};
uint8_t *abtf__read_leaf_in(struct abtf_linker *l, struct node *n,
			    struct abtf_member *ms, struct abtf_rbuf *rb);
const uint8_t *abtf__aligned_types(const struct abtf_member *m, void **copy);
void plan__member_input(struct abtf_linker *l, const struct mplan *mp,
			const struct abtf_member *m, const uint8_t *types,
			struct input *in);

/* linker_place.c: pairing with .debug_btf_addr, placing by name */
int abtf__link_place(struct abtf_linker *l, struct node *leaves, size_t nr);
int place__member_extend(struct abtf_linker *l, const struct abtf_printer *pr,
			size_t i, const struct abtf_member *m, uint8_t **buf,
			struct abtf_member *xm);
/* The same whatever the features (explain: clones optimized_func leaves). */
int place__member_extend_any(struct abtf_linker *l,
			    const struct abtf_printer *pr, size_t i,
			    const struct abtf_member *m, uint8_t **buf,
			    struct abtf_member *xm);
typedef int (*abtf_member_fn_t)(const struct input *in, uint32_t nr_slots,
				void *ctx);
int abtf__with_member(struct abtf_linker *l, const struct abtf_printer *pr,
		      size_t i, bool any_ext, struct abtf_rbuf *rb,
		      abtf_member_fn_t fn, void *ctx);

/* linker_merge.c: the merge tree */
int abtf__merge_levels(struct abtf_linker *l, struct node *leaves, size_t nr);
/* A finished non-root node's BTF (its raw result) as an input. */
void abtf__child_input(const struct node *c, struct input *in);

/* funcs.c */
/* Build l->fn_rules from every leaf's members. */
int abtf__funcs_select(struct abtf_linker *l, struct node *leaves, size_t nr);
void funcs__sigs_free(struct func_sigs *fs);
void funcs__rules_free(struct func_rules *fr);
/* Why the rules leave @name without a FUNC (ABTF_EXPLAIN_*), 0 if not. */
int funcs__dropped(const struct func_rules *fr, const char *name);
/* Why the rules leave out a member's FUNC, 0 if they do not. */
int funcs__skipped(const struct func_rules *fr, size_t member,
		       uint32_t ordinal);
/*
 * The loose signature funcs.c compares prototypes by (types__match) of
 * the FUNC @id of @in, whose records are at @toff[ID]: malloc()ed, or NULL.
 */
char *funcs__sig(const struct input *in, const uint32_t *toff,
		     uint32_t id);
int abtf__drop_func_protos(const struct input *in, const uint32_t *toff,
			   uint32_t *map);

/* kfuncs.c */
/* Fill l->kfuncs from the image's .BTF_ids. */
int abtf__collect_kfuncs(struct abtf_linker *l);
void abtf__free_kfuncs(struct kfunc_list *kl);
const struct kfunc *abtf__find_kfunc(const struct kfunc_list *kl,
				     const char *name);
int abtf__kfunc_tags(const struct kfunc *k, const char **tags);

/* merge.c */
int merge__node_merge(struct abtf_linker *l, struct node *n,
		     const struct input *in);
int merge__node_finish(struct abtf_linker *l, struct node *n);
/* The root's @n->nr children @kids merged, a task per child (no base). */
int merge__root_children(struct abtf_linker *l, struct node *n,
			 struct node *kids);
struct btf *merge__root_btf(struct abtf_linker *l, struct node *n);
void merge__node_free(struct node *n);
/*
 * node_dedup.c: deduplicate the raw BTF *@raw (header, types, strings;
 * split on @base, whose strings take @base_str_len bytes, if not NULL)
 * as btf__dedup() would, into a new *@raw of *@size bytes. 0; 1 when
 * libbpf must decide (*@raw is then the same BTF, its strings already
 * deduplicated); a negative errno with *@raw as it was. Run at the root
 * of the merge tree only, on the node's BTF as merge.c made it: its
 * strings interned (no two equal, each referenced from its start), so
 * that a table already in libbpf's order can be kept as it is.
 */
int node_dedup__run(void **raw, size_t *size, const struct btf *base,
		    uint32_t base_str_len);
/* Slot @k of member @mp: where its FUNC or VAR is (linker_place.c). */
int abtf__slot_place(const struct abtf_linker *l, const struct mplan *mp,
		     uint32_t k, struct place *pl);
int place__func_present(struct abtf_linker *l, const struct input *in,
		       uint32_t slot, const char *name);
/*
 * The same, saying why not: ABTF_EXPLAIN_KEPT (0) if it is there,
 * ABTF_EXPLAIN_DISCARDED, _RENAMED or _NO_SYMBOL if not, < 0 error.
 */
int place__func_placed(struct abtf_linker *l, const struct input *in,
		      uint32_t slot, const char *name);
/* merge.c: a VAR's rules. Is @pl in the final .data..percpu? */
bool abtf__in_percpu_section(const struct abtf_linker *l,
			     const struct place *pl);
/* May a VAR have the name @p (pahole's btf_name_valid())? */
bool abtf__var_name_valid(const char *p);

/* node_str.c: a node's string map (struct smap) */
/* Room for the offsets of an input of @str_len bytes of strings, all unset. */
int abtf__smap_reserve(struct smap *m, uint32_t str_len);
/* Unset what the last input set. */
void abtf__smap_clear(struct smap *m);
void abtf__smap_free(struct smap *m);
int64_t node_str__get(struct node *n, const struct input *in, uint32_t off);
int64_t node_str__find(struct node *n, const struct input *in, uint32_t off);
bool node_str__cmp(struct node *n, const struct input *in, uint32_t off,
			uint32_t node_off);

/* Is string @off of @in the node's string @node_off? */
static inline bool abtf__node_str_is(struct node *n, const struct input *in,
				     uint32_t off, uint32_t node_off)
{
	if (n->smap.map[off])
		return n->smap.map[off] != SMAP_ABSENT &&
		       n->smap.map[off] - 1 == node_off;
	return node_str__cmp(n, in, off, node_off);
}

/* linker_plan.c: the STT_FILE symbol before local symbol @idx, or NULL */
const char *abtf__sym_file(const struct abtf_linker *l, size_t idx);

/* filter.c */
int abtf__filter_input(const struct abtf_linker *l, struct input *in,
		       uint8_t **buf);

/* exact.c */
#define EXACT_NEW	UINT32_MAX	/* a surviving type not mapped (yet) */
int abtf__exact_map(struct node *n, const struct input *in, uint32_t *map,
		    const uint32_t *toff, uint8_t *held);
int abtf__exact_add(struct node *n, uint32_t id, size_t off,
		    const uint8_t *held);
const uint8_t *abtf__exact_held(const struct node *c, uint32_t nr_types);
/*
 * @fwd[id]: type @id of @types (at @off[id]) reaches a FWD, or an enum
 * without values (exact.c).
 */
int abtf__fwd_reach(const uint8_t *types, const uint32_t *off, uint32_t nr,
		    uint8_t *fwd);
/*
 * A struct member type's signature, which every type a walk (exact.c's,
 * or libbpf's in node_dedup.c) may find equal to it shares: its records
 * through up to 4 modifiers, pointers, typedefs and arrays but their type
 * IDs, then the name reached. @name_of gives a record's name as a string
 * offset of the table both sides share; @type_of a type by ID (not 0),
 * NULL for none. Not negative, or @name_of's negative errno.
 */
struct abtf_sig_src {
	const void *ctx;
	const struct btf_type *(*type_of)(const void *ctx, uint32_t id);
	int64_t (*name_of)(const void *ctx, uint32_t off);
};
int64_t exact__member_sig(const struct abtf_sig_src *s, uint32_t id);
/* After each input: index the structs and unions it appended. */
int abtf__exact_index(struct node *n);
void abtf__exact_free_index(struct exact_index *ex);
void abtf__exact_free(struct exact_index *ex);

#endif /* __ABTF_LINKER_H */
