/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cluster checks of ordk-doctor (see doctor_cluster.h): the pitfalls
 * of a CREST-like deployment, each with its fix. Files are read under
 * o->root like every check; the services are asked over the network.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "doctor_cluster.h"

static void __attribute__((format(printf, 5, 6)))
cadd(struct doc_report *r, const char *check, enum doc_level level, const char *fix,
     const char *fmt, ...)
{
	struct doc_finding *f;
	va_list ap;

	if (r->n >= DOC_MAX_FINDINGS)
		return;
	f = &r->f[r->n++];
	f->check = check;
	f->level = level;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
}

static bool
loopback(const char *ip)
{
	return strncmp(ip, "127.", 4) == 0;
}

/* Does any node of the config live on another host (a non-loopback address)? */
static const char *
remote_node(const struct ordk_cm_config *c)
{
	for (unsigned int i = 0; i < c->n_mn; i++)
		if (!loopback(c->mn_ips[i]))
			return c->mn_ips[i];
	for (unsigned int i = 0; i < c->n_cn; i++)
		if (!loopback(c->cn_ips[i]))
			return c->cn_ips[i];
	return NULL;
}

/* A TCP connect within @p ms. @return 0 or a negative errno. */
static int
tcp_probe(const char *ip, uint16_t port, int ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct pollfd p;
	int fd, rc = 0, err = 0;
	socklen_t l = sizeof(err);

	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 && errno != EINPROGRESS) {
		rc = -errno;
	} else {
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (poll(&p, 1, ms) != 1)
			rc = -ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) == 0 && err != 0)
			rc = -err;
	}
	close(fd);
	return rc;
}

/*
 * Listening sockets on @p port in /proc/net/tcp and tcp6 (under o->root):
 * *any: one takes every address; *lo: one takes loopback only.
 */
static void
listeners(const struct doc_opts *o, uint16_t port, bool *any, bool *lo)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };

	*any = *lo = false;
	for (unsigned int k = 0; k < 2; k++) {
		char path[512], line[512], addr[64];
		unsigned int p, st;
		FILE *f;

		snprintf(path, sizeof(path), "%s%s", o->root, files[k]);
		f = fopen(path, "r");
		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			if (sscanf(line, " %*u: %63[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", addr, &p,
				   &st) != 3 || p != port || st != 0x0A)
				continue;
			if (strspn(addr, "0") == strlen(addr))
				*any = true; /* 0.0.0.0 or :: */
			else if ((k == 0 && strlen(addr) == 8 && strcmp(addr + 6, "7F") == 0) ||
				 (k == 1 && strcmp(addr, "00000000000000000000000001000000") == 0))
				*lo = true; /* 127.x.y.z (little-endian) or ::1 */
			else
				*any = true; /* a real address: reachable from others */
		}
		if (f != NULL)
			fclose(f);
	}
}

void
doc_check_memcached(const struct doc_opts *o, const struct ordk_cm_config *c,
		    struct doc_report *r)
{
	const char *far = remote_node(c);
	bool any, lo;
	char fix[384];
	int rc;

	snprintf(fix, sizeof(fix),
		 "on the host of memcached_ip: systemctl stop memcached (its memcached.conf says "
		 "-l 127.0.0.1); memcached -d -p %u -u memcache -m 256 -c 1024 -l 0.0.0.0; "
		 "check: ss -tlnp | grep %u",
		 c->memcached_port, c->memcached_port);
	listeners(o, c->memcached_port, &any, &lo);
	if (lo && !any && far != NULL) {
		cadd(r, "memcached", DOC_FAIL, fix,
		     "memcached on this host listens on 127.0.0.1:%u only: the node at %s gets "
		     "'Memcached connection refused'", c->memcached_port, far);
		return;
	}
	rc = tcp_probe(c->memcached_ip, c->memcached_port, 1000);
	if (rc != 0) {
		cadd(r, "memcached", DOC_FAIL, fix,
		     "Memcached connection refused: nothing answers at %s:%u (memcached_ip): %s",
		     c->memcached_ip, c->memcached_port, strerror(-rc));
		return;
	}
	if (loopback(c->memcached_ip) && far != NULL) {
		cadd(r, "memcached", DOC_FAIL,
		     "set memcached_ip to the experiment-network address of the host running "
		     "memcached, and start it with -l 0.0.0.0",
		     "memcached_ip %s is this host only: the node at %s cannot meet the others there",
		     c->memcached_ip, far);
		return;
	}
	cadd(r, "memcached", DOC_OK, NULL, "memcached answers at %s:%u%s", c->memcached_ip,
	     c->memcached_port, any ? " and listens beyond loopback" : "");
}

