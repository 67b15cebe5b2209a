/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the unit tests of tests/unit.bats share (tests/unit/unit.c): the
 * CHECK macro, a printer that keeps the library's last message, and real
 * BTF made by libbpf's btf__add_*() to start every input from.
 */
#ifndef __ABTF_UNIT_H
#define __ABTF_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/internal.h"

struct btf;

/* Print "FILE:LINE: COND" when @cond is false, and fail the run. */
#define CHECK(cond)	unit_check(!!(cond), __FILE__, __LINE__, #cond)
/* The same, naming the table row @row ("%s") that failed. */
#define CHECK_ROW(row, cond)						\
	unit_check_row(!!(cond), __FILE__, __LINE__, #cond, (row))

bool unit_check(bool ok, const char *file, int line, const char *cond);
bool unit_check_row(bool ok, const char *file, int line, const char *cond,
		    const char *row);
/* main()'s exit status: 1 if any check failed. */
int unit_status(void);

/* The library's messages: how many, and the last one. */
struct unit_log {
	struct abtf_printer pr;
	int nr;
	char last[1024];
};

void unit_log_init(struct unit_log *log);
/* Forget the messages so far. */
void unit_log_reset(struct unit_log *log);
/* Whether the last message starts with @prefix and holds @what. */
bool unit_log_says(const struct unit_log *log, const char *prefix,
		   const char *what);

/*
 * The BTF every test starts from: one type of each kind the encoder
 * writes, made by libbpf (IDs in unit.c's comment; UNIT_NR_TYPES types,
 * UNIT_NR_SLOTS FUNCs and VARs).
 */
#define UNIT_NR_TYPES	20
#define UNIT_NR_SLOTS	2
struct btf *unit_sample_btf(void);
/* A BTF of one INT "int" (size 4). */
struct btf *unit_tiny_btf(void);

/* @btf's raw bytes in a malloc()ed buffer of exactly *size bytes. */
void *unit_raw(const struct btf *btf, size_t *size);
/* @size bytes at @p in a malloc()ed buffer of exactly that size. */
void *unit_dup(const void *p, size_t size);

/* Word @word of type @id's record in the raw BTF @raw (host order). */
uint32_t *unit_type_word(void *raw, uint32_t id, unsigned int word);

#endif /* __ABTF_UNIT_H */
