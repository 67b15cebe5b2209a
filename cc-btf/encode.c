// SPDX-License-Identifier: GPL-2.0-only
/*
 * Encoding objects with libarchive-btf, in the two modes of cc-btf.
 *
 * Wrapper mode (after a successful compile): an output that is not a
 * regular ELF file (a precompiled header, a pipe) and an object without
 * DWARF (-ENODATA) are left alone silently, and so is a BTF without types
 * (assembler sources). An LTO object (clang's LLVM bitcode, GCC's ELF of
 * .gnu.lto_ sections, which the library refuses) has no DWARF to encode
 * although -g asked for it: a failure, unless CC_BTF_LTO says that the
 * build encodes what its LTO link writes (kbuild.c): then clang's bitcode
 * is left alone. A failure prints one line,
 * deletes the object so that make does not take it as up to date and makes
 * the exit status 1; --warn keeps the object without BTF instead.
 *
 * --encode mode: every FILE must encode; no DWARF is an error too, and a
 * failure leaves FILE as it was (the library writes a temporary file and
 * renames it).
 *
 * The library's messages already name the file and the DWARF place: they
 * are collected while one file is processed and printed with our prefix,
 * the last one as the error (earlier ones did not stop the encoder, so they
 * were warnings). Our own line is printed only when the library gave none.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "archive_btf.h"
#include "cc-btf.h"
#include "../tool-common/tool.h"

/* Where one file's BTF goes. */
struct target {
	const char *raw;	/* raw BTF to this file; NULL: .BTF in place */
	bool keep_empty;	/* write a BTF without types too */
};

static void __attribute__((format(printf, 3, 0)))
print_cb(enum abtf_print_level level, void *ctx, const char *fmt, va_list args)
{
	struct cc_btf *cb = ctx;
	char *msg;
	size_t len;

	if ((level == ABTF_INFO && cb->verbose < 1) ||
	    (level == ABTF_DEBUG && cb->verbose < 2))
		return;
	if (vasprintf(&msg, fmt, args) < 0)
		return;
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	if (level == ABTF_WARN) {
		strv__push(&cb->msgs, msg);
		return;
	}
	cc_btf__msg("%s", msg);
	free(msg);
}

static void print_msgs(const struct cc_btf *cb, size_t nr, const char *kind)
{
	size_t i;

	for (i = 0; i < nr; i++)
		cc_btf__msg("%s: %s", kind, cb->msgs.v[i]);
}

/* After a success: the library's messages were warnings. */
static void flush_warnings(struct cc_btf *cb)
{
	print_msgs(cb, cb->msgs.nr, "warning");
	strv__clear(&cb->msgs);
}

/* The failure @err of @file: the library's last message, or our own line. */
static void report_failure(struct cc_btf *cb, const char *file, int err,
			   bool fatal)
{
	const char *kind = fatal ? "error" : "warning";
	size_t nr = cb->msgs.nr;

	if (!nr) {
		cc_btf__msg("%s: %s: %s", kind, file, TOOL_STRERROR(err));
		return;
	}
	print_msgs(cb, nr - 1, "warning");
	cc_btf__msg("%s: %s", kind, cb->msgs.v[nr - 1]);
	strv__clear(&cb->msgs);
}

/* A message of our own, reported like the library's. */
static void __printf(2, 3) add_msg(struct cc_btf *cb, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0)
		strv__push(&cb->msgs, msg);
	va_end(ap);
}

static void pr_verbose(const struct cc_btf *cb, const char *file, const char *what)
{
	if (cb->verbose)
		cc_btf__msg("%s: %s", file, what);
}

/*
 * Encode @path into @t. Returns 0, -ENODATA if it has no DWARF, or another
 * -errno (the library's messages are in cb->msgs).
 */
static int encode_file(struct cc_btf *cb, const char *path,
		       const struct target *t)
{
	struct abtf_encode_opts opts = {
		.sz = sizeof(opts),
		.print = print_cb,
		.print_ctx = cb,
		.no_addr = cb->no_addr,
		.compress = cb->compress,
	};
	struct abtf_encoder *enc;
	unsigned int nr;
	int err;

	enc = abtf_encoder__new(path, &opts);
	if (!enc)
		return errno ? -errno : -EINVAL;
	err = abtf_encoder__encode(enc);
	if (err)
		goto out_free_enc;
	nr = btf__type_cnt(abtf_encoder__btf(enc)) - 1;
	if (!nr && !t->keep_empty) {
		pr_verbose(cb, path, "no types, nothing to add");
		goto out_free_enc;
	}
	if (t->raw)
		err = abtf_encoder__write_raw(enc, t->raw);
	else
		err = abtf_encoder__write_object(enc, NULL);
	if (!err && cb->verbose)
		cc_btf__msg("%s: %u types%s", t->raw ? t->raw : path, nr,
			    t->raw ? " (raw BTF)" : "");
out_free_enc:
	abtf_encoder__free(enc);
	return err < 0 ? err : 0;
}

