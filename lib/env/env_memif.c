/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's socket file: whether someone listens on it, and a server's
 * claim of the path before its port is created. DPDK 22.11's memif server
 * binds the file and unlinks it only when its port is removed; a process
 * that ends with its port still there (an rdma_cm program keeps its device
 * open: qperf -cm1's server, which forks a process per test) leaves the file
 * behind, and the next server's bind fails (EADDRINUSE).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env_internal.h"
#include "ordk_env.h"

bool
ordk_env_unix_listening(const char *path)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512], name[256];
	unsigned int flags;
	bool found = false;

	if (f == NULL)
		return false;
	/* "Num RefCount Protocol Flags Type St Inode Path": __SO_ACCEPTCON is a listener */
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %*s %*s %x %*s %*s %*s %255s", &flags, name) == 2 &&
		    flags == 0x10000 &&
		    (strcmp(name, path) == 0 || (name[0] == '@' && strcmp(name + 1, path) == 0)))
			found = true;
	fclose(f);
	return found;
}

/* The value of ",<key>=" in a --vdev string into @p out ("" if absent). */
static void
vdev_value(const char *vdev, const char *key, char *out, size_t len)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), ",%s=", key);
	p = strstr(vdev, pat);
	if (p == NULL) {
		out[0] = '\0';
		return;
	}
	p += strlen(pat);
	snprintf(out, len, "%.*s", (int)strcspn(p, ","), p);
}

int
ordk_env_memif_claim(const char *vdev, double wait_s)
{
	char role[16], path[256], abstract[8];
	double until = ordk_env_wall_s() + wait_s; /* before EAL: no TSC rate yet */
	struct stat st;

	if (vdev == NULL || strncmp(vdev, "net_memif", 9) != 0)
		return 0;
	vdev_value(vdev, "role", role, sizeof(role));
	vdev_value(vdev, "socket", path, sizeof(path));
	vdev_value(vdev, "socket-abstract", abstract, sizeof(abstract));
	/* DPDK 22.11's defaults: role server, an abstract socket (no file) */
	if ((role[0] != '\0' && strcmp(role, "server") != 0) || path[0] == '\0' ||
	    strcmp(abstract, "no") != 0)
		return 0;
	if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return 0; /* nothing there, or not a socket: memif's own bind says what is wrong */
	/* a server still listening there may be ending (qperf's last test process) */
	while (ordk_env_unix_listening(path)) {
		if (ordk_env_wall_s() >= until) {
			ENV_LOG(ERR, "net_memif socket %s: another server listens on it", path);
			return -EADDRINUSE;
		}
		usleep(2000);
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		int err = errno;

		ENV_LOG(ERR, "net_memif socket %s: nobody listens, cannot remove it: %s", path,
			strerror(err));
		return -err;
	}
	ENV_LOG(INFO, "net_memif socket %s: nobody listened on it, removed", path);
	return 1;
}
