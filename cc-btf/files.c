// SPDX-License-Identifier: GPL-2.0-only
/*
 * What cc-btf promises about files, signals and messages (see
 * docs/reliability.md):
 *
 *  - Inputs and outputs of --encode are regular files. Anything else (a
 *    FIFO, which would block open() forever, a directory, a device such as
 *    /dev/null, a dangling symbolic link) is refused with one line before
 *    any file is opened. An output that is the input (the same inode,
 *    through any link) is refused: the input stays intact.
 *  - A file rewritten in place must be writable by the user (as open()
 *    for writing would decide) and its directory too, for the temporary
 *    file; otherwise one line says why and the file is left alone.
 *  - Signals: the termination signals (SIGHUP, SIGINT, SIGQUIT, SIGTERM)
 *    that are not ignored are blocked while cc-btf works and are taken
 *    synchronously with sigwaitinfo()/sigpending() in the main flow: no
 *    handler runs asynchronously, so there is nothing to keep
 *    async-signal-safe. The compiler is started with the caller's mask and
 *    gets each signal forwarded; the library's writes (a temporary file
 *    renamed over the target) therefore run to their end or their abort,
 *    and a pending signal is honoured between files. Then the command's
 *    objects are removed and cc-btf dies by the same signal.
 *  - Every message is one line: control bytes in file names (or anything
 *    else in the line) are written as \xNN.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc-btf.h"

/* ---- messages ---- */

static void put_escaped(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

void cc_btf__msg(const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	fputs(CC_BTF_NAME ": ", stderr);
	put_escaped(stderr, line ? line : "error: out of memory");
	fputc('\n', stderr);
	free(line);
}

/* ---- files ---- */

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
 * stat() @path for a check: 0, or -errno after one line that says why
 * (a dangling symbolic link named as such).
 */
static int stat_checked(const char *path, struct stat *st, bool must_exist)
{
	struct stat lst;

	if (!stat(path, st))
		return 0;
	if (errno == ENOENT && !lstat(path, &lst) && S_ISLNK(lst.st_mode)) {
		cc_btf__msg("error: %s: a dangling symbolic link", path);
		return -ENOLINK;	/* not -ENOENT: no new file either */
	}
	if (errno == ENOENT && !must_exist)
		return -ENOENT;
	cc_btf__msg("error: %s: cannot open: %s", path, strerror(errno));
	return -errno;
}

static int must_be_regular(const char *path, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	cc_btf__msg("error: %s: %s, not a regular file", path,
		    kind_of(st->st_mode));
	return -EINVAL;
}

int cc_btf__check_input(const char *path, struct stat *st)
{
	int err = stat_checked(path, st, true);

	return err ? err : must_be_regular(path, st);
}

/* The directory that will hold the temporary file for @path. */
static int check_dir_of(const char *path)
{
	char *real = realpath(path, NULL), *copy, *dir;
	int err = 0;

	copy = strdup(real ? real : path);
	free(real);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK | X_OK)) {
		err = -errno;
		cc_btf__msg("error: %s: cannot create a temporary file in %s: %s",
			    path, dir, strerror(errno));
	}
	free(copy);
	return err;
}

int cc_btf__check_rewrite(const char *path)
{
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS)) {
		int err = -errno;

		cc_btf__msg("error: %s: cannot rewrite in place: %s", path,
			    errno == EACCES ? "not writable by this user" :
			    strerror(errno));
		return err;
	}
	return check_dir_of(path);
}

int cc_btf__check_output(const char *out, const char *in,
			 const struct stat *in_st)
{
	struct stat st;
	int err = stat_checked(out, &st, false);

	if (err == -ENOENT)
		return check_dir_of(out);
	if (err)
		return err;
	err = must_be_regular(out, &st);
	if (err)
		return err;
	if (st.st_dev == in_st->st_dev && st.st_ino == in_st->st_ino) {
		cc_btf__msg("error: %s: the output is the input %s; "
			    "refusing to overwrite it", out, in);
		return -EINVAL;
	}
	return cc_btf__check_rewrite(out);
}

/* Remove @path if it is a regular file: never a device, pipe or directory. */
void cc_btf__remove_output(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* ---- signals ---- */

static const int term_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };

/*
 * Block the termination signals that are not ignored (an ignored one stays
 * ignored: blocking it would make it pending) and SIGCHLD, to be taken in
 * the main flow. cb->sig_old is the mask to give the compiler.
 */
void cc_btf__signals_block(struct cc_btf *cb)
{
	struct sigaction sa;
	size_t i;

	sigemptyset(&cb->sig_term);
	for (i = 0; i < ARRAY_SIZE(term_sigs); i++)
		if (!sigaction(term_sigs[i], NULL, &sa) &&
		    sa.sa_handler != SIG_IGN)
			sigaddset(&cb->sig_term, term_sigs[i]);
	cb->sig_wait = cb->sig_term;
	sigaddset(&cb->sig_wait, SIGCHLD);
	sigprocmask(SIG_BLOCK, &cb->sig_wait, &cb->sig_old);
}

/* A termination signal taken (once pending, kept in cb->sig_got); 0: none. */
int cc_btf__signal_pending(struct cc_btf *cb)
{
	static const struct timespec now = { 0, 0 };
	sigset_t pending;
	size_t i;

	if (cb->sig_got || sigpending(&pending))
		return cb->sig_got;
	for (i = 0; i < ARRAY_SIZE(term_sigs); i++) {
		int sig = term_sigs[i];

		if (sigismember(&cb->sig_term, sig) && sigismember(&pending, sig)) {
			sigset_t one;

			sigemptyset(&one);
			sigaddset(&one, sig);
			if (sigtimedwait(&one, NULL, &now) > 0)
				cb->sig_got = sig;
			return cb->sig_got;
		}
	}
	return 0;
}

/*
 * Die of @sig (without a core dump of our own), so that make and the shell
 * see what they would have seen from the compiler.
 */
int cc_btf__die_like(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	raise(sig);		/* pending while blocked */
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return 128 + sig;	/* a signal that does not kill: as a shell */
}
