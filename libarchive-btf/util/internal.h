/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every subsystem of libarchive-btf shares (util.c, hashmap.h):
 * printing, options, growing arrays, byte order, string interning, file
 * replacement. util/ knows no floor above it: ELF's readers and writer
 * are elf/'s (elf_read.h, elf_write.h), BTF's layout and features btf/'s
 * (layout.h, features.h). Not installed.
 */
#ifndef __ABTF_INTERNAL_H
#define __ABTF_INTERNAL_H

#include <endian.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include <bpf/btf.h>

#include "archive_btf.h"
#include "util/hashmap.h"

#define __abtf_printf(a, b) __attribute__((format(printf, a, b)))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))
#endif

/* Where messages of one run go: copied from the options of its object. */
struct abtf_printer {
	abtf_print_fn_t fn;
	void *ctx;
};

void abtf__print(const struct abtf_printer *p, enum abtf_print_level level,
		 const char *fmt, ...) __abtf_printf(3, 4);

#define pr_warn(p, fmt, ...) abtf__print(p, ABTF_WARN, fmt, ##__VA_ARGS__)
#define pr_info(p, fmt, ...) abtf__print(p, ABTF_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(p, fmt, ...) abtf__print(p, ABTF_DEBUG, fmt, ##__VA_ARGS__)

/*
 * Copy the options struct @opts (of size opts->sz, possibly older or newer
 * than ours) into @dst of size @dst_sz; fields we know of and the caller
 * did not set are zero. Returns -EINVAL if the caller's struct has non-zero
 * fields beyond the ones we know.
 */
int abtf__copy_opts(void *dst, size_t dst_sz, const void *opts);

/*
 * Create a temporary file next to @path for an atomic replacement. On
 * success *tmp is a malloc()ed path and the open fd is returned.
 */
int abtf__tmpfile_for(const char *path, char **tmp);

/*
 * Rename @tmp over @path, keeping @path's owner, group and mode if it
 * exists (set-user/group-ID dropped where the owner cannot be kept), or
 * unlink it.
 */
int abtf__tmpfile_commit(char *tmp, const char *path);
void abtf__tmpfile_abort(char *tmp);

/*
 * An errno value (either sign) in words, libbpf's own codes (4000 up,
 * LIBBPF_ERRNO__*) too, which strerror() calls "Unknown error 4001".
 * ABTF_STRERROR() gives it a buffer that lasts the statement.
 */
const char *abtf__strerror(int err, char *buf, size_t size);
#define ABTF_STRERROR(err)	abtf__strerror((err), (char[96]){ 0 }, 96)

/* The per-CPU section, and the prefix of its input subsections. */
#define ABTF_PERCPU_SEC		".data..percpu"

/* pahole's name for an integer of a size BTF cannot express (4 bytes). */
#define ABTF_FAKE_INT		"__SANITIZED_FAKE_INT__"

/*
 * A fast 32-bit hash of @size bytes, defined on their little-endian 64-bit
 * words (so the same on every host): identifies a .BTF member and interns
 * strings; not a security measure.
 */
uint32_t abtf__hash32(const void *data, size_t size);

/*
 * btf__new(), or on @base btf__new_split(), which libbpf 1.1 declares but
 * does not export (util.c). NULL with errno set.
 */
struct btf *abtf__new_btf(const void *raw, size_t size, struct btf *base);
/*
 * @btf, or NULL with errno EINVAL (@btf freed) if its own types do not
 * start on a 4-byte boundary: libbpf reads a header of 26 bytes, say, and
 * its records would then be read misaligned. NULL stays NULL.
 */
struct btf *abtf__btf_aligned(struct btf *btf);
/*
 * The length of the string section of @btf (not split BTF), from libbpf's
 * raw data: 0 where it has none. In the host's byte order only (for the
 * other, libbpf would build a swapped copy).
 */
uint32_t abtf__btf_str_len(const struct btf *btf);

/* libbpf's name of the host's byte order. */
static inline enum btf_endianness abtf__host_endianness(void)
{
	return __BYTE_ORDER == __LITTLE_ENDIAN ? BTF_LITTLE_ENDIAN :
						 BTF_BIG_ENDIAN;
}

/* ---- byte order (util.c) ---- */

