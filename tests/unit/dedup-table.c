// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deduplication shapes as tables, in the manner of libbpf's
 * prog_tests/btf.c dedup cases: raw BTF members in, the BTF that libbpf's
 * btf__dedup() makes of them out. Each case is a minimal reproducer of a
 * class of input where btf-link's steps before or instead of btf__dedup()
 * (exact.c, node_dedup.c, the merge tree) once described other types than
 * libbpf's dedup alone (tests/dedup/run.sh found them).
 *
 * For each case the members are written as a raw archive and linked three
 * ways through the library: btf-link's default, a leaf per member (the
 * deepest merge tree), and the reference (no exact.c, btf__dedup() at one
 * node). Each is compared with the expected BTF by meaning
 * (tests/dedup/btf_equiv.c: type IDs and order do not count). A case
 * whose reference differs from the expectation says so apart: the
 * installed libbpf then decides otherwise than the table says, which is
 * worth knowing but is not btf-link's defect.
 *
 * Usage: dedup-table [CASE]   (in a scratch directory: it writes there)
 * Prints a line per difference; exits 1 if any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "archive_btf.h"
#include "btf_equiv.h"
#include "test_link.h"

/* ---- raw BTF, word by word ---- */

#define INFO(kind, kflag, vlen) \
	(((uint32_t)(kflag) << 31) | ((uint32_t)(kind) << 24) | (vlen))
/* INT: name, byte size, bits (encoding: signed) */
#define T_INT(name, size, bits) \
	(name), INFO(BTF_KIND_INT, 0, 0), (size), \
	((BTF_INT_SIGNED << 24) | (bits))
#define T_PTR(type)		0, INFO(BTF_KIND_PTR, 0, 0), (type)
#define T_CONST(type)		0, INFO(BTF_KIND_CONST, 0, 0), (type)
#define T_VOLATILE(type)	0, INFO(BTF_KIND_VOLATILE, 0, 0), (type)
#define T_TYPEDEF(name, type)	(name), INFO(BTF_KIND_TYPEDEF, 0, 0), (type)
#define T_FWD(name, is_union)	(name), INFO(BTF_KIND_FWD, is_union, 0), 0
#define T_STRUCT(name, vlen, size) \
	(name), INFO(BTF_KIND_STRUCT, 0, vlen), (size)
#define T_UNION(name, vlen, size) \
	(name), INFO(BTF_KIND_UNION, 0, vlen), (size)
/* a member: name, type, bit offset */
#define M(name, type, bitoff)	(name), (type), (bitoff)
#define T_ARRAY(type, index, nelems) \
	0, INFO(BTF_KIND_ARRAY, 0, 0), 0, (type), (index), (nelems)
#define T_ENUM(name, vlen, size) (name), INFO(BTF_KIND_ENUM, 0, vlen), (size)
#define E(name, val)		(name), (uint32_t)(val)

#define MAX_WORDS	128

struct raw {
	uint32_t w[MAX_WORDS];
	size_t nr;		/* words */
	const char *strs;	/* the string section, "\0" first */
	size_t strs_len;
};

#define WORDS(...) \
	.w = { __VA_ARGS__ }, \
	.nr = sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)
#define STRS(s)	.strs = (s), .strs_len = sizeof(s)

#define MAX_MEMBERS	6

struct dcase {
	const char *name;
	const char *why;
	int nr;
	struct raw in[MAX_MEMBERS];
	struct raw out;
	/* the defect's outcome, if given: must differ from @out */
	struct raw wrong;
};

/*
 * String offsets of the cases' string sections: each section is
 * "\0long\0int\0s0\0s1\0s3\0s4\0m0\0m1\0m2\0a\0b\0c\0p\0" (STRTAB), so that
 * the tables read by name.
 */
