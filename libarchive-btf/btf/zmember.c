// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Compressed archive members: one object's BTF, deflated by zlib, so that
 * the archive a link makes of them is about 0.4 times the plain one
 * (docs/archive-format.md, "Compressed members"; docs/performance.md).
 *
 * The section is not flagged SHF_COMPRESSED: GNU ld would concatenate the
 * compressed inputs and drop the flag, ld.lld would inflate them; neither
 * gives a valid compressed section. Unflagged, both concatenate the members
 * as they do plain ones, and only btf-link, which expects them, inflates
 * them. A member's header starts with "BTFz": a non-zero byte, unlike
 * padding, and neither byte of a BTF magic. Its fields are in the object's
 * byte order, and so is the BTF it inflates to, as plain members are.
 */
#include <byteswap.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/internal.h"
#include "btf/zmember.h"

bool abtf__is_zmember(const void *p, size_t avail)
{
	return avail >= 4 && !memcmp(p, ABTF_ZMAGIC, 4);
}

static int zbad(const struct abtf_printer *pr, const char *path, size_t idx,
		size_t base, const char *what)
{
	pr_warn(pr, "%s member %zu at byte %zu: compressed member: %s",
		path, idx, base, what);
	return -EINVAL;
}

/* The header's fields into the other byte order. */
static void swap_hdr(struct abtf_zhdr *h)
{
	h->method = bswap_32(h->method);
	h->raw_size = bswap_32(h->raw_size);
	h->z_size = bswap_32(h->z_size);
}

int abtf__zmember_size(const void *p, size_t avail, bool swapped, size_t idx,
		       size_t base, const char *path,
		       const struct abtf_printer *pr, size_t *size,
		       size_t *raw_size)
{
	struct abtf_zhdr h;

	if (avail < sizeof(h))
		return zbad(pr, path, idx, base, "truncated header");
	memcpy(&h, p, sizeof(h));
	if (swapped)
		swap_hdr(&h);
	if (h.method != ABTF_ZMETHOD_ZLIB)
		return zbad(pr, path, idx, base, "unknown compression method");
	if (!h.z_size || h.z_size > avail - sizeof(h))
		return zbad(pr, path, idx, base,
			    "stream runs past the end of the section");
	if (h.raw_size < 24)
		return zbad(pr, path, idx, base, "BTF smaller than its header");
	if (h.raw_size / ABTF_ZMAX_RATIO > h.z_size)
		return zbad(pr, path, idx, base,
			    "its header claims more than 32 times the bytes of "
			    "its stream, which no BTF member inflates to");
	*size = sizeof(h) + h.z_size;
	*raw_size = h.raw_size;
	return 0;
}

int abtf__zmember_inflate(const void *z, size_t size, void *out,
			  size_t raw_size, size_t idx, size_t base,
			  const char *path, const struct abtf_printer *pr)
{
	z_stream s;
	int ret;

	memset(&s, 0, sizeof(s));
	if (inflateInit(&s) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)z + sizeof(struct abtf_zhdr);
	s.avail_in = size - sizeof(struct abtf_zhdr);
	s.next_out = out;
	s.avail_out = raw_size;
	ret = inflate(&s, Z_FINISH);
	inflateEnd(&s);
	if (ret == Z_MEM_ERROR)
		return -ENOMEM;
	if (ret == Z_STREAM_END) {
		if (!s.avail_out && !s.avail_in)
			return 0;
		return zbad(pr, path, idx, base, s.avail_out ?
			    "the stream makes fewer bytes than its header says" :
			    "bytes after the end of the stream");
	}
	if (ret == Z_OK || ret == Z_BUF_ERROR)	/* no end: input or room out */
		return zbad(pr, path, idx, base, s.avail_in ?
			    "the stream makes more bytes than its header says" :
			    "the stream is truncated");
	return zbad(pr, path, idx, base, "not a valid zlib stream");
}

/* Stream bytes read at a time for abtf__zmember_head(). */
#define ZHEAD_CHUNK	1024

/* Feed @s the stream from byte @at on until it has filled its output. */
static int inflate_head(z_stream *s, abtf_zread_fn rd, void *ctx, size_t at,
			size_t size, int *ret)
{
	uint8_t in[ZHEAD_CHUNK];
	int err;

	*ret = Z_OK;
	while (s->avail_out && at < size) {
		size_t n = size - at < sizeof(in) ? size - at : sizeof(in);

		err = rd(ctx, in, n, at);
		if (err)
			return err;
		at += n;
		s->next_in = in;
		s->avail_in = n;
		*ret = inflate(s, Z_SYNC_FLUSH);
		if (*ret != Z_OK && *ret != Z_BUF_ERROR)
			break;
	}
	return 0;
}

int abtf__zmember_head(abtf_zread_fn rd, void *ctx, size_t size, void *out,
		       size_t len, size_t idx, size_t base, const char *path,
		       const struct abtf_printer *pr)
{
	z_stream s;
	int err, ret;

	memset(&s, 0, sizeof(s));
	if (inflateInit(&s) != Z_OK)
		return -ENOMEM;
	s.next_out = out;
	s.avail_out = len;
	err = inflate_head(&s, rd, ctx, sizeof(struct abtf_zhdr), size, &ret);
	inflateEnd(&s);
	if (err || !s.avail_out)
		return err;
	if (ret == Z_MEM_ERROR)
		return -ENOMEM;
	if (ret == Z_STREAM_END)
		return zbad(pr, path, idx, base,
			    "the stream makes fewer bytes than its header says");
	if (ret == Z_OK || ret == Z_BUF_ERROR)
		return zbad(pr, path, idx, base, "the stream is truncated");
	return zbad(pr, path, idx, base, "not a valid zlib stream");
}

int abtf__zmember_deflate(const void *raw, size_t size, bool swapped,
			  void **out, size_t *out_size)
{
	struct abtf_zhdr h = { .method = ABTF_ZMETHOD_ZLIB };
	uLongf zlen;
	uint8_t *buf;

	if (size > UINT32_MAX)
		return -EFBIG;
	zlen = compressBound(size);
	buf = malloc(sizeof(h) + zlen);
	if (!buf)
		return -ENOMEM;
	if (compress2(buf + sizeof(h), &zlen, raw, size, Z_BEST_SPEED) != Z_OK ||
	    zlen > UINT32_MAX) {
		free(buf);
		return -ENOMEM;
	}
	if (size / ABTF_ZMAX_RATIO > zlen) {
		free(buf);
		return -ERANGE;
	}
	memcpy(h.magic, ABTF_ZMAGIC, sizeof(h.magic));
	h.raw_size = size;
	h.z_size = zlen;
	if (swapped)
		swap_hdr(&h);
	memcpy(buf, &h, sizeof(h));
	*out = buf;
	*out_size = sizeof(h) + zlen;
	return 0;
}
