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

/* Options of the DWARF -> BTF encoder. */
struct abtf_encode_opts {
	size_t sz;		/* sizeof(struct abtf_encode_opts) */
	abtf_print_fn_t print;	/* NULL: the library stays silent */
	void *print_ctx;
	/* do not write the .debug_btf_addr slots (objects btf-link fixes by name) */
	bool no_addr;
	/*
	 * For tests: deduplicate the object's types with libbpf's
	 * btf__dedup() instead of the encoder's own; the BTF must come out
	 * the same, byte for byte (tests/dedup-diff.bats keeps that true).
	 */
	bool libbpf_dedup;
	/*
	 * Write the object's .BTF as a compressed archive member (zlib, about
	 * 0.4 times the size; docs/archive-format.md): only btf-link reads
	 * it. abtf_encoder__write_raw() writes plain BTF all the same.
	 */
	bool compress;
	size_t :0;
};
#define abtf_encode_opts__last_field compress

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
	 * For tests: no exact matching before the deduplications
	 * (exact.c); the BTF must describe the same types (tests/dedup/).
	 */
	bool no_exact;
	/*
	 * For tests: deduplicate the root of the merge tree with libbpf's
	 * btf__dedup() instead of the library's own implementation of the
	 * same algorithm (node_dedup.c), which must give the same bytes.
	 * Nodes below the root are merged by meaning alone either way.
	 */
	bool libbpf_dedup;
	/*
	 * For tests: a leaf of the merge tree takes consecutive members
	 * until it holds this many bytes; 0: the default (16 MiB). 1 makes
	 * a leaf of every member, SIZE_MAX one leaf of all: the result must
	 * describe the same types whatever the tree's shape
	 * (tests/dedup/).
	 */
	size_t leaf_bytes;
	size_t :0;
};
#define abtf_link_opts__last_field leaf_bytes

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
#define abtf_compare_opts__last_field no_vars

/*
 * Compare two BTFs by meaning, independently of type IDs: named types with
 * their layout, functions (name, linkage, prototype), variables and DATASEC
 * entries. Returns the number of differences (0: equal) or -errno.
 */
ABTF_API int abtf_btf__compare(const struct btf *a, const struct btf *b,
			       const struct abtf_compare_opts *opts);

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
