// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The library's containers on their own (tests/containers.bats): compiled
 * at test time with libarchive-btf/util/util.c and hashmap.c. Prints one line
 * per failed check and exits 1 if any failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "util/internal.h"

static int failed;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("%s:%d: %s\n", __FILE__, __LINE__, #cond);	\
			failed = 1;					\
		}							\
	} while (0)

/* abtf__grow(): at least doubling; a size that overflows is refused. */
static void test_grow(void)
{
	uint64_t *a = NULL, *keep;
	size_t cap = 0, i;

	CHECK(!abtf_grow(a, cap, 1) && a && cap == 16);
	for (i = 0; i < cap; i++)
		a[i] = i;
	CHECK(!abtf_grow(a, cap, 16) && cap == 16);
	CHECK(!abtf_grow(a, cap, 17) && cap == 32);
	CHECK(!abtf_grow(a, cap, 1000) && cap == 1000);
	for (i = 0; i < 16; i++)
		CHECK(a[i] == i);
	/* counts from a hostile file: bytes past SIZE_MAX */
	keep = a;
	CHECK(abtf_grow(a, cap, SIZE_MAX / 8 + 1) == -ENOMEM);
	CHECK(abtf_grow(a, cap, SIZE_MAX) == -ENOMEM);
	CHECK(a == keep && cap == 1000);
	free(a);
}

static uint32_t mix(uint32_t v)
{
	v *= 0x9e3779b1u;
	return v ^ v >> 15;
}

/* The map: every entry found, the absent not, at most half full. */
static void test_hmap(void)
{
	struct abtf_hmap m = { 0 };
	struct abtf_hent *e;
	uint32_t i, n, nr = 100000;

	e = abtf__hmap_first(&m, 7);	/* empty map: nothing to visit */
	CHECK(!e->val);
	for (i = 1; i <= nr; i++)	/* every 7th shares one hash */
		CHECK(!abtf__hmap_add(&m, 16, i % 7 ? mix(i) : 7, i));
	CHECK(m.cnt == nr && m.cnt <= (m.mask + 1) / 2);
	for (i = 1; i <= nr; i++) {
		uint32_t h = i % 7 ? mix(i) : 7;

		for (e = abtf__hmap_first(&m, h); e->val;
		     e = abtf__hmap_next(&m, e))
			if (e->hash == h && e->val == i)
				break;
		CHECK(e->val == i);
	}
	for (n = 0, e = abtf__hmap_first(&m, 7); e->val;
	     e = abtf__hmap_next(&m, e))
		n += e->hash == 7;
	CHECK(n == nr / 7);
	/* reserve, look up an absent key, fill where the lookup ended */
	CHECK(!abtf__hmap_reserve(&m, 16));
	for (e = abtf__hmap_first(&m, mix(0)); e->val;
	     e = abtf__hmap_next(&m, e))
		CHECK(e->hash != mix(0) || e->val != nr + 1);
	abtf__hmap_fill(&m, e, mix(0), nr + 1);
	CHECK(m.cnt == nr + 1 && abtf__hmap_first(&m, mix(0))->val);
	/* reset: empty, sized for the entries to come */
	CHECK(!abtf__hmap_reset(&m, 100) && !m.cnt && m.mask + 1 == 256);
	for (e = abtf__hmap_first(&m, 7); e->val; e = abtf__hmap_next(&m, e))
		CHECK(0);
	CHECK(!abtf__hmap_reset(&m, 0) && m.mask + 1 == 16);
	abtf__hmap_free(&m);
	CHECK(!m.slots && !m.cnt);
}

/* String interning: one copy of each string, offsets in order. */
static void test_strtab(void)
{
	struct strtab st = { 0 };
	char s[32];
	int i;

	CHECK(abtf__strtab_add(&st, "") == 0);
	CHECK(abtf__strtab_add(&st, "int") == 1);
	CHECK(abtf__strtab_add(&st, "unsigned long") == 5);
	CHECK(abtf__strtab_add(&st, "int") == 1);
	CHECK(abtf__strtab_add(&st, "") == 0);
	for (i = 0; i < 50000; i++) {
		snprintf(s, sizeof(s), "name_%d", i);
		CHECK(abtf__strtab_add(&st, s) >= 19);
	}
	for (i = 0; i < 50000; i += 997) {
		int64_t off;

		snprintf(s, sizeof(s), "name_%d", i);
		off = abtf__strtab_add(&st, s);
		CHECK(off >= 0 && !strcmp(st.data + off, s));
	}
	CHECK(st.map.cnt == 50003);
	abtf__strtab_free(&st);
}

