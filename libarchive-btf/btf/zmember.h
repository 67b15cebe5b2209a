/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Compressed archive members (docs/archive-format.md, "Compressed
 * members"): a member that holds one BTF blob deflated with zlib, behind a
 * 16-byte header of its own. Not installed.
 */
#ifndef __ABTF_ZMEMBER_H
#define __ABTF_ZMEMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct abtf_printer;

#define ABTF_ZMAGIC		"BTFz"
#define ABTF_ZMETHOD_ZLIB	1
/*
 * The most a member inflates: its BTF is at most this many times the
 * bytes of its stream. Real members inflate 2.4 times (the median of Linux
 * 7.3's objects, at cc-btf's Z_BEST_SPEED) and at most 3.5 (kernel/sys_ni.o);
 * deflate itself can reach 1032. A header that claims more is refused
 * before anything is inflated, so that a refused member costs at most this
 * many times its compressed bytes, whatever its header says; a BTF that
 * would compress better is written plain (abtf__zmember_deflate()).
 */
#define ABTF_ZMAX_RATIO		32

struct abtf_zhdr {		/* in the object's byte order */
	char magic[4];		/* ABTF_ZMAGIC */
	uint32_t method;	/* ABTF_ZMETHOD_ZLIB */
	uint32_t raw_size;	/* the BTF member once inflated */
	uint32_t z_size;	/* bytes of the zlib stream after the header */
};

/*
 * @path below is where the archive is, as messages name it: "FILE: SECTION"
 * (btf/archive.h).
 */

/* Whether the @avail bytes at @p start a compressed member. */
bool abtf__is_zmember(const void *p, size_t avail);

/*
 * Check the header of the compressed member @idx at byte @base of @path's
 * .BTF, of which @avail bytes are left (@swapped: the file's byte order is
 * not the host's): *@size gets the member's bytes in the archive (header
 * and stream), *@raw_size those of its BTF.
 */
int abtf__zmember_size(const void *p, size_t avail, bool swapped, size_t idx,
		       size_t base, const char *path,
		       const struct abtf_printer *pr, size_t *size,
		       size_t *raw_size);

/*
 * Inflate the compressed member @z (header included, @size bytes, checked
 * by abtf__zmember_size()) into @out, exactly @raw_size bytes: a stream
 * that makes more or less, or ends early or late, is an error.
 */
int abtf__zmember_inflate(const void *z, size_t size, void *out,
			  size_t raw_size, size_t idx, size_t base,
			  const char *path, const struct abtf_printer *pr);

/* Read @len bytes at byte @off of a compressed member (header included). */
typedef int (*abtf_zread_fn)(void *ctx, void *buf, size_t len, size_t off);

/*
 * Inflate only the first @len bytes of the compressed member of @size
 * bytes (checked by abtf__zmember_size()) into @out, reading its stream
 * through @rd a little at a time: memory stays small whatever the member
 * says it makes. A stream that ends or breaks before @len bytes is an
 * error.
 */
int abtf__zmember_head(abtf_zread_fn rd, void *ctx, size_t size, void *out,
		       size_t len, size_t idx, size_t base, const char *path,
		       const struct abtf_printer *pr);

/*
 * The compressed member of the @size bytes of BTF at @raw, in a buffer
 * *@out of *@out_size bytes the caller frees, its header's fields swapped
 * from the host's byte order where @swapped. Deterministic: the same bytes
 * give the same member with the same zlib. -ERANGE if the BTF compresses
 * better than ABTF_ZMAX_RATIO, which a reader would refuse: the caller
 * writes it plain.
 */
int abtf__zmember_deflate(const void *raw, size_t size, bool swapped,
			  void **out, size_t *out_size);

#endif /* __ABTF_ZMEMBER_H */
