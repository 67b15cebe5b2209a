// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf-link: turn the BTF archive of a linked kernel image into one BTF.
 *
 * A thin command line over libarchive-btf. The options choose a mode and
 * each mode is one entry of the command table, run by one dispatcher, in
 * the manner of bpftool:
 *
 *   btf-link [-v] [-f] [--base FILE] [-o OUT | --object OUT] FILE
 *
 * links the BTF archive in FILE into one BTF (abtf_linker__*()), and
 *
 *   btf-link --compare [--no-vars] [--base FILE] A B
 *
 * compares two BTFs by meaning (abtf_btf__compare()) and prints one line
 * per difference (exit status 0 equal, 1 different, 2 error), and
 *
 *   btf-link --explain NAME [--explain NAME]... [--base FILE] FILE
 *
 * links FILE as the first form would, writes nothing, and says on stdout
 * why each NAME's FUNC or VAR is in the final BTF or not
 * (abtf_linker__explain()), and
 *
 *   btf-link --supported_btf_features
 *
 * lists the BTF features a link honours, as pahole does. Every error is
 * one line on stderr: "btf-link: error: FILE: what".
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "archive_btf.h"
#include "../tool-common/tool.h"

#define PROG		"btf-link"

#define EXIT_EQUAL	0
#define EXIT_DIFFERENT	1
#define EXIT_TROUBLE	2

enum mode {
	MODE_LINK,
	MODE_COMPARE,
	MODE_FEATURES,
	MODE_EXPLAIN,
};

/* Everything one run needs: the parsed command line. */
struct btf_link {
	enum mode mode;
	const char *base_path;	/* --base: the base of split BTFs */
	bool no_vars;		/* --no-vars */
	bool force;		/* -f: link even an already final BTF */
	bool keep_archive;	/* --keep-archive */
	bool flat_arrays;	/* --flat_arrays */
	bool verbose;		/* -v */
	const char *out_raw;	/* -o: write raw BTF here */
	const char *out_obj;	/* --object: write a .BTF object here */
	int nr_threads;		/* -j: 0 = one per CPU */
	size_t leaf_bytes;	/* --leaf-size: 0 = the library's */
	unsigned int features;	/* --btf_features: 0 = the default */
	char ignored[256];	/* --btf_features' unknown names, for -v */
	const char **explain;	/* --explain: the names */
	size_t nr_explain;
	char **files;		/* the operands */
	int nr_files;
};

struct cmd {
	enum mode mode;
	const char *name;
	int (*fn)(struct btf_link *bl);
};

static const char usage_text[] =
"Usage: " PROG " [-v] [-f] [-j N] [--base FILE] [--btf_features=LIST]...\n"
"                [--flat_arrays] [-o OUT | --object OUT | --keep-archive]\n"
"                FILE\n"
"       " PROG " --explain NAME [--explain NAME]... [-f] [-j N]\n"
"                [--base FILE] [--btf_features=LIST]... [--flat_arrays]\n"
"                FILE\n"
"       " PROG " --compare [--no-vars] [--base FILE] A B\n"
"       " PROG " { --supported_btf_features | -h | --help | --version }\n"
"\n"
"Link the BTF archive in FILE (vmlinux, a module, any linked ELF file or a\n"
"raw BTF file) into one deduplicated BTF, written back into FILE's .BTF\n"
"unless -o or --object is given. Or compare two BTFs by meaning,\n"
"independently of type IDs and type order. Or say why functions or\n"
"variables are in the final BTF or not.\n"
"\n"
"Options:\n"
"  -o FILE        write the final BTF as a raw BTF file; FILE is unchanged\n"
"  --object FILE  write a relocatable object with an allocatable .BTF\n"
"  --base FILE    split BTF on top of the BTF in FILE (vmlinux)\n"
"  --keep-archive in place into a relocatable FILE (a module): keep its\n"
"                 archive in .debug_btf_archive and .debug_btf_addr, to\n"
"                 link FILE again later (on a new base) without a relink\n"
"  -f, --force    link even if FILE's BTF is already final\n"
"  -j, --jobs N   use N threads, 1 to 1024 (default: one per CPU); same\n"
"                 output\n"
"  --leaf-size BYTES\n"
"                 merge-tree leaves of about BYTES of consecutive\n"
"                 members (default 16 MiB; 1: a leaf per member); the\n"
"                 same types at any size, not always the same bytes\n"
"  -v, --verbose  report members, types and time per phase\n"
"  --btf_features=LIST\n"
"                 make the BTF features in LIST (pahole's names, comma-\n"
"                 separated; 'default': pahole's default set; '+LIST':\n"
"                 the default set and LIST); repeatable, the lists add\n"
"                 up; features not named are left out; an unknown name\n"
"                 is ignored (said with -v), a known one btf-link cannot\n"
"                 make is an error. Without it: the BTF of pahole 1.24\n"
"                 --btf_gen_floats\n"
"  --btf_features_strict=LIST\n"
"                 the same, but an unknown name is an error\n"
"  --supported_btf_features\n"
"                 list the features --btf_features can make and exit\n"
"  --flat_arrays  write a multi-dimensional array as one ARRAY of all its\n"
"                 elements, as pahole before 1.32 does (int a[2][3]: 6\n"
"                 ints); by default an ARRAY of ARRAYs, as pahole 1.32\n"
"  --explain NAME link FILE as usual but write nothing; print why NAME's\n"
"                 FUNC or VAR is kept or left out, one line per FUNC\n"
"                 and VAR of that name in the archive; repeatable\n"
"  --compare      compare A and B; print one line per difference\n"
"  --no-vars      ignore variables and DATASECs\n"
"  -h, --help     show this help and exit\n"
"  --version      show the version and exit\n"
"\n"
"Exit status: linking, --explain: 0 on success, 2 on error; --compare: 0\n"
"if A and B are equal, 1 if they differ, 2 on error.\n";