#define STRTAB	"\0long\0int\0s0\0s1\0s3\0s4\0m0\0m1\0m2\0a\0b\0c\0p"
enum {
	S_long = 1, S_int = 6, S_s0 = 10, S_s1 = 13, S_s3 = 16, S_s4 = 19,
	S_m0 = 22, S_m1 = 25, S_m2 = 28, S_a = 31, S_b = 33, S_c = 35,
	S_p = 37,
};

static const struct dcase cases[] = {
{
	.name = "fwd-bound-by-an-earlier-walk",
	.why = "issue 19: an input struct paired with a node's FWD (exact.c's "
	       "fwd_pair) merged two unions that reach different structs s4; "
	       "libbpf binds the FWD to the first s4 through s3's walk and "
	       "keeps both",
	.nr = 3,
	.in = {
		{	/* tu0: s3 and s0 see s4 only as a FWD */
			WORDS(T_INT(S_long, 8, 64),		/* 1 */
			      T_FWD(S_s4, 0),			/* 2 */
			      T_PTR(2),				/* 3 */
			      T_STRUCT(S_s3, 1, 8),		/* 4 */
			      M(S_p, 3, 0),
			      T_UNION(S_s0, 2, 8),		/* 5 */
			      M(S_m0, 1, 0), M(S_m1, 3, 0)),
			STRS(STRTAB),
		},
		{	/* tu2: s4 { int a; }, and s3 */
			WORDS(T_INT(S_int, 4, 32),		/* 1 */
			      T_STRUCT(S_s4, 1, 4),		/* 2 */
			      M(S_a, 1, 0),
			      T_PTR(2),				/* 3 */
			      T_STRUCT(S_s3, 1, 8),		/* 4 */
			      M(S_p, 3, 0)),
			STRS(STRTAB),
		},
		{	/* tu3: s0 pointing to s4 { int b; }, s0 first */
			WORDS(T_INT(S_long, 8, 64),		/* 1 */
			      T_UNION(S_s0, 2, 8),		/* 2 */
			      M(S_m0, 1, 0), M(S_m1, 3, 0),
			      T_PTR(4),				/* 3 */
			      T_STRUCT(S_s4, 1, 4),		/* 4 */
			      M(S_b, 5, 0),
			      T_INT(S_int, 4, 32)),		/* 5 */
			STRS(STRTAB),
		},
	},
	.out = {
		WORDS(T_INT(S_long, 8, 64),			/* 1 */
		      T_INT(S_int, 4, 32),			/* 2 */
		      T_STRUCT(S_s4, 1, 4),			/* 3 */
		      M(S_a, 2, 0),
		      T_PTR(3),					/* 4 */
		      T_STRUCT(S_s3, 1, 8),			/* 5 */
		      M(S_p, 4, 0),
		      T_UNION(S_s0, 2, 8),			/* 6 */
		      M(S_m0, 1, 0), M(S_m1, 4, 0),
		      T_STRUCT(S_s4, 1, 4),			/* 7 */
		      M(S_b, 2, 0),
		      T_PTR(7),					/* 8 */
		      T_UNION(S_s0, 2, 8),			/* 9 */
		      M(S_m0, 1, 0), M(S_m1, 8, 0)),
		STRS(STRTAB),
	},
	.wrong = {	/* one s0, the FWD bound to the first s4 */
		WORDS(T_INT(S_long, 8, 64),			/* 1 */
		      T_INT(S_int, 4, 32),			/* 2 */
		      T_STRUCT(S_s4, 1, 4),			/* 3 */
		      M(S_a, 2, 0),
		      T_PTR(3),					/* 4 */
		      T_STRUCT(S_s3, 1, 8),			/* 5 */
		      M(S_p, 4, 0),
		      T_UNION(S_s0, 2, 8),			/* 6 */
		      M(S_m0, 1, 0), M(S_m1, 4, 0),
		      T_STRUCT(S_s4, 1, 4),			/* 7 */
		      M(S_b, 2, 0),
		      T_PTR(7)),				/* 8 */
		STRS(STRTAB),
	},
},
{
	.name = "fwd-of-one-meaning-merged-below-the-root",
	.why = "every s4 of the archive is { int a; }: a FWD s4 stands for "
	       "it, so the three s3 are one (libbpf's walk takes the FWD and "
	       "the struct for one type; below the root nothing that reaches "
	       "a FWD is merged, and the root decides as libbpf does)",
	.nr = 3,
	.in = {
		{	/* tu0: s3 sees s4 only as a FWD */
			WORDS(T_FWD(S_s4, 0),			/* 1 */
			      T_PTR(1),				/* 2 */
			      T_STRUCT(S_s3, 1, 8),		/* 3 */
			      M(S_p, 2, 0)),
			STRS(STRTAB),
		},
		{	/* tu1: s4 { int a; } and s3 */
			WORDS(T_INT(S_int, 4, 32),		/* 1 */
			      T_STRUCT(S_s4, 1, 4),		/* 2 */
			      M(S_a, 1, 0),
			      T_PTR(2),				/* 3 */
			      T_STRUCT(S_s3, 1, 8),		/* 4 */
			      M(S_p, 3, 0)),
			STRS(STRTAB),
		},
		{	/* tu2: as tu0, and a union through the FWD */
			WORDS(T_FWD(S_s4, 0),			/* 1 */
			      T_PTR(1),				/* 2 */
			      T_STRUCT(S_s3, 1, 8),		/* 3 */
			      M(S_p, 2, 0),
			      T_PTR(3),				/* 4 */
			      T_UNION(S_s0, 2, 8),		/* 5 */
			      M(S_m0, 2, 0), M(S_m1, 4, 0)),
			STRS(STRTAB),
		},
	},
	.out = {
		WORDS(T_INT(S_int, 4, 32),			/* 1 */
		      T_STRUCT(S_s4, 1, 4),			/* 2 */
		      M(S_a, 1, 0),
		      T_PTR(2),					/* 3 */
		      T_STRUCT(S_s3, 1, 8),			/* 4 */
		      M(S_p, 3, 0),
		      T_PTR(4),					/* 5 */
		      T_UNION(S_s0, 2, 8),			/* 6 */
		      M(S_m0, 3, 0), M(S_m1, 5, 0)),
		STRS(STRTAB),
	},
	.wrong = {	/* the FWD left unresolved in the union's s3 */
		WORDS(T_INT(S_int, 4, 32),			/* 1 */
		      T_STRUCT(S_s4, 1, 4),			/* 2 */
		      M(S_a, 1, 0),
		      T_PTR(2),					/* 3 */
		      T_STRUCT(S_s3, 1, 8),			/* 4 */
		      M(S_p, 3, 0),
		      T_FWD(S_s4, 0),				/* 5 */
		      T_PTR(5),					/* 6 */
		      T_STRUCT(S_s3, 1, 8),			/* 7 */
		      M(S_p, 6, 0),
		      T_PTR(7),					/* 8 */
		      T_UNION(S_s0, 2, 8),			/* 9 */
		      M(S_m0, 6, 0), M(S_m1, 8, 0)),
		STRS(STRTAB),
	},
},
};

