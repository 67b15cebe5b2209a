/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libarchive-btf: per-object BTF for Linux kernel builds.
 *
 * The library behind cc-btf (encode one object's DWARF into a .BTF section)
 * and btf-link (turn the BTF archive that the linker concatenates into one
 * deduplicated BTF).
 *
 * Conventions (those of libbpf):
 *  - objects are opaque and named object__verb();
 *  - a function returning int returns 0 (or a count/ID) on success and a
 *    negative errno on failure; a function returning a pointer returns NULL
 *    and sets errno;
 *  - the library never prints and never exits: every message goes through
 *    the print callback given in the options of the object that produced it;
 *  - options that may grow are structs whose first member is their size.
 */
#ifndef __ARCHIVE_BTF_H
#define __ARCHIVE_BTF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ABTF_API
#define ABTF_API __attribute__((visibility("default")))
#endif

#define ABTF_MAJOR_VERSION 0
#define ABTF_MINOR_VERSION 1

struct btf;

enum abtf_print_level {
	ABTF_WARN,	/* errors and warnings: what a user must see */
	ABTF_INFO,	/* progress a user asked for with -v */
	ABTF_DEBUG,	/* details for developers */
};

/*
 * The print callback. @ctx is the print_ctx of the options the object was
 * created with. Error messages are one line without a trailing newline and
 * name the file and the place: "FILE: DIE 0x2a (struct foo): what".
 */
typedef void (*abtf_print_fn_t)(enum abtf_print_level level, void *ctx,
				const char *fmt, va_list args);

/* Names of the ELF sections the encoder writes into an object. */
#define ABTF_SEC_BTF		".BTF"
/*
 * One 8-byte address slot per FUNC and per VAR of the object's BTF, in type
 * ID order, each filled by the linker through an absolute relocation against
 * the function's or variable's symbol with addend 1 (0 = discarded). See
 * docs/design.md.
 */
#define ABTF_SEC_ADDR		".debug_btf_addr"

/*
 * A relocatable object's BTF archive, kept aside by a link with
 * abtf_link_opts.keep_archive while .BTF holds the final BTF: a debug
 * section, which the module loader ignores and strip --strip-debug
 * removes with .debug_btf_addr. A later link of the object reads its
 * archive from here (a module linked again on a new vmlinux).
 */
#define ABTF_SEC_ARCHIVE	".debug_btf_archive"

/* Options of the DWARF -> BTF encoder. */
struct abtf_encode_opts {
	size_t sz;		/* sizeof(struct abtf_encode_opts) */
	abtf_print_fn_t print;	/* NULL: the library stays silent */
	void *print_ctx;
	/* do not write the .debug_btf_addr slots (objects btf-link fixes by name) */
	bool no_addr;
	/*
	 * Was libbpf_dedup, a switch for the tests, now internal; kept as
	 * padding so that the fields after it stay where they were. Set or
	 * not, it changes nothing: the BTF came out the same either way.
	 */
	unsigned char :8;
	/*
	 * Write the object's .BTF as a compressed archive member (zlib, about
	 * 0.4 times the size; docs/archive-format.md): only btf-link reads
	 * it. abtf_encoder__write_raw() writes plain BTF all the same.
	 */
	bool compress;
	size_t :0;
};

struct abtf_encoder;

/*
 * Open the ELF object @path for encoding. Nothing is read beyond the ELF
 * header until abtf_encoder__encode().
 */
ABTF_API struct abtf_encoder *
abtf_encoder__new(const char *path, const struct abtf_encode_opts *opts);
ABTF_API void abtf_encoder__free(struct abtf_encoder *enc);

/*
 * Encode the object's DWARF into BTF, deduplicated and canonical.
 * Returns 0, -ENODATA if the object has no DWARF (nothing was encoded),
 * -EOPNOTSUPP for DWARF that BTF cannot express, or another -errno.
 */
ABTF_API int abtf_encoder__encode(struct abtf_encoder *enc);

/* The encoded BTF, owned by @enc; NULL before a successful encode. */
ABTF_API const struct btf *abtf_encoder__btf(const struct abtf_encoder *enc);

/*
 * Write the object with its .BTF (and .debug_btf_addr) sections to @dst, or back
 * to its own path if @dst is NULL. Existing .BTF sections are replaced. The
 * output is written to a temporary file in the same directory and renamed,
 * so a failure leaves @dst (and the input) as they were.
 */
ABTF_API int abtf_encoder__write_object(struct abtf_encoder *enc,
					const char *dst);

/* Write the encoded BTF as a raw BTF file (atomically, as above). */
ABTF_API int abtf_encoder__write_raw(struct abtf_encoder *enc, const char *dst);

/*
 * Named BTF features, with pahole's names and meaning (pahole >= 1.26,
 * --btf_features): the kernel's scripts/Makefile.btf asks pahole for a set of
 * them, and the kbuild patches ask btf-link for the same set, so the BTF a
 * tree gets does not depend on which tool made it. A link's features are a
 * mask of these bits; abtf_btf_features__parse() reads pahole's list syntax,
 * abtf_btf_feature__name() names a bit. The bits are in pahole's order. What
 * each one means for btf-link is in docs/design.md ("BTF features").
 */
enum abtf_btf_feature {
	ABTF_FEAT_ENCODE_FORCE		= 1u << 0,
	ABTF_FEAT_VAR			= 1u << 1,
	ABTF_FEAT_FLOAT			= 1u << 2,
	ABTF_FEAT_DECL_TAG		= 1u << 3,
	ABTF_FEAT_TYPE_TAG		= 1u << 4,
	ABTF_FEAT_ENUM64		= 1u << 5,
	ABTF_FEAT_OPTIMIZED_FUNC	= 1u << 6,
	ABTF_FEAT_CONSISTENT_FUNC	= 1u << 7,
	ABTF_FEAT_DECL_TAG_KFUNCS	= 1u << 8,
	ABTF_FEAT_REPRODUCIBLE_BUILD	= 1u << 9,
	ABTF_FEAT_DISTILLED_BASE	= 1u << 10,
	ABTF_FEAT_GLOBAL_VAR		= 1u << 11,
	ABTF_FEAT_ATTRIBUTES		= 1u << 12,
	ABTF_FEAT_TRUE_SIGNATURE	= 1u << 13,
	ABTF_FEAT_LAYOUT		= 1u << 14,
};

/*
 * What a link does when no feature is named: what btf-link always did, the
 * BTF of Debian 12's pahole 1.24 with --btf_gen_floats.
 */
#define ABTF_FEATS_DEFAULT						\
	(ABTF_FEAT_VAR | ABTF_FEAT_FLOAT | ABTF_FEAT_DECL_TAG |		\
	 ABTF_FEAT_TYPE_TAG | ABTF_FEAT_ENUM64 | ABTF_FEAT_REPRODUCIBLE_BUILD)

/* pahole's "default" set (--btf_features=default, or a list starting '+'). */
#define ABTF_FEATS_PAHOLE_DEFAULT					\
	(ABTF_FEAT_ENCODE_FORCE | ABTF_FEAT_VAR | ABTF_FEAT_FLOAT |		\
	 ABTF_FEAT_DECL_TAG | ABTF_FEAT_TYPE_TAG | ABTF_FEAT_ENUM64 |	\
	 ABTF_FEAT_OPTIMIZED_FUNC | ABTF_FEAT_CONSISTENT_FUNC |		\
	 ABTF_FEAT_DECL_TAG_KFUNCS)

/*
 * Not a feature: marks a mask as named, so that a list that names nothing
 * ("--btf_features=", every feature off, as in pahole) is told apart from
 * 0 (ABTF_FEATS_DEFAULT). abtf_btf_features__parse() sets it.
 */
#define ABTF_FEATS_GIVEN	(1u << 31)

/*
 * Add the features of the list @list to *@mask, as one pahole
 * --btf_features=@list option: comma-separated names, each switched on;
 * "default" (or pahole 1.26's "all") is pahole's default set; a leading
 * '+' adds the default set to the names that follow; empty names are
 * skipped. Start from *@mask = 0 and pass several lists one after the
 * other to combine them as several options do. Features no list names are
 * off. Returns 0, or -ENOENT if a name is unknown (*@mask is then left as
 * it was: unlike pahole's --btf_features, and like its
 * --btf_features_strict, an unknown name is an error), -EINVAL on NULL.
 */
ABTF_API int abtf_btf_features__parse(const char *list, unsigned int *mask);

/* pahole's name of the feature bit @feature, or NULL if it is not one. */
ABTF_API const char *abtf_btf_feature__name(unsigned int feature);

/* The feature bit named @name (pahole's name), or -ENOENT. */
ABTF_API int abtf_btf_feature__by_name(const char *name);

/*
 * The features a link can honour, switched on or off: abtf_linker__new()
 * refuses a mask that asks for another one (-EOPNOTSUPP, naming it).
 */
ABTF_API unsigned int abtf_btf_features__supported(void);

/* Options of the archive linker (btf-link). */
struct abtf_link_opts {
	size_t sz;		/* sizeof(struct abtf_link_opts) */
	abtf_print_fn_t print;
	void *print_ctx;
	/* make split BTF on top of this file's (final) .BTF, e.g. vmlinux */
	const char *base_path;
	/* link even if the input's BTF is already final */
	bool force;
	/* threads to use; 0: one per online CPU. The output is the same. */
	int nr_threads;
	/* ABTF_FEAT_* bits (+ ABTF_FEATS_GIVEN); 0: ABTF_FEATS_DEFAULT */
	unsigned int features;
	/*
	 * Were no_exact and libbpf_dedup, switches for the tests, now
	 * internal; kept as padding so that the fields after them stay
	 * where they were. Set or not, they change nothing: the BTF
	 * described the same types either way.
	 */
	unsigned char :8, :8;
	/*
	 * A leaf of the merge tree takes consecutive members until it holds
	 * this many bytes; 0: the default (16 MiB). Smaller leaves give
	 * more nodes to run in parallel, and more merging (btf-link
	 * --leaf-size). 1 makes a leaf of every member, SIZE_MAX one leaf
	 * of all: the result describes the same types whatever the tree's
	 * shape (tests/dedup/), not always in the same bytes.
	 */
	size_t leaf_bytes;
	/*
	 * Writing into a relocatable input (abtf_linker__write_elf()):
	 * keep its archive in ABTF_SEC_ARCHIVE and .debug_btf_addr as it
	 * is, so that the object can be linked again, e.g. on a new base,
	 * without the objects it was linked from. Not for a linked image.
	 */
	bool keep_archive;
	/*
	 * Write every multi-dimensional array as one ARRAY of the product
	 * of its counts, of the innermost element, as pahole before 1.32
	 * does (int a[2][3]: ARRAY(6) of int); by default each dimension
	 * is an ARRAY of the next, as DWARF, C and pahole 1.32 have it
	 * (btf-link --flat_arrays, pahole's name).
	 */
	bool flat_arrays;
	size_t :0;
};

struct abtf_linker;

/* What one link did, for -v. Times in seconds. */
struct abtf_link_stats {
	size_t sz;		/* sizeof(struct abtf_link_stats) */
	size_t nr_members;	/* archive members */
	size_t nr_addr_groups;	/* members placed through .debug_btf_addr */
	size_t bytes_in;	/* size of the input .BTF */
	size_t bytes_out;	/* size of the final BTF */
	size_t types_in;	/* types in all members */
	size_t types_merged;	/* types into the final deduplication */
	size_t types_out;	/* types after deduplication */
	size_t funcs, vars;	/* FUNCs and VARs in the final BTF */
	/*
	 * Seconds spent planning (reading headers, validating and hashing
	 * every member, pairing and placing), merging and deduplicating the
	 * leaves of the merge tree (in parallel), and merging those results
	 * up to the final BTF.
	 */
	double t_parse, t_merge, t_dedup;
	/* merge-tree nodes, and those deduplicated by libbpf's btf__dedup() */
	size_t nodes, libbpf_nodes;
};

/* Open @path: an ELF file with a .BTF section, or a raw BTF file. */
ABTF_API struct abtf_linker *
abtf_linker__new(const char *path, const struct abtf_link_opts *opts);
ABTF_API void abtf_linker__free(struct abtf_linker *l);

/*
 * Turn the input's BTF archive into one deduplicated BTF. Returns 0, 1 if
 * the input was already final and left as it was (unless opts->force), or
 * a negative errno.
 */
ABTF_API int abtf_linker__link(struct abtf_linker *l);
/* The final BTF, owned by @l; NULL before a successful link. */
/*
 * Whether @l's input is final BTF, as abtf_linker__link() writes it: one
 * plain member and no .debug_btf_addr group. 1 if it is; 0, after an
 * error message that says what it is instead (an archive of N members,
 * ...), if it is not: libbpf would read such an input as its first member
 * alone; a negative errno if it cannot be read. Before
 * abtf_linker__link(), or instead of it.
 */
ABTF_API int abtf_linker__check_final(struct abtf_linker *l);
ABTF_API const struct btf *abtf_linker__btf(const struct abtf_linker *l);
ABTF_API int abtf_linker__stats(const struct abtf_linker *l,
				struct abtf_link_stats *stats);

/*
 * Write the input back with its .BTF replaced by the final BTF (to @dst, or
 * in place if @dst is NULL), atomically; its .debug_btf_addr is emptied, which
 * marks the BTF final.
 */
ABTF_API int abtf_linker__write_elf(struct abtf_linker *l, const char *dst);
/* Write the final BTF as a raw BTF file, atomically. */
ABTF_API int abtf_linker__write_raw(struct abtf_linker *l, const char *dst);
/*
 * Write a relocatable object holding only an allocatable .BTF section with
 * the final BTF, for the image's final link (kbuild's .btf.vmlinux.bin.o).
 */
ABTF_API int abtf_linker__write_object(struct abtf_linker *l, const char *dst);

/*
 * Why a function or a variable is, or is not, in the final BTF
 * (btf-link --explain; docs/design.md, "Why is my function not in BTF?").
 * abtf_linker__explain() links (if not done yet), then reports, for each
 * name asked about, every FUNC and VAR of that name that an archive member
 * holds, in link order, with what the link decided about it: one record
 * per FUNC or VAR, or one ABTF_EXPLAIN_NONE record when no member has one.
 */
enum abtf_explain_kind {
	ABTF_EXPLAIN_FUNC,	/* a FUNC of an archive member */
	ABTF_EXPLAIN_VAR,	/* a VAR of an archive member */
	ABTF_EXPLAIN_NONE,	/* no member has a FUNC or VAR of the name */
};

enum abtf_explain_reason {
	ABTF_EXPLAIN_KEPT,		/* in the final BTF */
	ABTF_EXPLAIN_KEPT_IN_BASE,	/* kept, as the base BTF's same FUNC */
	/* where the linker put it */
	ABTF_EXPLAIN_DISCARDED,		/* discarded by the linker (slot 0) or
					 * its symbol undefined (relocatable) */
	ABTF_EXPLAIN_RENAMED,		/* its code is there, but no function
					 * symbol has its name (objcopy
					 * --prefix-symbols) */
	ABTF_EXPLAIN_NO_SYMBOL,		/* a member without .debug_btf_addr
					 * (pahole's): no symbol of its name
					 * (a VAR: and size) */
	ABTF_EXPLAIN_NO_SYMTAB,		/* a VAR of a raw archive of several
					 * members: nothing to place it by */
	/* which FUNC of a name */
	ABTF_EXPLAIN_NOT_FIRST,		/* another FUNC of the name, first in
					 * link order, was kept (.other) */
	ABTF_EXPLAIN_CLONE_UNUSED,	/* a clone's FUNC (.extension), used
					 * only with optimized_func */
	ABTF_EXPLAIN_WEAK_OVERRIDDEN,	/* a weak definition the linker
					 * overrode: not the canonical state */
	ABTF_EXPLAIN_NOT_CANONICAL,	/* optimized parameters, and a later
					 * state of the name has none */
	/* the name gets no FUNC (optimized_func, consistent_func) */
	ABTF_EXPLAIN_UNEXPECTED_REG,	/* a state has a parameter in another
					 * register than the ABI's */
	ABTF_EXPLAIN_REORDERED,		/* a state's parameters are reordered */
	ABTF_EXPLAIN_OPTIMIZED,		/* the canonical state's parameters
					 * were optimized away */
	ABTF_EXPLAIN_AMBIGUOUS_ADDR,	/* the name's function symbols lie at
					 * more than one address (.syms) */
	ABTF_EXPLAIN_INCONSISTENT,	/* the states' prototypes differ
					 * (consistent_func; .other, .differs) */
	/* variables */
	ABTF_EXPLAIN_NO_VAR_FEATURE,	/* the link's features leave out VARs */
	ABTF_EXPLAIN_NOT_PERCPU,	/* not in the final .data..percpu */
	ABTF_EXPLAIN_BAD_NAME,		/* a name the kernel rejects, left out
					 * (encode_force) */
	ABTF_EXPLAIN_OVERLAP,		/* overlaps the variable before it or
					 * runs past its section */
	/* ABTF_EXPLAIN_NONE */
	ABTF_EXPLAIN_NOT_ENCODED,	/* no member has it; .syms: what the
					 * image's symbol table has */
	/* which FUNC of a name, continued */
	ABTF_EXPLAIN_NO_ADDRESS,	/* its DWARF has no DW_AT_low_pc (code
					 * in ranges, or none): pahole finds
					 * it at no symbol, and took a later
					 * state that is */
};

/* Facts cc-btf recorded about a FUNC (docs/archive-format.md, "Flags"). */
#define ABTF_EXPLAIN_FN_OPTIMIZED	0x01	/* parameters optimized away,
						 * in a clone or DW_CC_nocall */
#define ABTF_EXPLAIN_FN_UNEXPECTED_REG	0x02
#define ABTF_EXPLAIN_FN_REORDERED	0x04
#define ABTF_EXPLAIN_FN_WEAK		0x08
#define ABTF_EXPLAIN_FN_OPTIMIZED_ABI	0x10	/* ... with DW_CC_nocall */
#define ABTF_EXPLAIN_FN_VARARGS_DIFFER	0x20	/* "..." in the out-of-line
						 * copy, not its origin */
#define ABTF_EXPLAIN_FN_NO_ADDR		0x40	/* no DW_AT_low_pc */

/* An archive member. */
struct abtf_explain_member {
	size_t index;		/* in link order, from 0 */
	size_t offset;		/* where it starts in .BTF */
	const char *source;	/* its compile unit's DW_AT_name, NULL if the
				 * image does not tell */
};

/* A function or object symbol of the image (ELF's STT_ and STB_ values). */
struct abtf_explain_sym {
	const char *name;
	const char *section;	/* the section it is defined in */
	uint64_t value;
	uint64_t size;
	unsigned char type;	/* STT_FUNC or STT_OBJECT */
	unsigned char bind;	/* STB_LOCAL, STB_GLOBAL or STB_WEAK */
};

/*
 * One record. Its strings and arrays are valid during the callback only.
 * Fields after those a caller knows may be added: @sz says which are set.
 */
struct abtf_explain {
	size_t sz;			/* sizeof(struct abtf_explain) */
	const char *name;		/* the name asked about */
	enum abtf_explain_kind kind;
	enum abtf_explain_reason reason;
	/* FUNC, VAR: the member that holds it, and what it is there */
	struct abtf_explain_member member;
	const char *decl;		/* C declaration: "long f(int x)" */
	int linkage;			/* BTF's: 0 static, 1 global */
	bool extension;			/* a clone's FUNC from the member's
					 * .debug_btf_addr extension */
	unsigned int fn_flags;		/* ABTF_EXPLAIN_FN_* */
	/* where the image has it (placed: found) */
	bool placed;
	const char *section;		/* its output section */
	uint64_t addr;			/* its address; relocatable input:
					 * its offset in @section */
	const char *symbol;		/* the symbol there: of its name or
					 * a clone's ("f.isra.0") if one is,
					 * else any (a renamed function's) */
	/* NOT_FIRST: the FUNC kept; INCONSISTENT: the name's first state */
	bool has_other;
	struct abtf_explain_member other;
	const char *other_decl;
	/* its prototype differs from @other_decl: NOT_FIRST as C, and
	 * INCONSISTENT by pahole's loose comparison (what decided) */
	bool differs;
	/* NOT_ENCODED, AMBIGUOUS_ADDR: the image's symbols named @name, or
	 * @name and a '.' suffix (clones, pieces), in symbol table order */
	const struct abtf_explain_sym *syms;
	size_t nr_syms;
	/* NOT_ENCODED: the base BTF (opts.base_path) has a FUNC or VAR of
	 * the name */
	bool in_base;
	/* NOT_ENCODED: the input has no symbol table to look in (raw BTF) */
	bool no_symtab;
};

/* Called once per record; a negative errno stops abtf_linker__explain(). */
typedef int (*abtf_explain_fn_t)(void *ctx, const struct abtf_explain *rec);

struct abtf_explain_opts {
	size_t sz;		/* sizeof(struct abtf_explain_opts) */
	abtf_explain_fn_t fn;
	void *ctx;
	size_t :0;
};

/*
 * Link @l if it is not linked yet (abtf_linker__link()), then call
 * opts->fn for the @nr_names names of @names in turn: each FUNC and VAR of
 * that name in the archive, in link order, then nothing more for that
 * name, or a single ABTF_EXPLAIN_NONE record. Nothing is written. Returns
 * 0; -EALREADY if the input's BTF is already final (no archive to
 * explain: link it with opts->force); -EPROTO if what the records say
 * disagrees with the final BTF (a bug, said through the print callback);
 * the callback's negative errno; or another -errno.
 */
ABTF_API int abtf_linker__explain(struct abtf_linker *l,
				  const char *const *names, size_t nr_names,
				  const struct abtf_explain_opts *opts);

/* Options of the semantic comparison. */
struct abtf_compare_opts {
	size_t sz;		/* sizeof(struct abtf_compare_opts) */
	/* called once per difference, in a deterministic order */
	void (*diff)(void *ctx, const char *line);
	void *diff_ctx;
	/* ignore DATASECs and VARs (compare types and functions only) */
	bool no_vars;
	size_t :0;
};

/*
 * Compare two BTFs by meaning, independently of type IDs: named types with
 * their layout, functions (name, linkage, prototype), variables and DATASEC
 * entries. Returns the number of differences (0: equal) or -errno.
 */
ABTF_API int abtf_btf__compare(const struct btf *a, const struct btf *b,
			       const struct abtf_compare_opts *opts);

/*
 * The BTF of @path, an ELF file's .BTF section or a raw BTF file, split on
 * @base if given: btf__parse_split(), which also reads a BTF of the other
 * byte order whose header is longer than struct btf_header (its further
 * fields zero), as libbpf does not. NULL with errno set.
 */
ABTF_API struct btf *abtf_btf__parse(const char *path, struct btf *base);

/*
 * Whether the BTF of @path (as abtf_btf__parse() finds it) is split BTF,
 * which reads only on a base: 1 if so, 0 if not (or not BTF at all), or
 * -errno if it cannot be read. For a message that says so.
 */
ABTF_API int abtf_btf__is_split(const char *path);

/*
 * Why the BTF of @path (raw, or an ELF file's .BTF) cannot be read: the
 * checks libarchive-btf makes of each archive member, on its bytes (the
 * header, the sections, each type's record, type IDs and string offsets
 * in range). For a caller whose libbpf refused the file: libbpf 1.3 and
 * later check IDs and names themselves and say only EINVAL. Returns 0 if
 * the checks find nothing, -EINVAL with the first fault in @msg ("byte N:
 * what"), or another negative errno if the file cannot be read.
 */
ABTF_API int abtf_btf__check_file(const char *path, char *msg, size_t size);

/* What abtf_btf__verify() holds a BTF to. */
enum abtf_verify {
	/*
	 * The rules the kernel's BTF verifier applies at boot and module
	 * load: type IDs and name offsets in range, reserved fields and bits,
	 * sizes, no loops of types held by value, what FUNCs, DATASECs and
	 * DECL_TAGs refer to.
	 */
	ABTF_VERIFY_KERNEL,
	/*
	 * What reading it takes: a header of version 1, flags 0 and, past
	 * 24 bytes, only a layout table between the types and the strings
	 * ("BTF header byte N: what" in @msg); every info word without
	 * reserved bits or a kind_flag its kind has no use for; every type
	 * ID a record holds names a type (0, void, included); every name
	 * offset lies in the string section; no chain of pointers,
	 * qualifiers or typedefs returns to itself. A BTF the kernel would
	 * refuse otherwise may pass (pahole 1.24's struct members of type
	 * void, say), for a comparison.
	 */
	ABTF_VERIFY_READING,
};

/*
 * Check @btf (split BTF: its own types, against its base) at @level.
 * libbpf parses a BTF that breaks either, and its algorithms do not expect
 * it: check a BTF read from a file before anything else uses it. Returns
 * 0, -EINVAL with "type [ID] KIND 'name'[ member 'm']: what" in @msg
 * (@size bytes, names made printable), or -ENOMEM. Never prints.
 */
ABTF_API int abtf_btf__verify(const struct btf *btf, enum abtf_verify level,
			      char *msg, size_t size);

/*
 * A module with a distilled base (the distilled_base feature): its .BTF,
 * split on its .BTF.base, which goes to *@base (the caller frees both,
 * the split BTF first). NULL with errno set: ENOENT if @path is not an ELF
 * file with both sections.
 */
ABTF_API struct btf *abtf_btf__parse_distilled(const char *path,
					       struct btf **base);

/*
 * Write @size bytes of @data to @path atomically: a temporary file in the
 * same directory, renamed over @path (over its target if @path is a
 * symbolic link). A device or pipe at @path is written through instead,
 * never replaced. Returns 0 or -errno.
 */
ABTF_API int abtf_write_file(const char *path, const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* __ARCHIVE_BTF_H */
