// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BTF archive reader (libarchive-btf/btf/archive.c) on its own
 * (tests/unit.bats): real members made by libbpf, concatenated as the
 * linker concatenates .BTF sections (each at its alignment, zero padding
 * between), walked as plan.c walks them. Valid archives give their
 * members, types and offsets; a field of a header or a record that lies
 * is refused with -EINVAL and a message naming the member, its byte in
 * the section and the fault, and every section is a heap block of exactly
 * its size, so that ASan sees any byte read past it. Prints one line per
 * failed check and exits 1 if any failed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "btf/archive.h"
#include "unit.h"

#define PATH		"vmlinux"
/* where the archive is, as the checks name it: "FILE: SECTION" */
#define WHERE		PATH ": .BTF"
#define MAX_MEMBERS	8

/* A .BTF section being put together, as the linker does it. */
struct sec {
	uint8_t *data;
	size_t size;
};

/* Append @size bytes at the next multiple of @align, zeros before. */
static size_t sec_add(struct sec *s, const void *p, size_t size, size_t align)
{
	size_t at = (s->size + align - 1) / align * align;

	s->data = realloc(s->data, at + size);
	memset(s->data + s->size, 0, at - s->size);
	memcpy(s->data + at, p, size);
	s->size = at + size;
	return at;
}

/* The section in a heap block of exactly its size, for ASan. */
static uint8_t *sec_exact(const struct sec *s, size_t size)
{
	return unit_dup(s->data, size);
}

/*
 * The members of the section @p of @size bytes, as the linker (plan.c, input.c)
 * finds them: each one's size from its header, the member checked, the padding
 * after it. Returns 0 or the first error; *nr counts the members accepted.
 */
static int walk(const uint8_t *p, size_t size, struct abtf_member *ms,
		size_t *nr, const struct abtf_printer *pr)
{
	size_t off = 0, msize, pad;
	int err;

	*nr = 0;
	while (off < size) {
		struct abtf_member m;

		err = archive__member_size(p + off, size - off, *nr, off, WHERE,
					pr, &msize);
		if (!err)
			err = archive__member_check(p + off, msize, *nr, off,
						 false, WHERE, pr, &m);
		if (err)
			return err;
		if (*nr < MAX_MEMBERS)
			ms[*nr] = m;
		++*nr;
		off += msize;
		err = archive__member_padding(p + off, size - off, *nr - 1, off,
					   WHERE, pr, &pad);
		if (err)
			return err;
		off += pad;
	}
	return 0;
}

/* ---- valid archives ---- */

struct raws {
	uint8_t *sample, *tiny;
	size_t sample_size, tiny_size;
};

static bool raws_get(struct raws *r)
{
	struct btf *s = unit_sample_btf(), *t = unit_tiny_btf();

	memset(r, 0, sizeof(*r));
	if (s && t) {
		r->sample = unit_raw(s, &r->sample_size);
		r->tiny = unit_raw(t, &r->tiny_size);
	}
	btf__free(s);
	btf__free(t);
	return r->sample && r->tiny;
}

static void raws_free(struct raws *r)
{
	free(r->sample);
	free(r->tiny);
}

/* What the reader says of a member it accepted. */
static void check_member(const struct abtf_member *m, const uint8_t *sec,
			 size_t off, size_t size, uint32_t nr_types)
{
	struct btf_header hdr, *h = &hdr;
	struct abtf_member d;

	memcpy(&hdr, sec + off, sizeof(hdr));	/* pahole's: any alignment */
	CHECK(m->data == sec + off && m->off == off && m->size == size);
	CHECK(m->hdr_len == sizeof(*h) && m->nr_types == nr_types);
	CHECK(m->types == sec + off + sizeof(*h) + h->type_off);
	CHECK(m->type_len == h->type_len && m->str_len == h->str_len);
	CHECK((const uint8_t *)m->strs == sec + off + sizeof(*h) + h->str_off);
	archive__member_describe(sec + off, off, nr_types, &d);
	CHECK(d.data == m->data && d.off == m->off && d.size == m->size);
	CHECK(d.hdr_len == m->hdr_len && d.types == m->types);
	CHECK(d.type_len == m->type_len && d.strs == m->strs);
	CHECK(d.str_len == m->str_len && d.nr_types == m->nr_types);
}

