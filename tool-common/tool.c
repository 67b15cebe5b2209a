// SPDX-License-Identifier: GPL-2.0-only
/* What cc-btf and btf-link do alike: see tool.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tool.h"

static int __attribute__((format(printf, 3, 4)))
fail(struct tool_why *why, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why->s, sizeof(why->s), fmt, ap);
	va_end(ap);
	return err;
}

static const char *kind_of(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:	return "a FIFO";
	case S_IFDIR:	return "a directory";
	case S_IFCHR:	return "a character device";
	case S_IFBLK:	return "a block device";
	case S_IFSOCK:	return "a socket";
	default:	return "a special file";
	}
}

/*
 * stat() @path; a missing file is -ENOENT with nothing to say unless
 * @must_exist (a dangling symbolic link is named as such: no new file).
 */
static int stat_checked(const char *path, struct stat *st, bool must_exist,
			struct tool_why *why)
{
	struct stat lst;
	int err;

	if (!stat(path, st))
		return 0;
	err = -errno;
	if (err == -ENOENT && !lstat(path, &lst) && S_ISLNK(lst.st_mode))
		return fail(why, -ENOLINK, "a dangling symbolic link");
	if (err == -ENOENT && !must_exist)
		return -ENOENT;
	return fail(why, err, "cannot open: %s", strerror(-err));
}

static int must_be_regular(const struct stat *st, struct tool_why *why)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return fail(why, -EINVAL, "%s, not a regular file",
		    kind_of(st->st_mode));
}

int tool__check_input(struct tool_file *in, struct tool_why *why)
{
	int err = stat_checked(in->path, &in->st, true, why);

	return err ? err : must_be_regular(&in->st, why);
}

/* The directory that will hold the temporary file for @path. */
static int check_dir_of(const char *path, struct tool_why *why)
{
	char *real = realpath(path, NULL), *copy, *dir;
	int err = 0;

	copy = strdup(real ? real : path);
	free(real);
	if (!copy)
		return fail(why, -ENOMEM, "out of memory");
	dir = dirname(copy);
	if (access(dir, W_OK | X_OK)) {
		err = -errno;
		fail(why, err, "cannot create a temporary file in %s: %s", dir,
		     strerror(-err));
	}
	free(copy);
	return err;
}

int tool__check_rewrite(const char *path, struct tool_why *why)
{
	int err;

	if (!faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
		return check_dir_of(path, why);
	err = -errno;
	return fail(why, err, "cannot rewrite in place: %s", err == -EACCES ?
		    "not writable by this user" : strerror(-err));
}

int tool__check_output(const char *out, const struct tool_file *ins,
		       size_t nr_ins, struct tool_why *why)
{
	struct stat st;
	size_t i;
	int err = stat_checked(out, &st, false, why);

	if (err == -ENOENT)
		return check_dir_of(out, why);
	if (err || (err = must_be_regular(&st, why)))
		return err;
	for (i = 0; i < nr_ins; i++)
		if (st.st_dev == ins[i].st.st_dev &&
		    st.st_ino == ins[i].st.st_ino)
			return fail(why, -EINVAL, "the output is the input %s; "
				    "refusing to overwrite it", ins[i].path);
	return tool__check_rewrite(out, why);
}

const char *tool__strerror(int err, char *buf, size_t size)
{
	if (libbpf_strerror(err, buf, size) && !buf[0])
		snprintf(buf, size, "error %d", err < 0 ? -err : err);
	return buf;
}

void tool__put_escaped(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

void tool__message(FILE *f, const char *prog, const char *kind,
		   const char *file, const char *msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)			/* out of memory: the same line, unbuffered */
		m = f;
	fprintf(m, "%s: %s", prog, kind);
	if (file) {
		tool__put_escaped(m, file);
		fputs(": ", m);
	}
	tool__put_escaped(m, msg);
	fputc('\n', m);
	if (m != f && !fclose(m))
		fwrite(buf, 1, len, f);
	free(buf);
	fflush(f);
}

void tool__term_signals(sigset_t *set)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	struct sigaction sa;
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler != SIG_IGN)
			sigaddset(set, sigs[i]);
}
