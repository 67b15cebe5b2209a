// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The plan (see the essay atop linker.c, step 1): the thread count, the
 * archive's member boundaries from their headers (a compressed member's
 * inflated header checked), and the leaves of the merge tree.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "link/linker.h"
#include "link/input.h"
#include "link/plan.h"
#include "link/node.h"
#include "btf/zmember.h"

void abtf__plan_threads(struct abtf_linker *l)
{
	long n = l->opts.nr_threads;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	l->plan.nr_threads = n < 1 ? 1 : n;
}

void abtf__link_plan_free(struct link_plan *p)
{
	size_t i;

	for (i = 0; i < p->nr_members && p->members; i++)
		free(p->members[i].vars);
	free(p->members);
	free(p->sym_used);
	memset(p, 0, sizeof(*p));
}

static int push_plan(struct abtf_linker *l, size_t *cap, size_t off,
		     size_t size)
{
	struct link_plan *p = &l->plan;

	if (abtf_grow(p->members, *cap, p->nr_members + 1))
		return -ENOMEM;
	memset(&p->members[p->nr_members], 0, sizeof(*p->members));
	p->members[p->nr_members].off = off;
	p->members[p->nr_members].size = size;
	p->nr_members++;
	return 0;
}

struct zread {
	const struct abtf_linker *l;
	size_t off;		/* the compressed member's, in .BTF */
};

static int zread(void *ctx, void *buf, size_t len, size_t off)
{
	const struct zread *z = ctx;

	return abtf__read_btf(z->l, buf, len, z->off + off);
}

/*
 * The BTF header a compressed member inflates to, checked against the
 * size its header says (before the leaves allocate that much for it):
 * only its first bytes are inflated.
 */
static int zmember_head(struct abtf_linker *l, size_t off, size_t size,
			size_t btf_size)
{
	struct zread z = { .l = l, .off = off };
	struct btf_header head;
	int err;

	err = abtf__zmember_head(zread, &z, size, &head, sizeof(head),
				 l->plan.nr_members, off, l->where, &l->pr);
	if (!err && l->file.swapped)
		abtf__btf_swap(&head, sizeof(head));
	if (!err)
		err = abtf__zmember_head_check(&head, btf_size,
					       l->plan.nr_members, off,
					       l->where, &l->pr);
	return err;
}

/*
 * A member's header longer than 24 bytes (pahole 1.31's layout table),
 * read whole and checked: a table past the strings made the member end
 * before it, its bytes read as a next member of "bad BTF magic".
 */
static int long_header(struct abtf_linker *l, size_t off, uint32_t hdr_len)
{
	uint8_t *p = malloc(hdr_len);
	int err;

	if (!p)
		return -ENOMEM;
	err = abtf__read_btf(l, p, hdr_len, off);
	if (err)
		err = abtf__link_error(l, err, "cannot read .BTF");
	else
		err = archive__long_header(p, hdr_len, l->plan.nr_members,
					   off, l->where, &l->pr);
	free(p);
	return err;
}

/*
 * The member at @off, compressed or not, from its header: *@size gets its
 * bytes in .BTF, *@zsize the same for a compressed member (0 for plain BTF)
 * and *@btf_size those of its BTF.
 */
static int member_size(struct abtf_linker *l, size_t off, size_t avail,
		       size_t *size, size_t *zsize, size_t *btf_size)
{
	struct btf_header hdr;
	int err;

	memset(&hdr, 0, sizeof(hdr));
	err = abtf__read_btf(l, &hdr, avail < sizeof(hdr) ? avail : sizeof(hdr), off);
	if (err)
		return abtf__link_error(l, err, "cannot read .BTF");
	*zsize = 0;
	if (abtf__is_zmember(&hdr, avail)) {
		l->file.nr_zmembers++;
		err = abtf__zmember_size(&hdr, avail, l->file.swapped,
					 l->plan.nr_members, off,
					 l->where, &l->pr, size, btf_size);
		*zsize = *size;
		return err ? err : zmember_head(l, off, *size, *btf_size);
	}
	if (!l->file.elf && !off && avail >= 2 && hdr.magic != BTF_MAGIC &&
	    hdr.magic != bswap_16(BTF_MAGIC))
		return abtf__link_error(l, -EINVAL,
				  "neither an ELF file nor raw BTF");
	if (!l->file.elf && !off)	/* raw BTF: its first member's order */
		l->file.swapped = hdr.magic == bswap_16(BTF_MAGIC);
	if (l->file.swapped)
		abtf__btf_swap(&hdr, sizeof(hdr));
	err = archive__member_size(&hdr, avail, l->plan.nr_members, off,
				   l->where, &l->pr, size);
	*btf_size = *size;
	if (!err && hdr.hdr_len > sizeof(hdr))
		err = long_header(l, off, hdr.hdr_len);
	return err;
}

/* Member boundaries from the headers alone: 24 bytes read per member. */
int abtf__walk_members(struct abtf_linker *l)
{
	size_t off = 0, cap = 0, size, zsize, btf_size, pad;
	uint8_t buf[64];	/* enough to tell padding from garbage */
	int err;

	if (!l->file.btf_size)
		return abtf__link_error(l, -EINVAL, ".BTF is empty");
	while (off < l->file.btf_size) {
		size_t avail = l->file.btf_size - off;

		err = member_size(l, off, avail, &size, &zsize, &btf_size);
		if (err)
			return err;
		err = push_plan(l, &cap, off, btf_size);
		if (err)
			return err;
		l->plan.members[l->plan.nr_members - 1].zsize = zsize;
		off += size;
		avail = l->file.btf_size - off;
		if (avail > sizeof(buf))
			avail = sizeof(buf);
		err = abtf__read_btf(l, buf, avail, off);
		if (!err)
			err = archive__member_padding(buf, avail,
						   l->plan.nr_members - 1,
						   off, l->where, &l->pr, &pad);
		if (err)
			return err;
		off += pad;
	}
	return 0;
}

/* Leaves: consecutive members of about ABTF_LEAF_BYTES (opts.leaf_bytes). */
struct node *abtf__make_leaves(struct abtf_linker *l, size_t *nr)
{
	struct node *leaves = calloc(l->plan.nr_members + 1, sizeof(*leaves));
	struct node *shrunk;
	size_t i, bytes = 0;
	size_t max = l->opts.leaf_bytes ? l->opts.leaf_bytes : ABTF_LEAF_BYTES;

	if (!leaves)
		return NULL;
	*nr = 0;
	for (i = 0; i < l->plan.nr_members; i++) {
		if (!bytes)
			leaves[(*nr)++].first = i;
		leaves[*nr - 1].nr++;
		leaves[*nr - 1].leaf = true;
		bytes += l->plan.members[i].size;
		if (bytes >= max)
			bytes = 0;
	}
	/* one node per member at most: keep the ones made */
	shrunk = realloc(leaves, (*nr + 1) * sizeof(*leaves));
	return shrunk ? shrunk : leaves;
}