/*
 * One line on stderr: "btf-link: " @kind, "@file: " and the message.
 * Control bytes (of a file or symbol name) are written as \xNN, never raw.
 */
static void __attribute__((format(printf, 3, 0)))
vmsg(const char *kind, const char *file, const char *fmt, va_list ap)
{
	char *line;

	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	tool__message(stderr, PROG, kind, file, line ? line : "out of memory");
	free(line);
}

static void __attribute__((format(printf, 2, 3)))
msg(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", file, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
error(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", file, fmt, ap);
	va_end(ap);
}

/* ---- files ---- */

/* The checks of tool-common/tool.h; 0, or -errno after one line. */
static int check_input(struct tool_file *in)
{
	struct tool_why why;
	int err = tool__check_input(in, &why);

	if (err)
		error(in->path, "%s", why.s);
	return err;
}

static int check_link_files(const struct btf_link *bl)
{
	const char *out = bl->out_raw ? bl->out_raw : bl->out_obj;
	struct tool_file ins[2] = {
		{ .path = bl->files[0] }, { .path = bl->base_path },
	};
	size_t nr_ins = bl->base_path ? 2 : 1;
	struct tool_why why;
	int err;

	err = check_input(&ins[0]);
	if (!err && bl->base_path)
		err = check_input(&ins[1]);
	if (err)
		return err;
	if (out)
		err = tool__check_output(out, ins, nr_ins, &why);
	else if (bl->base_path)	/* in place: FILE must not be the base */
		err = tool__check_output(bl->files[0], &ins[1], 1, &why);
	else
		err = tool__check_rewrite(bl->files[0], &why);
	if (err)
		error(out ? out : bl->files[0], "%s", why.s);
	return err;
}

/* ---- signals ---- */

/*
 * The termination signals are left alone while btf-link reads and links
 * (nothing is written then: it dies with its inputs intact), and blocked
 * while it writes, so that the library's temporary file is always renamed
 * or removed; one that came meanwhile is then taken in the main flow and
 * kills us as it would have. An ignored signal stays ignored (blocked, it
 * would become pending). No handler: nothing to keep async-signal-safe.
 * The library's link threads are joined before abtf_linker__link()
 * returns, so the main thread's mask is the process's during the write.
 */
static void block_term_signals(sigset_t *set, sigset_t *old)
{
	tool__term_signals(set);
	sigprocmask(SIG_BLOCK, set, old);
}

/* Die of a signal in @set that came while it was blocked, if any. */
static void take_term_signal(const sigset_t *set, const sigset_t *old)
{
	static const struct timespec now = { 0, 0 };
	struct rlimit no_core = { 0, 0 };
	int sig = sigtimedwait(set, NULL, &now);

	if (sig > 0) {
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		raise(sig);	/* pending until the mask is restored */
	}
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---- the library's messages ---- */

struct print_ctx {
	bool verbose;
	bool quiet;		/* keep the last error in last, print nothing */
	int nr_errors;		/* errors the library printed */
	char last[512];
};

/* The library's messages: errors always, the rest with -v. */
static void __attribute__((format(printf, 3, 0)))
print_lib(enum abtf_print_level level, void *ctx, const char *fmt, va_list ap)
{
	struct print_ctx *pc = ctx;

	if (level == ABTF_WARN)
		pc->nr_errors++;
	if (pc->quiet) {
		if (level == ABTF_WARN)
			vsnprintf(pc->last, sizeof(pc->last), fmt, ap);
		return;
	}
	if (level != ABTF_WARN && !pc->verbose)
		return;
	vmsg(level == ABTF_WARN ? "error: " : "", NULL, fmt, ap);
}

/* ---- compare ---- */

/* Why libbpf could not read @path as BTF, in words. */
static const char *parse_error(const char *path, int err)
{
	if (err == ENODATA)	/* abtf_btf__parse(): ELF, no .BTF */
		return "no .BTF section";
	if (err == ENOENT || err == EACCES || err == EISDIR || err == ENOMEM)
		return strerror(err);
	if (err == ENOTSUP)	/* abtf_btf__parse(): a longer header */
		return "a BTF header of the other byte order with fields that "
		       "are not zero, which this btf-link does not know";
	return "not a BTF file nor an ELF file with a valid .BTF section";
}

/*
 * Whether @path is final BTF (abtf_linker__check_final()): libbpf would
 * read an unlinked archive as its first member alone. What cannot be read
 * is left to libbpf's own message.
 */
static bool unlinked(const char *path)
{
	struct print_ctx pc = { .quiet = true };
	struct abtf_link_opts opts = {
		.sz = sizeof(opts),
		.print = print_lib,
		.print_ctx = &pc,
	};
	struct abtf_linker *l = abtf_linker__new(path, &opts);
	int ret = l ? abtf_linker__check_final(l) : -errno;

	abtf_linker__free(l);
	if (ret)
		return false;
	pc.quiet = false;
	error(NULL, "%s", pc.last);
	return true;
}

/*
 * Whether @btf, read from @path, can be compared: every type ID and name
 * offset in range (libbpf reads what breaks it, and the comparison does
 * not expect it). The kernel's rules are not asked of it: a reference BTF
 * may break them (pahole 1.24's members of type void). @what names it in
 * the message.
 */
static bool verified(const char *path, const char *what,
		     const struct btf *btf)
{
	char msg[512];
	int err = abtf_btf__verify(btf, ABTF_VERIFY_READING, msg, sizeof(msg));

	if (err == -EINVAL)
		error(path, "%s cannot be read: %s", what, msg);
	else if (err)
		error(path, "cannot check %s: %s", what, strerror(-err));
	return !err;
}

/* The distilled module @path: its BTF on its .BTF.base, both checked. */
static struct btf *load_distilled(const char *path, struct btf **own)
{
	struct btf *btf = abtf_btf__parse_distilled(path, own);

	if (!btf) {
		if (errno != ENOENT)
			error(path, "cannot read its BTF on its .BTF.base: %s",
			      strerror(errno));
		return NULL;
	}
	if (verified(path, "its .BTF.base", *own) &&
	    verified(path, "its BTF", btf))
		return btf;
	btf__free(btf);
	btf__free(*own);
	*own = NULL;
	errno = EINVAL;
	return NULL;
}

/*
 * The BTF of @path, split on @base if given; a module with a distilled
 * base (.BTF.base) is read on it, into *@own (the caller frees it). @own
 * NULL: @path is --base itself.
 */
static struct btf *load_btf(const char *path, struct btf *base,
			    struct btf **own)
{
	struct btf *btf;

	if (unlinked(path))
		return NULL;
	if (own) {
		btf = load_distilled(path, own);
		if (btf || errno != ENOENT)
			return btf;
	}
	errno = 0;
	btf = abtf_btf__parse(path, base);
	if (!btf && !base && abtf_btf__is_split(path) == 1) {
		if (own)
			error(path, "split BTF: compare it with --base, the "
			      "BTF it was made on");
		else
			error(path, "cannot be a base: it is split BTF (a "
			      "module's, made on a base of its own)");
		return NULL;
	}
	if (!btf) {
		int err = errno ? errno : EINVAL;
		char msg[512];

		/* libbpf 1.3 and later refuse what 1.1 read: say where */
		if (err == EINVAL && !base &&
		    abtf_btf__check_file(path, msg, sizeof(msg)) == -EINVAL)
			error(path, "its BTF cannot be read: %s", msg);
		else
			error(path, "%s", parse_error(path, err));
		return NULL;
	}
	if (verified(path, base ? "its BTF (split)" : "its BTF", btf))
		return btf;
	btf__free(btf);
	return NULL;
}

static void print_diff(void *ctx, const char *line)
{
	tool__put_escaped(ctx, line);
	fputc('\n', ctx);
}

/* The files of --compare, all checked before any is read. */
static int check_inputs(const struct btf_link *bl)
{
	struct tool_file in[3] = {
		{ .path = bl->base_path },
		{ .path = bl->files[0] }, { .path = bl->files[1] },
	};
	int i;

	for (i = 0; i < 3; i++)
		if (in[i].path && check_input(&in[i]))
			return -EINVAL;
	return 0;
}

static int do_compare(struct btf_link *bl)
{
	struct btf *base = NULL, *a = NULL, *b = NULL, *base_a = NULL;
	struct btf *base_b = NULL;
	struct abtf_compare_opts opts = {
		.sz = sizeof(opts),
		.diff = print_diff,
		.diff_ctx = stdout,
		.no_vars = bl->no_vars,
	};
	int n, ret = EXIT_TROUBLE;

	if (bl->nr_files != 2) {
		error(NULL, "--compare needs two files, got %d", bl->nr_files);
		return EXIT_TROUBLE;
	}
	if (check_inputs(bl))
		return EXIT_TROUBLE;
	if (bl->base_path && !(base = load_btf(bl->base_path, NULL, NULL)))
		return EXIT_TROUBLE;
	a = load_btf(bl->files[0], base, &base_a);
	b = a ? load_btf(bl->files[1], base, &base_b) : NULL;
	if (!b)
		goto out_free;
	n = abtf_btf__compare(a, b, &opts);
	if (n < 0) {
		error(bl->files[0], "cannot compare with %s: %s", bl->files[1],
		      TOOL_STRERROR(n));
		goto out_free;
	}
	if (fflush(stdout) || ferror(stdout)) {
		error(NULL, "cannot write the differences: %s",
		      strerror(errno));
		goto out_free;
	}
	ret = n ? EXIT_DIFFERENT : EXIT_EQUAL;
out_free:
	btf__free(b);
	btf__free(a);
	btf__free(base_b);
	btf__free(base_a);
	btf__free(base);
	return ret;
}

/* ---- link ---- */

/* Print the names of the features in @mask, pahole's way, and a newline. */
static void print_features(FILE *f, unsigned int mask)
{
	const char *sep = "";
	unsigned int bit;

	for (bit = 1; bit; bit <<= 1) {
		if (!(mask & bit) || !abtf_btf_feature__name(bit))
			continue;
		fprintf(f, "%s%s", sep, abtf_btf_feature__name(bit));
		sep = ",";
	}
	fputc('\n', f);
}

static void report(const struct abtf_linker *l, const char *path, int ret)
{
	struct abtf_link_stats st = { .sz = sizeof(st) };

	if (abtf_linker__stats(l, &st))
		return;
	if (ret == 1) {
		msg(path, "BTF already final (%zu bytes), left as it is",
		    st.bytes_in);
		return;
	}
	msg(path, "%zu members (%zu placed by .debug_btf_addr), %zu bytes",
	    st.nr_members, st.nr_addr_groups, st.bytes_in);
	msg(path, "types: %zu in, %zu merged, %zu out; %zu functions, "
	    "%zu variables; %zu bytes", st.types_in, st.types_merged,
	    st.types_out, st.funcs, st.vars, st.bytes_out);
	msg(path, "time: parse %.3fs, merge %.3fs, dedup %.3fs", st.t_parse,
	    st.t_merge, st.t_dedup);
	msg(path, "merge tree: %zu node%s, %zu deduplicated by libbpf",
	    st.nodes, st.nodes == 1 ? "" : "s", st.libbpf_nodes);
}

static int write_one(struct btf_link *bl, struct abtf_linker *l)
{
	if (bl->out_raw)
		return abtf_linker__write_raw(l, bl->out_raw);
	if (bl->out_obj)
		return abtf_linker__write_object(l, bl->out_obj);
	return abtf_linker__write_elf(l, NULL);
}

/* The write, with the termination signals held off (see above). */
static int write_outputs(struct btf_link *bl, struct abtf_linker *l,
			 const struct print_ctx *pc)
{
	const char *dst = bl->out_raw ? bl->out_raw :
			  bl->out_obj ? bl->out_obj : bl->files[0];
	int nr_errors = pc->nr_errors, ret;
	sigset_t set, old;

	block_term_signals(&set, &old);
	ret = write_one(bl, l);
	take_term_signal(&set, &old);
	if (ret < 0 && pc->nr_errors == nr_errors)	/* not said yet */
		error(dst, "cannot write: %s", TOOL_STRERROR(ret));
	return ret;
}

/* The library's options for linking FILE, as the command line gives them. */
static struct abtf_link_opts link_opts(const struct btf_link *bl,
				       struct print_ctx *pc)
{
	struct abtf_link_opts opts = {
		.sz = sizeof(opts),
		.print = print_lib,
		.print_ctx = pc,
		.base_path = bl->base_path,
		.force = bl->force,
		.nr_threads = bl->nr_threads,
		.features = bl->features,
		.leaf_bytes = bl->leaf_bytes,
		.keep_archive = bl->keep_archive,
		.flat_arrays = bl->flat_arrays,
	};

	return opts;
}

static int do_link(struct btf_link *bl)
{
	struct print_ctx pc = { .verbose = bl->verbose };
	struct abtf_link_opts opts = link_opts(bl, &pc);
	struct abtf_linker *l;
	int ret;

	if (bl->nr_files != 1) {
		error(NULL, "one FILE to link, got %d (see --help)",
		      bl->nr_files);
		return EXIT_TROUBLE;
	}
	if (bl->out_raw && bl->out_obj) {
		error(NULL, "-o and --object exclude each other");
		return EXIT_TROUBLE;
	}
	if (bl->verbose && bl->features) {	/* as parsed, before any check */
		fprintf(stderr, PROG ": ");
		tool__put_escaped(stderr, bl->files[0]);
		fputs(": BTF features: ", stderr);
		print_features(stderr, bl->features);
	}
	if (bl->verbose && bl->ignored[0]) {
		fprintf(stderr, PROG ": ");
		tool__put_escaped(stderr, bl->files[0]);
		fputs(": unknown BTF features ignored: ", stderr);
		tool__put_escaped(stderr, bl->ignored);
		fputc('\n', stderr);
	}
	if (bl->out_raw && (bl->features & ABTF_FEAT_DISTILLED_BASE)) {
		error(NULL, "distilled_base writes .BTF and .BTF.base: link "
		      "the module in place or with --object, not with -o");
		return EXIT_TROUBLE;
	}
	if (check_link_files(bl))
		return EXIT_TROUBLE;
	l = abtf_linker__new(bl->files[0], &opts);
	if (!l)
		return EXIT_TROUBLE;
	ret = abtf_linker__link(l);
	if (ret >= 0 && bl->verbose)
		report(l, bl->files[0], ret);
	if (ret >= 0)
		ret = write_outputs(bl, l, &pc);
	abtf_linker__free(l);
	return ret < 0 ? EXIT_TROUBLE : EXIT_SUCCESS;
}

/* ---- explain ---- */

/* Why the link left a FUNC or VAR out (or where it is kept), in words. */
static const char *const why_words[] = {
	[ABTF_EXPLAIN_KEPT_IN_BASE] = "the base BTF has the same FUNC, which "
		"the split BTF refers to",
	[ABTF_EXPLAIN_DISCARDED] = "the linker discarded it (its "
		".debug_btf_addr slot is 0: --gc-sections, /DISCARD/; in a "
		"relocatable file, its symbol is undefined)",
	[ABTF_EXPLAIN_RENAMED] = "its code is in the image, but no function "
		"symbol has its name (renamed after compiling, as objcopy "
		"--prefix-symbols does; clang's ThinLTO name \"NAME.llvm.N\" "
		"counts only with --btf_features=optimized_func, as in "
		"pahole 1.25 and later): pahole has no FUNC for it either",
	[ABTF_EXPLAIN_NO_SYMBOL] = "its member has no .debug_btf_addr group "
		"(made by pahole), and the symbol table has no symbol of its "
		"name (a variable: and size)",
	[ABTF_EXPLAIN_NO_SYMTAB] = "a raw BTF archive of several members has "
		"no symbol table to place variables by",
	[ABTF_EXPLAIN_NOT_FIRST] = "one FUNC per name, the first in link "
		"order, is kept",
	[ABTF_EXPLAIN_CLONE_UNUSED] = "the FUNC of a GCC clone, from its "
		"object's .debug_btf_addr extension: only "
		"--btf_features=optimized_func uses it",
	[ABTF_EXPLAIN_WEAK_OVERRIDDEN] = "a weak definition that the linker "
		"overrode: the FUNC is the definition's at the symbol "
		"(optimized_func, consistent_func)",
	[ABTF_EXPLAIN_NOT_CANONICAL] = "its parameters were optimized away "
		"and a later definition keeps them: that one gives the FUNC",
	[ABTF_EXPLAIN_UNEXPECTED_REG] = "a parameter is not in the register "
		"the calling convention gives it (optimized_func)",
	[ABTF_EXPLAIN_REORDERED] = "a clone's parameters are reordered "
		"(optimized_func)",
	[ABTF_EXPLAIN_OPTIMIZED] = "optimized-out parameters (optimized_func): "
		"a parameter was optimized away in a .isra/.constprop clone or "
		"under a changed calling convention (DW_CC_nocall), so the "
		"prototype does not say how to call it",
	[ABTF_EXPLAIN_AMBIGUOUS_ADDR] = "ambiguous address: the name's "
		"function symbols lie at more than one address",
	[ABTF_EXPLAIN_INCONSISTENT] = "inconsistent prototypes "
		"(consistent_func): the objects that define it disagree",
	[ABTF_EXPLAIN_NO_VAR_FEATURE] = "the link's BTF features leave out "
		"variables (no 'var')",
	[ABTF_EXPLAIN_NOT_PERCPU] = "not in the final .data..percpu: only "
		"per-CPU variables get a VAR, as in pahole",
	[ABTF_EXPLAIN_BAD_NAME] = "a name the kernel rejects "
		"(encode_force leaves it out)",
	[ABTF_EXPLAIN_OVERLAP] = "it overlaps the variable before it or runs "
		"past its section (the kernel would reject the DATASEC)",
	[ABTF_EXPLAIN_NO_ADDRESS] = "its DWARF has no DW_AT_low_pc (GCC "
		"split its code into ranges, or folded it into an identical "
		"function): pahole takes its address as 0, at no symbol, and "
		"the FUNC is a later definition's (optimized_func, "
		"consistent_func)",
};

#define NR_FN_FLAG_WORDS	7	/* ABTF_EXPLAIN_FN_*: bits 0 to 6 */

static const char *const fn_flag_words[NR_FN_FLAG_WORDS] = {
	"optimized parameters", "unexpected register", "reordered", "weak",
	"optimized parameters, DW_CC_nocall",
	"\"...\" in the out-of-line copy only", "no DW_AT_low_pc",
};

struct explain_ctx {
	unsigned int features;	/* the link's, as given */
	char *line;		/* the record's line, built in a memstream */
	size_t len;
	FILE *f;
};

static void put_member(FILE *f, const struct abtf_explain_member *m)
{
	fprintf(f, "member %zu", m->index);
	if (m->source)
		fprintf(f, " (%s)", m->source);
}

/* What the record is about: "FUNC 'long f(int x)', static, of member 1 (f.c)" */
static void put_what(FILE *f, const struct abtf_explain *r)
{
	unsigned int bit;
	const char *sep = " [";

	fprintf(f, "%s", r->kind == ABTF_EXPLAIN_FUNC ? "FUNC" : "VAR");
	if (r->decl)
		fprintf(f, " '%s'", r->decl);
	fprintf(f, ", linkage %s", r->linkage == 0 ? "static" :
				   r->linkage == 1 ? "global" : "extern");
	if (r->extension)
		fputs(", a clone's", f);
	fputs(", of ", f);
	put_member(f, &r->member);
	if (r->placed)
		fprintf(f, ", at 0x%llx in %s", (unsigned long long)r->addr,
			r->section ? r->section : "?");
	if (r->symbol)
		fprintf(f, " (symbol %s)", r->symbol);
	for (bit = 0; bit < NR_FN_FLAG_WORDS; bit++) {
		if (!(r->fn_flags & (1u << bit)))
			continue;
		fprintf(f, "%s%s", sep, fn_flag_words[bit]);
		sep = ", ";
	}
	if (r->fn_flags & ((1u << NR_FN_FLAG_WORDS) - 1))
		fputc(']', f);
}

static void put_syms(FILE *f, const struct abtf_explain *r, bool funcs_only)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < r->nr_syms; i++) {
		const struct abtf_explain_sym *s = &r->syms[i];

		if (funcs_only && s->type != STT_FUNC)
			continue;
		fprintf(f, "%s%s %s at 0x%llx in %s", sep,
			s->bind == STB_LOCAL ? "local" :
			s->bind == STB_WEAK ? "weak" : "global", s->name,
			(unsigned long long)s->value,
			s->section ? s->section : "?");
		sep = ", ";
	}
}