/* Error words: libbpf's codes named, never "Unknown error 4003". */
static void test_strerror(void)
{
	CHECK(!strcmp(ABTF_STRERROR(-ENOSPC), strerror(ENOSPC)));
	CHECK(!strcmp(ABTF_STRERROR(ENOSPC), strerror(ENOSPC)));
	CHECK(!strstr(ABTF_STRERROR(-4001), "Unknown error"));
	CHECK(!strstr(ABTF_STRERROR(-4003), "Unknown error"));
	CHECK(strstr(ABTF_STRERROR(-4999), "4999") != NULL);
}

/* A BTF of one INT "int" and one PTR to it, in the host's order. */
static size_t tiny_btf(uint8_t *buf)
{
	static const char strs[] = "\0int";
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(h), .type_off = 0, .type_len = 28,
		.str_off = 28, .str_len = sizeof(strs),
	};
	uint32_t types[7] = {
		1, BTF_KIND_INT << 24, 4, (BTF_INT_SIGNED << 24) | 32,
		0, BTF_KIND_PTR << 24, 1,
	};

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), types, sizeof(types));
	memcpy(buf + sizeof(h) + sizeof(types), strs, sizeof(strs));
	return sizeof(h) + sizeof(types) + sizeof(strs);
}

/* abtf__btf_swap(): both ways, and within the bytes it is given. */
static void test_swap(void)
{
	uint8_t buf[64], orig[64], *p;
	struct btf_header h;
	size_t n = tiny_btf(buf);
	uint32_t w;

	memcpy(orig, buf, n);
	CHECK(abtf__btf_swap(buf, n));
	CHECK(buf[0] == (__BYTE_ORDER == __LITTLE_ENDIAN ? 0xeb : 0x9f));
	memcpy(&w, buf + sizeof(h) + 12, 4);	/* the INT's encoding word */
	CHECK(w == __builtin_bswap32((BTF_INT_SIGNED << 24) | 32));
	CHECK(!memcmp(buf + n - 5, "\0int", 5));	/* strings are bytes */
	CHECK(abtf__btf_swap(buf, n) && !memcmp(buf, orig, n));
	CHECK(!abtf__btf_swap(buf, 23) && !memcmp(buf, orig, n));

	/* hostile lengths: nothing past @size is touched */
	p = malloc(sizeof(h));
	memcpy(p, orig, sizeof(h));
	((struct btf_header *)p)->hdr_len = 0xfffffff0;
	((struct btf_header *)p)->type_len = 0xfffffff0;
	CHECK(abtf__btf_swap(p, sizeof(h)));
	memcpy(&h, p, sizeof(h));
	CHECK(h.hdr_len == __builtin_bswap32(0xfffffff0));
	free(p);
	/* a type section past the bytes, or misaligned, is left as it is */
	memcpy(buf, orig, n);
	CHECK(abtf__btf_swap(buf, sizeof(h) + 8));
	CHECK(!memcmp(buf + sizeof(h), orig + sizeof(h), 8));
	memcpy(buf, orig, n);
	((struct btf_header *)buf)->type_len = 26;
	CHECK(abtf__btf_swap(buf, n));
	CHECK(!memcmp(buf + sizeof(h), orig + sizeof(h), 26));
	/* hdr_len short of the fixed fields: they are swapped all the same */
	memcpy(buf, orig, n);
	((struct btf_header *)buf)->hdr_len = 8;
	CHECK(abtf__btf_swap(buf, n));
	memcpy(&h, buf, sizeof(h));
	CHECK(h.str_len == __builtin_bswap32(5));
}

int main(void)
{
	test_grow();
	test_hmap();
	test_strtab();
	test_strerror();
	test_swap();
	return failed;
}
