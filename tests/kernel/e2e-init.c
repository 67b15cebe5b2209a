// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the initramfs that tests/kernel/e2e.sh boots a cross-compiled
 * kernel with (arm64: the host's busybox cannot run there). It does what
 * e2e-init does with busybox: print what the host checks as "E2E: KEY
 * VALUE" lines on the console, load every module under /modules, and
 * reboot (qemu runs with -no-reboot, so that ends it). The BTF's bytes
 * are checked by FNV-1a (64 bits), which the host computes the same way.
 *
 * Built statically with the target's cross gcc by e2e.sh:
 *   aarch64-linux-gnu-gcc -static -O2 -o init e2e-init.c
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <unistd.h>

/* FNV-1a of a whole file, and its size; -1 if it cannot be read. */
static long long fnv_file(const char *path, uint64_t *hash)
{
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	long long size = 0;
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
		size += n;
	}
	close(fd);
	if (n < 0)
		return -1;
	*hash = h;
	return size;
}

/*
 * Load module @file of /modules: 0, or -1 (with @last, the error said and
 * the failure reported; without, silently, for a later pass).
 */
static int load_module(const char *file, int last)
{
	char path[512], name[256], btf[512];
	uint64_t h;
	long long size;
	size_t len;
	int fd;

	len = strlen(file);
	if (len < 4 || strcmp(file + len - 3, ".ko") || len - 3 >= sizeof(name))
		return 0;
	memcpy(name, file, len - 3);
	name[len - 3] = '\0';
	snprintf(path, sizeof(path), "/modules/%s", file);
	fd = open(path, O_RDONLY);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
		if (last) {
			perror(path);
			printf("E2E: insmod %s failed\n", name);
		}
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	printf("E2E: insmod %s ok\n", name);
	snprintf(btf, sizeof(btf), "/sys/kernel/btf/%s", name);
	/* the kernel names a module with '_' where its file has '-' */
	for (len = strlen("/sys/kernel/btf/"); btf[len]; len++)
		if (btf[len] == '-')
			btf[len] = '_';
	size = fnv_file(btf, &h);
	if (size < 0)
		printf("E2E: module-btf-missing %s\n", name);
	else
		printf("E2E: module-btf-size %s %lld\n", name, size);
	return 0;
}

#define MAX_MODULES	64

/*
 * Every module of /modules, in passes: one that needs another's symbols
 * loads in a pass after it. What no pass loads failed.
 */
static void load_modules(void)
{
	char *left[MAX_MODULES];
	struct dirent *d;
	int n = 0, i, k, last = 0;
	DIR *dir = opendir("/modules");

	while (dir && (d = readdir(dir)) && n < MAX_MODULES)
		if (d->d_name[0] != '.')
			left[n++] = strdup(d->d_name);
	if (dir)
		closedir(dir);
	while (n) {
		for (i = k = 0; i < n; i++) {
			if (left[i] && load_module(left[i], last))
				left[k++] = left[i];
			else
				free(left[i]);
		}
		if (k == n && last)
			break;
		last = k == n;
		n = k;
	}
}

int main(void)
{
	long long size;
	uint64_t h;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	size = fnv_file("/sys/kernel/btf/vmlinux", &h);
	if (size < 0) {
		printf("E2E: vmlinux-btf-missing\n");
	} else {
		printf("E2E: vmlinux-btf-size %lld\n", size);
		printf("E2E: vmlinux-btf-fnv %016" PRIx64 "\n", h);
	}
	load_modules();
	printf("E2E: end\n");
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
