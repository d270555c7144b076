/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-view: run a program in a private mount namespace whose /dev/infiniband
 * and /sys/class/infiniband{,_verbs} show ORDK's device where the verbs
 * ecosystem looks for it (UCX takes an IB device only when
 * /dev/infiniband/<dev_name> is an accessible character device, and reads
 * the GID types in sysfs). ordk-run starts it; nothing on the host changes.
 *
 *   ordk-view [--ip A.B.C.D] [--pci BDF] -- PROGRAM [ARGS...]
 *
 * The nodes uverbs0 and rdma_cm are /dev/null bind-mounted onto empty files:
 * ORDK's libraries never open them. A directory the host lacks (/dev/infiniband
 * on a machine without kernel RDMA) needs a writable parent: a tmpfs over the
 * parent, each of the host's entries bind-mounted back into it, the host's
 * parent reached through a descriptor opened before (/proc/self/fd/N). As root
 * the namespace is a mount namespace; otherwise a user namespace too, where
 * the kernel allows it (the program is then uid 0 of that namespace). Without
 * either, or when a step fails (what was mounted is undone), one warning line
 * and the program runs with the host's view.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MOUNTS 8

static const char *mounted[MAX_MOUNTS]; /* tmpfs mount points, undone last first */
static int n_mounted;
static char why[256]; /* the first step that failed */

static int
fail(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	if (why[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		snprintf(why + strlen(why), sizeof(why) - strlen(why), ": %s", strerror(err));
	}
	return -1;
}

static int
tmpfs_on(const char *dir)
{
	if (n_mounted == MAX_MOUNTS) {
		errno = ENOSPC;
		return fail("tmpfs on %s", dir);
	}
	if (mount("ordk-view", dir, "tmpfs", MS_NOSUID, "mode=755,size=1m") != 0)
		return fail("tmpfs on %s", dir);
	mounted[n_mounted++] = dir;
	return 0;
}

static int
write_file(const char *path, const char *text)
{
	char dir[512], *p;
	FILE *f;

	/* the parents first, as mkdir -p */
	snprintf(dir, sizeof(dir), "%s", path);
	for (p = strchr(dir + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return fail("mkdir %s", dir);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f == NULL)
		return fail("create %s", path);
	fprintf(f, "%s\n", text);
	return fclose(f) == 0 ? 0 : fail("write %s", path);
}

/* A bind mount of @p src onto @p dst, which is made first (a directory or an empty file). */
static int
bind_onto(const char *src, const char *dst, bool dir)
{
	if (dir ? mkdir(dst, 0755) != 0 : close(open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) != 0)
		return fail("create %s", dst);
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
		return fail("bind %s onto %s", src, dst);
	return 0;
}

/* Make @p dir writable with its entries still the host's (see the top). */
static int
own_parent(const char *dir)
{
	char src[512], dst[512], link[512];
	struct dirent *e;
	struct stat st;
	int fd, rc = 0;
	DIR *d;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail("open %s", dir);
	if (tmpfs_on(dir) != 0) {
		close(fd);
		return -1;
	}
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return fail("read %s", dir);
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		ssize_t n;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", fd, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", dir, e->d_name);
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = fail("stat %s", dst);
		} else if (S_ISLNK(st.st_mode)) {
			n = readlinkat(fd, e->d_name, link, sizeof(link) - 1);
			if (n < 0)
				rc = fail("readlink %s", dst);
			link[n < 0 ? 0 : n] = '\0';
			if (rc == 0 && symlink(link, dst) != 0)
				rc = fail("symlink %s", dst);
		} else {
			rc = bind_onto(src, dst, S_ISDIR(st.st_mode));
		}
	}
	closedir(d);
	return rc;
}

/* An empty directory @p dir of the namespace's own; @p parent_owned: its parent is ours already. */
static int
own_dir(const char *dir, bool *parent_owned)
{
	char parent[512];

	if (access(dir, F_OK) == 0)
		return tmpfs_on(dir);
	snprintf(parent, sizeof(parent), "%s", dir);
	*strrchr(parent, '/') = '\0';
	if (!*parent_owned) {
		/* the mount point's string must outlive this call: strdup, kept */
		char *p = strdup(parent);

		if (p == NULL || own_parent(p) != 0)
			return -1;
		*parent_owned = true;
	}
	return mkdir(dir, 0755) == 0 ? 0 : fail("mkdir %s", dir);
}

