// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's BTF rules (libarchive-btf/btf/verify.c) on their own
 * (tests/unit.bats): a BTF made by libbpf with a type of every kind passes
 * them, read through libbpf or as an archive member's raw records; each
 * row of the table breaks one rule in a copy of its raw records (one or
 * two words changed, the records left where they are) and must be told
 * apart: -EINVAL, the type, the member or parameter, and the rule, in
 * the words abtf__vfault_str() gives them. Split BTF is checked above its
 * base alone. Prints one line per failed check and exits 1 if any failed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "btf/archive.h"
#include "unit.h"
#include "btf/verify.h"

#define PATH	"vmlinux"

/* Raw records as an archive member gives them to the verifier. */
struct raw {
	uint8_t *data;
	size_t size;
	uint32_t offs[UNIT_NR_TYPES + 1];
	struct abtf_vsrc src;
};

/* The sample's records and strings, offsets taken before any change. */
static bool raw_get(struct raw *r, bool member, uint32_t ptr_size)
{
	struct btf *btf = unit_sample_btf();
	const struct btf_header *h;
	uint32_t id;

	memset(r, 0, sizeof(*r));
	r->data = btf ? unit_raw(btf, &r->size) : NULL;
	btf__free(btf);
	if (!r->data)
		return false;
	h = (const void *)r->data;
	for (id = 1; id <= UNIT_NR_TYPES; id++)
		r->offs[id] = (uint8_t *)unit_type_word(r->data, id, 0) -
			      (r->data + h->hdr_len + h->type_off);
	r->src = (struct abtf_vsrc){
		.types = r->data + h->hdr_len + h->type_off,
		.offs = r->offs,
		.strs = (const char *)r->data + h->hdr_len + h->str_off,
		.str_len = h->str_len,
		.start_id = 1, .nr_types = UNIT_NR_TYPES,
		.ptr_size = ptr_size, .member = member,
	};
	return true;
}

static uint32_t *word(struct raw *r, uint32_t id, unsigned int w)
{
	return (uint32_t *)(r->src.types + r->offs[id]) + w;
}

/* Values a row may write that depend on the sample's strings. */
#define BAD_NAME	0xbad00001u	/* "long int": no identifier */
#define NAME_F		0xbad00002u	/* "f" */
#define PAST_STRS	0xbad00003u	/* the string section's length */

static uint32_t value(struct raw *r, uint32_t v)
{
	switch (v) {
	case BAD_NAME:
		return *word(r, 2, 0);
	case NAME_F:
		return *word(r, 10, 0);
	case PAST_STRS:
		return r->src.str_len;
	default:
		return v;
	}
}

#define INFO(kind, kflag, vlen) \
	(((uint32_t)(kflag) << 31) | ((uint32_t)(kind) << 24) | (vlen))

struct poke {
	uint32_t id;
	unsigned int word;
	uint32_t val;
};

/*
 * One rule broken by up to three words. @member: as an archive member (the rules left to the
 * final BTF then pass: @member_ok); @ptr4: 4-byte pointers.
 */
struct vcase {
	const char *name;
	struct poke poke[3];
	bool member, member_ok, ptr4;
	uint32_t id;
	int32_t comp;
	const char *what;
};

#define P(id, w, v)	{ id, w, v }
#define NO		{ 0, 0, 0 }