/* The device the kernel routes @p ip through: "ip route get" on the machine, else /proc/net/route. */
static bool
route_dev(const struct doc_opts *o, const char *ip, char *dev, size_t len)
{
	char path[512], line[512], ifn[64];
	unsigned int dst, gw, flags, mask, best_mask = 0;
	struct in_addr a;
	bool found = false;
	FILE *f;

	if (o->root[0] == '\0') { /* policy routes (ip rule) included */
		char cmd[128], *p;

		snprintf(cmd, sizeof(cmd), "ip -o -4 route get %s 2>/dev/null", ip);
		f = popen(cmd, "r");
		if (f != NULL) {
			if (fgets(line, sizeof(line), f) != NULL && (p = strstr(line, " dev ")) != NULL &&
			    sscanf(p + 5, "%63s", ifn) == 1) {
				snprintf(dev, len, "%s", ifn);
				found = true;
			}
			pclose(f);
			if (found)
				return true;
		}
	}
	if (inet_pton(AF_INET, ip, &a) != 1)
		return false;
	snprintf(path, sizeof(path), "%s/proc/net/route", o->root);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%63s %x %x %x %*d %*d %*d %x", ifn, &dst, &gw, &flags, &mask) != 5 ||
		    !(flags & 1) || (a.s_addr & mask) != dst)
			continue;
		if (!found || ntohl(mask) >= ntohl(best_mask)) { /* the longest prefix */
			snprintf(dev, len, "%s", ifn);
			best_mask = mask;
			found = true;
		}
	}
	if (f != NULL)
		fclose(f);
	return found;
}

static bool
is_tun(const struct doc_opts *o, const char *dev)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/sys/class/net/%s/tun_flags", o->root, dev);
	return access(p, F_OK) == 0;
}

void
doc_check_capture(const struct doc_opts *o, const struct ordk_cm_config *c,
		  struct doc_report *r)
{
	const char *peers[2 * ORDK_CM_MAX_NODES + 2];
	unsigned int n = 0;
	char dev[64], p[512], tun[sizeof(((struct dirent *)0)->d_name)] = "";
	DIR *d;
	struct dirent *e;

	for (unsigned int i = 0; i < c->n_mn; i++)
		peers[n++] = c->mn_ips[i];
	for (unsigned int i = 0; i < c->n_cn; i++)
		peers[n++] = c->cn_ips[i];
	peers[n++] = c->memcached_ip;
	if (c->redis_ip[0])
		peers[n++] = c->redis_ip;
	for (unsigned int i = 0; i < n; i++) {
		if (loopback(peers[i]) || !route_dev(o, peers[i], dev, sizeof(dev)) || !is_tun(o, dev))
			continue;
		cadd(r, "capture", DOC_FAIL,
		     "turn the proxy's TUN mode off, or make the cluster's subnet DIRECT first in its "
		     "rules (Clash: IP-CIDR,<subnet>,DIRECT); check with: ip route get <peer>",
		     "traffic to %s goes through %s, a TUN device (a proxy such as Clash in TUN mode): "
		     "TCP to memcached and the peers is hijacked ('Connection timeout' while ping works)",
		     peers[i], dev);
		return;
	}
	snprintf(p, sizeof(p), "%s/sys/class/net", o->root);
	d = opendir(p);
	while (d != NULL && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && is_tun(o, e->d_name))
			snprintf(tun, sizeof(tun), "%s", e->d_name);
	if (d != NULL)
		closedir(d);
	if (tun[0])
		cadd(r, "capture", DOC_INFO, NULL,
		     "%s is a TUN device, but no peer of the config is routed through it", tun);
	else
		cadd(r, "capture", DOC_OK, NULL, "no TUN device; the %u peers are routed directly", n);
}

void
doc_check_mr_size(const struct doc_opts *o, const struct ordk_cm_config *c,
		  struct doc_report *r)
{
	struct doc_opts m = *o;
	char p[512], b[64];
	unsigned long long free_pages = 0;
	FILE *f;

