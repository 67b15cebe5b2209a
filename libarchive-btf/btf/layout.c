// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The layout feature (pahole 1.31 and later, libbpf 1.8, Linux 7.x's
 * scripts/Makefile.btf): base BTF carries a table of the size of each
 * kind's record, so that a reader that does not know a kind can still
 * step over it. The header grows to 32 bytes, two words past libbpf 1.1's
 * struct btf_header: layout_off and layout_len, offsets from the header's
 * end as the others are. The table sits between the types and the
 * strings, one entry per kind up to ENUM64 (20 entries, 80 bytes):
 *
 *	u8 info_sz	bytes after struct btf_type, once
 *	u8 elem_sz	bytes of each of the vlen elements after those
 *	u16 flags	0
 *
 * What is written is what libbpf 1.8 writes for pahole: header, types,
 * table, strings, byte for byte (split BTF gets no table, as pahole gives
 * it none). What is read: libbpf 1.1 parses such a BTF in its own byte
 * order (the table is a gap it skips), not in the other (parse.c cuts the
 * header for it, abtf__btf_cut_layout()).
 */
#include <byteswap.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "util/internal.h"
#include "btf/layout.h"

/* libbpf 1.8's struct btf_header: libbpf 1.1's and two words. */
struct hdr_layout {
	struct btf_header h;
	uint32_t layout_off;
	uint32_t layout_len;
};

#define NR_KINDS	20	/* UNKN to ENUM64 */

/* { info_sz, elem_sz } of each kind, by kind */
static const uint8_t kind_sizes[NR_KINDS][2] = {
	[BTF_KIND_INT]		= { 4, 0 },
	[BTF_KIND_ARRAY]	= { sizeof(struct btf_array), 0 },
	[BTF_KIND_STRUCT]	= { 0, sizeof(struct btf_member) },
	[BTF_KIND_UNION]	= { 0, sizeof(struct btf_member) },
	[BTF_KIND_ENUM]		= { 0, sizeof(struct btf_enum) },
	[BTF_KIND_FUNC_PROTO]	= { 0, sizeof(struct btf_param) },
	[BTF_KIND_VAR]		= { sizeof(struct btf_var), 0 },
	[BTF_KIND_DATASEC]	= { 0, sizeof(struct btf_var_secinfo) },
	[BTF_KIND_DECL_TAG]	= { sizeof(struct btf_decl_tag), 0 },
	[BTF_KIND_ENUM64]	= { 0, sizeof(struct btf_enum64) },
};

#define LAYOUT_LEN	(NR_KINDS * 4)

static uint32_t in_order(uint32_t v, bool swap)
{
	return swap ? bswap_32(v) : v;
}

/*
 * @raw (@size bytes, a BTF as libbpf 1.1 writes it: a 24-byte header,
 * types then strings, in either byte order) with the layout table: a new
 * buffer in *@out, *@out_size bytes. -EINVAL if @raw is not such a BTF.
 */
int abtf__btf_add_layout(const void *raw, uint32_t size, void **out,
			 uint32_t *out_size)
{
	struct hdr_layout nh;
	struct btf_header h;
	uint32_t type_len, str_len;
	uint8_t *p, *table;
	bool swap;
	uint64_t total;
	int k;

	if (size < sizeof(h))
		return -EINVAL;
	memcpy(&h, raw, sizeof(h));
	swap = h.magic == bswap_16(BTF_MAGIC);
	if (!swap && h.magic != BTF_MAGIC)
		return -EINVAL;
	type_len = in_order(h.type_len, swap);
	str_len = in_order(h.str_len, swap);
	if (in_order(h.hdr_len, swap) != sizeof(h) || h.type_off ||
	    in_order(h.str_off, swap) != type_len ||
	    (uint64_t)sizeof(h) + type_len + str_len != size)
		return -EINVAL;
	total = (uint64_t)size + sizeof(nh) - sizeof(h) + LAYOUT_LEN;
	if (total > UINT32_MAX)
		return -E2BIG;
	p = malloc(total);
	if (!p)
		return -ENOMEM;

	memset(&nh, 0, sizeof(nh));
	nh.h = h;
	nh.h.hdr_len = in_order(sizeof(nh), swap);
	nh.h.str_off = in_order(type_len + LAYOUT_LEN, swap);
	nh.layout_off = in_order(type_len, swap);
	nh.layout_len = in_order(LAYOUT_LEN, swap);
	memcpy(p, &nh, sizeof(nh));
	memcpy(p + sizeof(nh), (const uint8_t *)raw + sizeof(h), type_len);
	table = p + sizeof(nh) + type_len;
	memset(table, 0, LAYOUT_LEN);	/* flags: 0 in either order */
	for (k = 0; k < NR_KINDS; k++) {
		table[k * 4] = kind_sizes[k][0];
		table[k * 4 + 1] = kind_sizes[k][1];
	}
	memcpy(table + LAYOUT_LEN,
	       (const uint8_t *)raw + sizeof(h) + type_len, str_len);
	*out = p;
	*out_size = total;
	return 0;
}

