/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-stat's telemetry client (stat_client.h). */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "stat_client.h"

#define STAT_REPLY_TIMEOUT_S 5 /* a device that does not answer costs the process 0.25 s */

void
stat_runtime_dir(char *buf, size_t len)
{
	const char *d = getenv("RUNTIME_DIRECTORY");

	if (d == NULL || *d == '\0') {
		d = geteuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
		if (d == NULL || *d == '\0')
			d = "/tmp";
	}
	snprintf(buf, len, "%s/dpdk", d);
}

void
stat_prefix_path(const char *prefix, char *buf, size_t len)
{
	char dir[512];

	stat_runtime_dir(dir, sizeof(dir));
	snprintf(buf, len, "%s/%s/%s", dir, prefix, STAT_SOCKET_NAME);
}

unsigned int
stat_list_sockets(char (*paths)[108], unsigned int max)
{
	char dir[512], pat[600];
	unsigned int n = 0;
	glob_t g;

	stat_runtime_dir(dir, sizeof(dir));
	snprintf(pat, sizeof(pat), "%s/*/%s", dir, STAT_SOCKET_NAME);
	if (glob(pat, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++)
		if (strlen(g.gl_pathv[i]) < sizeof(paths[0]))
			snprintf(paths[n++], sizeof(paths[0]), "%s", g.gl_pathv[i]);
	globfree(&g);
	return n;
}

static void
program_of(long pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(buf, (int)len, f) != NULL)
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int
stat_connect(struct stat_conn *c, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { STAT_REPLY_TIMEOUT_S, 0 };
	char hello[1024];
	json_t *j, *v;
	ssize_t n;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "%s: path too long for a unix socket", path);
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		snprintf(err, errlen, "%s: %s (is the process running, with telemetry on?)", path,
			 strerror(errno));
		stat_close(c);
		return -1;
	}
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(c->fd, hello, sizeof(hello) - 1, 0);
	j = n > 0 ? (hello[n] = '\0', json_loads(hello, 0, NULL)) : NULL;
	v = j != NULL ? json_object_get(j, "max_output_len") : NULL;
	if (!json_is_integer(v) || json_integer_value(v) <= 0) {
		snprintf(err, errlen, "%s: not a DPDK telemetry socket (no greeting)", path);
		json_decref(j);
		stat_close(c);
		return -1;
	}
	c->max_len = (size_t)json_integer_value(v);
	c->pid = (long)json_integer_value(json_object_get(j, "pid"));
	json_decref(j);
	program_of(c->pid, c->program, sizeof(c->program));
	c->buf = malloc(c->max_len + 1);
	if (c->buf == NULL) {
		snprintf(err, errlen, "out of memory");
		stat_close(c);
		return -1;
	}
	return 0;
}

json_t *
stat_query(struct stat_conn *c, const char *cmd, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j, *v;
	ssize_t n;

	if (send(c->fd, cmd, strlen(cmd), 0) < 0) {
		snprintf(err, errlen, "%s: send: %s", c->path, strerror(errno));
		return NULL;
	}
	n = recv(c->fd, c->buf, c->max_len, 0);
	if (n <= 0) {
		snprintf(err, errlen, "%s: %s: %s", c->path, cmd,
			 n == 0 ? "the process closed the connection" : strerror(errno));
		return NULL;
	}
	c->buf[n] = '\0';
	j = json_loads(c->buf, 0, &je);
	if (j == NULL) {
		snprintf(err, errlen, "%s: the reply does not parse: %s", cmd, je.text);
		return NULL;
	}
	/* the key is the command without its parameters */
	v = json_object_iter_value(json_object_iter(j));
	if (v == NULL || json_is_null(v)) {
		snprintf(err, errlen, "%s: no such command in process %ld (not an ORDK program?)",
			 cmd, c->pid);
		json_decref(j);
		return NULL;
	}
	json_incref(v);
	json_decref(j);
	return v;
}

json_t *
stat_queryf(struct stat_conn *c, char *err, size_t errlen, const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return stat_query(c, cmd, err, errlen);
}

void
stat_close(struct stat_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
}