/*
 * cc-btf's members (alignment 4) and pahole's (alignment 1, so a member
 * and its types may start at any byte), and the most padding there is.
 */
static void test_members(const struct raws *r, struct unit_log *log)
{
	static const struct {
		size_t align[3];
		int err;
	} rows[] = {
		{ { 4, 4, 4 }, 0 },
		{ { 1, 1, 1 }, 0 },
		{ { 1, 16, 4 }, 0 },
		{ { 4, 32, 4 }, -EINVAL },	/* 19 zero bytes: not padding */
	};
	struct abtf_member ms[MAX_MEMBERS];
	size_t i, k, nr, at[3];
	uint8_t *p;
	int err;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct sec s = { 0 };

		at[0] = sec_add(&s, r->tiny, r->tiny_size, rows[i].align[0]);
		at[1] = sec_add(&s, r->sample, r->sample_size, rows[i].align[1]);
		at[2] = sec_add(&s, r->tiny, r->tiny_size, rows[i].align[2]);
		p = sec_exact(&s, s.size);
		unit_log_reset(log);
		err = walk(p, s.size, ms, &nr, &log->pr);
		CHECK(err == rows[i].err);
		if (!err) {
			CHECK(nr == 3 && !log->nr);
			for (k = 0; k < 3 && k < nr; k++)
				check_member(&ms[k], p, at[k], k == 1 ?
					     r->sample_size : r->tiny_size,
					     k == 1 ? UNIT_NR_TYPES : 1);
		} else {
			char want[128];

			snprintf(want, sizeof(want), PATH ": .BTF: byte %zu: "
				 "%zu zero bytes after member 0: not alignment "
				 "padding", r->tiny_size,
				 at[1] - r->tiny_size);
			CHECK(nr == 1 && log->nr == 1 && !strcmp(log->last, want));
		}
		free(p);
		free(s.data);
	}
	/* zero padding at the section's end, as a linker may leave it */
	{
		struct sec s = { 0 };

		sec_add(&s, r->sample, r->sample_size, 4);
		sec_add(&s, "", 0, 16);
		p = sec_exact(&s, s.size);
		CHECK(!walk(p, s.size, ms, &nr, &log->pr) && nr == 1);
		free(p);
		free(s.data);
	}
}

/* A longer header (newer BTF): its fields past the 24 bytes skipped. */
static void test_long_header(const struct raws *r, struct unit_log *log)
{
	size_t size = r->sample_size + 4;
	uint8_t *p = calloc(1, size);
	struct btf_header *h = (void *)p;
	struct abtf_member m;
	size_t msize;

	memcpy(p, r->sample, sizeof(*h));
	memcpy(p + sizeof(*h) + 4, r->sample + sizeof(*h),
	       r->sample_size - sizeof(*h));
	h->hdr_len = sizeof(*h) + 4;
	unit_log_reset(log);
	CHECK(!archive__member_size(p, size, 0, 0, WHERE, &log->pr, &msize));
	CHECK(msize == size);
	CHECK(!archive__member_check(p, size, 0, 0, false, WHERE, &log->pr, &m));
	CHECK(m.hdr_len == 28 && m.nr_types == UNIT_NR_TYPES);
	CHECK(m.types == p + 28 && !log->nr);
	free(p);
}

/* ---- hostile members ---- */

enum { HDR, TYPE, STR0, STRLAST };
enum { SET, ADD };

/*
 * One lie in the sample member (member 1 of the archive, after a tiny
 * one): a header field (@where HDR: the bytes at @at, @width wide), a
 * word of a type record (TYPE: word @at of type @id), or the string
 * section's first or last byte. The error is at byte @byte of the member,
 * or (@byte_id) at the record of that type.
 */
struct lie {
	const char *name;
	int where;
	uint32_t id;
	unsigned int at, width;
	int how;
	int64_t val;
	uint32_t byte_id;
	size_t byte;
	const char *what;
};