static const struct vcase cases[] = {
	/* 1. each record alone */
	{ "reserved info bit", { P(1, 1, INFO(BTF_KIND_INT, 0, 0) | 0x10000), NO },
	  1, 0, 0, 1, -1, "type [1] INT 'int': reserved bits of the info word set" },
	{ "name past the strings", { P(1, 0, PAST_STRS), NO }, 1, 0, 0, 1, -1,
	  "type [1] INT '(anon)': a name offset past the string section" },
	{ "unknown kind", { P(1, 1, INFO(25, 0, 0)), NO }, 0, 0, 0, 1, -1,
	  "type [1] UNKN 'int': an unknown BTF kind" },
	{ "INT kind_flag", { P(1, 1, INFO(BTF_KIND_INT, 1, 0)), NO }, 0, 0, 0,
	  1, -1, "kind_flag set on a kind that has no use for it" },
	{ "INT vlen", { P(1, 1, INFO(BTF_KIND_INT, 0, 1)), NO }, 0, 0, 0, 1, -1,
	  "vlen set on an INT" },
	{ "INT reserved data", { P(1, 3, 0x100 | 32), NO }, 1, 0, 0, 1, -1,
	  "INT data with reserved bits set" },
	{ "INT 200 bits", { P(1, 3, 200), NO }, 0, 0, 0, 1, -1,
	  "INT of more than 128 bits" },
	{ "INT 64 bits in 4 bytes", { P(1, 3, 64), NO }, 0, 0, 0, 1, -1,
	  "INT of more bits than its size holds" },
	{ "INT two encodings", { P(1, 3, (3u << 24) | 32), NO }, 0, 0, 0, 1, -1,
	  "INT with more than one encoding bit" },
	{ "PTR with a name", { P(3, 0, NAME_F), NO }, 0, 0, 0, 3, -1,
	  "type [3] PTR 'f': a pointer or qualifier with a name" },
	{ "PTR vlen", { P(3, 1, INFO(BTF_KIND_PTR, 0, 1)), NO }, 0, 0, 0, 3, -1,
	  "vlen set on a pointer, qualifier or typedef" },
	{ "PTR past the last", { P(3, 2, 21), NO }, 1, 0, 0, 3, -1,
	  "a type past the last type ID" },
	{ "struct name", { P(4, 0, BAD_NAME), NO }, 0, 1, 0, 4, -1,
	  "type [4] STRUCT 'long int': a name that is no C identifier" },
	{ "member name", { P(4, 3, BAD_NAME), NO }, 0, 1, 0, 4, 0,
	  "type [4] STRUCT 's' member 0 'long int': a member name that is no C identifier" },
	{ "member of void", { P(4, 7, 0), NO }, 1, 0, 0, 4, 1,
	  "type [4] STRUCT 's' member 1 'b': a member of no valid type ID" },
	{ "member past the last", { P(4, 7, 21), NO }, 1, 0, 0, 4, 1,
	  "a member of no valid type ID" },
	{ "members out of order", { P(4, 5, 72), NO }, 1, 0, 0, 4, 1,
	  "members out of offset order" },
	{ "member past the size", { P(4, 8, 200), NO }, 1, 0, 0, 4, 1,
	  "a member offset past the struct's size" },
	{ "union member at 64", { P(4, 1, INFO(BTF_KIND_UNION, 0, 2)), NO },
	  1, 0, 0, 4, 1, "type [4] UNION 's' member 1 'b': a union member at a non-zero offset" },
	{ "enum of 3 bytes", { P(5, 2, 3), NO }, 1, 0, 0, 5, -1,
	  "an enum of size other than 1, 2, 4 or 8" },
	{ "enumerator name", { P(5, 3, BAD_NAME), NO }, 0, 1, 0, 5, 0,
	  "type [5] ENUM 'e' member 0 'long int': an enumerator name that is no C identifier" },
	{ "enumerator without a name", { P(5, 5, 0), NO }, 0, 0, 0, 5, 1,
	  "an enumerator name that is no C identifier" },
	{ "typedef name", { P(6, 0, BAD_NAME), NO }, 0, 1, 0, 6, -1,
	  "a typedef name that is no C identifier" },
	{ "ARRAY with a size", { P(7, 2, 4), NO }, 1, 0, 0, 7, -1,
	  "an ARRAY with vlen, name or size set" },
	{ "ARRAY of void", { P(7, 3, 0), NO }, 1, 0, 0, 7, -1,
	  "an ARRAY of no valid element or index type" },
	{ "ARRAY index past the last", { P(7, 4, 21), NO }, 1, 0, 0, 7, -1,
	  "an ARRAY of no valid element or index type" },
	{ "FUNC_PROTO with a name", { P(9, 0, NAME_F), NO }, 0, 0, 0, 9, -1,
	  "a FUNC_PROTO with a name" },
	{ "return type past the last", { P(9, 2, 21), NO }, 1, 0, 0, 9, -1,
	  "a return type past the last type ID" },
	{ "void first parameter", { P(9, 4, 0), NO }, 0, 0, 0, 9, 0,
	  "type [9] FUNC_PROTO '(anon)' parameter 0 'x': a void parameter that is not the last" },
	{ "void parameter in a member", { P(9, 4, 0), NO }, 1, 1, 0, 0, 0, NULL },
	{ "parameter past the last", { P(9, 6, 21), NO }, 1, 0, 0, 9, 1,
	  "a parameter type past the last type ID" },
	{ "parameter name", { P(9, 5, BAD_NAME), NO }, 0, 1, 0, 9, 1,
	  "a parameter name that is no C identifier" },
	{ "FUNC linkage 3", { P(10, 1, INFO(BTF_KIND_FUNC, 0, 3)), NO },
	  1, 0, 0, 10, -1, "a FUNC of unknown linkage" },
	{ "FUNC name", { P(10, 0, BAD_NAME), NO }, 0, 1, 0, 10, -1,
	  "a FUNC name that is no C identifier" },
	{ "FUNC of void", { P(10, 2, 0), NO }, 1, 0, 0, 10, -1,
	  "a FUNC of no valid type ID" },
	{ "VAR vlen", { P(11, 1, INFO(BTF_KIND_VAR, 0, 1)), NO }, 1, 0, 0, 11, -1,
	  "vlen set on a VAR" },
	{ "VAR extern", { P(11, 3, BTF_VAR_GLOBAL_EXTERN), NO }, 1, 0, 0, 11, -1,
	  "a VAR of a linkage the kernel does not load" },
	{ "VAR name", { P(11, 0, BAD_NAME), NO }, 0, 1, 0, 11, -1,
	  "a VAR name that is no C identifier" },
	{ "VAR of void", { P(11, 2, 0), NO }, 1, 0, 0, 11, -1,
	  "a VAR of no valid type ID" },
	{ "DATASEC without entries", { P(12, 1, INFO(BTF_KIND_DATASEC, 0, 0)), NO },
	  0, 1, 0, 12, -1, "a DATASEC without entries" },
	{ "DATASEC of size 0", { P(12, 2, 0), NO }, 0, 1, 0, 12, -1,
	  "a DATASEC of size 0" },
	{ "DATASEC without a name", { P(12, 0, 0), NO }, 0, 1, 0, 12, -1,
	  "a DATASEC name that is empty or not printable" },
	{ "DATASEC entry of void", { P(12, 3, 0), NO }, 0, 1, 0, 12, 0,
	  "type [12] DATASEC '.data' entry 0 '': an entry of no valid type ID" },
	{ "DATASEC entry of 0 bytes", { P(12, 5, 0), NO }, 0, 1, 0, 12, 0,
	  "an entry of size 0 or past the section's size" },
	{ "DATASEC entry past the size", { P(12, 4, 8), NO }, 0, 1, 0, 12, 0,
	  "an entry of size 0 or past the section's size" },
	{ "DATASEC entry of an INT", { P(12, 3, 1), NO }, 0, 1, 0, 12, 0,
	  "an entry that is no VAR" },
	{ "DATASEC entry too small", { P(12, 5, 8), P(12, 2, 8) }, 0, 1, 0,
	  12, 0, "an entry smaller than its VAR" },
	{ "DECL_TAG without a value", { P(13, 0, 0), NO }, 1, 0, 0, 13, -1,
	  "a DECL_TAG with vlen set or no value" },
	{ "DECL_TAG component -2", { P(13, 3, (uint32_t)-2), NO }, 1, 0, 0,
	  13, -1, "a DECL_TAG component_idx below -1" },
	{ "DECL_TAG of void", { P(13, 2, 0), NO }, 1, 0, 0, 13, -1,
	  "a DECL_TAG of no valid type ID" },
	{ "FLOAT of 3 bytes", { P(17, 2, 3), NO }, 1, 0, 0, 17, -1,
	  "a FLOAT of size other than 2, 4, 8, 12 or 16" },
	{ "FLOAT vlen", { P(17, 1, INFO(BTF_KIND_FLOAT, 0, 1)), NO }, 1, 0, 0,
	  17, -1, "vlen set on a FLOAT" },
	{ "FWD with a type", { P(15, 2, 1), NO }, 1, 0, 0, 15, -1,
	  "type [15] FWD 'fw': a FWD with vlen or type set (both must be 0)" },
	{ "FWD name", { P(15, 0, BAD_NAME), NO }, 0, 1, 0, 15, -1,
	  "a FWD name that is no C identifier" },
	{ "TYPE_TAG without a value", { P(18, 0, 0), NO }, 1, 0, 0, 18, -1,
	  "a TYPE_TAG without a value" },
	/* 2. sizes */
	{ "struct holds itself", { P(4, 4, 6), NO }, 1, 0, 0, 6, -1,
	  "type [6] TYPEDEF 't': a loop of types held by value" },
	{ "array of itself", { P(7, 3, 7), NO }, 1, 0, 0, 7, -1,
	  "a loop of types held by value" },
	{ "array of FWDs", { P(7, 3, 15), NO }, 1, 0, 0, 7, -1,
	  "an ARRAY of elements without a size" },
	{ "array of 4 GiB", { P(7, 5, 0x40000000), NO }, 1, 0, 0, 7, -1,
	  "an ARRAY of more than 4 GiB" },
	/* 3. references */
	{ "member of a FWD", { P(4, 7, 15), NO }, 0, 1, 0, 4, 1,
	  "a member of a type without a size" },
	{ "member not at a byte", { P(4, 4, 7), P(4, 5, 1) }, 0, 1, 0, 4, 0,
	  "a member that is no bitfield, not at a byte" },
	{ "member past the struct", { P(4, 8, 96), NO }, 0, 1, 0, 4, 1,
	  "type [4] STRUCT 's' member 1 'b': a member that runs past the struct's size" },
	{ "pointer past the struct", { P(4, 7, 3), P(4, 8, 96) }, 0, 1, 0, 4, 1,
	  "a member that runs past the struct's size" },
	{ "pointer fits, 4 bytes", { P(4, 7, 3), P(4, 8, 96) }, 0, 0, 1, 0, 0,
	  NULL },
	{ "bitfield wider than int", { P(4, 1, INFO(BTF_KIND_STRUCT, 1, 2)),
	  P(4, 5, 33u << 24) }, 0, 1, 0, 4, 0, "a bitfield wider than its type" },
	{ "bitfield of an array", { P(4, 1, INFO(BTF_KIND_STRUCT, 1, 2)),
	  P(4, 4, 7), P(4, 5, 8u << 24) }, 0, 1, 0, 4, 0, "a bitfield of a type that is no INT or enum" },
	{ "array index a struct", { P(7, 4, 4), NO }, 1, 0, 0, 7, -1,
	  "an ARRAY whose index type is no INT" },
	{ "pointer to a VAR", { P(3, 2, 11), NO }, 0, 1, 0, 3, -1,
	  "a pointer, qualifier or typedef of a FUNC, VAR, DATASEC or DECL_TAG" },
	{ "FUNC of an INT", { P(10, 2, 1), NO }, 1, 0, 0, 10, -1,
	  "a FUNC whose type is no FUNC_PROTO" },
	{ "FUNC unnamed parameter", { P(9, 3, 0), NO }, 1, 0, 0, 10, 0,
	  "type [10] FUNC 'f' parameter 0 '': a FUNC with an unnamed parameter" },
	{ "return type a FWD", { P(9, 2, 15), NO }, 0, 1, 0, 9, -1,
	  "a return type without a size" },
	{ "parameter a FWD", { P(9, 6, 15), NO }, 0, 1, 0, 9, 1,
	  "a parameter of a type without a size" },
	{ "VAR of a FWD", { P(11, 2, 15), NO }, 1, 0, 0, 11, -1,
	  "a VAR of a type without a size" },
	{ "DECL_TAG member 2", { P(13, 3, 2), NO }, 0, 0, 0, 13, -1,
	  "a DECL_TAG's component_idx past its struct's members" },
	{ "DECL_TAG parameter 2", { P(14, 3, 2), NO }, 0, 0, 0, 14, -1,
	  "a DECL_TAG's component_idx past its function's parameters" },
	{ "DECL_TAG on a VAR's member", { P(13, 2, 11), NO }, 0, 0, 0, 13, -1,
	  "a DECL_TAG with a component_idx on a VAR or typedef" },
	{ "DECL_TAG of an INT", { P(13, 2, 1), NO }, 0, 0, 0, 13, -1,
	  "a DECL_TAG of a kind that cannot be tagged" },
};

