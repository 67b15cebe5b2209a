// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Printing, options, atomic file replacement, growing arrays, strings. */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>

#include "util/internal.h"

/*
 * The whole pages between @from and @to, memory the caller has read for
 * the last time and will only free(): given back to the system now, so
 * that a buffer consumed from its start stops counting as it goes. Only
 * pages wholly inside the range; an error is no error (they stay).
 */
void abtf__release_pages(const void *from, const void *to)
{
	long psz = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)from, b = (uintptr_t)to;

	if (psz <= 0)
		return;
	a = (a + psz - 1) & ~(uintptr_t)(psz - 1);
	b &= ~(uintptr_t)(psz - 1);
	if (a < b)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

void abtf__print(const struct abtf_printer *p, enum abtf_print_level level,
		 const char *fmt, ...)
{
	va_list ap;

	if (!p || !p->fn)
		return;
	va_start(ap, fmt);
	p->fn(level, p->ctx, fmt, ap);
	va_end(ap);
}

int abtf__copy_opts(void *dst, size_t dst_sz, const void *opts)
{
	const unsigned char *src = opts;
	size_t sz, i;

	memset(dst, 0, dst_sz);
	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return -EINVAL;
	/* A newer caller may know fields we do not: they must be zero. */
	for (i = dst_sz; i < sz; i++)
		if (src[i])
			return -EINVAL;
	memcpy(dst, opts, sz < dst_sz ? sz : dst_sz);
	return 0;
}

/*
 * The file an atomic write replaces: @path itself, or what a symbolic link
 * at @path points to (the link stays a link). A device, pipe or socket is
 * never replaced: -ENOTSUP tells the caller to write through it instead.
 * A file the user could not open for writing is not replaced either
 * (-EACCES, -EROFS): a rename would replace it all the same.
 */
static int replace_target(const char *path, char **target)
{
	struct stat st;

	*target = NULL;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		*target = strdup(path);
		return *target ? 0 : -ENOMEM;
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st))	/* dangling: create the target */
			return -errno;
		*target = realpath(path, NULL);
		if (!*target)
			return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		free(*target);
		*target = NULL;
		return -ENOTSUP;
	}
	/* A file this user could not open for writing is not replaced. */
	if (faccessat(AT_FDCWD, *target ? *target : path, W_OK, AT_EACCESS)) {
		int err = -errno;

		free(*target);
		*target = NULL;
		return err;
	}
	if (!*target)
		*target = strdup(path);
	return *target ? 0 : -ENOMEM;
}

#define TMP_SUFFIX	".abtf-XXXXXX"

/*
 * "TARGET.abtf-XXXXXX", then a NUL and TARGET itself (for the commit), in
 * one buffer. A basename too long for NAME_MAX with the suffix is cut
 * short: the file stays in TARGET's directory, so that rename() works.
 */
static char *tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
	size_t len = strlen(target), keep = len - dir, sfx = strlen(TMP_SUFFIX);
	char *tmp;

	if (keep + sfx > NAME_MAX)
		keep = NAME_MAX - sfx;
	tmp = malloc(dir + keep + sfx + 1 + len + 1);
	if (!tmp)
		return NULL;
	memcpy(tmp, target, dir + keep);
	strcpy(tmp + dir + keep, TMP_SUFFIX);
	strcpy(tmp + dir + keep + sfx + 1, target);
	return tmp;
}

/*
 * @tmp is "TARGET.abtf-XXXXXX" (its basename shortened to fit NAME_MAX)
 * for the file an atomic write replaces; its commit renames it over
 * TARGET. -ENOTSUP: @path is not a regular file.
 */
int abtf__tmpfile_for(const char *path, char **tmp)
{
	char *target;
	int fd, err;

	err = replace_target(path, &target);
	if (err) {
		*tmp = NULL;
		return err;
	}
	*tmp = tmp_name(target);
	free(target);
	if (!*tmp)
		return -ENOMEM;
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(*tmp);
		*tmp = NULL;
		return err;
	}
	return fd;
}

const char *abtf__strerror(int err, char *buf, size_t size)
{
	if (libbpf_strerror(err, buf, size) && !buf[0])
		snprintf(buf, size, "error %d", err < 0 ? -err : err);
	return buf;
}

void abtf__tmpfile_abort(char *tmp)
{
	if (!tmp)
		return;
	unlink(tmp);
	free(tmp);
}

