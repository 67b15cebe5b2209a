// SPDX-License-Identifier: GPL-2.0-only
/*
 * What cc-btf does for a Linux kernel build (kbuild), apart from encoding.
 *
 * A kernel tree needs the patches of kbuild-patches/ before its objects may
 * carry BTF: without them, the link of vmlinux keeps every object's .BTF
 * next to pahole's, and the image is broken although make succeeds. The
 * patched top-level Makefile exports CC_BTF_KBUILD=1 (the version of this
 * protocol); a kernel object (one compiled with -DKBUILD_BASENAME, as only
 * kbuild's compile rules do) in a build without it is refused, before the
 * compiler runs. Kbuild's own probes (cc-option and friends) define no
 * KBUILD_BASENAME, so they are never refused.
 *
 * The patched Makefile asks the wrapper which btf-link to run:
 *
 *	$(CC) --print-btf-link		e.g. cc-btf gcc --print-btf-link,
 *					cc-btf ccache gcc --print-btf-link
 *
 * prints the btf-link installed beside this cc-btf, or "btf-link" if there
 * is none there but one on PATH, and nothing when the objects will carry no
 * BTF (CC_BTF=0, --no-btf): kbuild then runs pahole as before.
 *
 * LTO (CONFIG_LTO_CLANG): the compiler writes LLVM bitcode, whose DWARF
 * exists only once the LTO link has made ELF of it (vmlinux.o, each
 * module's object). A patched tree asks
 *
 *	$(CC) --print-cc-btf		this cc-btf's path, or nothing (no BTF)
 *
 * runs "cc-btf --encode" on those outputs, and exports CC_BTF_LTO (that
 * path): the wrapper then leaves a bitcode object alone instead of
 * failing on it (encode.c).
 *
 * The vDSO is compiled by kbuild's rules too (-DBUILD_VDSO on every
 * architecture, with -DKBUILD_BASENAME for C; its assembly has no
 * KBUILD_BASENAME, but runs under the patched Makefile's CC_BTF_KBUILD),
 * but it is a user-space image that
 * its own linker script links: it would keep its objects' .BTF archive,
 * which nothing reads, and grow by it (a page of the kernel's .rodata on
 * x86-64). Its types are not the kernel's, and pahole never encodes them:
 * its objects are compiled without BTF. Not every vDSO object says
 * BUILD_VDSO on its command line: x86's 32-bit vDSO defines BUILD_VDSO32
 * in its C sources (so a defconfig kernel's vdso32.so grew by a page), and
 * riscv, loongarch and mips define none. So an object is also the vDSO's
 * when its path has a directory named vdso* and it is compiled as
 * position-independent code (the last -f[no-]pic/PIC/pie/PIE says): the
 * kernel's own objects there (x86's vma.o, vdso-image-64.o) are not. Or
 * assembled there: arm64's vgetrandom-chacha.S (6.12) is -fno-PIE with no
 * BUILD_VDSO, and gas gives its function DWARF; the kernel's own assembly
 * in such directories is the wrappers that .incbin the vDSO (s390's,
 * powerpc's), which define no function.
 *
 * s390's boot decompressor is another image of its own, linked by its own
 * script with --orphan-handling (every .BTF was an orphan warning, an
 * error under CONFIG_WERROR). Its C is compiled with -g and
 * -D__DECOMPRESSOR, its assembly with -Wa,-gdwarf-2 and nothing that says
 * so: what tells them is their directory, arch/s390/boot/ (in the object
 * tree, which is make's working directory), all of it the decompressor's.
 *
 * x86's assembly under arch/x86/boot/ is the boot images' too: 7.x
 * assembles arch/x86/boot/startup/efi-mixed.S (CONFIG_EFI_MIXED, which
 * distributions set) with kbuild's -Wa,-gdwarf flags into a library that
 * only the decompressor links, by a script with --orphan-handling=warn
 * (its .BTF an orphan warning). The C there that goes into vmlinux
 * (startup/'s obj-y, renamed __pi_*) keeps its BTF; no assembly there
 * does, nor would a FUNC of it (a __pi_ name is no function of the DWARF's
 * name).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc-btf.h"

#define KBUILD_MARKER		"CC_BTF_KBUILD"
#define KBUILD_PROTOCOL		"1"
#define PRINT_BTF_LINK		"--print-btf-link"
#define PRINT_CC_BTF		"--print-cc-btf"
#define LTO_MARKER		"CC_BTF_LTO"
#define BTF_LINK_NAME		"btf-link"
#define KBUILD_BASENAME_OPT	"-DKBUILD_BASENAME="
#define BUILD_VDSO_OPT		"-DBUILD_VDSO"	/* also BUILD_VDSO32, ... */
#define S390_BOOT_DIR		"arch/s390/boot/"	/* s390's decompressor */
#define X86_BOOT_DIR		"arch/x86/boot/"	/* x86's boot images */
/* kbuild's assembly: __ASSEMBLY__, __ASSEMBLER__ in later trees */
#define ASSEMBLY_OPT		"-D__ASSEMBLY__"
#define ASSEMBLER_OPT		"-D__ASSEMBLER__"