/* Whether @ei_data (ELFDATA2LSB or ELFDATA2MSB) is this host's order. */
static inline bool abtf__host_order(unsigned char ei_data)
{
	return ei_data == (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB :
						       ELFDATA2MSB);
}

/* Swap each 32-bit word of the @len bytes at @p (any alignment). */
void abtf__swap32s(void *p, size_t len);

/*
 * Raw BTF of either byte order into the other, in place: the magic, every
 * 32-bit word of the header and of the type section (each record of each
 * kind is made of 32-bit words); strings are bytes. Leniently: header
 * words past @size are left, and so is a type section that does not fit
 * in @size, is misaligned or follows a header shorter than its fields, for
 * archive__member_check() to report on the swapped header. Returns false, and
 * changes nothing, where @data starts with no BTF magic of either order.
 */
bool abtf__btf_swap(void *data, size_t size);

/* ---- growing arrays (util.c) ---- */

/*
 * Make room for @need elements of @elem_sz bytes in the array *@arr, of
 * *@cap elements: realloc() it to at least twice its capacity (16
 * elements at first, or @need if more), so that appending one element at
 * a time costs amortized O(1). Elements past the old capacity are left
 * uninitialized. Returns 0, or -ENOMEM with *@arr and *@cap unchanged
 * when memory runs out or the size in bytes does not fit a size_t (a
 * count read from a file may be anything).
 */
int abtf__grow_slow(void **arr, size_t *cap, size_t need, size_t elem_sz);

static inline int abtf__grow(void **arr, size_t *cap, size_t need,
			     size_t elem_sz)
{
	return need <= *cap ? 0 : abtf__grow_slow(arr, cap, need, elem_sz);
}

/* abtf__grow() of the array @arr (any pointer type) of @cap elements. */
#define abtf_grow(arr, cap, need)					\
	abtf__grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Give back the whole pages in [@from, @to): read for the last time. */
void abtf__release_pages(const void *from, const void *to);

/* ---- symbol names (util.c) ---- */

/*
 * Whether symbol @sym is the @len bytes at @name and ".llvm.<digits>":
 * clang's ThinLTO name for a static function it promoted.
 */
bool abtf__is_thinlto_name(const char *sym, const char *name, size_t len);

/* ---- names in messages (util.c) ---- */

/*
 * @s with control bytes, non-ASCII and backslashes as \xNN, cut to fit
 * @buf; returns @buf.
 */
const char *abtf__safe_name(const char *s, char *buf, size_t size);

/* ---- string interning (util.c) ---- */

struct strtab {
	char *data;		/* the strings, each NUL-terminated */
	size_t len, cap;
	struct abtf_hmap map;	/* by abtf__str_hash(): offset + 1 */
};

/*
 * A hash of the string @s, odd, and its length in *@len: its length,
 * then its bytes eight at a time (the tail alone). Inline: interning
 * calls it for every string of a link.
 */
static inline uint32_t abtf__str_hash(const char *s, size_t *len)
{
	size_t n = strlen(s), i;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	*len = n;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	for (w = 0, i = 0; i < n; i++)
		w = w << 8 | (unsigned char)s[i];
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return (uint32_t)h | 1;	/* odd, as when 0 marked empty slots */
}

int64_t abtf__strtab_add(struct strtab *st, const char *s);
int64_t abtf__strtab_find(const struct strtab *st, const char *s);
void abtf__strtab_free(struct strtab *st);

/*
 * ---- a growing string with a sticky error (util.c) ----
 * Zero-initialised it is empty; every add keeps it NUL-terminated, and
 * the first failure (-ENOMEM, -EINVAL) stops the adds that follow.
 */
struct sbuf {
	char *buf;
	size_t len, cap;
	int err;
};

void abtf__sb_addn(struct sbuf *sb, const char *s, size_t n);
void abtf__sb_add(struct sbuf *sb, const char *s);
void abtf__sb_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
	__abtf_printf(2, 0);
void abtf__sb_addf(struct sbuf *sb, const char *fmt, ...) __abtf_printf(2, 3);
/* Empty again (the buffer kept), the error cleared. */
void abtf__sb_reset(struct sbuf *sb);
/* Hand over the string (never NULL on success), or free it and fail. */
int abtf__sb_take(struct sbuf *sb, char **out);

#endif /* __ABTF_INTERNAL_H */