/* The image's symbols of the name: what they say of a missing FUNC. */
static void put_not_encoded(FILE *f, const struct abtf_explain *r,
			    unsigned int features)
{
	bool func = false, var = false, pcpu = false, clone = false;
	bool piece = false;
	size_t i, len = strlen(r->name);

	fputs("not encoded: no object gave a FUNC or VAR of this name", f);
	for (i = 0; i < r->nr_syms; i++) {
		const struct abtf_explain_sym *s = &r->syms[i];
		const char *suffix = s->name + len;

		if (s->type == STT_OBJECT) {
			var |= !*suffix;
			pcpu |= !*suffix && s->section &&
				!strncmp(s->section, ".data..percpu", 13);
		} else if (!*suffix) {
			func = true;
		} else if (strstr(suffix, ".part") || strstr(suffix, ".cold")) {
			piece = true;
		} else {
			clone = true;
		}
	}
	if (func || pcpu) {
		fprintf(f, "; the image has a %s symbol of that name: its "
			"object was compiled without DWARF (-g) or not through "
			"cc-btf, or is assembler%s", func ? "function" :
			"per-CPU variable", func ? ", or its DWARF has a "
			"parameter without a name" : "");
	} else if (var) {
		fputs("; the image has a variable symbol of that name: only "
		      "per-CPU variables (.data..percpu) get a VAR, as in "
		      "pahole", f);
	} else if (clone) {
		fputs("; the image has only GCC's clones of it (inlined or "
		      "cloned everywhere): a clone gets a FUNC only with "
		      "--btf_features=optimized_func, from an object of a "
		      "cc-btf that records clones", f);
		if (features & ABTF_FEAT_OPTIMIZED_FUNC)
			fputs(", and none did", f);
	} else if (piece) {
		fputs("; the image has only pieces of it that GCC split off "
		      "(.part, .cold), which get no FUNC", f);
	} else if (r->in_base) {
		fputs("; the base BTF has it: it is the base's", f);
		return;
	} else if (r->no_symtab) {
		fputs("; the input has no symbol table to look in (raw BTF)", f);
		return;
	} else {
		fputs("; the image has no symbol of that name either: a "
		      "function inlined everywhere, or static and unused (or "
		      "the name is not in this image)", f);
		return;
	}
	fputs(": ", f);
	put_syms(f, r, false);
	if (r->in_base)
		fputs("; the base BTF has it", f);
}