#define H(n, a, w, h, v, b, what)	{ n, HDR, 0, a, w, h, v, 0, b, what }
#define T(n, id, word, v, bid, what)	{ n, TYPE, id, word, 4, SET, v, bid, 0, what }

static const struct lie lies[] = {
	H("bad magic", 0, 2, SET, 0x1234, 0, "bad BTF magic"),
	H("other order", 0, 2, SET, 0x9feb, 0,
	  "BTF of the other byte order than its file's"),
	H("version 0", 2, 1, SET, 0, 2, "unsupported BTF version"),
	H("version 2", 2, 1, SET, 2, 2, "unsupported BTF version"),
	H("flags", 3, 1, SET, 1, 3, "unsupported BTF flags"),
	H("hdr_len 0", 4, 4, SET, 0, 4, "bad header length"),
	H("hdr_len 23", 4, 4, SET, 23, 4, "bad header length"),
	H("hdr_len past the end", 4, 4, SET, 0x10000, 4, "bad header length"),
	H("hdr_len 4G-1", 4, 4, SET, 0xffffffff, 4, "bad header length"),
	H("type_off odd", 8, 4, SET, 2, 8, "misaligned type section"),
	H("type_len odd", 12, 4, ADD, 2, 8, "misaligned type section"),
	H("type_len 4G-4", 12, 4, SET, 0xfffffffc, 8,
	  "type section overlaps the string section"),
	H("type_off past types", 8, 4, ADD, 4, 8,
	  "type section overlaps the string section"),
	H("type_off 4G-4", 8, 4, SET, 0xfffffffc, 8,
	  "type section overlaps the string section"),
	H("str_off 4G-1", 16, 4, SET, 0xffffffff, 16,
	  "member runs past the end of the section"),
	H("str_len 4G-1", 20, 4, SET, 0xffffffff, 16,
	  "member runs past the end of the section"),
	H("str_len one more", 20, 4, ADD, 1, 16,
	  "member runs past the end of the section"),
	{ "str_len 0", HDR, 0, 20, 4, SET, 0, 0, SIZE_MAX, "empty string section" },
	{ "first string byte", STR0, 0, 0, 0, SET, 'x', 0, SIZE_MAX,
	  "string section not NUL-delimited" },
	{ "last string byte", STRLAST, 0, 0, 0, SET, 'x', 0, SIZE_MAX,
	  "string section not NUL-delimited" },
	/* the type section cut inside a PTR record, then inside an ENUM64 */
	{ "type_len cut in a record", HDR, 0, 12, 4, ADD, -28, 19, 0,
	  "truncated type record" },
	{ "type_len cut in the last", HDR, 0, 12, 4, ADD, -4, 20, 0,
	  "type record runs past the type section" },
	T("kind 0", 1, 1, 0, 1, "unknown BTF kind"),
	T("kind 31", 1, 1, 31u << 24, 1, "unknown BTF kind"),
	T("struct vlen 65535", 4, 1, BTF_KIND_STRUCT << 24 | 0xffff, 4,
	  "type record runs past the type section"),
	T("name past the strings", 1, 0, 0x10000, 1,
	  "string offset past the string section"),
	T("member name 4G-1", 4, 3, 0xffffffff, 4,
	  "string offset past the string section"),
	T("enumerator name", 5, 3, 0x10000, 5,
	  "string offset past the string section"),
	T("parameter name", 9, 3, 0x10000, 9,
	  "string offset past the string section"),
	T("enum64 name", 20, 3, 0xffffffff, 20,
	  "string offset past the string section"),
	T("PTR past the last", 3, 2, 21, 3,
	  "type [3] refers to a type ID past the last (20)"),
	T("ARRAY element", 7, 3, 21, 7, "type [7] refers to a type ID past"),
	T("ARRAY index 4G-1", 7, 4, 0xffffffff, 7,
	  "type [7] refers to a type ID past"),
	T("member type", 4, 4, 21, 4, "type [4] refers to a type ID past"),
	T("return type", 9, 2, 21, 9, "type [9] refers to a type ID past"),
	T("parameter type", 9, 6, 0xffffffff, 9,
	  "type [9] refers to a type ID past"),
	T("FUNC type", 10, 2, 21, 10, "type [10] refers to a type ID past"),
	T("VAR type", 11, 2, 21, 11, "type [11] refers to a type ID past"),
	T("DATASEC entry", 12, 3, 21, 12, "type [12] refers to a type ID past"),
	T("DECL_TAG type", 13, 2, 21, 13, "type [13] refers to a type ID past"),
	T("DECL_TAG of nothing", 13, 2, 0, 13, "a DECL_TAG of no type"),
	T("DECL_TAG member 2", 13, 3, 2, 13,
	  "a DECL_TAG's component_idx past its struct's members"),
	T("DECL_TAG member -2", 13, 3, (uint32_t)-2, 13,
	  "a DECL_TAG's component_idx past its struct's members"),
	T("DECL_TAG parameter 2", 14, 3, 2, 14,
	  "a DECL_TAG's component_idx past its function's parameters"),
	T("DECL_TAG parameter -2", 14, 3, (uint32_t)-2, 14,
	  "a DECL_TAG's component_idx past its function's parameters"),
	T("DECL_TAG of a FUNC of void", 10, 2, 0, 14,
	  "a DECL_TAG of a FUNC without a prototype"),
	T("DECL_TAG of a VAR's member", 13, 2, 11, 13,
	  "a DECL_TAG with a component_idx on a VAR or TYPEDEF"),
	T("DECL_TAG of an INT", 13, 2, 1, 13,
	  "a DECL_TAG of a kind that cannot be tagged"),
	/* the kernel's rules (verify.c), named by type */
	T("FWD with a type", 15, 2, 1, 15,
	  "type [15] FWD 'fw': a FWD with vlen or type set"),
	T("reserved info bit", 1, 1, BTF_KIND_INT << 24 | 0x10000, 1,
	  "type [1] INT 'int': reserved bits of the info word set"),
	T("INT of 200 bits", 1, 3, 200, 1,
	  "type [1] INT 'int': INT of more than 128 bits"),
	T("struct holds itself", 4, 4, 6, 6,
	  "a loop of types held by value"),
};

