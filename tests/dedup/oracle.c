// SPDX-License-Identifier: GPL-2.0-only
/*
 * The differential oracle of btf-link's deduplication (tests/dedup/):
 * does a link describe exactly the types that libbpf's btf__dedup() alone
 * makes of the same members, with whatever libbpf is installed?
 *
 *   dedup-oracle [-v] FILE [BASE]
 *   dedup-oracle [-v] --btf A B      two raw BTF files, by meaning
 *
 * FILE is a BTF archive (an ELF file whose .BTF holds several members, or
 * raw BTF members concatenated); BASE, when given, a final BTF that the
 * link is split against. The reference is the link with every library
 * step before or instead of btf__dedup() off: no exact.c, libbpf's
 * btf__dedup() instead of node_dedup.c, and one leaf for the whole
 * archive, so one btf__dedup() over every member's surviving types (the
 * library's choice of FUNCs, VARs and DATASECs stays, as it must). Two
 * links are held to it: btf-link's default, and the same with a leaf for
 * every member (leaf_bytes 1: the merge tree at its deepest). For a raw
 * archive without a base, the types are also held to a naive
 * btf__add_btf() of every member and one btf__dedup() (below, "naive").
 *
 * Meaning, not bytes. Two types are the same when they are of one kind,
 * name, size, encoding, member names and offsets, values, linkage and
 * component index, and the types they refer to are the same, in order:
 * the largest such relation (bisimulation), computed by refinement over
 * all the BTFs at once. Start from classes of the local facts, then split
 * every class by the classes its references are in, until no class
 * splits. A FWD is its own kind: a pointer to FWD s and a pointer to
 * struct s differ. Each BTF then has a set of classes; two BTFs describe
 * the same types when their sets are equal. Multiplicity (libbpf keeps
 * two copies of a type it could not prove equal, in an order of its hash
 * table) is reported under -v, never counted as a difference.
 *
 * For the naive reference only the types are compared: its FUNCs, VARs
 * and DATASECs are every member's (the library keeps one FUNC a name, and
 * a raw archive of several members no VAR). The compared set is then
 * what is reachable from every type that is none of FUNC, VAR, DATASEC,
 * FUNC_PROTO or a DECL_TAG of one of those.
 *
 * Prints a line per class one side lacks, and exits 1 if any; 2 on any
 * other failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "archive_btf.h"

#include "btf_equiv.h"
#include "test_link.h"

/* ---- the links ---- */

/*
 * The naive reference: a raw archive's members, each added to one BTF
 * with btf__add_btf(), then one btf__dedup(). NULL if @path is not raw
 * BTF members (an ELF file).
 */
static struct btf *naive_dedup(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct btf *all = NULL;
	uint8_t *buf = NULL;
	size_t len = 0, off = 0;
	long sz;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out;
	len = (size_t)sz;
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != len || len < 4 ||
	    buf[0] != 0x9f || buf[1] != 0xeb)
		goto out;
	all = btf__new_empty();
	while (all && off + sizeof(struct btf_header) <= len) {
		const struct btf_header *h = (const void *)(buf + off);
		size_t msz = (size_t)h->hdr_len + h->str_off + h->str_len;
		struct btf *m;

		if (h->magic != BTF_MAGIC || msz > len - off)
			break;
		m = btf__new(buf + off, msz);
		if (!m || btf__add_btf(all, m) < 0) {
			btf__free(m);
			btf__free(all);
			all = NULL;
			break;
		}
		btf__free(m);
		off += msz;
		while (off < len && buf[off] == 0)	/* alignment padding */
			off++;
	}
	if (all && (off != len || btf__dedup(all, NULL))) {
		btf__free(all);
		all = NULL;
	}
out:
	free(buf);
	fclose(f);
	return all;
}

/* --btf A B: two raw BTF files compared by meaning (for debugging). */
static int compare_files(const char *a, const char *b, bool verbose)
{
	struct btf *ba = btf__parse_raw(a), *bb = btf__parse_raw(b);
	struct btf_equiv *u = btf_equiv__new();
	int diffs = 2;

	if (ba && bb && u) {
		int ia = btf_equiv__add(u, ba, -1), ib = btf_equiv__add(u, bb, -1);

		btf_equiv__refine(u);
		diffs = btf_equiv__diff(u, ia, ib, false, verbose, b, a, b) ?
			1 : 0;
	} else {
		fprintf(stderr, "dedup-oracle: cannot read %s or %s\n", a, b);
	}
	btf_equiv__free(u);
	btf__free(ba);
	btf__free(bb);
	return diffs;
}

int main(int argc, char **argv)
{
	bool verbose = false;
	struct abtf_linker *ref, *def, *deep;
	struct btf *base = NULL, *naive = NULL;
	struct btf_equiv *u = btf_equiv__new();
	const char *path, *base_path;
	int bb = -1, br, bd, bp, bn = -1, diffs = 0;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = true;
		argv++;
		argc--;
	}
	if (argc == 4 && !strcmp(argv[1], "--btf"))
		return compare_files(argv[2], argv[3], verbose);
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: dedup-oracle [-v] FILE [BASE] | "
			"[-v] --btf A B\n");
		return 2;
	}
	path = argv[1];
	base_path = argc == 3 ? argv[2] : NULL;
	ref = test_link(path, base_path, true, SIZE_MAX);
	def = test_link(path, base_path, false, 0);
	deep = test_link(path, base_path, false, 1);
	if (!ref || !def || !deep) {
		fprintf(stderr, "dedup-oracle: %s: a link failed\n", path);
		return 2;
	}
	if (base_path) {
		base = btf__parse(base_path, NULL);
		if (!base) {
			fprintf(stderr, "dedup-oracle: %s: cannot read\n",
				base_path);
			return 2;
		}
	} else {
		naive = naive_dedup(path);
	}
	if (!u) {
		fprintf(stderr, "dedup-oracle: out of memory\n");
		return 2;
	}
	if (base)
		bb = btf_equiv__add(u, base, -1);
	br = btf_equiv__add(u, abtf_linker__btf(ref), bb);
	bd = btf_equiv__add(u, abtf_linker__btf(def), bb);
	bp = btf_equiv__add(u, abtf_linker__btf(deep), bb);
	if (naive)
		bn = btf_equiv__add(u, naive, -1);
	btf_equiv__refine(u);
	diffs += btf_equiv__diff(u, br, bd, false, verbose, path, "libbpf's",
				 "btf-link's");
	diffs += btf_equiv__diff(u, br, bp, false, verbose, path, "libbpf's",
				 "btf-link's (a leaf per member)");
	if (naive)
		diffs += btf_equiv__diff(u, bn, bd, true, verbose, path,
					 "libbpf's (naive)", "btf-link's");
	if (verbose)
		printf("%s: %u types compared in %u classes, %d differences\n",
		       path, btf_equiv__nr_types(u), btf_equiv__nr_classes(u),
		       diffs);
	btf_equiv__free(u);
	abtf_linker__free(ref);
	abtf_linker__free(def);
	abtf_linker__free(deep);
	btf__free(naive);
	btf__free(base);
	return diffs ? 1 : 0;
}
