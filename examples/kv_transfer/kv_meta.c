/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_transfer's metadata service: TCP, one line per request (REG, PUT,
 * COMMIT, GET, NODE, SHUTDOWN), a key mapped to the node, address, length
 * and rkey of its block; and a client's connection to it (meta_connect,
 * meta_send, meta_recv).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app_common.h"
#include "kv.h"

struct meta_node {
	char host[64];
	unsigned int cm_port;
	uint64_t base, len, used;
	uint32_t rkey;
};

struct meta_key {
	char key[KEY_MAX];
	unsigned int node;
	uint64_t addr, len;
	bool used, committed;
};

static struct meta_node nodes[MAX_NODES];
static unsigned int nnodes, next_node;
static struct meta_key keys[MAX_KEYS];

uint64_t
meta_key_hash(const char *k)
{
	uint64_t h = 1469598103934665603ull;

	for (; *k; k++)
		h = (h ^ (uint8_t)*k) * 1099511628211ull;
	return h;
}

static struct meta_key *
key_slot(const char *k, bool create)
{
	for (uint64_t i = meta_key_hash(k) % MAX_KEYS, n = 0; n < MAX_KEYS; n++, i = (i + 1) % MAX_KEYS) {
		if (keys[i].used && strcmp(keys[i].key, k) == 0)
			return &keys[i];
		if (!keys[i].used)
			return create ? &keys[i] : NULL;
	}
	return NULL;
}

/* One request line -> one reply line. @return false to end the service. */
static bool
meta_line(char *line, char *out, size_t len)
{
	char cmd[16], k[KEY_MAX + 1] = "", host[64];
	unsigned long long a, b, c, d;
	struct meta_key *e;

	if (sscanf(line, "%15s", cmd) != 1) {
		snprintf(out, len, "ERR empty\n");
		return true;
	}
	if (strcmp(cmd, "REG") == 0 &&
	    sscanf(line, "REG %63s %llu %llu %llu %llu", host, &a, &b, &c, &d) == 5) {
		if (nnodes == MAX_NODES || a == 0 || a > 65535) {
			snprintf(out, len, "ERR cannot register\n");
			return true;
		}
		nodes[nnodes] = (struct meta_node){ .cm_port = (unsigned int)a, .base = b,
						    .rkey = (uint32_t)c, .len = d };
		snprintf(nodes[nnodes].host, sizeof(nodes[nnodes].host), "%s", host);
		snprintf(out, len, "OK %u\n", nnodes++);
	} else if (strcmp(cmd, "PUT") == 0 && sscanf(line, "PUT %64s %llu", k, &a) == 2 &&
		   strlen(k) < KEY_MAX) {
		e = key_slot(k, true);
		if (e == NULL || nnodes == 0 || a == 0) {
			snprintf(out, len, "ERR no room\n");
			return true;
		}
		if (!e->used || e->len < a) { /* a new block, placed round-robin over the nodes */
			unsigned int tries = 0, nd = next_node % nnodes;
			uint64_t need = (a + 4095) & ~4095ull;

			while (tries < nnodes && nodes[nd].used + need > nodes[nd].len - CTRL_BYTES)
				nd = (nd + 1) % nnodes, tries++;
			if (tries == nnodes) {
				snprintf(out, len, "ERR pools full\n");
				return true;
			}
			next_node = nd + 1;
			*e = (struct meta_key){ .node = nd, .addr = nodes[nd].base + nodes[nd].used,
						.used = true };
			snprintf(e->key, sizeof(e->key), "%s", k);
			nodes[nd].used += need;
		}
		e->len = a;
		e->committed = false;
		snprintf(out, len, "OK %u %llu %u\n", e->node, (unsigned long long)e->addr,
			 nodes[e->node].rkey);
	} else if (strcmp(cmd, "COMMIT") == 0 && sscanf(line, "COMMIT %64s", k) == 1) {
		e = key_slot(k, false);
		if (e != NULL)
			e->committed = true;
		snprintf(out, len, e != NULL ? "OK\n" : "ERR missing\n");
	} else if (strcmp(cmd, "GET") == 0 && sscanf(line, "GET %64s", k) == 1) {
		e = key_slot(k, false);
		if (e == NULL || !e->committed)
			snprintf(out, len, "ERR missing\n");
		else
			snprintf(out, len, "OK %u %llu %u %llu\n", e->node, (unsigned long long)e->addr,
				 nodes[e->node].rkey, (unsigned long long)e->len);
	} else if (strcmp(cmd, "NODE") == 0 && sscanf(line, "NODE %llu", &a) == 1) {
		if (a >= nnodes)
			snprintf(out, len, "ERR no such node\n");
		else
			snprintf(out, len, "OK %s %u\n", nodes[a].host, nodes[a].cm_port);
	} else if (strcmp(cmd, "SHUTDOWN") == 0) {
		snprintf(out, len, "OK\n");
		return false;
	} else {
		snprintf(out, len, "ERR bad request\n");
	}
	return true;
}

