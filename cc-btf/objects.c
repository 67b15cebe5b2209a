// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which object files does a compiler command write? Decided from its
 * arguments as the gcc driver decides (clang follows the same rules):
 *
 *  - an object is written only with -c, and not when something stops the
 *    driver earlier or makes it write nothing (-E, -S, -M, -MM,
 *    -fsyntax-only, -###, --version, --help, -dump*, -print-*); -MD and
 *    -MMD still compile;
 *  - the inputs that compile are those with a source suffix (.c, .S, ...)
 *    or any input after "-x LANG" (until "-x none"); headers make a
 *    precompiled header, other inputs are for the linker and -c ignores
 *    them;
 *  - the object is the -o file, or else basename(input) with its suffix
 *    replaced by ".o", in the current directory, one per input;
 *  - "-o -" and "-o /dev/null" write nothing we could encode (any other
 *    output that is not a regular ELF file is skipped after the compile);
 *  - @FILE arguments are response files: read (recursively), split as
 *    libiberty's buildargv() splits them, and scanned like the command
 *    line. An unreadable @FILE stays a literal argument, as with gcc.
 *
 * The first argument is the compiler and is not scanned, so that
 * "cc-btf ccache gcc ..." works: "gcc" is then an input without a suffix,
 * which -c ignores.
 *
 * Getting this wrong in the safe direction (an object missed) costs its
 * BTF; in the other direction it costs a stat() of a file that is not
 * there. Only a successful compile is ever encoded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc-btf.h"

#define MAX_RESPONSE_DEPTH	16

struct scan {
	bool compile;		/* -c */
	bool no_object;		/* stops before an object or writes none */
	const char *output;	/* -o FILE */
	const char *lang;	/* -x LANG; NULL: by suffix */
	struct strv sources;	/* inputs that compile to an object */
};

/* Options after which the driver stops before writing an object. */
static const char *const stop_opts[] = {
	"-E", "-S", "-M", "-MM", "-fsyntax-only", "-###",
	"--preprocess", "--assemble", "--dependencies", "--user-dependencies",
	"--version", "--help", "--target-help",
	"-dumpversion", "-dumpfullversion", "-dumpmachine", "-dumpspecs",
	"--analyze",
};

/* Options whose argument is the next word (which is then no input). */
static const char *const separate_arg_opts[] = {
	"-D", "-U", "-I", "-A", "-B", "-L", "-l", "-T", "-u", "-z", "-e", "-F",
	"-MF", "-MT", "-MQ", "-MJ",
	"-include", "-imacros", "-iquote", "-isystem", "-idirafter",
	"-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot",
	"-imultilib", "-imultiarch", "-isystem-after", "-cxx-isystem",
	"-include-pch", "-ivfsoverlay",
	"-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-Xanalyzer",
	"-mllvm", "-target", "-arch", "-aux-info", "-wrapper",
	"-dumpbase", "-dumpbase-ext", "-dumpdir",
	"--param", "--sysroot", "--include", "--include-directory",
	"--include-directory-after", "--include-prefix",
	"--include-with-prefix", "--include-with-prefix-before",
	"--define-macro", "--undefine-macro", "--imacros",
	"--library-directory", "--for-linker", "--force-link", "--prefix",
	"--serialize-diagnostics",
};

/* Suffixes of the inputs -c compiles into an object (case matters). */
static const char *const source_suffixes[] = {
	"c", "i", "cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "ii",
	"m", "mi", "mm", "M", "mii",
	"s", "S", "sx",
	"f", "F", "for", "FOR", "ftn", "FTN", "fpp", "FPP", "f90", "F90",
	"f95", "F95", "f03", "F03", "f08", "F08",
	"go", "d", "adb", "ads",
	"ll", "bc", "cu", "cl", "hip",
};

static bool in_list(const char *s, const char *const *list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- response files ---- */

static int add_arg(struct strv *out, const char *arg, int depth);

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * Split @buf into words as libiberty's buildargv() does: white space
 * separates words, '...' and "..." group, a backslash escapes any character.
 */
static int split_words(struct strv *out, const char *buf, int depth)
{
	char *word = malloc(strlen(buf) + 1);
	const char *p = buf;
	int err = 0;

	if (!word)
		return -ENOMEM;
	while (!err) {
		bool sq = false, dq = false, bs = false;
		size_t len = 0;

		while (is_space(*p))
			p++;
		if (!*p)
			break;
		for (; *p; p++) {
			char c = *p;

			if (bs) {
				bs = false;
			} else if (c == '\\') {
				bs = true;
				continue;
			} else if (sq || dq) {
				if (c == (sq ? '\'' : '"')) {
					sq = dq = false;
					continue;
				}
			} else if (c == '\'' || c == '"') {
				sq = c == '\'';
				dq = c == '"';
				continue;
			} else if (is_space(c)) {
				break;
			}
			word[len++] = c;
		}
		word[len] = '\0';
		err = add_arg(out, word, depth);
	}
	free(word);
	return err;
}

/* The contents of @path as a string, or NULL. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = feof(f) && !ferror(f) ? strdup("") : NULL;
	}
	fclose(f);
	return buf;
}

/* Append @arg to @out, expanding it if it is a readable @FILE. */
static int add_arg(struct strv *out, const char *arg, int depth)
{
	char *buf;
	int err;

	if (arg[0] != '@' || depth >= MAX_RESPONSE_DEPTH)
		return strv__push_dup(out, arg);
	buf = read_file(arg + 1);
	if (!buf)
		return strv__push_dup(out, arg);
	err = split_words(out, buf, depth + 1);
	free(buf);
	return err;
}

/* ---- the scan ---- */

static bool is_source(const char *input, const char *lang)
{
	const char *base = strrchr(input, '/'), *dot;
	size_t len;

	if (lang) {
		len = strlen(lang);
		return len < 7 || strcmp(lang + len - 7, "-header");
	}
	base = base ? base + 1 : input;
	dot = strrchr(base, '.');
	return dot && dot != base &&
	       in_list(dot + 1, source_suffixes, ARRAY_SIZE(source_suffixes));
}

/* The language of "-x LANG": NULL for "none", back to suffixes. */
static const char *lang_of(const char *lang)
{
	return lang && strcmp(lang, "none") ? lang : NULL;
}

/* Handle option @a; returns the number of following arguments it takes. */
static int scan_opt(struct scan *sc, const char *a, const char *next)
{
	if (!strcmp(a, "-c") || !strcmp(a, "--compile")) {
		sc->compile = true;
	} else if (in_list(a, stop_opts, ARRAY_SIZE(stop_opts)) ||
		   starts_with(a, "-print-") || starts_with(a, "--print-")) {
		sc->no_object = true;
	} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		if (!next)
			sc->no_object = true;	/* the driver fails */
		sc->output = next;
		return 1;
	} else if (starts_with(a, "-o")) {
		sc->output = a + 2;
	} else if (starts_with(a, "--output=")) {
		sc->output = a + strlen("--output=");
	} else if (!strcmp(a, "-x") || !strcmp(a, "--language")) {
		sc->lang = lang_of(next);
		return 1;
	} else if (starts_with(a, "-x")) {
		sc->lang = lang_of(a + 2);
	} else if (starts_with(a, "--language=")) {
		sc->lang = lang_of(a + strlen("--language="));
	} else if (in_list(a, separate_arg_opts, ARRAY_SIZE(separate_arg_opts))) {
		return 1;
	}
	return 0;
}

static int scan_args(struct scan *sc, char **args, size_t nr)
{
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		const char *a = args[i];

		if (a[0] == '-' && a[1]) {
			i += scan_opt(sc, a, i + 1 < nr ? args[i + 1] : NULL);
			continue;
		}
		if (!is_source(a, sc->lang))
			continue;
		err = strv__push_dup(&sc->sources, a);
		if (err)
			return err;
	}
	return 0;
}

