/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel's BTF rules, checked before a BTF is used or written. */
#ifndef __ABTF_VERIFY_H
#define __ABTF_VERIFY_H

#include <stdint.h>

#include <linux/btf.h>

#include "util/internal.h"

struct btf;

/*
 * Where the verifier reads types and strings: either a libbpf BTF (split
 * BTF sees its base through it), or raw records of one archive member.
 * Types start_id .. start_id + nr_types - 1 are checked; lower IDs (a base)
 * are taken as verified and only followed.
 */
struct abtf_vsrc {
	const struct btf *btf;		/* or, when NULL: */
	const uint8_t *types;		/* 4-byte aligned records */
	const uint32_t *offs;		/* offs[id]: record of type id (1-based) */
	const char *strs;		/* NUL-terminated string section */
	uint32_t str_len;
	uint32_t start_id;		/* the first type to check */
	uint32_t nr_types;		/* how many */
	uint32_t ptr_size;		/* 8, or 4 for 32-bit targets */
	/*
	 * An archive member: what the link rebuilds or filters is not held
	 * against it (DATASECs; VAR names, which the features decide on),
	 * and names are left to the check of the final BTF.
	 */
	bool member;
	/*
	 * A base to link against (vmlinux's BTF, which the kernel loaded):
	 * each name must lie in the string section, as libbpf reads it, but
	 * is not held to the kernel's identifier rules (a tenth of a module's
	 * link, in every module's link).
	 */
	bool base;
};

/* The first fault found: type @id (component @comp: member, parameter, ...). */
struct abtf_vfault {
	uint32_t id;
	int32_t comp;			/* -1: the type itself */
	const char *what;
};

/*
 * Check the types of @src against the rules the kernel's BTF verifier
 * applies at boot and module load (per kind: reserved fields and bits,
 * vlen and kind_flag, names; then what refers to what: type IDs in range,
 * no loops of types held by value, sizes that fit, FUNC -> FUNC_PROTO,
 * parameters, DATASEC entries, DECL_TAG targets).
 * Returns 0, -EINVAL with *f set, or -ENOMEM. Never prints.
 */
int abtf__verify(const struct abtf_vsrc *src, struct abtf_vfault *f);

/*
 * Describe fault @f of @src as "type [ID] KIND 'name'[ member 'm']: what"
 * into @buf, names made printable.
 */
void abtf__vfault_str(const struct abtf_vsrc *src, const struct abtf_vfault *f,
		      char *buf, size_t size);

/*
 * Verify the BTF @btf (split BTF: its own types, against its base; with
 * @member, as an archive member is) and print one error naming @path and
 * @what ("the final BTF") if it breaks a rule. Returns 0, -EINVAL or
 * -ENOMEM.
 */
int abtf__verify_btf(const struct btf *btf, bool member, const char *path,
		     const char *what, const struct abtf_printer *pr);

/* The same for the base of a link (abtf_vsrc.base). */
int abtf__verify_base(const struct btf *btf, const char *path,
		      const struct abtf_printer *pr);

/* "STRUCT", "FUNC", ... for BTF kind @kind. */
const char *abtf__kind_str(int kind);

#endif /* __ABTF_VERIFY_H */
