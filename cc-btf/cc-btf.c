// SPDX-License-Identifier: GPL-2.0-only
/*
 * cc-btf: run a compiler unchanged and add the BTF of each object it
 * writes. See cc-btf(1).
 *
 * main() is a pipeline: options -> the objects the command will write ->
 * the compiler -> the encoder. Being in $(CC) for a whole kernel build, the
 * wrapper must be invisible: the compiler gets our argv and environment
 * untouched, its status comes back untouched (a signal included), and a
 * command that writes no object (-E, -S, -M, probes, --version, links)
 * simply becomes the compiler through execvp(), without a fork and without
 * any library work. A termination signal sent to cc-btf is forwarded to
 * the compiler; when it has ended, the command's objects are removed and
 * cc-btf dies of that signal (files.c says how, without a handler).
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cc-btf.h"
#include "../tool-common/tool.h"

#ifndef ABTF_VERSION
#define ABTF_VERSION "unknown"
#endif

/* ---- options ---- */

enum opt_id {
	OPT_ENCODE,
	OPT_OUTPUT,
	OPT_DETACHED,
	OPT_WARN,
	OPT_NO_BTF,
	OPT_NO_ADDR,
	OPT_COMPRESS,
	OPT_VERBOSE,
	OPT_HELP,
	OPT_VERSION,
	OPT_PRINT_SETTINGS,
	OPT_END,
};

struct opt {
	const char *name;
	const char *alias;
	enum opt_id id;
	bool in_env;		/* allowed in CC_BTF_OPTS */
};

static const struct opt opts[] = {
	{ "--encode",	NULL,	OPT_ENCODE,	false },
	{ "--output",	"-o",	OPT_OUTPUT,	false },
	{ "--detached",	NULL,	OPT_DETACHED,	true },
	{ "--warn",	NULL,	OPT_WARN,	true },
	{ "--no-btf",	NULL,	OPT_NO_BTF,	true },
	{ "--no-addr",	NULL,	OPT_NO_ADDR,	true },
	{ "--compress",	NULL,	OPT_COMPRESS,	true },
	{ "--verbose",	"-v",	OPT_VERBOSE,	true },
	{ "--help",	"-h",	OPT_HELP,	false },
	{ "--version",	NULL,	OPT_VERSION,	false },
	{ "--print-settings", NULL, OPT_PRINT_SETTINGS, false },
	{ "--",		NULL,	OPT_END,	false },
};