/* Every row, as a member and not (where the rule does not depend on it). */
static void test_cases(void)
{
	char msg[512];
	size_t i, k;
	struct raw r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct vcase *c = &cases[i];
		struct abtf_vfault f = { .id = 0xdead };
		int err, want = c->what && !(c->member && c->member_ok) ?
				-EINVAL : 0;

		if (!CHECK_ROW(c->name, raw_get(&r, c->member, c->ptr4 ? 4 : 8)))
			continue;
		for (k = 0; k < 3 && c->poke[k].id; k++)
			*word(&r, c->poke[k].id, c->poke[k].word) =
				value(&r, c->poke[k].val);
		err = abtf__verify(&r.src, &f);
		CHECK_ROW(c->name, err == want);
		if (err == -EINVAL) {
			abtf__vfault_str(&r.src, &f, msg, sizeof(msg));
			CHECK_ROW(c->name, f.id == c->id && f.comp == c->comp);
			if (!CHECK_ROW(c->name, strstr(msg, c->what)))
				printf("  got: %s\n", msg);
		}
		free(r.data);
	}
}

/* Rows that fail only outside a member pass as a member. */
static void test_member_mode(void)
{
	struct abtf_vfault f;
	size_t i, k;
	struct raw r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct vcase *c = &cases[i];

		if (!c->member_ok || c->member || !c->what)
			continue;
		if (!CHECK_ROW(c->name, raw_get(&r, true, 8)))
			continue;
		for (k = 0; k < 3 && c->poke[k].id; k++)
			*word(&r, c->poke[k].id, c->poke[k].word) =
				value(&r, c->poke[k].val);
		CHECK_ROW(c->name, !abtf__verify(&r.src, &f));
		free(r.data);
	}
}

