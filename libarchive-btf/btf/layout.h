/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The layout feature (layout.c): pahole 1.31's layout table. Not installed. */
#ifndef __ABTF_BTF_LAYOUT_H
#define __ABTF_BTF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/*
 * @raw, a BTF as libbpf 1.1 writes it (24-byte header, either byte order),
 * with pahole 1.31's layout table: a new buffer the caller frees.
 */
int abtf__btf_add_layout(const void *raw, uint32_t size, void **out,
			 uint32_t *out_size);

/* A BTF of the other byte order with a layout table, made readable by
 * libbpf 1.1 in place: -ENOTSUP if it is not one. */
int abtf__btf_cut_layout(uint8_t *p, size_t *size);

/*
 * The first rule of a BTF header (@size bytes at @p, either byte order)
 * that the bytes break, libbpf 1.1's own checks aside: version, flags, a
 * longer header's layout table and zero fields. Its message, with *@at
 * the byte of the field, or NULL (layout.c).
 */
const char *abtf__btf_header_fault(const void *p, size_t size, size_t *at);

#endif /* __ABTF_BTF_LAYOUT_H */
