/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the libFuzzer harnesses of tests/fuzz/ share: a private temporary
 * directory, writing the input to a file in it, and a print callback that
 * formats every message (so that a bad format or argument shows under
 * ASan + UBSan) and throws it away.
 *
 * libFuzzer calls LLVMFuzzerTestOneInput() with no context argument, so
 * the directory's path is the one piece of state kept between calls; it is
 * set once, in LLVMFuzzerInitialize(), and removed at exit.
 */
#ifndef __ABTF_FUZZ_H
#define __ABTF_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "archive_btf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* $TMPDIR/abtf-fuzz.XXXXXX: made in LLVMFuzzerInitialize(). */
static char fuzz_dir[PATH_MAX];

/* Never a failure of the code under test: the harness cannot go on. */
static inline __attribute__((noreturn)) void fuzz_die(const char *what)
{
	fprintf(stderr, "fuzz harness: %s: %s\n", what, strerror(errno));
	abort();
}

static inline void fuzz_rm(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir, name);
	unlink(path);
}

/* Remove what a run may have left: ours and the library's temp files. */
static inline void fuzz_cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (!fuzz_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir);
	if (system(cmd))
		fprintf(stderr, "fuzz harness: cannot remove %s\n", fuzz_dir);
}

static inline int fuzz_init(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/abtf-fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_dir))
		fuzz_die("mkdtemp");
	atexit(fuzz_cleanup);
	libbpf_set_print(NULL);	/* libbpf's own warnings: noise here */
	return 0;
}

/* The path of @name in the private directory, into @path. */
static inline const char *fuzz_path(char *path, size_t len,
				    const char *name)
{
	snprintf(path, len, "%s/%s", fuzz_dir, name);
	return path;
}

/* Write @size bytes of @data to @name in the private directory. */
static inline const char *fuzz_write(char *path, size_t len,
				     const char *name, const void *data,
				     size_t size)
{
	const uint8_t *p = data;
	int fd;

	fuzz_path(path, len, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		fuzz_die(path);
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fuzz_die(path);
		p += n;
		size -= n;
	}
	if (close(fd))
		fuzz_die(path);
	return path;
}

/*
 * Format the message as a tool would and throw it away; abort on what the
 * header rules out: a message format that is not one line without a
 * trailing newline. (Names from the input may hold any byte: a newline
 * there is the input's, not a bug.)
 */
static inline __attribute__((format(printf, 3, 0))) void
fuzz_print(enum abtf_print_level level, void *ctx, const char *fmt,
	   va_list args)
{
	char buf[4096];

	if (strchr(fmt, '\n')) {
		fprintf(stderr, "fuzz harness: message format with a newline: "
			"%s\n", fmt);
		abort();
	}
	vsnprintf(buf, sizeof(buf), fmt, args);
}

/* A BTF compared with itself (@what, for the report): any difference is a bug. */
static inline void fuzz_check_self(const struct btf *btf, const char *what)
{
	struct abtf_compare_opts co = { .sz = sizeof(co) };
	int n = abtf_btf__compare(btf, btf, &co);

	if (n > 0) {
		fprintf(stderr, "fuzz harness: the %s BTF differs from "
			"itself in %d places\n", what, n);
		abort();
	}
}

#endif /* __ABTF_FUZZ_H */