/*
 * A BTF in the other byte order with a layout table (@p, *@size bytes,
 * hdr_len 32): the header cut to libbpf 1.1's, the table left as a gap
 * between the types and the strings, which libbpf 1.1 skips. 0, or
 * -ENOTSUP if it is not such a BTF, or its table is not where the header
 * says, between the types and the strings.
 */
int abtf__btf_cut_layout(uint8_t *p, size_t *size)
{
	struct hdr_layout nh;
	uint64_t type_end, lay_end;

	if (*size < sizeof(nh))
		return -ENOTSUP;
	memcpy(&nh, p, sizeof(nh));
	if (nh.h.magic != bswap_16(BTF_MAGIC) ||
	    bswap_32(nh.h.hdr_len) != sizeof(nh) || !nh.layout_len)
		return -ENOTSUP;
	type_end = (uint64_t)bswap_32(nh.h.type_off) + bswap_32(nh.h.type_len);
	lay_end = (uint64_t)bswap_32(nh.layout_off) + bswap_32(nh.layout_len);
	if (bswap_32(nh.layout_off) % 4 || bswap_32(nh.layout_len) % 4 ||
	    bswap_32(nh.layout_off) < type_end ||
	    lay_end > bswap_32(nh.h.str_off) ||
	    (uint64_t)sizeof(nh) + bswap_32(nh.h.str_off) +
	    bswap_32(nh.h.str_len) > *size)
		return -ENOTSUP;
	nh.h.hdr_len = bswap_32((uint32_t)sizeof(nh.h));
	memcpy(p, &nh.h, sizeof(nh.h));
	memmove(p + sizeof(nh.h), p + sizeof(nh), *size - sizeof(nh));
	*size -= sizeof(nh) - sizeof(nh.h);
	return 0;
}

/* The fields of a header longer than libbpf 1.1's, past its 24 bytes. */
static const char *long_header_fault(const uint8_t *p, uint32_t hdr_len,
				     const struct btf_header *h, bool swap,
				     size_t *at)
{
	uint32_t off = 0, len = 0, i = sizeof(*h);
	uint64_t type_end;

	if (hdr_len >= sizeof(struct hdr_layout)) {
		memcpy(&off, p + offsetof(struct hdr_layout, layout_off), 4);
		memcpy(&len, p + offsetof(struct hdr_layout, layout_len), 4);
		off = in_order(off, swap);
		len = in_order(len, swap);
		i = sizeof(struct hdr_layout);
	}
	type_end = (uint64_t)in_order(h->type_off, swap) +
		   in_order(h->type_len, swap);
	*at = offsetof(struct hdr_layout, layout_off);
	if (len && (off % 4 || len % 4 || off < type_end ||
		    (uint64_t)off + len > in_order(h->str_off, swap)))
		return "a layout table that is not between the types and the "
		       "strings (header fields layout_off, layout_len)";
	for (; i < hdr_len; i++) {
		*at = i;
		if (p[i])
			return "a header field this reader does not know that "
			       "is not zero";
	}
	return NULL;
}

/*
 * The rules of a BTF header that libbpf 1.1 does not apply and the
 * kernel does, for the @size bytes at @p in either byte order: version 1,
 * flags 0, and past the 24 bytes libbpf 1.1 knows, a layout table between
 * the types and the strings and nothing else but zeros. The first rule
 * broken, with *@at the byte of its field, or NULL. One message per rule
 * for the archive reader (a base, a member) and --compare's sides
 * (abtf_btf__verify()); what libbpf checks itself (magic, lengths) is its
 * callers'.
 */
const char *abtf__btf_header_fault(const void *p, size_t size, size_t *at)
{
	struct btf_header h;
	uint32_t hdr_len;
	bool swap;

	*at = 0;
	if (size < sizeof(h))
		return NULL;
	memcpy(&h, p, sizeof(h));
	swap = h.magic == bswap_16(BTF_MAGIC);
	if (!swap && h.magic != BTF_MAGIC)
		return NULL;
	*at = offsetof(struct btf_header, version);
	if (h.version != BTF_VERSION)
		return "unsupported BTF version";
	*at = offsetof(struct btf_header, flags);
	if (h.flags)
		return "unsupported BTF flags";
	hdr_len = in_order(h.hdr_len, swap);
	if (hdr_len <= sizeof(h) || hdr_len > size)
		return NULL;
	return long_header_fault(p, hdr_len, &h, swap, at);
}