/* gcc's object for @input without -o: basename, suffix replaced by ".o". */
static char *default_object(const char *input)
{
	const char *base = strrchr(input, '/'), *dot;
	char *obj;
	int len;

	base = base ? base + 1 : input;
	dot = strrchr(base, '.');
	len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	if (asprintf(&obj, "%.*s.o", len, base) < 0)
		return NULL;
	return obj;
}

static int add_objects(struct cc_btf *cb, const struct scan *sc)
{
	size_t i;
	int err = 0;

	if (sc->output) {
		if (!strcmp(sc->output, "-") || !strcmp(sc->output, "/dev/null"))
			return 0;
		return strv__push_dup(&cb->objs, sc->output);
	}
	for (i = 0; i < sc->sources.nr && !err; i++)
		err = strv__push(&cb->objs, default_object(sc->sources.v[i]));
	return err;
}

int cc_btf__find_objects(struct cc_btf *cb)
{
	struct strv args = {};
	struct scan sc = {};
	int i, err = 0;

	for (i = 1; i < cb->nr_args && !err; i++)
		err = add_arg(&args, cb->args[i], 0);
	if (!err)
		err = scan_args(&sc, args.v, args.nr);
	if (!err && sc.compile && !sc.no_object && sc.sources.nr)
		err = add_objects(cb, &sc);
	strv__clear(&sc.sources);
	strv__clear(&args);
	return err;
}
