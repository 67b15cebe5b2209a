// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccache, distcc and icecc: the launchers a build puts in front of its
 * compiler, on either side of cc-btf.
 *
 * With cc-btf outside ("cc-btf ccache gcc", "cc-btf distcc gcc") the
 * launcher runs the compiler and cc-btf encodes the object it gets back,
 * here, whatever the launcher did: always right. objects.c skips the
 * launcher's name as it skips the compiler's.
 *
 * With the launcher outside, cc-btf is the launcher's "compiler", and
 * what goes wrong only cc-btf can see, by looking at its parent process:
 *
 *  - ccache hashes the compiler (by default: cc-btf's size and time), the
 *    arguments and the source, not the environment. CC_BTF=0 and
 *    CC_BTF_OPTS change the object (BTF or not, .debug_btf_addr or not, an
 *    object kept without BTF by --warn) without changing the hash, so a
 *    build with other settings would get this object from the cache, and
 *    on a hit cc-btf does not even run. The settings reach the hash through
 *    ccache's compiler_check, a command whose output ccache hashes at every
 *    call: "%compiler% --print-settings" (cc_btf__print_settings()). So
 *    cc-btf, when ccache runs it to compile, asks ccache ("ccache -k
 *    compiler_check") whether that is set, and refuses to compile if not:
 *    then nothing cc-btf makes is ever cached under a hash that lacks its
 *    settings, and no hit can be wrong. --detached is refused under ccache
 *    in any case: OBJECT.btf is a file ccache knows nothing of, and a hit
 *    would not write it.
 *
 *  - distcc, icecc: the servers run only the compilers they allow, and
 *    cc-btf is not one, so the launcher falls back to compiling here, with
 *    a warning lost in the build's output: the build works but nothing is
 *    distributed. cc-btf cannot tell that fallback from a compile the
 *    launcher chose to run here (a localhost slot), so any compile that
 *    distcc or icecc runs here is refused, naming the order that works.
 *    Their preprocessing (-E) writes no object and is left alone, so a
 *    server that does run cc-btf still gets the compile.
 *
 * A refused command runs no compiler and removes the objects it would
 * have written, so that no stale object looks up to date.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc-btf.h"

enum launcher_kind {
	LAUNCHER_CACHE,		/* caches the object cc-btf writes */
	LAUNCHER_DIST,		/* sends the compile to servers */
};

struct launcher {
	const char *name;	/* basename of its executable */
	enum launcher_kind kind;
};

static const struct launcher launchers[] = {
	{ "ccache",	LAUNCHER_CACHE },
	{ "distcc",	LAUNCHER_DIST },
	{ "icecc",	LAUNCHER_DIST },
};

#ifndef ABTF_VERSION
#define ABTF_VERSION "unknown"
#endif

#define PRINT_SETTINGS	"--print-settings"

/*
 * The launcher that ran us, from our parent's executable (its path into
 * @exe, of PATH_MAX bytes), or NULL.
 */
static const struct launcher *parent_launcher(char *exe)
{
	char link[64];
	const char *base;
	ssize_t n;
	size_t i;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)getppid());
	n = readlink(link, exe, PATH_MAX - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	for (i = 0; i < ARRAY_SIZE(launchers); i++)
		if (!strcmp(base, launchers[i].name))
			return &launchers[i];
	return NULL;
}

/*
 * The objects the command writes, found even with CC_BTF=0 (when wrap()
 * did not look for them), into @objs; 0 or -errno.
 */
static int find_objects(const struct cc_btf *cb, struct strv *objs)
{
	struct cc_btf scan = *cb;
	size_t i;
	int err;

	memset(objs, 0, sizeof(*objs));
	if (cb->objs.nr) {
		for (i = 0; i < cb->objs.nr; i++) {
			err = strv__push_dup(objs, cb->objs.v[i]);
			if (err)
				return err;
		}
		return 0;
	}
	memset(&scan.objs, 0, sizeof(scan.objs));
	memset(&scan.msgs, 0, sizeof(scan.msgs));
	err = cc_btf__find_objects(&scan);
	*objs = scan.objs;
	return err;
}

/*
 * What decides the objects this cc-btf writes: its binary, its version and
 * every setting, the environment's included. ccache hashes this output
 * when its compiler_check is "%compiler% --print-settings".
 */
int cc_btf__print_settings(const struct cc_btf *cb)
{
	struct stat st;

	printf(CC_BTF_NAME " " ABTF_VERSION "\n");
	if (!stat("/proc/self/exe", &st))
		printf("binary %lld %lld.%09ld\n", (long long)st.st_size,
		       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	printf("no-btf %d\nwarn %d\ndetached %d\nno-addr %d\ncompress %d\n"
	       "verbose %d\n", cb->no_btf, cb->warn, cb->detached, cb->no_addr,
	       cb->compress, cb->verbose);
	return fflush(stdout) ? EXIT_ENCODE : 0;
}

/* Whether the ccache at @exe has "--print-settings" in its compiler_check. */
static bool ccache_hashes_settings(const char *exe)
{
	char *argv[] = { (char *)exe, "-k", "compiler_check", NULL };
	posix_spawn_file_actions_t fa;
	struct sigaction sa;
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	int fds[2], status = 0;
	pid_t pid, w = -1;

	/* An ignored SIGCHLD would reap ccache before we see its status. */
	if (!sigaction(SIGCHLD, NULL, &sa) && sa.sa_handler == SIG_IGN)
		signal(SIGCHLD, SIG_DFL);
	if (pipe(fds))
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	if (posix_spawn(&pid, exe, &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	while (pid > 0 && len < sizeof(buf) - 1) {
		n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fds[0]);
	buf[len] = '\0';
	if (pid > 0) {
		do
			w = waitpid(pid, &status, 0);
		while (w < 0 && errno == EINTR);
	}
	return w == pid && WIFEXITED(status) && !WEXITSTATUS(status) &&
	       strstr(buf, PRINT_SETTINGS);
}

static int refuse_ccache(const struct cc_btf *cb, const char *exe,
			 const char *obj)
{
	if (cb->detached) {
		cc_btf__msg("error: %s: --detached under "
			"ccache: a cache hit would not write %s.btf; use "
			"CC=\"cc-btf ccache %s\"", obj, obj, cb->args[0]);
		return -EPERM;
	}
	if (ccache_hashes_settings(exe))
		return 0;
	cc_btf__msg("error: %s: run by ccache, which does "
		"not hash cc-btf's settings (CC_BTF, CC_BTF_OPTS): set "
		"CCACHE_COMPILERCHECK='%%compiler%% " PRINT_SETTINGS "' "
		"(cc-btf(1), ccache), or use CC=\"cc-btf ccache %s\"", obj,
		cb->args[0]);
	return -EPERM;
}

static int refuse_dist(const struct cc_btf *cb, const struct launcher *l,
		       const char *obj)
{
	cc_btf__msg("error: %s: run by %s to compile on this "
		"machine: its servers do not run cc-btf as a compiler, so \"%s "
		"cc-btf %s\" distributes nothing; use CC=\"cc-btf %s %s\": %s "
		"compiles on the servers, cc-btf encodes here", obj, l->name,
		l->name, cb->args[0], l->name, cb->args[0], l->name);
	return -EPERM;
}

int cc_btf__check_launcher(const struct cc_btf *cb)
{
	char exe[PATH_MAX];
	const struct launcher *l = parent_launcher(exe);
	struct strv objs;
	int err = 0;
	size_t i;

	if (!l)
		return 0;
	if (find_objects(cb, &objs) || !objs.nr) {
		strv__clear(&objs);
		return 0;	/* no object: nothing to get wrong */
	}
	switch (l->kind) {
	case LAUNCHER_CACHE:
		err = refuse_ccache(cb, exe, objs.v[0]);
		break;
	case LAUNCHER_DIST:
		err = refuse_dist(cb, l, objs.v[0]);
		break;
	}
	for (i = 0; err && i < objs.nr; i++)
		unlink(objs.v[i]);
	strv__clear(&objs);
	return err ? EXIT_USAGE : 0;
}
