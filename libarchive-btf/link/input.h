/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * input.c: the input file, opened and read once at open (struct
 * link_file); reading its bytes, a member or a leaf's members, in the
 * host's byte order; what a merge node takes in (struct input), made of a
 * member here or of a child node by merge_tree.c.
 */
#ifndef __ABTF_LINK_INPUT_H
#define __ABTF_LINK_INPUT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/addr.h"
#include "btf/archive.h"

struct abtf_linker;
struct mplan;
struct node;
struct place;

/*
 * The input file, opened and read by input.c (abtf__link_file_open())
 * and, for nr_zmembers, plan.c (abtf__walk_members()), read-only after
 * planning; freed by input.c's abtf__link_file_free().
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

/* A read buffer that a pass over many members keeps: freed by its owner. */
struct abtf_rbuf {
	uint8_t *data;
	size_t cap;
};

int abtf__pread_all(int fd, void *buf, size_t size, size_t off);
void abtf__link_file_init(struct link_file *f);
/* Open l->path: an ELF file's sections, or a raw BTF file. */
int abtf__link_file_open(struct abtf_linker *l);
void abtf__link_file_free(struct link_file *f);
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
uint32_t abtf__member_hash(const struct abtf_linker *l, size_t i,
			   const void *p);
/* Validate member @i's BTF, read into @p, and describe it in @m. */
int abtf__check_member(const struct abtf_linker *l, size_t i, const void *p,
		       const struct abtf_printer *pr, struct abtf_member *m);
uint8_t *abtf__read_leaf(struct abtf_linker *l, struct node *n,
			 struct abtf_member *ms);
uint8_t *abtf__read_leaf_in(struct abtf_linker *l, struct node *n,
			    struct abtf_member *ms, struct abtf_rbuf *rb);
const uint8_t *abtf__aligned_types(const struct abtf_member *m, void **copy);
void abtf__member_input(struct abtf_linker *l, const struct mplan *mp,
			const struct abtf_member *m, const uint8_t *types,
			struct input *in);

#endif /* __ABTF_LINK_INPUT_H */
