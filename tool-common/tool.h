/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What cc-btf and btf-link do alike, compiled into both (not part of the
 * library, which never prints): the escaping of their one-line messages,
 * the termination signals they take, and the checks of the files named on
 * their command lines, made before any file is opened (docs/reliability.md):
 *
 *  - An input is a regular file: a FIFO would block open() forever, and a
 *    directory, a device or a dangling symbolic link is no object.
 *  - An output is a regular file or a new one, never an input (the same
 *    inode, through any link).
 *  - A file replaced (an output, or an input rewritten in place) is one
 *    this user could open for writing, in a directory where the temporary
 *    file can be made.
 *
 * A check that fails returns -errno and says why in @why; the tool prints
 * "TOOL: error: FILE: " and why->s. The checks print nothing themselves.
 */
#ifndef __TOOL_COMMON_H
#define __TOOL_COMMON_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

/* Why a check failed: a directory name (< PATH_MAX) and some words. */
struct tool_why {
	char s[PATH_MAX + 128];
};

/* A file named on the command line and what stat() said of it. */
struct tool_file {
	const char *path;
	struct stat st;
};

/* @in must be an existing regular file; fills in->st. */
int tool__check_input(struct tool_file *in, struct tool_why *why);

/* @path may be replaced: writable by this user, in a writable directory. */
int tool__check_rewrite(const char *path, struct tool_why *why);

/*
 * @out may be written: a new file in a writable directory, or a regular
 * file none of the @nr_ins inputs @ins (checked already) that may be
 * replaced.
 */
int tool__check_output(const char *out, const struct tool_file *ins,
		       size_t nr_ins, struct tool_why *why);

/*
 * @s on @f, each byte outside printable ASCII (controls, 0x7f, 0x80 and
 * up) as \xNN, as the library makes names printable: one line, the same
 * bytes whether a name comes in a message or in --compare's output.
 */
void tool__put_escaped(FILE *f, const char *s);

/*
 * A library error (a negative errno) in words, libbpf's own codes (4000
 * up) too; TOOL_STRERROR() gives it a buffer that lasts the statement.
 */
const char *tool__strerror(int err, char *buf, size_t size);
#define TOOL_STRERROR(err)	tool__strerror((err), (char[96]){ 0 }, 96)

/*
 * One message line on @f in one write, so that the lines of tools run in
 * parallel (make -j) never mix: "@prog: @kind@file: @msg\n", @file and
 * @msg escaped as by tool__put_escaped(); @file may be NULL.
 */
void tool__message(FILE *f, const char *prog, const char *kind,
		   const char *file, const char *msg);

/*
 * The termination signals (SIGHUP, SIGINT, SIGQUIT, SIGTERM) that are not
 * ignored: those to block and take in the main flow. An ignored one stays
 * ignored; blocked, it would become pending.
 */
void tool__term_signals(sigset_t *set);

#endif /* __TOOL_COMMON_H */
