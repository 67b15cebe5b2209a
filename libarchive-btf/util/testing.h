/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Switches for the tests alone, which hold the library's own algorithms
 * to libbpf's (tests/dedup-diff.bats, tests/dedup/, tests/fuzz/). Not
 * installed and not part of the API: like every internal name they are
 * hidden, so neither the shared library nor the archive exports them; a
 * test reaches them by linking the library's objects (tests/lib/build.bash).
 */
#ifndef __ABTF_TESTING_H
#define __ABTF_TESTING_H

#include <stdbool.h>

struct abtf_encoder;
struct abtf_linker;

struct abtf_encode_testing {
	/*
	 * Deduplicate the object's types with libbpf's btf__dedup() instead
	 * of the encoder's own (ir_dedup.c); the BTF must come out the same,
	 * byte for byte (tests/dedup-diff.bats keeps that true).
	 */
	bool libbpf_dedup;
};

/* Set the switches of @enc's abtf_encoder__encode(), before it. */
void abtf__encoder_set_testing(struct abtf_encoder *enc,
			       const struct abtf_encode_testing *t);

struct abtf_link_testing {
	/*
	 * No exact matching before the deduplications (exact.c); the BTF
	 * must describe the same types (tests/dedup/).
	 */
	bool no_exact;
	/*
	 * Deduplicate the root of the merge tree with libbpf's btf__dedup()
	 * instead of the library's own implementation of the same algorithm
	 * (node_dedup.c), which must give the same bytes. Nodes below the
	 * root are merged by meaning alone either way.
	 */
	bool libbpf_dedup;
};

/* Set the switches of @l's abtf_linker__link(), before it. */
void abtf__linker_set_testing(struct abtf_linker *l,
			      const struct abtf_link_testing *t);

#endif /* __ABTF_TESTING_H */