/* The sample member with lie @l told, in a malloc()ed copy. */
static uint8_t *tell(const struct raws *r, const struct lie *l, size_t *byte)
{
	uint8_t *p = unit_dup(r->sample, r->sample_size);
	struct btf_header *h = (void *)p;
	size_t strs = sizeof(*h) + h->str_off;
	uint32_t v32;
	uint16_t v16;

	*byte = l->byte == SIZE_MAX ? strs : l->byte;
	if (l->byte_id)
		*byte = (uint8_t *)unit_type_word(p, l->byte_id, 0) - p;
	switch (l->where) {
	case HDR:
		if (l->width == 1) {
			p[l->at] = l->val;
		} else if (l->width == 2) {
			memcpy(&v16, p + l->at, 2);
			v16 = l->how == ADD ? v16 + l->val : l->val;
			memcpy(p + l->at, &v16, 2);
		} else {
			memcpy(&v32, p + l->at, 4);
			v32 = l->how == ADD ? v32 + l->val : l->val;
			memcpy(p + l->at, &v32, 4);
		}
		break;
	case TYPE:
		*unit_type_word(p, l->id, l->at) = l->val;
		break;
	case STR0:
		p[strs] = l->val;
		break;
	case STRLAST:
		p[r->sample_size - 1] = l->val;
		break;
	}
	return p;
}