/* The sample passes as raw records and through libbpf, member or not. */
static void test_valid(struct unit_log *log)
{
	struct btf *btf = unit_sample_btf();
	struct abtf_vsrc src = { .btf = btf, .start_id = 1,
				 .nr_types = UNIT_NR_TYPES, .ptr_size = 8 };
	struct abtf_vfault f;
	struct raw r;

	CHECK(!abtf__verify(&src, &f));
	src.member = true;
	CHECK(!abtf__verify(&src, &f));
	src.nr_types = 0;
	CHECK(!abtf__verify(&src, &f));
	unit_log_reset(log);
	CHECK(!abtf__verify_btf(btf, false, PATH, "the final BTF", &log->pr));
	CHECK(!abtf__verify_btf(btf, true, PATH, "member", &log->pr));
	CHECK(!log->nr);
	if (CHECK(raw_get(&r, false, 8))) {
		CHECK(!abtf__verify(&r.src, &f));
		r.src.member = true;
		CHECK(!abtf__verify(&r.src, &f));
		free(r.data);
	}
	btf__free(btf);
}

/*
 * Split BTF: its types are checked, its base's followed only; libbpf
 * lets a FUNC be named "bad-name", the kernel does not.
 */
static void test_split(struct unit_log *log)
{
	struct btf *base = unit_sample_btf(), *split;
	int id;

	CHECK(btf__add_func(base, "bad-name", BTF_FUNC_STATIC, 9) ==
	      UNIT_NR_TYPES + 1);
	split = btf__new_empty_split(base);
	CHECK(btf__add_ptr(split, 4) == UNIT_NR_TYPES + 2);
	id = btf__add_struct(split, "u", 24);
	CHECK(!btf__add_field(split, "s", 4, 0, 0));
	CHECK(!btf__add_field(split, "p", UNIT_NR_TYPES + 2, 128, 0));
	unit_log_reset(log);
	CHECK(!abtf__verify_btf(split, false, PATH, "the split BTF", &log->pr));
	CHECK(!log->nr);
	CHECK(abtf__verify_btf(base, false, PATH, "the base", &log->pr) ==
	      -EINVAL);
	CHECK(log->nr == 1 && !strcmp(log->last, PATH ": the base breaks the "
		"kernel's BTF rules: type [21] FUNC 'bad-name': a FUNC name "
		"that is no C identifier"));
	/* the same rule, broken above the base */
	CHECK(btf__add_func(split, "x\x01y", BTF_FUNC_STATIC, 9) == id + 1);
	unit_log_reset(log);
	CHECK(abtf__verify_btf(split, false, PATH, "the split BTF", &log->pr) ==
	      -EINVAL);
	CHECK(log->nr == 1 && !strcmp(log->last, PATH ": the split BTF breaks "
		"the kernel's BTF rules: type [24] FUNC 'x\\x01y': a FUNC name "
		"that is no C identifier"));
	btf__free(split);
	btf__free(base);
}

