// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The unit tests' shared helpers (unit.h), compiled into each of them by
 * tests/unit.bats.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "btf/archive.h"
#include "unit.h"

static bool failed;

bool unit_check(bool ok, const char *file, int line, const char *cond)
{
	if (!ok) {
		printf("%s:%d: %s\n", file, line, cond);
		failed = true;
	}
	return ok;
}

bool unit_check_row(bool ok, const char *file, int line, const char *cond,
		    const char *row)
{
	if (!ok) {
		printf("%s:%d: %s: %s\n", file, line, row, cond);
		failed = true;
	}
	return ok;
}

int unit_status(void)
{
	fflush(stdout);
	return failed;
}

static void log_print(enum abtf_print_level level, void *ctx,
		      const char *fmt, va_list args)
{
	struct unit_log *log = ctx;

	log->nr++;
	vsnprintf(log->last, sizeof(log->last), fmt, args);
}

void unit_log_init(struct unit_log *log)
{
	memset(log, 0, sizeof(*log));
	log->pr.fn = log_print;
	log->pr.ctx = log;
}

void unit_log_reset(struct unit_log *log)
{
	log->nr = 0;
	log->last[0] = 0;
}

bool unit_log_says(const struct unit_log *log, const char *prefix,
		   const char *what)
{
	if (!log->nr || strncmp(log->last, prefix, strlen(prefix)))
		return false;
	return strstr(log->last + strlen(prefix), what) != NULL;
}

/*
 *  1 INT 'int' (4)          11 VAR 'v' -> 6 (global)
 *  2 INT 'long int' (8)     12 DATASEC '.data' (16): 11 at 0, 16 bytes
 *  3 PTR -> 1               13 DECL_TAG 'tag' -> 4, member 1
 *  4 STRUCT 's' (16):       14 DECL_TAG 'ftag' -> 10, parameter 0
 *    'a' 1 at 0, 'b' 2 at 64  15 FWD 'fw' (struct)
 *  5 ENUM 'e' (4): E0, E1   16 CONST -> 1
 *  6 TYPEDEF 't' -> 4       17 FLOAT 'float' (4)
 *  7 ARRAY 1[4], index 1    18 TYPE_TAG 'user' -> 1
 *  8 PTR -> 4               19 PTR -> 18
 *  9 FUNC_PROTO 1 ('x' 1, 'p' 8)   20 ENUM64 'e64' (8): X
 * 10 FUNC 'f' -> 9 (global)
 */
struct btf *unit_sample_btf(void)
{
	struct btf *btf = btf__new_empty();
	int err = 0;

	if (!btf)
		return NULL;
	err |= btf__add_int(btf, "int", 4, BTF_INT_SIGNED) != 1;
	err |= btf__add_int(btf, "long int", 8, BTF_INT_SIGNED) != 2;
	err |= btf__add_ptr(btf, 1) != 3;
	err |= btf__add_struct(btf, "s", 16) != 4;
	err |= btf__add_field(btf, "a", 1, 0, 0);
	err |= btf__add_field(btf, "b", 2, 64, 0);
	err |= btf__add_enum(btf, "e", 4) != 5;
	err |= btf__add_enum_value(btf, "E0", 0);
	err |= btf__add_enum_value(btf, "E1", 1);
	err |= btf__add_typedef(btf, "t", 4) != 6;
	err |= btf__add_array(btf, 1, 1, 4) != 7;
	err |= btf__add_ptr(btf, 4) != 8;
	err |= btf__add_func_proto(btf, 1) != 9;
	err |= btf__add_func_param(btf, "x", 1);
	err |= btf__add_func_param(btf, "p", 8);
	err |= btf__add_func(btf, "f", BTF_FUNC_GLOBAL, 9) != 10;
	err |= btf__add_var(btf, "v", BTF_VAR_GLOBAL_ALLOCATED, 6) != 11;
	err |= btf__add_datasec(btf, ".data", 16) != 12;
	err |= btf__add_datasec_var_info(btf, 11, 0, 16);
	err |= btf__add_decl_tag(btf, "tag", 4, 1) != 13;
	err |= btf__add_decl_tag(btf, "ftag", 10, 0) != 14;
	err |= btf__add_fwd(btf, "fw", BTF_FWD_STRUCT) != 15;
	err |= btf__add_const(btf, 1) != 16;
	err |= btf__add_float(btf, "float", 4) != 17;
	err |= btf__add_type_tag(btf, "user", 1) != 18;
	err |= btf__add_ptr(btf, 18) != 19;
	err |= btf__add_enum64(btf, "e64", 8, false) != 20;
	err |= btf__add_enum64_value(btf, "X", 1ull << 40);
	if (err || btf__type_cnt(btf) != UNIT_NR_TYPES + 1) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

struct btf *unit_tiny_btf(void)
{
	struct btf *btf = btf__new_empty();

	if (btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) != 1) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

void *unit_dup(const void *p, size_t size)
{
	void *q = malloc(size ? size : 1);

	if (q)
		memcpy(q, p, size);
	return q;
}

void *unit_raw(const struct btf *btf, size_t *size)
{
	__u32 sz = 0;
	const void *raw = btf__raw_data(btf, &sz);

	*size = sz;
	return raw ? unit_dup(raw, sz) : NULL;
}

uint32_t *unit_type_word(void *raw, uint32_t id, unsigned int word)
{
	struct btf_header *h = raw;
	uint8_t *t = (uint8_t *)raw + h->hdr_len + h->type_off;

	while (--id)
		t += abtf__record_size((const struct btf_type *)t);
	return (uint32_t *)t + word;
}