/* Each lie, at member 1 of an archive: refused, the place named. */
static void test_lies(const struct raws *r, struct unit_log *log)
{
	struct abtf_member ms[MAX_MEMBERS];
	size_t i, nr, at, byte;
	char prefix[128];
	uint8_t *p, *lied;

	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		struct sec s = { 0 };

		lied = tell(r, &lies[i], &byte);
		sec_add(&s, r->tiny, r->tiny_size, 4);
		at = sec_add(&s, lied, r->sample_size, 4);
		p = sec_exact(&s, s.size);
		unit_log_reset(log);
		CHECK_ROW(lies[i].name,
			  walk(p, s.size, ms, &nr, &log->pr) == -EINVAL);
		CHECK_ROW(lies[i].name, nr == 1 && log->nr == 1);
		snprintf(prefix, sizeof(prefix),
			 PATH ": .BTF member 1 at byte %zu: byte %zu: ", at,
			 at + byte);
		if (!CHECK_ROW(lies[i].name,
			       unit_log_says(log, prefix, lies[i].what)))
			printf("  got: %s\n  want: %s%s\n", log->last, prefix,
			       lies[i].what);
		/* a compressed member's BTF: offsets in the inflated bytes */
		unit_log_reset(log);
		snprintf(prefix, sizeof(prefix), PATH ": .BTF member 3 at "
			 "byte 100: byte %zu of its inflated BTF: ", byte);
		CHECK_ROW(lies[i].name,
			  archive__member_check(lied, r->sample_size, 3, 100,
					     true, WHERE, &log->pr,
					     &ms[0]) == -EINVAL);
		CHECK_ROW(lies[i].name,
			  unit_log_says(log, prefix, lies[i].what));
		free(p);
		free(s.data);
		free(lied);
	}
}

/* Every length short of a member: refused, nothing read past it. */
static void test_truncated(const struct raws *r, struct unit_log *log)
{
	struct abtf_member m;
	size_t n, msize;
	uint8_t *p;

	for (n = 0; n < r->sample_size; n++) {
		const char *what = n < sizeof(struct btf_header) ?
			"byte 0: truncated BTF header" :
			"byte 16: member runs past the end of the section";
		char row[32];

		snprintf(row, sizeof(row), "%zu bytes", n);
		p = unit_dup(r->sample, n);
		unit_log_reset(log);
		CHECK_ROW(row, archive__member_size(p, n, 0, 0, WHERE, &log->pr,
						 &msize) == -EINVAL);
		CHECK_ROW(row, unit_log_says(log, PATH ": .BTF member 0 at "
					     "byte 0: ", what));
		CHECK_ROW(row, archive__member_check(p, n, 0, 0, false, WHERE,
						  &log->pr, &m) == -EINVAL);
		CHECK_ROW(row, unit_log_says(log, PATH ": .BTF member 0 at "
					     "byte 0: ", what));
		free(p);
	}
}

/*
 * A member of the other byte order (libbpf writes it big-endian on a
 * little-endian host and the other way round): refused as it is, read
 * once abtf__btf_swap() (util.c) has turned it, as the linker does with
 * a cross-compiled file's members.
 */
static void test_other_order(struct unit_log *log)
{
	struct btf *btf = unit_sample_btf();
	struct abtf_member m;
	size_t size, msize;
	uint8_t *p;

	btf__set_endianness(btf, __BYTE_ORDER == __LITTLE_ENDIAN ?
			    BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN);
	p = unit_raw(btf, &size);
	unit_log_reset(log);
	CHECK(archive__member_size(p, size, 0, 0, WHERE, &log->pr, &msize) ==
	      -EINVAL);
	CHECK(unit_log_says(log, PATH ": .BTF member 0 at byte 0: byte 0: ",
			    "BTF of the other byte order than its file's"));
	CHECK(archive__member_check(p, size, 0, 0, false, WHERE, &log->pr, &m) ==
	      -EINVAL);
	CHECK(abtf__btf_swap(p, size));
	CHECK(!archive__member_size(p, size, 0, 0, WHERE, &log->pr, &msize) &&
	      msize == size);
	CHECK(!archive__member_check(p, size, 0, 0, false, WHERE, &log->pr, &m));
	CHECK(m.nr_types == UNIT_NR_TYPES && m.size == size);
	free(p);
	btf__free(btf);
}

/* ---- the helpers the linker uses on checked members ---- */

/* abtf__type_offsets(): where libbpf put each record. */
static void test_type_offsets(void)
{
	struct btf *btf = unit_sample_btf();
	const uint8_t *t1 = (const void *)btf__type_by_id(btf, 1);
	size_t size;
	uint8_t *p = unit_raw(btf, &size);
	uint32_t *offs = abtf__type_offsets(p + sizeof(struct btf_header),
					    UNIT_NR_TYPES);
	uint32_t id;

	for (id = 1; offs && id <= UNIT_NR_TYPES; id++)
		CHECK(offs[id] ==
		      (const uint8_t *)btf__type_by_id(btf, id) - t1);
	CHECK(offs);
	free(offs);
	free(p);
	btf__free(btf);
}