/* Names made printable and cut to their buffer; kind names in range. */
static void test_names(void)
{
	char buf[16], big[600];

	CHECK(!strcmp(abtf__safe_name("a\x01\\\xff", buf, sizeof(buf)),
		      "a\\x01\\x5c\\xff"));
	CHECK(!strcmp(abtf__safe_name(NULL, buf, sizeof(buf)), ""));
	CHECK(!strcmp(abtf__safe_name("abcdefghijklmnopq", buf, sizeof(buf)),
		      "abcdefghijk..."));
	CHECK(!strcmp(abtf__safe_name("\x01\x02\x03\x04", buf, 10), "\\x01\\x02"));
	buf[0] = 'z';
	abtf__safe_name("abc", buf, 0);
	CHECK(buf[0] == 'z');
	CHECK(!strcmp(abtf__safe_name("abc", buf, 1), ""));
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(strlen(abtf__safe_name(big, buf, sizeof(buf))) < sizeof(buf));
	CHECK(!strcmp(abtf__kind_str(BTF_KIND_STRUCT), "STRUCT"));
	CHECK(!strcmp(abtf__kind_str(BTF_KIND_ENUM64), "ENUM64"));
	CHECK(!strcmp(abtf__kind_str(0), "UNKN"));
	CHECK(!strcmp(abtf__kind_str(BTF_KIND_ENUM64 + 1), "UNKN"));
	CHECK(!strcmp(abtf__kind_str(-1), "UNKN"));
	CHECK(!strcmp(abtf__kind_str(1 << 30), "UNKN"));
}

int main(void)
{
	struct unit_log log;

	unit_log_init(&log);
	test_valid(&log);
	test_cases();
	test_member_mode();
	test_split(&log);
	test_names();
	return unit_status();
}