/*
 * The first @n bytes of @path into @magic; false if it is not a regular
 * file or is shorter. A FIFO is opened without waiting for a writer.
 */
static bool read_magic(const char *path, void *magic, size_t n)
{
	struct stat st;
	bool ok;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     read(fd, magic, n) == (ssize_t)n;
	close(fd);
	return ok;
}

/*
 * LLVM bitcode, as clang -flto and -flto=thin write it: raw ("BC" 0xc0de)
 * or in its wrapper (0x0b17c0de, little-endian).
 */
static bool is_bitcode_file(const char *path)
{
	static const unsigned char raw[4] = { 'B', 'C', 0xc0, 0xde };
	static const unsigned char wrapped[4] = { 0xde, 0xc0, 0x17, 0x0b };
	unsigned char magic[4];

	return read_magic(path, magic, sizeof(magic)) &&
	       (!memcmp(magic, raw, 4) || !memcmp(magic, wrapped, 4));
}

/* A regular file that starts with the ELF magic. */
static bool is_elf_file(const char *path)
{
	char magic[SELFMAG];

	return read_magic(path, magic, SELFMAG) &&
	       !memcmp(magic, ELFMAG, SELFMAG);
}

static char *detached_path(const char *obj)
{
	char *path;

	return asprintf(&path, "%s.btf", obj) < 0 ? NULL : path;
}

/* Wrapper mode, one object; returns true if it failed. */
static bool wrap_object(struct cc_btf *cb, const char *obj)
{
	struct target t = {};
	char *raw = NULL;
	int err;

	if (is_bitcode_file(obj)) {
		if (cc_btf__lto_encoded_later()) {
			pr_verbose(cb, obj, "LLVM bitcode, not encoded: the "
				   "build encodes what the LTO link makes of it");
			return false;
		}
		add_msg(cb, "%s: LLVM bitcode (clang -flto): an LTO object "
			"carries no DWARF to encode; build without LTO for BTF, "
			"or encode what the LTO link writes (cc-btf --encode; "
			"kbuild-patches/ do so, setting CC_BTF_LTO)", obj);
		err = -EOPNOTSUPP;
		goto out_failed;
	}
	if (!is_elf_file(obj)) {
		pr_verbose(cb, obj, "not a regular ELF file, not encoded");
		return false;
	}
	if (cb->detached) {
		raw = detached_path(obj);
		if (!raw) {
			err = -ENOMEM;
			goto out_failed;
		}
		cc_btf__remove_output(raw);	/* a stale one must not survive */
		if (cc_btf__check_files(obj, raw)) {	/* what was not removed */
			free(raw);
			goto out_refused;
		}
		t.raw = raw;
	}
	err = encode_file(cb, obj, &t);
	free(raw);
	if (err == -ENODATA) {
		strv__clear(&cb->msgs);
		pr_verbose(cb, obj, "no DWARF, not encoded");
		return false;
	}
	if (!err) {
		flush_warnings(cb);
		return false;
	}
out_failed:
	report_failure(cb, obj, err, !cb->warn);
out_refused:
	if (cb->warn)
		return false;
	cc_btf__remove_output(obj);	/* not up to date: make must rebuild it */
	return true;
}

int cc_btf__encode_objects(struct cc_btf *cb)
{
	bool failed = false;
	size_t i;

	for (i = 0; i < cb->objs.nr && !cc_btf__signal_pending(cb); i++)
		failed |= wrap_object(cb, cb->objs.v[i]);
	return failed ? EXIT_ENCODE : 0;
}

/* --encode mode, one file; returns true if it failed. */
static bool encode_one(struct cc_btf *cb, const char *file)
{
	struct target t = { .raw = cb->out };
	char *raw = NULL;
	int err;

	if (!t.raw && cb->detached) {
		raw = detached_path(file);
		if (!raw) {
			err = -ENOMEM;
			goto out_failed;
		}
		t.raw = raw;
	}
	t.keep_empty = t.raw != NULL;	/* a raw file was asked for: always write it */
	if (cc_btf__check_files(file, t.raw)) {
		free(raw);
		return true;
	}
	if (is_bitcode_file(file)) {
		add_msg(cb, "%s: LLVM bitcode (clang -flto): an LTO object "
			"carries no DWARF to encode", file);
		free(raw);
		err = -EOPNOTSUPP;
		goto out_failed;
	}
	err = encode_file(cb, file, &t);
	free(raw);
	if (err == -ENODATA) {
		strv__clear(&cb->msgs);
		cc_btf__msg("error: %s: no DWARF (.debug_info) to encode", file);
		return true;
	}
	if (!err) {
		flush_warnings(cb);
		return false;
	}
out_failed:
	report_failure(cb, file, err, true);
	return true;
}

int cc_btf__encode_files(struct cc_btf *cb)
{
	bool failed = false;
	int i;

	for (i = 0; i < cb->nr_args; i++) {
		failed |= encode_one(cb, cb->args[i]);
		if (cc_btf__signal_pending(cb))
			return cc_btf__die_like(cb->sig_got);
	}
	return failed ? EXIT_ENCODE : 0;
}