static int
build(const char *ip, const char *pci)
{
	static const char *const nodes[] = { "/dev/infiniband/uverbs0", "/dev/infiniband/rdma_cm" };
	static const char *const files[][2] = {
		{ "/sys/class/infiniband/ordk0/node_type", "1: CA" },
		{ "/sys/class/infiniband/ordk0/ports/1/state", "4: ACTIVE" },
		{ "/sys/class/infiniband/ordk0/ports/1/phys_state", "5: LinkUp" },
		{ "/sys/class/infiniband/ordk0/ports/1/link_layer", "Ethernet" },
		{ "/sys/class/infiniband/ordk0/ports/1/gid_attrs/types/0", "RoCE v2" },
		{ "/sys/class/infiniband_verbs/abi_version", "6" },
		{ "/sys/class/infiniband_verbs/uverbs0/ibdev", "ordk0" },
		{ "/sys/class/infiniband_verbs/uverbs0/abi_version", "1" },
	};
	bool dev_owned = false, sys_owned = false;
	unsigned int a, b, c, d;
	char gid[64], link[512];

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return fail("make / private");
	if (own_dir("/dev/infiniband", &dev_owned) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (bind_onto("/dev/null", nodes[i], false) != 0)
			return -1;
	if (own_dir("/sys/class/infiniband", &sys_owned) != 0 ||
	    own_dir("/sys/class/infiniband_verbs", &sys_owned) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (write_file(files[i][0], files[i][1]) != 0)
			return -1;
	if (ip != NULL && sscanf(ip, "%u.%u.%u.%u", &a, &b, &c, &d) == 4 && (a | b | c | d) < 256) {
		snprintf(gid, sizeof(gid), "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a, b, c, d);
		if (write_file("/sys/class/infiniband/ordk0/ports/1/gids/0", gid) != 0)
			return -1;
	}
	if (pci != NULL) {
		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", pci);
		if (access(link, F_OK) == 0 && symlink(link, "/sys/class/infiniband/ordk0/device") != 0)
			return fail("symlink device");
	}
	return 0;
}

/* root: a mount namespace; otherwise a user namespace with this user as its root. */
static int
enter(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];
	int fd;

	if (uid == 0)
		return unshare(CLONE_NEWNS) == 0 ? 0 : fail("unshare(CLONE_NEWNS)");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return fail("unshare(CLONE_NEWUSER | CLONE_NEWNS)");
	static const char *const paths[] = { "/proc/self/setgroups", "/proc/self/uid_map",
					     "/proc/self/gid_map" };
	for (int i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(map, sizeof(map), "deny");
		else
			snprintf(map, sizeof(map), "0 %u 1", i == 1 ? (unsigned int)uid : (unsigned int)gid);
		fd = open(paths[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map)) {
			if (fd >= 0)
				close(fd);
			return fail("write %s", paths[i]);
		}
		close(fd);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *ip = NULL, *pci = NULL;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--ip") == 0 && i + 1 < argc)
			ip = argv[++i];
		else if (strcmp(argv[i], "--pci") == 0 && i + 1 < argc)
			pci = argv[++i];
		else {
			fprintf(stderr, "usage: ordk-view [--ip A.B.C.D] [--pci BDF] -- PROGRAM [ARGS...]\n");
			return 64;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: ordk-view [--ip A.B.C.D] [--pci BDF] -- PROGRAM [ARGS...]\n");
		return 64;
	}
	if (ip != NULL && *ip == '\0')
		ip = NULL;
	if (pci != NULL && *pci == '\0')
		pci = NULL;
	if (enter() != 0) {
		fprintf(stderr, "ordk-run: warning: no private mount namespace (needs root or user "
				"namespaces: %s): the program runs without /dev/infiniband and "
				"/sys/class/infiniband for ordk0 (UCX will not find it; --no-view "
				"silences this)\n", why);
	} else if (build(ip, pci) != 0) {
		while (n_mounted > 0)
			umount2(mounted[--n_mounted], MNT_DETACH);
		fprintf(stderr, "ordk-run: warning: the device view for UCX failed (%s); the program "
				"runs with the host's /dev and /sys\n", why);
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "ordk-run: cannot run %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