/* Keep in sync with cc-btf.1. */
static void usage(FILE *f)
{
	fputs(
"Usage: cc-btf [OPTIONS] COMPILER [COMPILER-ARGS...]\n"
"       cc-btf --encode [OPTIONS] [-o OUT] FILE.o...\n"
"\n"
"Run COMPILER with its arguments and environment unchanged; when it writes\n"
"object files with DWARF, encode each object's types as BTF into a .BTF\n"
"section of the object. With --encode, do that to objects built elsewhere.\n"
"\n"
"Options, all before COMPILER or the first FILE:\n"
"  --encode       encode FILE... in place; no compiler is run\n"
"  -o, --output OUT\n"
"                 with --encode and one FILE: write raw BTF to OUT (a regular\n"
"                 or new file, not FILE) and leave FILE untouched\n"
"  --detached     write raw BTF to OBJECT.btf next to each object and leave\n"
"                 the object untouched; not with -o\n"
"  --warn         an object that cannot be encoded is a warning: it is kept\n"
"                 without BTF and the compiler's status is passed through\n"
"  --no-btf       only run the compiler, as CC_BTF=0 does; not with --encode\n"
"  --no-addr      do not write the .debug_btf_addr section\n"
"  --compress     write each object's .BTF compressed (zlib): about 0.4 times\n"
"                 the size; only btf-link reads it (raw BTF from -o and\n"
"                 --detached stays plain)\n"
"  -v, --verbose  print each object encoded and its number of types;\n"
"                 twice: also the library's debug messages\n"
"  -h, --help     print this help and exit\n"
"  --version      print the version and exit\n"
"  --print-settings\n"
"                 print what decides the objects cc-btf writes (version,\n"
"                 options, CC_BTF, CC_BTF_OPTS), for ccache's compiler_check\n"
"  --             end of cc-btf options\n"
"\n"
"Environment:\n"
"  CC_BTF=0       run the compiler only, as --no-btf\n"
"  CC_BTF_OPTS    options read before the command line's, separated by\n"
"                 white space: --detached --warn --no-btf --no-addr\n"
"                 --compress -v\n"
"  CC_BTF_KBUILD  set to 1 by a kernel tree with kbuild-patches/; a kernel\n"
"                 object (-DKBUILD_BASENAME) is refused without it\n"
"  CC_BTF_LTO     set by a patched kernel tree with LTO: an LLVM bitcode\n"
"                 object is left alone (the tree encodes what its LTO link\n"
"                 writes); without it, such an object is an error\n"
"\n"
"Kernel builds: \"cc-btf COMPILER --print-btf-link\" prints the btf-link to\n"
"run (the one beside cc-btf), \"... --print-cc-btf\" this cc-btf's path;\n"
"both print nothing when the objects carry no BTF.\n"
"\n"
"Exit status: the compiler's; 1 if an object could not be encoded (with\n"
"--encode: if any FILE failed or was refused); 2 for a usage error; 126 or\n"
"127 if the compiler cannot be run or is not found. A compiler killed by a\n"
"signal kills cc-btf with the same signal; a signal to cc-btf is forwarded\n"
"to the compiler, and then kills cc-btf. A failed or killed compile leaves\n"
"no object. Files, signals, privileges: docs/reliability.md.\n", f);
}

static const struct opt *find_opt(const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (!strcmp(arg, opts[i].name) ||
		    (opts[i].alias && !strcmp(arg, opts[i].alias)))
			return &opts[i];
	return NULL;
}

static int usage_error(const char *where, const char *what, const char *arg)
{
	cc_btf__msg("error: %s%s '%s' (see cc-btf --help)", where, what, arg);
	return -EINVAL;
}

/*
 * Apply option @arg, @next being the argument after it. Returns the number
 * of arguments used (1 or 2), 0 at "--", or -EINVAL.
 */
static int apply_opt(struct cc_btf *cb, const char *arg, const char *next)
{
	const struct opt *o = find_opt(arg);

	if (!o)
		return usage_error("", "unknown option", arg);
	switch (o->id) {
	case OPT_ENCODE:
		cb->mode = MODE_ENCODE;
		return 1;
	case OPT_OUTPUT:
		if (!next)
			return usage_error("", "missing file after", arg);
		if (cb->out) {
			cc_btf__msg("error: -o given twice ('%s', '%s') "
				    "(see cc-btf --help)", cb->out, next);
			return -EINVAL;
		}
		cb->out = next;
		return 2;
	case OPT_DETACHED:
		cb->detached = true;
		return 1;
	case OPT_WARN:
		cb->warn = true;
		return 1;
	case OPT_NO_BTF:
		cb->no_btf = true;
		cb->no_btf_opt = true;
		return 1;
	case OPT_NO_ADDR:
		cb->no_addr = true;
		return 1;
	case OPT_COMPRESS:
		cb->compress = true;
		return 1;
	case OPT_VERBOSE:
		cb->verbose++;
		return 1;
	case OPT_HELP:
		cb->mode = MODE_HELP;
		return 1;
	case OPT_VERSION:
		cb->mode = MODE_VERSION;
		return 1;
	case OPT_PRINT_SETTINGS:
		cb->mode = MODE_PRINT_SETTINGS;
		return 1;
	case OPT_END:
		return 0;
	}
	return -EINVAL;
}