	m.mr_bytes = c->mr_size; /* the memory check, on the config's MR */
	doc_check_memory(&m, r);
	if (r->n > 0 && strcmp(r->f[r->n - 1].check, "memory") == 0) {
		struct doc_finding *last = &r->f[r->n - 1];
		char d[sizeof(last->detail)];

		last->check = "mr_size";
		snprintf(d, sizeof(d), "mr_size %" PRIu64 " MiB: %s", c->mr_size >> 20, last->detail);
		memcpy(last->detail, d, sizeof(d));
		if (last->level == DOC_FAIL)
			snprintf(last->fix, sizeof(last->fix),
				 "lower mr_size in the config (the seed trimmed its dataset from 38 to "
				 "5.2 GB: mr_size 16 was enough); an MR beyond memory fails or panics "
				 "the node at populate");
		if (last->level != DOC_OK)
			return;
	}
	snprintf(p, sizeof(p), "%s/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
		 o->root);
	f = fopen(p, "r");
	if (f == NULL)
		return;
	if (fgets(b, sizeof(b), f) != NULL)
		free_pages = strtoull(b, NULL, 10);
	fclose(f);
	if (free_pages * (2ull << 20) < c->mr_size)
		cadd(r, "mr_size", DOC_WARN,
		     "reserve hugepages for it: echo N > /sys/kernel/mm/hugepages/hugepages-2048kB/"
		     "nr_hugepages (N = mr_size / 2 MiB and some), or lower mr_size",
		     "mr_size %" PRIu64 " MiB is more than the %llu MiB of free 2 MiB hugepages: the "
		     "MR lands on 4 KiB pages, or EAL fails with hugepages only",
		     c->mr_size >> 20, free_pages * 2);
}

/* Is node @p role@p id at the 'start' barrier? */
static bool
came(struct ordk_cm_mc *mc, const char *role, unsigned int id)
{
	return ordk_cm_mc_arrived(mc, "start", role, id + 1) -
		       (id ? ordk_cm_mc_arrived(mc, "start", role, id) : 0) ==
	       1;
}

void
doc_check_nodes(const struct doc_opts *o, const struct ordk_cm_config *c, struct doc_report *r)
{
	struct ordk_cm_mc *mc = ordk_cm_mc_open(c->memcached_ip, c->memcached_port, c->cluster, 0,
						 1000);
	char missing[200] = "";
	size_t at = 0;
	int cn;

	(void)o;
	if (mc == NULL) {
		cadd(r, "nodes", DOC_INFO, NULL, "cannot ask memcached who registered (see memcached)");
		return;
	}
	cn = ordk_cm_mc_arrived(mc, "start", "cn", ORDK_CM_MAX_NODES);
	for (unsigned int i = 0; i < c->n_cn && at < sizeof(missing) - 8; i++)
		if (!came(mc, "cn", i))
			at += (size_t)snprintf(missing + at, sizeof(missing) - at, " cn%u", i);
	if (cn > 0 && came(mc, "cn", c->n_cn))
		cadd(r, "nodes", DOC_FAIL,
		     "list exactly the compute nodes you start in CN_ips (the count must be equal)",
		     "cn%u registered in cluster '%s' but CN_ips lists %u compute nodes: everyone "
		     "fails at the barrier", c->n_cn, c->cluster, c->n_cn);
	else if (cn <= 0)
		cadd(r, "nodes", DOC_INFO, NULL, "no compute node has registered in cluster '%s' yet",
		     c->cluster);
	else if (missing[0])
		cadd(r, "nodes", DOC_WARN,
		     "start the missing nodes, or list only the nodes you start in CN_ips",
		     "%d of %u compute nodes registered in cluster '%s'; missing:%s (the others wait "
		     "for them, then fail with 'Sync timeout')", cn, c->n_cn, c->cluster, missing);
	else
		cadd(r, "nodes", DOC_OK, NULL, "all %u compute nodes of CN_ips registered in '%s'",
		     c->n_cn, c->cluster);
	ordk_cm_mc_close(mc);
}

int
doc_run_cluster(const struct doc_opts *o, const char *path, struct doc_report *r)
{
	struct ordk_cm_config c;
	char err[256];
	int status = 0;

	if (ordk_cm_config_load(path, &c, err, sizeof(err)) != 0) {
		cadd(r, "config", DOC_FAIL, "fix the field named and run again", "%s: %s", path, err);
	} else {
		cadd(r, "config", DOC_OK, NULL, "%s: %u memory and %u compute nodes, memcached %s:%u",
		     path, c.n_mn, c.n_cn, c.memcached_ip, c.memcached_port);
		doc_check_memcached(o, &c, r);
		doc_check_capture(o, &c, r);
		doc_check_mr_size(o, &c, r);
		doc_check_nodes(o, &c, r);
	}
	for (unsigned int i = 0; i < r->n; i++)
		if (r->f[i].level == DOC_FAIL)
			status = 2;
		else if (r->f[i].level == DOC_WARN && status < 1)
			status = 1;
	return status;
}
