// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading one BTF from a file: what btf-link's --compare and --base read.
 *
 * libbpf's btf__parse() reads an ELF file's .BTF or a raw BTF file in
 * either byte order, but the other order only with the 24-byte header it
 * knows (libbpf 1.1 and later: "unsupported header length", ENOTSUP). The
 * header may be longer: hdr_len says how long, and a newer BTF adds fields
 * there, which the kernel accepts as long as they are zero (upstream
 * pahole built on a newer libbpf writes a 32-byte header, and a big-endian
 * target's BTF in that order). Such a BTF is read here: its bytes, in
 * their own order, with the header cut to the fields libbpf knows. The
 * rest of the bytes, the offsets (counted from the header's end) and the
 * byte order are the file's.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "archive_btf.h"
#include "btf/archive.h"
#include "util/internal.h"
#include "elf/elf_read.h"
#include "btf/layout.h"

#define SEC_BTF		".BTF"
/* a raw BTF file larger than this is not read whole (the kernel's 4 GiB) */
#define MAX_RAW		(UINT32_MAX)

/* The whole of regular file @fd into *@buf (the caller frees it). */
static int read_raw(int fd, void **buf, size_t *size)
{
	struct stat st;
	size_t done = 0;
	uint8_t *p;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > MAX_RAW)
		return -EFBIG;
	p = malloc(st.st_size ? st.st_size : 1);
	if (!p)
		return -ENOMEM;
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, p + done, st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(p);
			return n < 0 ? -errno : -EIO;
		}
		done += n;
	}
	*buf = p;
	*size = done;
	return 0;
}

/* The bytes of @path's BTF: its .BTF section if ELF, else the whole file. */
static int read_btf_bytes(const char *path, void **buf, size_t *size)
{
	Elf_Data *d;
	int fd, err;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		d = abtf__elf_section_data(elf, SEC_BTF);
		err = d && d->d_buf ? 0 : -ENODATA;
		if (!err) {
			*buf = malloc(d->d_size ? d->d_size : 1);
			err = *buf ? 0 : -ENOMEM;
		}
		if (!err) {
			memcpy(*buf, d->d_buf, d->d_size);
			*size = d->d_size;
		}
	} else {
		err = read_raw(fd, buf, size);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/*
 * Cut the header of the @size bytes at @p, a BTF of the other byte order,
 * to struct btf_header: -ENOTSUP unless it is longer and the fields past
 * those are zero.
 */
static int cut_header(uint8_t *p, size_t *size)
{
	const size_t known = sizeof(struct btf_header);
	struct btf_header h;
	uint32_t len;
	size_t i;

	if (*size < known)
		return -ENOTSUP;
	memcpy(&h, p, known);
	if (h.magic != bswap_16(BTF_MAGIC))
		return -ENOTSUP;
	len = bswap_32(h.hdr_len);
	if (len <= known || len > *size)
		return -ENOTSUP;
	for (i = known; i < len; i++)
		if (p[i])
			return -ENOTSUP;
	h.hdr_len = bswap_32((uint32_t)known);
	memcpy(p, &h, known);
	memmove(p + known, p + len, *size - len);
	*size -= len - known;
	return 0;
}

/*
 * Whether the @size bytes at @p, a BTF with struct btf_header's fields in
 * the order @big says, are split BTF: a string section that does not
 * start with the empty string, or none at all. Standalone BTF starts it
 * with one (libbpf and the kernel refuse it otherwise); split BTF's offsets
 * go on from its base's strings, its own start with a name.
 */
static bool split_bytes(const uint8_t *p, size_t size, bool big)
{
	struct btf_header h;
	uint64_t str;

	memcpy(&h, p, sizeof(h));
	if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		h.hdr_len = bswap_32(h.hdr_len);
		h.str_off = bswap_32(h.str_off);
		h.str_len = bswap_32(h.str_len);
	}
	str = (uint64_t)h.hdr_len + h.str_off;
	if (h.hdr_len < sizeof(h) || str > size || h.str_len > size - str)
		return false;	/* not BTF at all: libbpf's to say */
	return !h.str_len || p[str];
}