/* CC_BTF=0 and CC_BTF_OPTS, read before the command line. */
static int parse_env(struct cc_btf *cb)
{
	const char *val = getenv("CC_BTF");
	char *buf, *tok, *save = NULL;
	int err = 0;

	if (val && !strcmp(val, "0"))
		cb->no_btf = true;
	val = getenv("CC_BTF_OPTS");
	if (!val)
		return 0;
	buf = strdup(val);
	if (!buf)
		return -ENOMEM;
	for (tok = strtok_r(buf, " \t\n", &save); tok && !err;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		const struct opt *o = find_opt(tok);

		if (!o)
			err = usage_error("CC_BTF_OPTS: ", "unknown option", tok);
		else if (!o->in_env)
			err = usage_error("CC_BTF_OPTS: ", "option not allowed here", tok);
		else
			err = apply_opt(cb, tok, NULL) < 0 ? -EINVAL : 0;
	}
	free(buf);
	return err;
}

/* Our options, up to the compiler (or the first FILE with --encode). */
static int parse_cmdline(struct cc_btf *cb, int argc, char **argv)
{
	int i = 1, n;

	while (i < argc && argv[i][0] == '-') {
		n = apply_opt(cb, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (n < 0)
			return n;
		if (!n) {		/* "--" */
			cb->end_of_opts = true;
			i++;
			break;
		}
		i += n;
	}
	cb->args = argv + i;
	cb->nr_args = argc - i;
	return 0;
}

/*
 * --encode: options go before the FILEs; one after a FILE (or a FILE
 * whose name starts with '-', unless after "--") is refused before any
 * FILE is touched, not taken as a FILE once the others are encoded.
 */
static int check_files(const struct cc_btf *cb)
{
	int i;

	if (cb->mode != MODE_ENCODE || cb->end_of_opts)
		return 0;
	for (i = 0; i < cb->nr_args; i++)
		if (cb->args[i][0] == '-')
			return usage_error("", "an option after a FILE (or "
					   "a FILE after --):", cb->args[i]);
	return 0;
}

static int check_cmdline(struct cc_btf *cb)
{
	if (cb->mode == MODE_HELP || cb->mode == MODE_VERSION ||
	    cb->mode == MODE_PRINT_SETTINGS)
		return 0;
	if (cb->out && cb->mode != MODE_ENCODE)
		return usage_error("", "only valid with --encode:", "-o");
	if (cb->mode == MODE_ENCODE && cb->no_btf_opt)
		return usage_error("", "--encode contradicts", "--no-btf");
	if (cb->out && cb->detached)
		return usage_error("", "-o contradicts", "--detached");
	if (!cb->nr_args) {
		cc_btf__msg("error: no %s given (see cc-btf --help)",
			    cb->mode == MODE_ENCODE ? "FILE" : "COMPILER");
		return -EINVAL;
	}
	if (cb->out && cb->nr_args > 1)
		return usage_error("", "-o takes one FILE, not", cb->args[1]);
	return check_files(cb);
}

/* ---- the compiler ---- */

static int run_error(const char *cc, int err)
{
	cc_btf__msg("error: %s: cannot run: %s", cc, strerror(err));
	return err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

/* Become the compiler: nothing of cc-btf runs after this. */
static int exec_compiler(struct cc_btf *cb)
{
	execvp(cb->args[0], cb->args);
	return run_error(cb->args[0], errno);
}

/* Start the compiler with the signal mask we were started with. */
static int spawn_compiler(struct cc_btf *cb, pid_t *pid)
{
	posix_spawnattr_t attr;
	int err;

	err = posix_spawnattr_init(&attr);
	if (err)
		return err;
	err = posix_spawnattr_setsigmask(&attr, &cb->sig_old);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (!err)
		err = posix_spawnp(pid, cb->args[0], NULL, &attr, cb->args,
				   environ);
	posix_spawnattr_destroy(&attr);
	return err;
}

/*
 * Run the compiler and wait for it, forwarding each termination signal we
 * get to it (*sig: the last one, or 0). Returns 0 with its wait status, or
 * an exit code.
 */
static int run_compiler(struct cc_btf *cb, int *status, int *sig)
{
	struct sigaction sa;
	pid_t pid, w;
	int err, s;

	/* An ignored SIGCHLD would reap the compiler before we see its status. */
	if (!sigaction(SIGCHLD, NULL, &sa) && sa.sa_handler == SIG_IGN)
		signal(SIGCHLD, SIG_DFL);
	*sig = 0;
	cc_btf__signals_block(cb);
	err = spawn_compiler(cb, &pid);
	if (err)
		return run_error(cb->args[0], err);
	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR) {
			cc_btf__msg("error: %s: cannot wait: %s", cb->args[0],
				    strerror(errno));
			return EXIT_ENCODE;
		}
		s = sigwaitinfo(&cb->sig_wait, NULL);
		if (s > 0 && s != SIGCHLD) {
			kill(pid, s);
			*sig = s;
		}
	}
}