/* ---- running a case ---- */

static size_t raw_size(const struct raw *r)
{
	return sizeof(struct btf_header) + r->nr * 4 + r->strs_len;
}

static void raw_write(const struct raw *r, uint8_t *buf)
{
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(h), .type_off = 0,
		.type_len = (uint32_t)(r->nr * 4),
		.str_off = (uint32_t)(r->nr * 4),
		.str_len = (uint32_t)r->strs_len,
	};

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), r->w, r->nr * 4);
	memcpy(buf + sizeof(h) + r->nr * 4, r->strs, r->strs_len);
}

static int write_archive(const struct dcase *c, const char *path)
{
	FILE *f = fopen(path, "wb");
	uint8_t buf[sizeof(struct btf_header) + MAX_WORDS * 4 + 256];
	int i, ok = !!f;

	for (i = 0; ok && i < c->nr; i++) {
		if (raw_size(&c->in[i]) > sizeof(buf))
			ok = 0;
		else {
			raw_write(&c->in[i], buf);
			ok = fwrite(buf, 1, raw_size(&c->in[i]), f) ==
			     raw_size(&c->in[i]);
		}
	}
	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/*
 * The comparison itself: the defect's outcome, where the case has one,
 * must differ from the expected BTF (a comparison that finds nothing
 * would pass every case).
 */
static int check_wrong(const struct dcase *c)
{
	uint8_t buf[sizeof(struct btf_header) + MAX_WORDS * 4 + 256];
	struct btf *want, *wrong;
	struct btf_equiv *e = btf_equiv__new();
	int diffs = -1;
	FILE *null = fopen("/dev/null", "w");

	raw_write(&c->out, buf);
	want = btf__new(buf, raw_size(&c->out));
	raw_write(&c->wrong, buf);
	wrong = btf__new(buf, raw_size(&c->wrong));
	if (e && want && wrong && null) {
		int a = btf_equiv__add(e, want, -1);
		int b = btf_equiv__add(e, wrong, -1);

		btf_equiv__refine(e);
		fflush(stdout);
		/* the lines are not wanted: only that there are some */
		diffs = btf_equiv__diff_to(e, a, b, false, false, "", "", "",
					   null);
	}
	if (null)
		fclose(null);
	btf_equiv__free(e);
	btf__free(want);
	btf__free(wrong);
	if (diffs > 0)
		return 0;
	printf("%s: the comparison does not tell the defect's outcome from "
	       "the expected BTF\n", c->name);
	return 1;
}

static int run_case(const struct dcase *c)
{
	uint8_t buf[sizeof(struct btf_header) + MAX_WORDS * 4 + 256];
	struct abtf_linker *l[3] = { NULL, NULL, NULL };
	static const char *const names[3] = {
		"btf-link's", "btf-link's (a leaf per member)", "libbpf's",
	};
	struct btf_equiv *e = NULL;
	struct btf *want = NULL;
	char path[256];
	int i, ix[3], iw, diffs = 0;

	snprintf(path, sizeof(path), "%s.btf", c->name);
	raw_write(&c->out, buf);
	want = btf__new(buf, raw_size(&c->out));
	if (write_archive(c, path) || !want) {
		printf("%s: cannot make the case's BTF\n", c->name);
		btf__free(want);
		return 1;
	}
	l[0] = test_link(path, NULL, false, 0);
	l[1] = test_link(path, NULL, false, 1);
	l[2] = test_link(path, NULL, true, SIZE_MAX);
	e = btf_equiv__new();
	if (!l[0] || !l[1] || !l[2] || !e) {
		printf("%s: a link failed\n", c->name);
		diffs = 1;
		goto out;
	}
	iw = btf_equiv__add(e, want, -1);
	for (i = 0; i < 3; i++)
		ix[i] = btf_equiv__add(e, abtf_linker__btf(l[i]), -1);
	btf_equiv__refine(e);
	for (i = 0; i < 3; i++) {
		char what[300];

		snprintf(what, sizeof(what), "%s%s", c->name,
			 i == 2 ? " (the installed libbpf disagrees with the "
				  "table)" : "");
		diffs += btf_equiv__diff(e, iw, ix[i], false, false, what,
					 "the table's", names[i]);
	}
out:
	if (diffs)
		printf("%s: %s\n", c->name, c->why);
	btf_equiv__free(e);
	for (i = 0; i < 3; i++)
		abtf_linker__free(l[i]);
	btf__free(want);
	return diffs ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t i, n = sizeof(cases) / sizeof(*cases);
	int failed = 0, ran = 0;

	for (i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name))
			continue;
		failed += run_case(&cases[i]);
		if (cases[i].wrong.nr)
			failed += check_wrong(&cases[i]);
		ran++;
	}
	if (!ran) {
		fprintf(stderr, "dedup-table: no case %s\n", argc > 1 ?
			argv[1] : "");
		return 2;
	}
	return failed ? 1 : 0;
}
