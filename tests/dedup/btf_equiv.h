/* SPDX-License-Identifier: GPL-2.0-only */
/* BTF equivalence by meaning, for tests: btf_equiv.c says how. */
#ifndef BTF_EQUIV_H
#define BTF_EQUIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct btf;
struct btf_equiv;

#define BTF_EQUIV_MAX	8	/* BTFs in one comparison */

struct btf_equiv *btf_equiv__new(void);
/*
 * Add @btf (not copied; it must outlive the comparison), split on the BTF
 * added as @base, or -1 for none: a base is added before its split BTFs.
 * Returns the BTF's index, or -1 when full or already refined.
 */
int btf_equiv__add(struct btf_equiv *e, const struct btf *btf, int base);
/* Classes of every type of every BTF added. */
void btf_equiv__refine(struct btf_equiv *e);
/*
 * Print a line, prefixed by @what, for each class only one of BTFs @a and
 * @b (named @na, @nb) has, and return their number. @types_only: compare
 * only what is reachable from types that are not FUNC, VAR, DATASEC,
 * FUNC_PROTO or a DECL_TAG of one; @verbose: print classes present in
 * both, a different number of times, too (not counted).
 */
int btf_equiv__diff(const struct btf_equiv *e, int a, int b, bool types_only,
		    bool verbose, const char *what, const char *na,
		    const char *nb);
/* The same, printing to @out. */
int btf_equiv__diff_to(const struct btf_equiv *e, int a, int b,
		       bool types_only, bool verbose, const char *what,
		       const char *na, const char *nb, FILE *out);
uint32_t btf_equiv__nr_types(const struct btf_equiv *e);
uint32_t btf_equiv__nr_classes(const struct btf_equiv *e);
void btf_equiv__free(struct btf_equiv *e);

#endif