/*
 * The compiler failed, was killed or we were: no object of the command may
 * be left for make to take as up to date (gcc removes its own on failure;
 * a compiler killed, or one we could not wait for, may not have).
 */
static void remove_objects(struct cc_btf *cb)
{
	size_t i;

	for (i = 0; i < cb->objs.nr; i++)
		cc_btf__remove_output(cb->objs.v[i]);
}

static int die_without_objects(struct cc_btf *cb, int sig)
{
	remove_objects(cb);
	return cc_btf__die_like(sig);
}

static int wrap(struct cc_btf *cb)
{
	enum cc_btf_query q = cc_btf__kbuild_query(cb);
	int status, ret, sig;

	if (q != QUERY_NONE)
		return cc_btf__answer_query(cb, q);
	if (cc_btf__is_other_image(cb))
		cb->no_btf = true;	/* kbuild.c: not the kernel's image */
	if (!cb->no_btf) {
		ret = cc_btf__find_objects(cb);
		if (ret) {
			cc_btf__msg("error: %s", TOOL_STRERROR(ret));
			return EXIT_ENCODE;
		}
		if (cb->objs.nr && cc_btf__check_kbuild(cb)) {
			/* not compiled: no stale object may look up to date */
			remove_objects(cb);
			return EXIT_ENCODE;
		}
	}
	ret = cc_btf__check_launcher(cb);
	if (ret)
		return ret;
	if (!cb->objs.nr)
		return exec_compiler(cb);
	ret = run_compiler(cb, &status, &sig);
	if (ret == EXIT_ENCODE)		/* we could not wait for it */
		remove_objects(cb);
	if (ret)
		return ret;
	if (sig)
		return die_without_objects(cb, sig);
	if (WIFSIGNALED(status))
		return die_without_objects(cb, WTERMSIG(status));
	if (WEXITSTATUS(status)) {	/* nothing to encode, nothing to keep */
		remove_objects(cb);
		return WEXITSTATUS(status);
	}
	ret = cc_btf__encode_objects(cb);
	sig = cc_btf__signal_pending(cb);
	return sig ? die_without_objects(cb, sig) : ret;
}

int main(int argc, char **argv)
{
	struct cc_btf cb = { .mode = MODE_WRAP };
	int ret;

	/*
	 * libbpf prints its warnings to stderr unless told otherwise, for
	 * the whole process (libarchive-btf(3)); the library's messages,
	 * which name the object, are what a kernel build should see.
	 */
	libbpf_set_print(NULL);
	if (parse_env(&cb) || parse_cmdline(&cb, argc, argv) ||
	    check_cmdline(&cb))
		return EXIT_USAGE;
	switch (cb.mode) {
	case MODE_HELP:
		usage(stdout);
		return 0;
	case MODE_VERSION:
		printf(CC_BTF_NAME " " ABTF_VERSION "\n");
		return 0;
	case MODE_PRINT_SETTINGS:
		return cc_btf__print_settings(&cb);
	case MODE_ENCODE:
		cc_btf__signals_block(&cb);
		ret = cc_btf__encode_files(&cb);
		break;
	case MODE_WRAP:
	default:
		ret = wrap(&cb);
		break;
	}
	strv__clear(&cb.objs);
	strv__clear(&cb.msgs);
	return ret;
}