/*
 * A query ends the command, whatever the words before it: a launcher
 * and the compiler ("cc-btf ccache gcc --print-btf-link"), or a compiler
 * with options of its own ("gcc -m32"). No compiler knows the options, so
 * no compile ends with one.
 */
enum cc_btf_query cc_btf__kbuild_query(const struct cc_btf *cb)
{
	const char *last;

	if (cb->nr_args < 2)
		return QUERY_NONE;
	last = cb->args[cb->nr_args - 1];
	if (!strcmp(last, PRINT_BTF_LINK))
		return QUERY_BTF_LINK;
	if (!strcmp(last, PRINT_CC_BTF))
		return QUERY_CC_BTF;
	return QUERY_NONE;
}

/* Whether an executable @name is found on PATH. */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *end;

	for (p = path; p && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p),
			     end > p ? p : ".", name) >= (int)sizeof(buf))
			continue;
		if (!access(buf, X_OK))
			return true;
	}
	return false;
}

/* The path of the running cc-btf, in @self. */
static bool self_path(char *self, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", self, size - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	return true;
}

/* The path of the running cc-btf in @self, with its last component @name. */
static bool self_with_name(char *self, size_t size, const char *name)
{
	char *slash;

	if (!self_path(self, size))
		return false;
	slash = strrchr(self, '/');
	if (!slash || (size_t)(slash + 1 - self) + strlen(name) >= size)
		return false;
	strcpy(slash + 1, name);
	return true;
}

static int print_btf_link(void)
{
	char self[PATH_MAX];

	if (self_with_name(self, sizeof(self), BTF_LINK_NAME) &&
	    !access(self, X_OK))
		printf("%s\n", self);
	else if (on_path(BTF_LINK_NAME))
		printf("%s\n", BTF_LINK_NAME);
	return 0;
}

static int print_cc_btf(void)
{
	char self[PATH_MAX];

	if (!self_path(self, sizeof(self))) {
		cc_btf__msg("error: cannot find this cc-btf's path: %s",
			    strerror(errno));
		return EXIT_ENCODE;
	}
	printf("%s\n", self);
	return 0;
}

int cc_btf__answer_query(const struct cc_btf *cb, enum cc_btf_query q)
{
	if (cb->no_btf)		/* the objects carry no BTF: nothing to run */
		return 0;
	return q == QUERY_CC_BTF ? print_cc_btf() : print_btf_link();
}

/*
 * Whether the build encodes the ELF that its LTO link makes of the bitcode
 * objects (a patched tree with CONFIG_LTO_CLANG sets CC_BTF_LTO).
 */
bool cc_btf__lto_encoded_later(void)
{
	const char *val = getenv(LTO_MARKER);

	return val && *val;
}