/* The reason, and what it was compared with. */
static void put_why(FILE *f, const struct abtf_explain *r)
{
	const char *words = (size_t)r->reason < sizeof(why_words) /
		sizeof(why_words[0]) ? why_words[r->reason] : NULL;

	fprintf(f, ": %s", words ? words : "(a reason this btf-link does "
		"not know)");
	switch (r->reason) {
	case ABTF_EXPLAIN_NOT_FIRST:
		if (!r->has_other)
			break;
		fputs(": that of ", f);
		put_member(f, &r->other);
		if (r->differs && r->other_decl)
			fprintf(f, ", '%s'", r->other_decl);
		break;
	case ABTF_EXPLAIN_INCONSISTENT:
		if (!r->has_other) {
			fputs(": the first definition", f);
			break;
		}
		fprintf(f, ": %s ", r->differs ? "differs from" : "matches");
		put_member(f, &r->other);
		if (r->other_decl)
			fprintf(f, "'s '%s'", r->other_decl);
		break;
	case ABTF_EXPLAIN_AMBIGUOUS_ADDR:
		if (!r->nr_syms)
			break;
		fputs(": ", f);
		put_syms(f, r, true);
		break;
	default:
		break;
	}
}

/*
 * One line per record: "NAME: kept: FUNC 'decl', ..., of member N (SRC)",
 * "NAME: dropped: ...: why", "NAME: not encoded: ...".
 */
