/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dwarf_types.c: one DWARF type DIE -> the IR's nodes (ir.h), the
 * function prototypes, DECL_TAGs and loops among them. Called by the
 * encoder's DWARF walk (enc_select.c, enc_funcext.c) and encoder.c.
 */
#ifndef __ABTF_DWARF_TYPES_H
#define __ABTF_DWARF_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "encode/dwarf_read.h"
#include "encode/ir.h"

/*
 * The type ID of the type DIE @die (0 for void), encoding it and everything
 * it refers to on first use. Returns a negative errno on failure, after one
 * message naming the DIE.
 */
int dwarf_types__type_of_die(struct ir *ir, struct dw_die *die);
/* The same for the DIE at .debug_info offset @off, named by DIE @from. */
int dwarf_types__type_of_off(struct ir *ir, const struct dw_die *from, uint64_t off);
/* The type ID of @die's DW_AT_type, from its origin if need be (0: void). */
int dwarf_types__type_of_attr(struct ir *ir, struct dw_die *die);
/* Whether @tag is a DWARF type tag the encoder emits on its own. */
bool dwarf_types__is_type_tag(int tag);

/*
 * The btf_decl_tag annotations among @die's children (clang's
 * DW_TAG_LLVM_annotation), and those of the DIE its DW_AT_abstract_origin
 * or DW_AT_specification names, as pending DECL_TAGs of node @target,
 * component @comp (-1: the node itself). 0 or < 0 after one message.
 */
int dwarf_types__decl_tags(struct ir *ir, const struct dw_die *die, uint32_t target,
		  int comp);
/* The pending DECL_TAGs as nodes, after all the others. 0 or -ENOMEM. */
int dwarf_types__add_decl_tags(struct ir *ir);
/*
 * A loop of pointers, qualifiers and typedefs among the nodes (BTF cannot
 * express it; the kernel refuses it): -EINVAL after one message naming a
 * DIE of it, else 0.
 */
int dwarf_types__check_loops(struct ir *ir);

/* A FUNC_PROTO for the subprogram or subroutine type @die. */
int dwarf_types__func_proto(struct ir *ir, struct dw_die *die);

/* One message naming the object, the DIE and @what; returns @err. */
int dwarf_types__die_error(struct ir *ir, const struct dw_die *die, int err,
		  const char *what);

#endif /* __ABTF_DWARF_TYPES_H */