/* Whether an argument begins with @prefix. */
static bool has_arg_prefix(const struct cc_btf *cb, const char *prefix)
{
	size_t len = strlen(prefix);
	int i;

	for (i = 1; i < cb->nr_args; i++)
		if (!strncmp(cb->args[i], prefix, len))
			return true;
	return false;
}

static bool is_kernel_object(const struct cc_btf *cb)
{
	return has_arg_prefix(cb, KBUILD_BASENAME_OPT);
}

/* The object the command writes (-o PATH or -oPATH), or NULL. */
static const char *output_arg(const struct cc_btf *cb)
{
	int i;

	for (i = 1; i < cb->nr_args; i++) {
		if (!strcmp(cb->args[i], "-o"))
			return i + 1 < cb->nr_args ? cb->args[i + 1] : NULL;
		if (!strncmp(cb->args[i], "-o", 2))
			return cb->args[i] + 2;
	}
	return NULL;
}

/* Whether @path is in the object tree's directory @dir ("a/b/"), or below. */
static bool in_tree_dir(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (!path)
		return false;
	while (!strncmp(path, "./", 2))
		path += 2;
	return !strncmp(path, dir, len);
}

/* Whether a directory of @path (not its last component) is named vdso*. */
static bool in_vdso_dir(const char *path)
{
	const char *p = path, *slash;

	while (p && (slash = strchr(p, '/'))) {
		if (!strncmp(p, "vdso", 4))
			return true;
		p = slash + 1;
	}
	return false;
}

/* Whether the last of -fpic, -fPIC, -fpie, -fPIE and their -fno- asks for PIC. */
static bool is_pic(const struct cc_btf *cb)
{
	static const char *const on[] = { "-fpic", "-fPIC", "-fpie", "-fPIE" };
	bool pic = false;
	size_t k;
	int i;

	for (i = 1; i < cb->nr_args; i++)
		for (k = 0; k < sizeof(on) / sizeof(on[0]); k++) {
			if (!strcmp(cb->args[i], on[k]))
				pic = true;
			else if (!strncmp(cb->args[i], "-fno-", 5) &&
				 !strcmp(cb->args[i] + 5, on[k] + 2))
				pic = false;
		}
	return pic;
}

/* Whether the command assembles: kbuild's __ASSEMBLY__ or __ASSEMBLER__. */
static bool is_assembly(const struct cc_btf *cb)
{
	return has_arg_prefix(cb, ASSEMBLY_OPT) ||
	       has_arg_prefix(cb, ASSEMBLER_OPT);
}

bool cc_btf__is_other_image(const struct cc_btf *cb)
{
	const char *marker = getenv(KBUILD_MARKER);
	const char *out = output_arg(cb);

	if (!is_kernel_object(cb) && !(marker && *marker))
		return false;
	return has_arg_prefix(cb, BUILD_VDSO_OPT) ||
	       in_tree_dir(out, S390_BOOT_DIR) ||
	       (in_tree_dir(out, X86_BOOT_DIR) && is_assembly(cb)) ||
	       (in_vdso_dir(out) && (is_pic(cb) || is_assembly(cb)));
}

int cc_btf__check_kbuild(const struct cc_btf *cb)
{
	const char *marker = getenv(KBUILD_MARKER);
	const char *obj = cb->objs.nr ? cb->objs.v[0] : cb->args[0];

	if (!is_kernel_object(cb))
		return 0;
	if (!marker || !*marker) {
		cc_btf__msg("error: %s: this kernel tree lacks "
			    "archive-btf's kbuild patches (" KBUILD_MARKER " is not "
			    "set), and its vmlinux would carry every object's BTF: "
			    "apply kbuild-patches/<version>/ (docs/kbuild.md), or "
			    "build with CC_BTF=0", obj);
		return -EPERM;
	}
	if (strcmp(marker, KBUILD_PROTOCOL)) {
		cc_btf__msg("error: %s: " KBUILD_MARKER "=%s: "
			    "this cc-btf knows the kbuild patches of protocol "
			    KBUILD_PROTOCOL " only", obj, marker);
		return -EPERM;
	}
	return 0;
}