static int print_explain(void *ctx, const struct abtf_explain *r)
{
	struct explain_ctx *xc = ctx;
	FILE *f = open_memstream(&xc->line, &xc->len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s: ", r->name);
	if (r->kind == ABTF_EXPLAIN_NONE) {
		put_not_encoded(f, r, xc->features);
	} else if (r->reason == ABTF_EXPLAIN_KEPT ||
		   r->reason == ABTF_EXPLAIN_KEPT_IN_BASE) {
		fputs("kept: ", f);
		put_what(f, r);
		if (r->reason == ABTF_EXPLAIN_KEPT_IN_BASE)
			put_why(f, r);
	} else {
		fputs("dropped: ", f);
		put_what(f, r);
		put_why(f, r);
	}
	if (fclose(f)) {
		free(xc->line);
		xc->line = NULL;
		return -ENOMEM;
	}
	tool__put_escaped(stdout, xc->line);
	fputc('\n', stdout);
	free(xc->line);
	xc->line = NULL;
	return 0;
}

/* --explain: link as usual, write nothing, say why. */
static int do_explain(struct btf_link *bl)
{
	struct print_ctx pc = { .verbose = bl->verbose };
	struct abtf_link_opts opts = link_opts(bl, &pc);
	struct explain_ctx xc = { .features = bl->features };
	struct abtf_explain_opts xo = {
		.sz = sizeof(xo),
		.fn = print_explain,
		.ctx = &xc,
	};
	struct tool_file ins[2] = {
		{ .path = bl->files[0] }, { .path = bl->base_path },
	};
	struct abtf_linker *l;
	int ret;

	if (bl->nr_files != 1) {
		error(NULL, "one FILE to explain, got %d (see --help)",
		      bl->nr_files);
		return EXIT_TROUBLE;
	}
	if (check_input(&ins[0]) || (bl->base_path && check_input(&ins[1])))
		return EXIT_TROUBLE;
	l = abtf_linker__new(bl->files[0], &opts);
	if (!l)
		return EXIT_TROUBLE;
	ret = abtf_linker__explain(l, bl->explain, bl->nr_explain, &xo);
	if (ret < 0 && !pc.nr_errors)
		error(bl->files[0], "cannot explain: %s", TOOL_STRERROR(ret));
	if (ret >= 0 && bl->verbose)
		report(l, bl->files[0], ret);
	abtf_linker__free(l);
	if (fflush(stdout) || ferror(stdout)) {
		error(NULL, "cannot write the explanations: %s",
		      strerror(errno));
		return EXIT_TROUBLE;
	}
	return ret < 0 ? EXIT_TROUBLE : EXIT_SUCCESS;
}

/* --explain NAME: one more name. */
static int add_explain(struct btf_link *bl, const char *name)
{
	const char **v = realloc(bl->explain,
				 (bl->nr_explain + 1) * sizeof(*v));

	if (!v) {
		error(NULL, "out of memory");
		return -1;
	}
	v[bl->nr_explain++] = name;
	bl->explain = v;
	return 0;
}

/* ---- features ---- */

/* --supported_btf_features: pahole's format, names in pahole's order. */
static int do_features(struct btf_link *bl)
{
	if (bl->nr_files) {
		error(NULL, "--supported_btf_features takes no file");
		return EXIT_TROUBLE;
	}
	print_features(stdout, abtf_btf_features__supported());
	if (fflush(stdout) || ferror(stdout)) {
		error(NULL, "cannot write the features: %s", strerror(errno));
		return EXIT_TROUBLE;
	}
	return EXIT_SUCCESS;
}

/* Note @name among the ignored ones (-v says them; the first 255 bytes). */
static void note_ignored(struct btf_link *bl, const char *name)
{
	size_t len = strlen(bl->ignored);

	snprintf(bl->ignored + len, sizeof(bl->ignored) - len, "%s'%s'",
		 len ? ", " : "", name);
}

/*
 * --btf_features=LIST: add LIST to bl->features. Its names one by one
 * where the list does not parse whole: as pahole, --btf_features ignores
 * a name it does not know (a newer tree's, for an older tool) and
 * --btf_features_strict refuses it. A known feature the link cannot make
 * is refused in both, by the link.
 */
static int add_features(struct btf_link *bl, const char *opt, const char *list,
			bool strict)
{
	char *copy, *name, *save = NULL;
	unsigned int mask = 0;
	int err = 0;

	if (!abtf_btf_features__parse(list, &bl->features))
		return 0;
	copy = strdup(list);
	if (!copy) {
		error(NULL, "out of memory");
		return -1;
	}
	if (*copy == '+')	/* the default set, whatever follows */
		abtf_btf_features__parse("+", &mask);
	for (name = strtok_r(copy + (*copy == '+'), ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		/* '+' only starts a list: "+name" later is no name */
		if (*name != '+' && !abtf_btf_features__parse(name, &mask))
			continue;
		if (strict || *name == '+') {
			error(NULL, "--%s=%s: unknown BTF feature '%s' (see "
			      "--supported_btf_features)", opt, list, name);
			err = -1;
			break;
		}
		note_ignored(bl, name);
	}
	if (!err)
		bl->features |= mask | ABTF_FEATS_GIVEN;
	free(copy);
	return err;
}

/* ---- command line ---- */

static const struct cmd cmds[] = {
	{ MODE_LINK,	 "link",	 do_link },
	{ MODE_COMPARE,	 "compare",	 do_compare },
	{ MODE_FEATURES, "features",	 do_features },
	{ MODE_EXPLAIN,	 "explain",	 do_explain },
};

enum {
	OPT_COMPARE = 256,
	OPT_OBJECT,
	OPT_NO_VARS,
	OPT_BASE,
	OPT_VERSION,
	OPT_BTF_FEATURES,
	OPT_BTF_FEATURES_STRICT,
	OPT_SUPPORTED_FEATURES,
	OPT_EXPLAIN,
	OPT_LEAF_SIZE,
	OPT_KEEP_ARCHIVE,
	OPT_FLAT_ARRAYS,
};

static const struct option long_opts[] = {
	{ "compare",	no_argument,		NULL, OPT_COMPARE },
	{ "no-vars",	no_argument,		NULL, OPT_NO_VARS },
	{ "base",	required_argument,	NULL, OPT_BASE },
	{ "object",	required_argument,	NULL, OPT_OBJECT },
	{ "force",	no_argument,		NULL, 'f' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "jobs",	required_argument,	NULL, 'j' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ "btf_features", required_argument,	NULL, OPT_BTF_FEATURES },
	{ "btf_features_strict", required_argument, NULL,
	  OPT_BTF_FEATURES_STRICT },
	{ "supported_btf_features", no_argument, NULL, OPT_SUPPORTED_FEATURES },
	{ "explain",	required_argument,	NULL, OPT_EXPLAIN },
	{ "leaf-size",	required_argument,	NULL, OPT_LEAF_SIZE },
	{ "keep-archive", no_argument,		NULL, OPT_KEEP_ARCHIVE },
	{ "flat_arrays", no_argument,		NULL, OPT_FLAT_ARRAYS },
	{}
};

/* An option that takes a file may be given once: a second is an error. */
static int set_once(const char **dst, const char *opt, const char *val)
{
	if (*dst) {
		error(NULL, "%s given twice ('%s', '%s')", opt, *dst, val);
		return -1;
	}
	*dst = val;
	return 0;
}

#define MAX_JOBS	1024

/*
 * A whole decimal number from 1 to @max in @arg, nothing else (no sign,
 * no space, no suffix), into *@n; false if @arg is not one.
 */
static bool whole_number(const char *arg, unsigned long long max,
			 unsigned long long *n)
{
	char *end;

	errno = 0;
	*n = strtoull(arg, &end, 10);
	return !errno && *arg >= '0' && *arg <= '9' && !*end && *n >= 1 &&
	       *n <= max;
}

/* -j N: from 1 to MAX_JOBS. */
static int parse_jobs(struct btf_link *bl, const char *arg)
{
	unsigned long long n;

	if (!whole_number(arg, MAX_JOBS, &n)) {
		error(NULL, "-j needs a number of threads from 1 to %d, not "
		      "'%s'", MAX_JOBS, arg);
		return -1;
	}
	bl->nr_threads = n;
	return 0;
}

/* --leaf-size BYTES: from 1 to 1 GiB. */
static int parse_leaf_size(struct btf_link *bl, const char *arg)
{
	unsigned long long n;

	if (!whole_number(arg, 1ULL << 30, &n)) {
		error(NULL, "--leaf-size needs a number of bytes from 1 to "
		      "%llu, not '%s'", 1ULL << 30, arg);
		return -1;
	}
	bl->leaf_bytes = n;
	return 0;
}

/*
 * The option @c (getopt_long()'s, with optarg): -1 to go on, or the exit
 * status (help, version, usage error).
 */
static int parse_opt(struct btf_link *bl, int c, char **argv)
{
	switch (c) {
	case OPT_COMPARE:
		bl->mode = MODE_COMPARE;
		break;
	case OPT_SUPPORTED_FEATURES:
		bl->mode = MODE_FEATURES;
		break;
	case OPT_BTF_FEATURES:
	case OPT_BTF_FEATURES_STRICT:
		if (add_features(bl, c == OPT_BTF_FEATURES ?
				 "btf_features" : "btf_features_strict",
				 optarg, c == OPT_BTF_FEATURES_STRICT))
			return EXIT_TROUBLE;
		break;
	case OPT_NO_VARS:
		bl->no_vars = true;
		break;
	case OPT_EXPLAIN:
		if (add_explain(bl, optarg))
			return EXIT_TROUBLE;
		break;
	case OPT_BASE:
		if (set_once(&bl->base_path, "--base", optarg))
			return EXIT_TROUBLE;
		break;
	case 'o':
		if (set_once(&bl->out_raw, "-o", optarg))
			return EXIT_TROUBLE;
		break;
	case OPT_OBJECT:
		if (set_once(&bl->out_obj, "--object", optarg))
			return EXIT_TROUBLE;
		break;
	case 'f':
		bl->force = true;
		break;
	case OPT_KEEP_ARCHIVE:
		bl->keep_archive = true;
		break;
	case OPT_FLAT_ARRAYS:
		bl->flat_arrays = true;
		break;
	case 'v':
		bl->verbose = true;
		break;
	case 'j':
		if (parse_jobs(bl, optarg))
			return EXIT_TROUBLE;
		break;
	case OPT_LEAF_SIZE:
		if (parse_leaf_size(bl, optarg))
			return EXIT_TROUBLE;
		break;
	case 'h':
		fputs(usage_text, stdout);
		return EXIT_SUCCESS;
	case OPT_VERSION:
		printf("%s %s\n", PROG, ABTF_VERSION);
		return EXIT_SUCCESS;
	default:
		error(NULL, "%s: unknown option or missing argument "
		      "(see --help)", argv[optind - 1]);
		return EXIT_TROUBLE;
	}
	return -1;
}

/*
 * The options taken together: which mode they ask for, and whether they
 * fit it. -1 to go on, or EXIT_TROUBLE.
 */
static int check_opts(struct btf_link *bl)
{
	if (bl->mode != MODE_COMPARE && bl->no_vars) {
		error(NULL, "--no-vars needs --compare");
		return EXIT_TROUBLE;
	}
	if (bl->nr_explain) {
		if (bl->mode != MODE_LINK) {
			error(NULL, "--explain is for a link, not for --compare "
			      "or --supported_btf_features");
			return EXIT_TROUBLE;
		}
		if (bl->out_raw || bl->out_obj) {
			error(NULL, "--explain writes nothing: -o and --object "
			      "are for linking");
			return EXIT_TROUBLE;
		}
		bl->mode = MODE_EXPLAIN;
	}
	if (bl->mode != MODE_LINK && bl->mode != MODE_EXPLAIN &&
	    (bl->out_raw || bl->out_obj || bl->force || bl->nr_threads ||
	     bl->leaf_bytes || bl->features || bl->flat_arrays)) {
		error(NULL, "-o, --object, -f, -j, --leaf-size, "
		      "--btf_features and --flat_arrays are for linking");
		return EXIT_TROUBLE;
	}
	if (bl->keep_archive &&
	    (bl->mode != MODE_LINK || bl->out_raw || bl->out_obj)) {
		error(NULL, "--keep-archive is for a link in place, not for -o, "
		      "--object, --explain or --compare");
		return EXIT_TROUBLE;
	}
	if (bl->mode == MODE_FEATURES && (bl->base_path || bl->no_vars)) {
		error(NULL, "--supported_btf_features takes no other option");
		return EXIT_TROUBLE;
	}
	return -1;
}

/* Returns -1 to go on, or the exit status (help, version, usage error). */
static int parse_args(struct btf_link *bl, int argc, char **argv)
{
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hfvo:j:", long_opts, NULL)) != -1) {
		ret = parse_opt(bl, c, argv);
		if (ret >= 0)
			return ret;
	}
	bl->files = argv + optind;
	bl->nr_files = argc - optind;
	return check_opts(bl);
}

/*
 * glibc serves a buffer of 128 KiB or more with its own mapping, returned
 * when freed, until one is freed: then it raises that bound to the
 * buffer's size, up to 32 MiB, and later buffers come from the thread's
 * arena, which keeps what they leave when they grow or go. Each leaf of
 * the merge tree grows a type buffer, a string table and its maps to a
 * few MiB on its own thread, so at -j16 the process kept every thread's
 * high-water mark: 71-75 MB of RSS on the large configuration. A fixed
 * bound of 1 MiB keeps the growing buffers mapped (realloc() moves their
 * pages with mremap() instead of copying) and leaves the smaller
 * per-member scratch arrays to the arenas, which reuse them: 56-60 MB,
 * for 40 % more page faults (docs/performance.md). The library leaves
 * this to the application: libarchive-btf(3), "Memory".
 */
static void malloc_tuning(void)
{
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

static int dispatch(struct btf_link *bl)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].mode == bl->mode)
			return cmds[i].fn(bl);
	error(NULL, "no such mode");
	return EXIT_TROUBLE;
}

int main(int argc, char **argv)
{
	struct btf_link bl = { .mode = MODE_LINK };
	int ret;

	/* libbpf would print its own multi-line diagnostics; ours suffice. */
	libbpf_set_print(NULL);
	malloc_tuning();
	ret = parse_args(&bl, argc, argv);
	if (ret < 0)
		ret = dispatch(&bl);
	free(bl.explain);
	return ret;
}