ABTF_API int abtf_btf__is_split(const char *path)
{
	size_t size = 0;
	void *buf = NULL;
	uint16_t magic;
	int err;

	if (!path)
		return -EINVAL;
	err = read_btf_bytes(path, &buf, &size);
	if (!err && size >= sizeof(struct btf_header)) {
		memcpy(&magic, buf, 2);
		/* a longer header (either order) keeps these fields */
		if (magic == BTF_MAGIC || magic == bswap_16(BTF_MAGIC))
			err = split_bytes(buf, size, (magic == BTF_MAGIC) ==
					  (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
	}
	free(buf);
	return err;
}

/* The one .BTF section of @elf, if it is plain data; else NULL. */
static Elf_Scn *one_btf_section(Elf *elf)
{
	Elf_Scn *scn = NULL, *found = NULL;
	size_t shstrndx, nr = 0;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, SEC_BTF))
			continue;
		if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
			return NULL;
		found = scn;
		nr++;
	}
	return nr == 1 ? found : NULL;
}

/*
 * An ELF file's BTF read from the mapped file, where libbpf's
 * btf__parse() reads the section into a buffer and copies it again:
 * vmlinux's BTF, 2 MB and more, in every module's link. NULL, errno 0,
 * for anything less simple (not ELF, no or two .BTF sections, compressed,
 * a BTF libbpf refuses): btf__parse() decides then, and words it.
 */
static struct btf *parse_mapped(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	Elf_Data *d = NULL;
	Elf_Scn *scn;
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && (scn = one_btf_section(elf)))
		d = elf_rawdata(scn, NULL);
	if (d && d->d_buf && d->d_size)
		btf = btf__new(d->d_buf, d->d_size);
	if (btf)	/* as btf__parse() sets it */
		btf__set_pointer_size(btf, gelf_getclass(elf) == ELFCLASS32 ?
					   4 : 8);
	if (elf)
		elf_end(elf);
	close(fd);
	errno = 0;
	return btf;
}

/* The first message the archive's checks print, without its member prefix. */
struct first_fault {
	char prefix[64];
	char *msg;
	size_t size;
	bool said;
};

static void __abtf_printf(3, 0)
keep_first(enum abtf_print_level level, void *ctx, const char *fmt, va_list ap)
{
	struct first_fault *ff = ctx;
	char line[512];
	size_t n = strlen(ff->prefix);

	if (level != ABTF_WARN || ff->said)
		return;
	ff->said = true;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (ff->size)
		snprintf(ff->msg, ff->size, "%s",
			 strncmp(line, ff->prefix, n) ? line : line + n);
}

ABTF_API int abtf_btf__check_file(const char *path, char *msg, size_t size)
{
	struct first_fault ff = { .msg = msg, .size = size };
	struct abtf_printer pr = { .fn = keep_first, .ctx = &ff };
	struct abtf_member m;
	void *buf = NULL;
	size_t len = 0;
	int err;

	if (!path || (size && !msg))
		return -EINVAL;
	if (size)
		msg[0] = 0;
	err = read_btf_bytes(path, &buf, &len);
	if (err)
		return err;
	/* what the checks say before the fault: "PATH member 0 at byte 0: " */
	snprintf(ff.prefix, sizeof(ff.prefix), " member 0 at byte 0: ");
	err = archive__member_check(buf, len, 0, 0, false, "", &pr, &m);
	free(buf);
	return err;
}

ABTF_API struct btf *abtf_btf__parse(const char *path, struct btf *base)
{
	struct btf *btf;
	size_t size = 0;
	void *buf = NULL;
	int err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	btf = base ? NULL : parse_mapped(path);
	if (btf)
		return abtf__btf_aligned(btf);
	errno = 0;
	btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	/*
	 * An ELF file without .BTF: ENOENT from libbpf before 1.3, ENODATA
	 * since; ENODATA from either, so that callers can tell it from a
	 * missing file.
	 */
	if (!btf && errno == ENOENT && access(path, F_OK) == 0)
		errno = ENODATA;
	if (btf || (errno != ENOTSUP && errno != EOPNOTSUPP))
		return abtf__btf_aligned(btf);
	err = read_btf_bytes(path, &buf, &size);
	if (!err && abtf__btf_cut_layout(buf, &size))
		err = cut_header(buf, &size);
	if (!err) {
		btf = abtf__new_btf(buf, size, base);
		err = btf ? 0 : -errno;
	}
	free(buf);
	errno = -err;
	return btf;
}