/* The service runs without EAL (no TSC frequency): its clock is ordk_env_wall_s(). */
int
meta_main(uint16_t port, double seconds)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct pollfd p[64];
	char in[64][512];
	size_t have[64] = { 0 };
	int one = 1, np = 1;
	double until = ordk_env_wall_s() + seconds;
	bool run = true;

	p[0].fd = socket(AF_INET, SOCK_STREAM, 0);
	p[0].events = POLLIN;
	setsockopt(p[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(p[0].fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(p[0].fd, 16) != 0) {
		perror("kv_transfer meta: cannot listen");
		return 1;
	}
	printf("meta: listening on port %u\n", port);
	while (run && !stop && ordk_env_wall_s() < until) {
		if (poll(p, (nfds_t)np, 200) <= 0)
			continue;
		if ((p[0].revents & POLLIN) && np < 64) {
			p[np].fd = accept(p[0].fd, NULL, NULL);
			p[np].events = POLLIN;
			have[np] = 0;
			setsockopt(p[np].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			np += p[np].fd >= 0;
		}
		for (int i = 1; i < np; i++) {
			ssize_t k;
			char *nl;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = read(p[i].fd, in[i] + have[i], sizeof(in[i]) - 1 - have[i]);
			if (k <= 0) { /* gone: the last one takes its place */
				close(p[i].fd);
				p[i] = p[np - 1];
				memcpy(in[i], in[np - 1], have[np - 1]);
				have[i] = have[np - 1];
				np--;
				i--;
				continue;
			}
			have[i] += (size_t)k;
			in[i][have[i]] = '\0';
			while ((nl = strchr(in[i], '\n')) != NULL) {
				char out[256];

				*nl = '\0';
				run &= meta_line(in[i], out, sizeof(out));
				if (write(p[i].fd, out, strlen(out)) < 0)
					break;
				have[i] -= (size_t)(nl + 1 - in[i]);
				memmove(in[i], nl + 1, have[i] + 1);
			}
			if (have[i] == sizeof(in[i]) - 1)
				have[i] = 0; /* a line too long: dropped */
		}
	}
	for (int i = 0; i < np; i++)
		close(p[i].fd);
	printf("meta: %u nodes, done\n", nnodes);
	return 0;
}

/* ------------------------------------------------- talking to the service */

static FILE *meta_in, *meta_out;

int
meta_connect(const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char svc[8];
	int fd = -1, one = 1;

	snprintf(svc, sizeof(svc), "%u", port);
	if (getaddrinfo(host, svc, &hints, &res) != 0)
		return -1;
	for (int i = 0; i < 100 && fd < 0; i++) { /* the service may be starting */
		fd = socket(res->ai_family, SOCK_STREAM, 0);
		if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
			usleep(50000);
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	meta_in = fdopen(fd, "r");
	meta_out = fdopen(dup(fd), "w");
	return meta_in && meta_out ? 0 : -1;
}

/* Send a request (or several, pipelined) ... */
void
meta_send(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(meta_out, fmt, ap);
	va_end(ap);
}

/* ... and read one answer line. @return 0 for "OK ...". */
int
meta_recv(char *line, size_t len)
{
	fflush(meta_out);
	if (fgets(line, (int)len, meta_in) == NULL)
		return -1;
	return strncmp(line, "OK", 2) == 0 ? 0 : -1;
}
