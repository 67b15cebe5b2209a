// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Compressed archive members (libarchive-btf/btf/zmember.c, and archive.c's
 * check of the BTF header they inflate to) on their own
 * (tests/unit.bats): a member deflated by abtf__zmember_deflate() from
 * real BTF (libbpf's, in either byte order) is found, sized, inflated
 * whole or by its head and checked; a header or a stream that lies
 * (sizes, method, truncation, bytes after the stream, a broken stream,
 * the other byte order) is refused with -EINVAL and a message naming the
 * member and its byte, each input a heap block of exactly its size.
 * Prints one line per failed check and exits 1 if any failed.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>
#include <zlib.h>

#include "btf/archive.h"
#include "unit.h"
#include "btf/zmember.h"

#define PATH	"vmlinux"
/* where the archive is, as the checks name it: "FILE: SECTION" */
#define WHERE	PATH ": .BTF"
#define BASE	48		/* where the member sits in the section */
#define ZPREFIX	PATH ": .BTF member 1 at byte 48: compressed member: "

struct zm {
	uint8_t *raw, *z;	/* the BTF, its compressed member */
	size_t raw_size, z_size;
};

static bool zm_get(struct zm *m, bool other_order)
{
	struct btf *btf = unit_sample_btf();

	memset(m, 0, sizeof(*m));
	if (!btf)
		return false;
	if (other_order)
		btf__set_endianness(btf, __BYTE_ORDER == __LITTLE_ENDIAN ?
				    BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN);
	m->raw = unit_raw(btf, &m->raw_size);
	btf__free(btf);
	return m->raw && !abtf__zmember_deflate(m->raw, m->raw_size,
						other_order, (void **)&m->z,
						&m->z_size);
}

static void zm_free(struct zm *m)
{
	free(m->raw);
	free(m->z);
}

static struct abtf_zhdr zhdr(const uint8_t *z, bool swapped)
{
	struct abtf_zhdr h;

	memcpy(&h, z, sizeof(h));
	if (swapped) {
		h.method = bswap_32(h.method);
		h.raw_size = bswap_32(h.raw_size);
		h.z_size = bswap_32(h.z_size);
	}
	return h;
}

/* abtf__zmember_head()'s reader: the member's bytes, never past them. */
struct reader {
	const uint8_t *p;
	size_t size;
	int err;		/* returned instead, when set */
	bool outside;		/* a read asked for bytes past the member */
};

static int rd(void *ctx, void *buf, size_t len, size_t off)
{
	struct reader *r = ctx;

	if (r->err)
		return r->err;
	if (off > r->size || len > r->size - off) {
		r->outside = true;
		return -EIO;
	}
	memcpy(buf, r->p + off, len);
	return 0;
}

/*
 * The member at @z of @avail bytes, as the linker (plan.c, input.c) reads it: its
 * header, the BTF header its stream starts with (read a little at a
 * time), then the whole BTF, inflated and checked as a member.
 */
static int zread(const uint8_t *z, size_t avail, bool swapped,
		 struct unit_log *log, struct abtf_member *m, uint8_t **btf)
{
	struct reader r = { .p = z, .size = avail };
	struct btf_header head;
	size_t size, raw_size;
	int err;

	*btf = NULL;
	unit_log_reset(log);
	err = abtf__zmember_size(z, avail, swapped, 1, BASE, WHERE, &log->pr,
				 &size, &raw_size);
	if (err)
		return err;
	CHECK(size <= avail);
	err = abtf__zmember_head(rd, &r, size, &head, sizeof(head), 1, BASE,
				 WHERE, &log->pr);
	CHECK(!r.outside);
	if (!err && swapped)
		abtf__btf_swap(&head, sizeof(head));
	if (!err)
		err = abtf__zmember_head_check(&head, raw_size, 1, BASE, WHERE,
					       &log->pr);
	if (err)
		return err;
	*btf = malloc(raw_size);
	err = abtf__zmember_inflate(z, size, *btf, raw_size, 1, BASE, WHERE,
				    &log->pr);
	if (!err && swapped)
		abtf__btf_swap(*btf, raw_size);
	return err ? err : archive__member_check(*btf, raw_size, 1, BASE, true,
					       WHERE, &log->pr, m);
}

/* A member of each byte order: its header, its BTF back, its checks. */
static void test_roundtrip(struct unit_log *log)
{
	for (int swapped = 0; swapped < 2; swapped++) {
		struct abtf_member m;
		struct abtf_zhdr h;
		struct zm zm, again;
		uint8_t *btf, *z;

		if (!CHECK(zm_get(&zm, swapped)))
			continue;
		h = zhdr(zm.z, swapped);
		CHECK(!memcmp(h.magic, ABTF_ZMAGIC, 4));
		CHECK(h.method == ABTF_ZMETHOD_ZLIB);
		CHECK(h.raw_size == zm.raw_size);
		CHECK(h.z_size == zm.z_size - sizeof(h));
		CHECK(abtf__is_zmember(zm.z, zm.z_size));
		CHECK(!abtf__is_zmember(zm.z, 3));
		CHECK(!abtf__is_zmember(zm.raw, zm.raw_size));
		/* the same bytes make the same member */
		CHECK(zm_get(&again, swapped) && again.z_size == zm.z_size &&
		      !memcmp(again.z, zm.z, zm.z_size));
		zm_free(&again);
		z = unit_dup(zm.z, zm.z_size);
		CHECK(!zread(z, zm.z_size, swapped, log, &m, &btf));
		CHECK(m.nr_types == UNIT_NR_TYPES && m.size == zm.raw_size);
		CHECK(!log->nr);
		if (swapped)
			abtf__btf_swap(zm.raw, zm.raw_size);
		CHECK(btf && !memcmp(btf, zm.raw, zm.raw_size));
		free(btf);
		/* read as the other order: a method nobody knows */
		CHECK(zread(z, zm.z_size, !swapped, log, &m, &btf) == -EINVAL);
		CHECK(unit_log_says(log, ZPREFIX, "unknown compression method"));
		free(btf);
		free(z);
		zm_free(&zm);
	}
}

enum { F_METHOD = 4, F_RAW = 8, F_ZSIZE = 12 };
enum { SET, ADD };

/*
 * One lie of a member's header (a field set to, or moved by, @val) or of
 * its stream (@cut bytes fewer, @extra zero bytes after, the byte @flip
 * of the stream changed), and what it gets.
 */
struct zlie {
	const char *name;
	unsigned int field;
	int how;
	int64_t val;
	size_t cut, extra;
	int flip;
	const char *prefix, *what;
};

#define INFL	PATH ": .BTF member 1 at byte 48: "

static const struct zlie zlies[] = {
	{ "method 0", F_METHOD, SET, 0, 0, 0, -1, ZPREFIX,
	  "unknown compression method" },
	{ "method 2", F_METHOD, SET, 2, 0, 0, -1, ZPREFIX,
	  "unknown compression method" },
	{ "z_size 0", F_ZSIZE, SET, 0, 0, 0, -1, ZPREFIX,
	  "stream runs past the end of the section" },
	{ "z_size one more", F_ZSIZE, ADD, 1, 0, 0, -1, ZPREFIX,
	  "stream runs past the end of the section" },
	{ "z_size 4G-1", F_ZSIZE, SET, 0xffffffff, 0, 0, -1, ZPREFIX,
	  "stream runs past the end of the section" },
	{ "raw_size 0", F_RAW, SET, 0, 0, 0, -1, ZPREFIX,
	  "BTF smaller than its header" },
	{ "raw_size 23", F_RAW, SET, 23, 0, 0, -1, ZPREFIX,
	  "BTF smaller than its header" },
	{ "raw_size 4G-1", F_RAW, SET, 0xffffffff, 0, 0, -1, ZPREFIX,
	  "its header claims more than 32 times the bytes of its stream" },
	/* issue 36: a consistent header claiming 1 GiB is refused uninflated */
	{ "raw_size 1G", F_RAW, SET, 1u << 30, 0, 0, -1, ZPREFIX,
	  "its header claims more than 32 times the bytes of its stream" },
	/* the BTF header inflated first covers other bytes than raw_size */
	{ "raw_size one more", F_RAW, ADD, 1, 0, 0, -1, INFL,
	  "its header says" },
	{ "raw_size one less", F_RAW, ADD, -1, 0, 0, -1, INFL,
	  "byte 16 of its inflated BTF: member runs past the end of the section" },
	{ "raw_size 24", F_RAW, SET, 24, 0, 0, -1, INFL,
	  "byte 16 of its inflated BTF: member runs past the end of the section" },
	{ "raw_size 1500", F_RAW, SET, 1500, 0, 0, -1, INFL,
	  "its header says 1500 bytes inflated, of which its BTF header covers" },
	/* the stream itself */
	{ "bytes after the stream", F_ZSIZE, ADD, 4, 0, 4, -1, ZPREFIX,
	  "bytes after the end of the stream" },
	{ "stream cut short", F_ZSIZE, ADD, -8, 8, 0, -1, ZPREFIX,
	  "the stream is truncated" },
	/* (more than 32 times 2 bytes claimed: refused uninflated) */
	{ "stream cut to 2 bytes", F_ZSIZE, SET, 2, 0, 0, -1, ZPREFIX,
	  "its header claims more than 32 times the bytes of its stream" },
	{ "no zlib header", 0, SET, 0, 0, 0, 0, ZPREFIX,
	  "not a valid zlib stream" },
	{ "broken checksum", 0, SET, 0, 0, 0, -1, ZPREFIX,
	  "not a valid zlib stream" },
};

static uint8_t *zlie_tell(const struct zm *zm, const struct zlie *l,
			  size_t *size)
{
	size_t n = zm->z_size - l->cut + l->extra;
	uint8_t *z = calloc(1, n);
	uint32_t v;

	memcpy(z, zm->z, zm->z_size - l->cut);
	if (l->field) {
		memcpy(&v, z + l->field, 4);
		v = l->how == ADD ? v + l->val : l->val;
		memcpy(z + l->field, &v, 4);
	}
	if (l->flip >= 0 && !l->field)
		z[sizeof(struct abtf_zhdr) + l->flip] ^= 0xff;
	else if (l->flip < 0 && !l->field)
		z[n + l->flip] ^= 0xff;
	*size = n;
	return z;
}

/* Each lie told in the host's order: refused, the member named. */
static void test_lies(struct unit_log *log)
{
	struct abtf_member m;
	struct zm zm;
	uint8_t *z, *btf;
	size_t i, n;

	if (!CHECK(zm_get(&zm, false)))
		return;
	for (i = 0; i < ARRAY_SIZE(zlies); i++) {
		z = zlie_tell(&zm, &zlies[i], &n);
		CHECK_ROW(zlies[i].name,
			  zread(z, n, false, log, &m, &btf) == -EINVAL);
		if (!CHECK_ROW(zlies[i].name, log->nr == 1 &&
			       unit_log_says(log, zlies[i].prefix,
					     zlies[i].what)))
			printf("  got: %s\n", log->last);
		free(btf);
		free(z);
	}
	/* every length short of the member */
	for (n = 0; n < zm.z_size; n++) {
		size_t size, raw_size;
		char row[32];

		snprintf(row, sizeof(row), "%zu bytes", n);
		z = unit_dup(zm.z, n);
		unit_log_reset(log);
		CHECK_ROW(row, abtf__zmember_size(z, n, false, 1, BASE, WHERE,
						  &log->pr, &size,
						  &raw_size) == -EINVAL);
		CHECK_ROW(row, unit_log_says(log, ZPREFIX, n < 16 ?
					     "truncated header" :
					     "stream runs past the end of the section"));
		free(z);
	}
	zm_free(&zm);
}

/*
 * abtf__zmember_head() alone: a stream shorter than the bytes asked for,
 * broken, or whose reader fails; and a BTF header that lies, inflated.
 */
static void test_head(struct unit_log *log)
{
	static const char few[10] = "ten bytes";
	uint8_t buf[64], *z, out[24];
	struct reader r = { 0 };
	struct btf_header h;
	uLongf zlen = sizeof(buf) - 16;
	size_t size;
	struct zm zm;

	CHECK(compress2(buf + 16, &zlen, (const Bytef *)few, sizeof(few),
			1) == Z_OK);
	size = 16 + zlen;
	z = unit_dup(buf, size);
	r.p = z;
	r.size = size;
	unit_log_reset(log);
	CHECK(abtf__zmember_head(rd, &r, size, out, sizeof(out), 1, BASE,
				 WHERE, &log->pr) == -EINVAL);
	CHECK(unit_log_says(log, ZPREFIX, "the stream makes fewer bytes than its header says"));
	CHECK(!abtf__zmember_head(rd, &r, size, out, sizeof(few), 1, BASE,
				  WHERE, &log->pr));
	CHECK(!memcmp(out, few, sizeof(few)) && !r.outside);
	r.err = -EIO;
	CHECK(abtf__zmember_head(rd, &r, size, out, sizeof(out), 1, BASE,
				 WHERE, &log->pr) == -EIO);
	free(z);

	/* the inflated BTF header checked against raw_size */
	if (!CHECK(zm_get(&zm, false)))
		return;
	memcpy(&h, zm.raw, sizeof(h));
	unit_log_reset(log);
	CHECK(!abtf__zmember_head_check(&h, zm.raw_size, 1, BASE, WHERE,
					&log->pr) && !log->nr);
	h.magic = 0x1234;
	CHECK(abtf__zmember_head_check(&h, zm.raw_size, 1, BASE, WHERE,
				       &log->pr) == -EINVAL);
	CHECK(unit_log_says(log, INFL "byte 0 of its inflated BTF: ",
			    "bad BTF magic"));
	memcpy(&h, zm.raw, sizeof(h));
	h.hdr_len = 0xffffffff;
	CHECK(abtf__zmember_head_check(&h, zm.raw_size, 1, BASE, WHERE,
				       &log->pr) == -EINVAL);
	CHECK(unit_log_says(log, INFL "byte 4 of its inflated BTF: ",
			    "bad header length"));
	zm_free(&zm);
}

/* A BTF too big for the header's 32 bits is refused before it is read. */
static void test_deflate_limits(void)
{
	static const uint8_t one = 0x9f;
	void *out = NULL;
	size_t size = 0;

	CHECK(abtf__zmember_deflate(&one, (size_t)UINT32_MAX + 1, false,
				    &out, &size) == -EFBIG);
	CHECK(!out && !size);
	/*
	 * What compresses better than a reader accepts (64 KiB of zeros,
	 * about 700 times) is not compressed: the writers keep it plain
	 */
	{
		uint8_t *zeros = calloc(1, 65536);

		CHECK(zeros && abtf__zmember_deflate(zeros, 65536, false, &out,
						     &size) == -ERANGE);
		CHECK(!out && !size);
		free(zeros);
	}
}

int main(void)
{
	struct unit_log log;

	unit_log_init(&log);
	test_roundtrip(&log);
	test_lies(&log);
	test_head(&log);
	test_deflate_limits();
	return unit_status();
}
