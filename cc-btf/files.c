// SPDX-License-Identifier: GPL-2.0-only
/*
 * What cc-btf promises about files, signals and messages (see
 * docs/reliability.md):
 *
 *  - The files of --encode and --detached are checked before any file is
 *    opened, by the checks btf-link makes too (tool-common/tool.h):
 *    regular files only (not a FIFO, which would block open() forever, a
 *    directory, a device such as /dev/null, a dangling symbolic link), an
 *    output never the input (the same inode, through any link), a file
 *    rewritten in place writable by the user (as open() for writing would
 *    decide) and its directory too, for the temporary file. Otherwise one
 *    line says why and the files are left alone.
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
#include "../tool-common/tool.h"

/* ---- messages ---- */

void cc_btf__msg(const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	tool__message(stderr, CC_BTF_NAME, "", NULL,
		      line ? line : "error: out of memory");
	free(line);
}

/* ---- files ---- */

/*
 * --encode, --detached: @file must be a regular file, and so must @raw if
 * it exists, and @raw must not be @file; with no @raw, @file is rewritten
 * in place. Returns 0, or -errno after one line.
 */
int cc_btf__check_files(const char *file, const char *raw)
{
	struct tool_file in = { .path = file };
	struct tool_why why;
	const char *bad = file;
	int err;

	err = tool__check_input(&in, &why);
	if (!err && raw) {
		bad = raw;
		err = tool__check_output(raw, &in, 1, &why);
	} else if (!err) {
		err = tool__check_rewrite(file, &why);
	}
	if (err)
		cc_btf__msg("error: %s: %s", bad, why.s);
	return err;
}

/* Remove @path if it is a regular file: never a device, pipe or directory. */
void cc_btf__remove_output(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* ---- signals ---- */

/*
 * Block the termination signals that are not ignored and SIGCHLD, to be
 * taken in the main flow. cb->sig_old is the mask to give the compiler.
 */
void cc_btf__signals_block(struct cc_btf *cb)
{
	tool__term_signals(&cb->sig_term);
	cb->sig_wait = cb->sig_term;
	sigaddset(&cb->sig_wait, SIGCHLD);
	sigprocmask(SIG_BLOCK, &cb->sig_wait, &cb->sig_old);
}

/* A termination signal taken (once pending, kept in cb->sig_got); 0: none. */
int cc_btf__signal_pending(struct cc_btf *cb)
{
	static const struct timespec now = { 0, 0 };
	sigset_t pending;
	int sig;

	if (cb->sig_got || sigpending(&pending))
		return cb->sig_got;
	for (sig = 1; sig < NSIG; sig++) {	/* the lowest first */
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