/* TARGET follows @tmp's NUL (tmp_name()). */
int abtf__tmpfile_commit(char *tmp, const char *path)
{
	const char *target = tmp + strlen(tmp) + 1;
	struct stat st;
	mode_t mask;
	int err = 0;

	/*
	 * Keep the owner, group and mode of the file we replace, or honour
	 * the umask. Where the owner or group cannot be kept (we are not
	 * root), the set-user-ID and set-group-ID bits are dropped, as
	 * install(1) does: they must never come to mean another user.
	 */
	if (stat(target, &st) == 0) {
		if (lchown(tmp, st.st_uid, st.st_gid))
			st.st_mode &= ~(mode_t)(S_ISUID | S_ISGID);
		if (chmod(tmp, st.st_mode & 07777))
			err = -errno;
	} else {
		mask = umask(0);
		umask(mask);
		if (chmod(tmp, 0666 & ~mask))
			err = -errno;
	}
	if (!err && rename(tmp, target))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		size -= n;
	}
	return 0;
}

/* A device or a pipe is written through, never replaced. */
static int write_through(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = write_all(fd, data, size);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

ABTF_API int abtf_write_file(const char *path, const void *data, size_t size)
{
	char *tmp;
	int fd, err;

	fd = abtf__tmpfile_for(path, &tmp);
	if (fd == -ENOTSUP)
		return write_through(path, data, size);
	if (fd < 0)
		return fd;
	err = write_all(fd, data, size);
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		abtf__tmpfile_abort(tmp);
		return err;
	}
	return abtf__tmpfile_commit(tmp, path);
}

uint32_t abtf__hash32(const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ size, w;

	/* eight little-endian bytes at a time: the archive is tens of MB */
	for (; size >= 8; p += 8, size -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ le64toh(w)) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, size);
	h = (h ^ le64toh(w)) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* abtf__grow() when the array is full. */
int abtf__grow_slow(void **arr, size_t *cap, size_t need, size_t elem_sz)
{
	size_t ncap = *cap, bytes;
	void *p;

	if (need <= ncap)
		return 0;
	ncap = ncap < 8 ? 16 : ncap <= SIZE_MAX / 2 ? ncap * 2 : SIZE_MAX;
	if (ncap < need)
		ncap = need;
	if (__builtin_mul_overflow(ncap, elem_sz, &bytes)) {
		ncap = need;	/* twice as much may not fit where @need does */
		if (__builtin_mul_overflow(ncap, elem_sz, &bytes))
			return -ENOMEM;
	}
	p = realloc(*arr, bytes);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/*
 * String interning for the BTF we build: one copy of each string, found
 * again by its hash.
 */

/*
 * The entry of @s (hash @h, @len bytes before its NUL) in the table, or
 * the empty slot where it belongs.
 */
static inline __attribute__((always_inline)) struct abtf_hent *
strtab_slot(const struct strtab *st, const char *s, uint32_t h, size_t len)
{
	struct abtf_hent *e;

	for (e = abtf__hmap_first(&st->map, h); e->val;
	     e = abtf__hmap_next(&st->map, e))
		if (e->hash == h && !memcmp(st->data + e->val - 1, s, len + 1))
			break;
	return e;
}

/* The offset of @s in the table, or -ENOENT: nothing is added. */
int64_t abtf__strtab_find(const struct strtab *st, const char *s)
{
	size_t len;
	uint32_t h = abtf__str_hash(s, &len);
	const struct abtf_hent *e = strtab_slot(st, s, h, len);

	return e->val ? (int64_t)e->val - 1 : -ENOENT;
}

/*
 * The offset of @s in the table, adding it if new; -ENOMEM on failure,
 * -E2BIG past BTF's 4 GiB of strings.
 */
int64_t abtf__strtab_add(struct strtab *st, const char *s)
{
	struct abtf_hent *e;
	size_t len;
	uint32_t h = abtf__str_hash(s, &len);

	if (abtf__hmap_reserve(&st->map, 1 << 14))
		return -ENOMEM;
	e = strtab_slot(st, s, h, len);
	if (e->val)
		return e->val - 1;
	if (len >= UINT32_MAX - 1 - st->len)
		return -E2BIG;
	if (abtf_grow(st->data, st->cap, st->len + len + 1))
		return -ENOMEM;
	memcpy(st->data + st->len, s, len + 1);
	abtf__hmap_fill(&st->map, e, h, st->len + 1);
	st->len += len + 1;
	return st->len - len - 1;
}

void abtf__strtab_free(struct strtab *st)
{
	free(st->data);
	abtf__hmap_free(&st->map);
}

/* ---- a growing string with a sticky error ---- */

static void sb_grow(struct sbuf *sb, size_t add)
{
	if (!sb->err && abtf_grow(sb->buf, sb->cap, sb->len + add + 1))
		sb->err = -ENOMEM;
}

void abtf__sb_addn(struct sbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	if (sb->err)
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void abtf__sb_add(struct sbuf *sb, const char *s)
{
	abtf__sb_addn(sb, s, strlen(s));
}

void abtf__sb_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (sb->err)
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		sb->err = -EINVAL;
		return;
	}
	sb_grow(sb, n);
	if (sb->err)
		return;
	vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	sb->len += n;
}