struct visit {
	uint32_t nr, stop_at;
};

static int visit(uint32_t *field, void *ctx)
{
	struct visit *v = ctx;

	*field += 100;
	return ++v->nr == v->stop_at ? -E2BIG : 0;
}

/*
 * abtf__for_each_type_id() and _str_off(): every field of each kind, no
 * other word (each visited field moved by 100, the record compared), and
 * an error from the callback ends the walk.
 */
static void test_fields(void)
{
	static const struct {
		uint32_t id, ids[4], strs[4];	/* words visited, 0-ended */
	} rows[] = {
		{ 1, { 0 }, { 0 + 1 } },		/* INT */
		{ 3, { 2 + 1 }, { 0 + 1 } },		/* PTR */
		{ 4, { 4 + 1, 7 + 1 }, { 0 + 1, 3 + 1, 6 + 1 } },	/* STRUCT */
		{ 5, { 0 }, { 0 + 1, 3 + 1, 5 + 1 } },	/* ENUM */
		{ 7, { 3 + 1, 4 + 1 }, { 0 + 1 } },	/* ARRAY */
		{ 9, { 2 + 1, 4 + 1, 6 + 1 }, { 0 + 1, 3 + 1, 5 + 1 } },
		{ 10, { 2 + 1 }, { 0 + 1 } },		/* FUNC */
		{ 11, { 2 + 1 }, { 0 + 1 } },		/* VAR */
		{ 12, { 3 + 1 }, { 0 + 1 } },		/* DATASEC */
		{ 13, { 2 + 1 }, { 0 + 1 } },		/* DECL_TAG */
		{ 15, { 0 }, { 0 + 1 } },		/* FWD */
		{ 20, { 0 }, { 0 + 1, 3 + 1 } },	/* ENUM64 */
	};
	struct btf *btf = unit_sample_btf();
	size_t i, k, size;
	uint8_t *p = unit_raw(btf, &size), *q = unit_dup(p, size);

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct btf_type *t = (void *)unit_type_word(p, rows[i].id, 0);
		uint32_t *w = (uint32_t *)t, *orig;
		size_t words = abtf__record_size(t) / 4, n;
		struct visit v = { 0 };

		for (int pass = 0; pass < 2; pass++) {
			const uint32_t *want = pass ? rows[i].strs : rows[i].ids;

			memcpy(q, p, size);
			orig = unit_type_word(q, rows[i].id, 0);
			v.nr = 0;
			CHECK(!(pass ? abtf__for_each_str_off(t, visit, &v) :
				abtf__for_each_type_id(t, visit, &v)));
			for (n = 0; want[n]; n++)
				;
			CHECK(v.nr == n);
			for (k = 0; k < words; k++) {
				bool moved = false;

				for (n = 0; want[n]; n++)
					moved |= want[n] - 1 == k;
				CHECK(w[k] == orig[k] + (moved ? 100 : 0));
			}
			memcpy(p, q, size);
		}
	}
	/* the callback's error ends the walk at that field */
	{
		struct btf_type *t = (void *)unit_type_word(p, 9, 0);
		struct visit v = { .stop_at = 2 };

		CHECK(abtf__for_each_type_id(t, visit, &v) == -E2BIG && v.nr == 2);
		v.nr = 0;
		CHECK(abtf__for_each_str_off(t, visit, &v) == -E2BIG && v.nr == 2);
	}
	free(q);
	free(p);
	btf__free(btf);
}

int main(void)
{
	struct unit_log log;
	struct raws r;

	unit_log_init(&log);
	if (!CHECK(raws_get(&r)))
		return unit_status();
	test_members(&r, &log);
	test_long_header(&r, &log);
	test_lies(&r, &log);
	test_truncated(&r, &log);
	test_other_order(&log);
	test_type_offsets();
	test_fields();
	raws_free(&r);
	return unit_status();
}
