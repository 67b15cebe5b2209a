// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Printing, option structs and atomic file replacement. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

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

int abtf__tmpfile_for(const char *path, char **tmp)
{
	int fd;

	if (asprintf(tmp, "%s.abtf-XXXXXX", path) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		free(*tmp);
		*tmp = NULL;
		return err;
	}
	return fd;
}

void abtf__tmpfile_abort(char *tmp)
{
	if (!tmp)
		return;
	unlink(tmp);
	free(tmp);
}

int abtf__tmpfile_commit(char *tmp, const char *path)
{
	struct stat st;
	mode_t mask;
	int err = 0;

	/* Keep the mode of the file we replace, or honour the umask. */
	if (stat(path, &st) == 0) {
		if (chmod(tmp, st.st_mode & 07777))
			err = -errno;
	} else {
		mask = umask(0);
		umask(mask);
		if (chmod(tmp, 0666 & ~mask))
			err = -errno;
	}
	if (!err && rename(tmp, path))
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

ABTF_API int abtf_write_file(const char *path, const void *data, size_t size)
{
	char *tmp;
	int fd, err;

	fd = abtf__tmpfile_for(path, &tmp);
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
	uint32_t h = 2166136261u;

	while (size--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}