void abtf__sb_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	abtf__sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void abtf__sb_reset(struct sbuf *sb)
{
	sb->len = 0;
	sb->err = 0;
	abtf__sb_addn(sb, "", 0);
}

int abtf__sb_take(struct sbuf *sb, char **out)
{
	*out = NULL;
	sb_grow(sb, 0);
	if (sb->err) {
		free(sb->buf);
		return sb->err;
	}
	sb->buf[sb->len] = '\0';
	*out = sb->buf;
	return 0;
}

void abtf__swap32s(void *p, size_t len)
{
	uint8_t *b = p;
	uint32_t w;
	size_t i;

	for (i = 0; i + 4 <= len; i += 4) {
		memcpy(&w, b + i, sizeof(w));
		w = bswap_32(w);
		memcpy(b + i, &w, sizeof(w));
	}
}

bool abtf__btf_swap(void *data, size_t size)
{
	uint8_t *p = data;
	struct btf_header h;
	uint64_t types_at, end;

	if (size < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	if (h.magic == bswap_16(BTF_MAGIC)) {
		h.hdr_len = bswap_32(h.hdr_len);
		h.type_off = bswap_32(h.type_off);
		h.type_len = bswap_32(h.type_len);
	} else if (h.magic != BTF_MAGIC) {
		return false;
	}
	h.magic = bswap_16(h.magic);
	memcpy(p, &h.magic, sizeof(h.magic));
	/* the header's words, at least its fixed fields, within @size */
	end = h.hdr_len > sizeof(h) ? h.hdr_len : sizeof(h);
	abtf__swap32s(p + 4, (end < size ? end : size) - 4);
	types_at = (uint64_t)h.hdr_len + h.type_off;
	if (h.hdr_len >= sizeof(h) && !(types_at % 4) && !(h.type_len % 4) &&
	    types_at + h.type_len <= size)
		abtf__swap32s(p + types_at, h.type_len);
	return true;
}

#define THINLTO_SUFFIX	".llvm."

bool abtf__is_thinlto_name(const char *sym, const char *name, size_t len)
{
	const char *p;

	if (strncmp(sym, name, len) ||
	    strncmp(sym + len, THINLTO_SUFFIX, sizeof(THINLTO_SUFFIX) - 1))
		return false;
	p = sym + len + sizeof(THINLTO_SUFFIX) - 1;
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/*
 * libbpf 1.1 declares btf__new_split() but does not export it, so split
 * BTF is parsed from an anonymous in-memory file with btf__parse_raw_split().
 */
struct btf *abtf__btf_aligned(struct btf *btf)
{
	const struct btf *base;
	uint32_t first;

	if (!btf)
		return NULL;
	base = btf__base_btf(btf);
	first = base ? btf__type_cnt(base) : 1;
	if (btf__type_cnt(btf) > first &&
	    ((uintptr_t)btf__type_by_id(btf, first) & 3)) {
		btf__free(btf);
		errno = EINVAL;
		return NULL;
	}
	return btf;
}

uint32_t abtf__btf_str_len(const struct btf *btf)
{
	const struct btf_header *hdr;
	uint32_t size;

	if (!btf || btf__endianness(btf) != abtf__host_endianness())
		return 0;
	hdr = btf__raw_data(btf, &size);
	if (!hdr || size < sizeof(*hdr) || hdr->magic != BTF_MAGIC)
		return 0;
	return hdr->str_len;
}

struct btf *abtf__new_btf(const void *raw, size_t size, struct btf *base)
{
	char path[64];
	struct btf *btf;
	int fd, err = 0;

	if (!base)
		return abtf__btf_aligned(btf__new(raw, size));
	fd = memfd_create("abtf-split-btf", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, raw, size) != (ssize_t)size)
		err = errno ? errno : EIO;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	btf = err ? NULL : btf__parse_raw_split(path, base);
	if (!btf && !err)
		err = errno;
	close(fd);
	errno = err;
	return abtf__btf_aligned(btf);
}

const char *abtf__safe_name(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return buf;
	for (; s && *s && n + 5 < size; s++) {
		unsigned char ch = *s;

		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			buf[n++] = ch;
		else
			n += snprintf(buf + n, size - n, "\\x%02x", ch);
	}
	if (s && *s && n + 4 <= size) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = 0;
	return buf;
}
