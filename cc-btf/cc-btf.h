/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cc-btf: a compiler wrapper that adds each object's BTF to the object.
 *
 *	cc-btf [OPTIONS] COMPILER [ARGS...]	wrapper mode
 *	cc-btf --encode [-o OUT] FILE.o...	encode-only mode
 *
 * main() is a pipeline over one struct cc_btf: parse our options, find the
 * objects the compiler command will write (objects.c), run the compiler,
 * encode each object (encode.c). A command that writes no object runs the
 * compiler with execvp() and nothing else.
 *
 * The files call one another in layers, each only into the layers below
 * it, never back up (no call cycle between files):
 *
 *	cc-btf.c	main(): options, the compiler, the pipeline
 *	encode.c	the two modes' encoding, over libarchive-btf
 *	launcher.c	ccache, distcc, icecc (asks objects.c)
 *	kbuild.c	what a kernel build asks of the wrapper
 *	objects.c	the objects a command line writes
 *	files.c		messages, file checks, signals
 *	strv.c		string vectors
 *	../tool-common	what btf-link does alike: file checks, escaping
 *
 * A file may call any file listed below it; files.c and strv.c call
 * nothing of ours but tool-common.
 */
#ifndef __CC_BTF_H
#define __CC_BTF_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define CC_BTF_NAME	"cc-btf"

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))
#endif

/* Exit statuses of our own (the compiler's are passed through). */
#define EXIT_ENCODE	1	/* an object could not be encoded */
#define EXIT_USAGE	2	/* bad cc-btf option or CC_BTF_OPTS */
#define EXIT_NOEXEC	126	/* the compiler exists but cannot be run */
#define EXIT_NOTFOUND	127	/* the compiler was not found */

/* strv.c: a growable vector of malloc()ed strings. */
struct strv {
	char **v;
	size_t nr, cap;
};

int strv__push(struct strv *sv, char *s);	/* takes @s; frees it on error */
int strv__push_dup(struct strv *sv, const char *s);
void strv__clear(struct strv *sv);

enum cc_mode {
	MODE_WRAP,		/* run COMPILER, encode what it writes */
	MODE_ENCODE,		/* --encode FILE... */
	MODE_HELP,
	MODE_VERSION,
	MODE_PRINT_SETTINGS,	/* --print-settings, for ccache */
};

struct cc_btf {
	enum cc_mode mode;

	/* options */
	bool no_btf;		/* --no-btf, CC_BTF=0: only run the compiler */
	bool no_btf_opt;	/* --no-btf given as an option */
	bool end_of_opts;	/* "--" seen: all after it are FILEs */
	bool warn;		/* --warn: an encoding failure is a warning */
	bool detached;		/* --detached: OBJECT.btf, object untouched */
	bool no_addr;		/* --no-addr: no .debug_btf_addr section */
	bool compress;		/* --compress: .BTF as a compressed member */
	int verbose;		/* -v: what was encoded; -vv: library debug */
	const char *out;	/* --encode -o OUT: raw BTF to OUT */

	/* the compiler command (wrapper) or the files (--encode) */
	char **args;
	int nr_args;

	struct strv objs;	/* objects the compiler command writes */
	struct strv msgs;	/* the library's warnings for the file at hand */

	/* termination signals, taken in the main flow (files.c) */
	sigset_t sig_term;	/* those we handle: not ignored at start */
	sigset_t sig_wait;	/* sig_term and SIGCHLD */
	sigset_t sig_old;	/* the mask at start, the compiler's */
	int sig_got;		/* a signal taken, to die of */
};

/* objects.c: the objects a gcc-compatible command line writes. */
int cc_btf__find_objects(struct cc_btf *cb);

/* kbuild.c: what a Linux kernel build asks of the wrapper. */
enum cc_btf_query {
	QUERY_NONE,
	QUERY_BTF_LINK,		/* --print-btf-link: the btf-link to run */
	QUERY_CC_BTF,		/* --print-cc-btf: this cc-btf, for LTO */
};
enum cc_btf_query cc_btf__kbuild_query(const struct cc_btf *cb);
int cc_btf__answer_query(const struct cc_btf *cb, enum cc_btf_query q);
bool cc_btf__lto_encoded_later(void);	/* CC_BTF_LTO is set */
int cc_btf__check_kbuild(const struct cc_btf *cb);
/* the vDSO's or s390's decompressor's: no BTF */
bool cc_btf__is_other_image(const struct cc_btf *cb);

/* files.c: checks of files, signals, messages. */
void __printf(1, 2) cc_btf__msg(const char *fmt, ...);	/* "cc-btf: " LINE */
int cc_btf__check_files(const char *file, const char *raw);
void cc_btf__remove_output(const char *path);
void cc_btf__signals_block(struct cc_btf *cb);
int cc_btf__signal_pending(struct cc_btf *cb);
int cc_btf__die_like(int sig);

/*
 * launcher.c: ccache, distcc or icecc running cc-btf. 0, or the exit status
 * of a command refused because the launcher would get it wrong.
 */
int cc_btf__check_launcher(const struct cc_btf *cb);
int cc_btf__print_settings(const struct cc_btf *cb);	/* --print-settings */

/* encode.c */
int cc_btf__encode_objects(struct cc_btf *cb);	/* wrapper mode */
int cc_btf__encode_files(struct cc_btf *cb);	/* --encode */

#endif /* __CC_BTF_H */
