/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "app_common.h"
#include "bluesim.h"
#include "ordk_verbs.h"

unsigned long
app_hugepages_free_mb(const char *huge_dir)
{
	char path[512];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/hugepages-2048kB/free_hugepages",
		 huge_dir ? huge_dir : "/sys/kernel/mm/hugepages");
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return n * 2;
}

bool
app_hugetlbfs_mounted(const char *mounts, char *where, size_t where_len)
{
	char line[512], dev[128], dir[256], type[64];
	bool found = false;
	FILE *f = fopen(mounts ? mounts : "/proc/mounts", "r");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
			strcmp(type, "hugetlbfs") == 0;
	fclose(f);
	if (found && where != NULL)
		snprintf(where, where_len, "%s", dir);
	return found;
}

int
app_eal_default_argv(const struct app_eal_defaults *d, char **argv, char *store, size_t store_len)
{
	size_t used = 0;
	int argc = 0;
	bool huge = app_hugepages_free_mb(d->huge_dir) >= d->mem_mb + 64 &&
		    app_hugetlbfs_mounted(d->mounts, NULL, 0);

#define ADD(...)                                                                      \
	do {                                                                          \
		int n_ = snprintf(store + used, store_len - used, __VA_ARGS__);       \
		if (n_ < 0 || (size_t)n_ >= store_len - used || argc >= APP_EAL_MAX_ARGS) \
			return -1;                                                    \
		argv[argc++] = store + used;                                          \
		used += (size_t)n_ + 1;                                               \
	} while (0)

	ADD("%s", d->prog);
	ADD("--no-pci");
	ADD("-l");
	ADD("%d", d->lcore);
	if (!huge)
		ADD("--no-huge");
	ADD("-m");
	ADD("%u", d->mem_mb);
	ADD("--file-prefix=%s-%d", d->prefix, (int)getpid());
	ADD("--no-telemetry");
	/* a pattern, not the global level: one type can still be raised (d->log_level) */
	ADD("--log-level=*:4");
	if (d->log_level != NULL)
		ADD("--log-level=%s", d->log_level);
	if (d->vdev != NULL)
		ADD("--vdev=%s", d->vdev);
#undef ADD
	argv[argc] = NULL;
	return argc;
}

int
app_eal_init(int argc, char **argv, bool user, const struct app_eal_defaults *d)
{
	char store[1024], *def[APP_EAL_MAX_ARGS + 1];
	int n;

	if (user)
		n = rte_eal_init(argc, argv);
	else {
		int k = app_eal_default_argv(d, def, store, sizeof(store));

		if (k < 0) {
			fprintf(stderr, "%s: default EAL arguments too long\n", d->prog);
			return -1;
		}
		n = rte_eal_init(k, def);
	}
	if (n < 0) {
		fprintf(stderr, "%s: EAL initialisation failed: %s (see ordk-doctor)\n", d->prog,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/*
 * A pool whose buffers hold the port's frames: net_af_packet with
 * framesz=16384 refuses mbufs smaller than its frames, so such a port gets a
 * pool of its own, sized from its devargs. Others use @p mp.
 */
static struct rte_mempool *
pool_for(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_dev_info di;
	const struct rte_devargs *da;
	const char *p;
	unsigned long frame;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *big;

	if (rte_eth_dev_info_get(port, &di) != 0 || di.device == NULL)
		return mp;
	da = rte_dev_devargs(di.device);
	p = da != NULL && da->args != NULL ? strstr(da->args, "framesz=") : NULL;
	if (p == NULL)
		return mp;
	frame = strtoul(p + 8, NULL, 0);
	if (frame == 0 || frame > 65535u - RTE_PKTMBUF_HEADROOM ||
	    frame <= (unsigned long)rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM)
		return mp;
	snprintf(name, sizeof(name), "port%u_frames", port);
	big = rte_mempool_lookup(name);
	if (big == NULL)
		big = rte_pktmbuf_pool_create(name, 4095, 256, 0,
					      (uint16_t)(RTE_PKTMBUF_HEADROOM + frame), SOCKET_ID_ANY);
	return big != NULL ? big : mp;
}

/* Configure @p port with one RX and one TX queue (not started). */
static int
port_setup(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { 0 };
	int rc;

	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL, pool_for(port, mp));
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL);
	return rc;
}

int
app_port_start(uint16_t port, struct rte_mempool *mp)
{
	int rc = port_setup(port, mp);

	return rc == 0 ? rte_eth_dev_start(port) : rc;
}

int
app_ring_pair(const char *name, struct rte_mempool *mp, uint16_t ports[2])
{
	struct rte_ring *r[2];
	char n[64];

	for (int i = 0; i < 2; i++) {
		snprintf(n, sizeof(n), "%s_r%d", name, i);
		r[i] = rte_ring_create(n, 8192, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL)
			return -ENOMEM;
	}
	for (int i = 0; i < 2; i++) {
		int p;

		snprintf(n, sizeof(n), "%s%d", name, i);
		p = rte_eth_from_rings(n, &r[i], 1, &r[1 - i], 1, SOCKET_ID_ANY);
		if (p < 0)
			return -rte_errno;
		ports[i] = (uint16_t)p;
		if (app_port_start(ports[i], mp) != 0)
			return -EIO;
	}
	return 0;
}

int
app_link_wait(uint16_t port, double timeout_s, bool kick)
{
	struct rte_eth_link link;
	double now = app_now_s(), until = now + timeout_s, next_kick = now + 0.25;

	for (;;) {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			return 0;
		now = app_now_s();
		if (now > until)
			return -ETIMEDOUT;
		if (kick && now > next_kick) {
			/* a net_memif client tries its socket once, at start: try again */
			rte_eth_dev_stop(port);
			rte_eth_dev_start(port);
			next_kick = now + 0.25;
		}
		usleep(1000);
	}
}

struct rte_mempool *
app_frame_pool(const char *name, unsigned int n)
{
	return rte_pktmbuf_pool_create(name, n, 256, 0, RTE_PKTMBUF_HEADROOM + BLUESIM_MBUF_DATA_ROOM,
				       SOCKET_ID_ANY);
}

double
app_wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double
app_now_s(void)
{
	return (double)rte_get_tsc_cycles() / (double)rte_get_tsc_hz();
}

void
app_print_stats(FILE *f, const struct ordk_stats *st, bool all)
{
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
		uint64_t v = ordk_stats_value(st, i);

		if (all || v) {
			char name[40];

			snprintf(name, sizeof(name), "%s:", ordk_stats_name(i));
			fprintf(f, "  %-22s %" PRIu64 "\n", name, v);
		}
	}
}

void
app_print_xstats(FILE *f, struct ordk_dev *dev, bool all)
{
	int n = ordk_dev_xstats(dev, NULL, NULL, 0);
	const char **names;
	uint64_t *values;

	if (n <= 0) {
		fprintf(f, "  (the device has no model counters)\n");
		return;
	}
	names = calloc((size_t)n, sizeof(*names));
	values = calloc((size_t)n, sizeof(*values));
	if (names != NULL && values != NULL && ordk_dev_xstats(dev, names, values, (unsigned int)n) == n)
		for (int i = 0; i < n; i++)
			if (all || values[i])
				fprintf(f, "  %-26s %" PRIu64 "\n", names[i], values[i]);
	free(names);
	free(values);
}

void
app_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

int
app_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/* ------------------------------------------------------------ devices */

/* Configure @p port and start it; a memif client retries its start (its socket connect) until @p until. */
static int
start_until(uint16_t port, struct rte_mempool *mp, bool client, double until)
{
	int memif_log = rte_log_register("pmd.net.memif");
	int level = memif_log >= 0 ? rte_log_get_level((uint32_t)memif_log) : -1;
	int rc = -EIO;

	if (port_setup(port, mp) != 0)
		return -EIO;
	for (int tries = 0;; tries++) {
		double next = app_now_s() + APP_PEER_RETRY_S;

		if (rte_eth_dev_start(port) == 0) {
			rc = 0;
			break;
		}
		if (!client)
			break;
		/* net_memif's client connects its socket at start: no server yet */
		if (until >= 0 && next > until) {
			rc = -ECONNREFUSED;
			break;
		}
		if (tries == 0 && level >= 0) /* its "Failed to connect socket" once, not 4 a second */
			rte_log_set_level((uint32_t)memif_log, RTE_LOG_CRIT);
		while (app_now_s() < next)
			usleep(10000);
	}
	if (level >= 0)
		rte_log_set_level((uint32_t)memif_log, (uint32_t)level);
	return rc;
}

int
app_start_port_wait(const char *devargs, struct rte_mempool *mp, bool client, double timeout_s)
{
	const char *p = strstr(devargs, "port=");
	double until = timeout_s < 0 ? -1 : app_now_s() + timeout_s;
	struct rte_eth_link link;
	char *end;
	unsigned long port;
	int rc;

	if (strncmp(devargs, "bluesim", 7) != 0 || p == NULL)
		return 0;
	port = strtoul(p + 5, &end, 10);
	if (end == p + 5 || port >= RTE_MAX_ETHPORTS)
		return 0; /* "loopback" or a name: the model checks it */
	if (!rte_eth_dev_is_valid_port((uint16_t)port))
		return -ENODEV;
	rc = start_until((uint16_t)port, mp, client, until);
	if (rc != 0)
		return rc;
	if (timeout_s >= 0) {
		double left = until - app_now_s();

		return app_link_wait((uint16_t)port, left > 1 ? left : 1, client);
	}
	while (rte_eth_link_get_nowait((uint16_t)port, &link) != 0 || !link.link_status)
		if (app_link_wait((uint16_t)port, 3600, client) == 0)
			break;
	return 0;
}

/* bluesim,port=N[,...]: start port N when it is an ethdev nobody started. */
int
app_start_port_of(const char *devargs, struct rte_mempool *mp, bool client)
{
	int rc = app_start_port_wait(devargs, mp, client, APP_PEER_WAIT_S);
	const char *p = strstr(devargs, "port=");
	unsigned long port = p ? strtoul(p + 5, NULL, 10) : 0;

	if (rc == -ENODEV)
		fprintf(stderr, "no ethdev port %lu (give one with EAL --vdev or -a)\n", port);
	else if (rc == -EIO)
		fprintf(stderr, "cannot start ethdev port %lu\n", port);
	else if (rc != 0)
		fprintf(stderr, "port %lu: link down after %.0f s (is the peer running?)\n", port,
			APP_PEER_WAIT_S);
	return rc;
}

/* The user's devargs with port= replaced (loopback) and a MAC and IP added. */
void
app_bluesim_args(char *out, size_t len, const char *user, int port, int idx)
{
	size_t n = 0;
	const char *p = user;

	n += (size_t)snprintf(out, len, "bluesim");
	p = strchr(user, ',');
	while (p != NULL && *p) {
		const char *q = p + 1, *e = strchr(q, ',');
		size_t k = e ? (size_t)(e - q) : strlen(q);

		if (!(port >= 0 && strncmp(q, "port=", 5) == 0) && k > 0 && n < len)
			n += (size_t)snprintf(out + n, len - n, ",%.*s", (int)k, q);
		p = e;
	}
	if (port >= 0 && n < len)
		n += (size_t)snprintf(out + n, len - n, ",port=%d", port);
	if (strstr(user, "mac=") == NULL && n < len)
		n += (size_t)snprintf(out + n, len - n, ",mac=02:00:00:00:00:%02x", idx);
	if (strstr(user, "ip=") == NULL && n < len)
		n += (size_t)snprintf(out + n, len - n, ",ip=10.0.0.%d", idx);
	/* the test suites' hook: ORDK_TEST_SIM_DEVARGS=rtl=1 runs them on the RTL's behaviour */
	if (getenv("ORDK_TEST_SIM_DEVARGS") != NULL && *getenv("ORDK_TEST_SIM_DEVARGS") && n < len)
		snprintf(out + n, len - n, ",%s", getenv("ORDK_TEST_SIM_DEVARGS"));
}

/*
 * DPDK 22.11's net_memif faults when rx_burst runs after the peer left, and
 * when the peer's disconnect reaches EAL's interrupt thread during
 * rte_eal_cleanup(). So a run ends with a handshake; then each side polls a
 * little (the last ACKs go out) and stops polling: the client closes its
 * port after 0.3 s, the server stays quiet for 1 s.
 *
 * Those times are not a guarantee: on a loaded machine one side can reach its
 * linger long after the other left (seen: ib_atomic_lat's client polling
 * while the server's process ended, SIGSEGV in memif's rx under stress-ng).
 * The peer's departure unmaps the rings in EAL's interrupt thread
 * (memif_disconnect), so the linger's polls run in that thread too, as an EAL
 * alarm callback: a disconnect is then handled before or after them, never
 * during. The calling thread waits for the callback, bounded.
 *
 * The server's own end must not meet the client's disconnect either: reaching
 * the interrupt thread while rte_eal_cleanup() unmaps the memory its handles
 * live in, it faults there (seen: kv_transfer's worker, whose client left
 * 2 s late, SIGSEGV in rte_intr_fd_get()). So a server does not time its
 * end: app_linger_server() waits until its client has left.
 */
struct linger_job {
	struct ordk_dev *dev;
	double until;
	int done;
};

static void
linger_cb(void *arg)
{
	struct linger_job *j = arg;

	while (app_now_s() < j->until)
		ordk_dev_poll(j->dev, 64);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

/*
 * Run @p fn on EAL's interrupt thread (an alarm: after whatever handler runs
 * there) and wait until it set *@p done, at most @p bound_s. One that never
 * ran (the thread stuck) is taken back; the cancel waits if it is running.
 * @return false when no alarm could be set.
 */
static bool
on_intr_thread(rte_eal_alarm_callback fn, void *arg, int *done, double bound_s)
{
	double give_up = app_now_s() + bound_s;

	if (rte_eal_alarm_set(1, fn, arg) != 0)
		return false;
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE) && app_now_s() < give_up)
		usleep(1000);
	if (!__atomic_load_n(done, __ATOMIC_ACQUIRE))
		rte_eal_alarm_cancel(fn, arg);
	return true;
}

void
app_linger(struct ordk_dev *dev, double quiet_s)
{
	struct linger_job j = { .dev = dev, .until = app_now_s() + 0.05 };

	if (dev != NULL && !on_intr_thread(linger_cb, &j, &j.done, 5.0))
		while (app_now_s() < j.until)
			ordk_dev_poll(dev, 64);
	usleep((useconds_t)(quiet_s * 1e6));
}

static void
intr_barrier_cb(void *arg)
{
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

/*
 * Has every net_memif port's peer left? 1: yes (or it never came), 0: there
 * is no net_memif port, whose link would tell, -ETIMEDOUT: one stayed.
 */
static int
memif_peers_left(double until)
{
	uint16_t memif[RTE_MAX_ETHPORTS], n = 0, pid;
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	bool up = true;

	RTE_ETH_FOREACH_DEV(pid)
		if (rte_eth_dev_info_get(pid, &info) == 0 && info.driver_name != NULL &&
		    strcmp(info.driver_name, "net_memif") == 0)
			memif[n++] = pid;
	if (n == 0)
		return 0;
	while (up) {
		up = false;
		for (uint16_t i = 0; i < n && !up; i++)
			up = rte_eth_link_get_nowait(memif[i], &link) == 0 && link.link_status;
		if (up && app_now_s() >= until)
			return -ETIMEDOUT;
		if (up)
			usleep(1000);
	}
	return 1;
}

int
app_linger_server(struct ordk_dev *dev, double quiet_s)
{
	int left, done = 0;

	app_linger(dev, 0);
	left = memif_peers_left(app_now_s() + APP_PEER_LEAVE_S);
	if (left == 0) {
		usleep((useconds_t)(quiet_s * 1e6));
		return 0;
	}
	/*
	 * net_memif drops the link as its disconnect starts, in the interrupt
	 * thread: a callback there runs once that handler has returned, and after
	 * it the peer's rings are unmapped, never while this thread polls them.
	 */
	on_intr_thread(intr_barrier_cb, &done, &done, 1.0);
	if (left < 0)
		fprintf(stderr, "the net_memif peer is still connected after %.0f s: closing anyway\n",
			APP_PEER_LEAVE_S);
	return left;
}

/*
 * EAL's cleanup races its own interrupt thread in DPDK 22.11: net_memif's
 * server frees its listener at close without unregistering it, and the
 * thread's copies of memif's handles live in DPDK memory anyway. When
 * rte_eal_cleanup() unregisters the alarm callback (rte_eal_alarm_cleanup()),
 * the thread wakes and walks its sources again, reading those handles, while
 * the main thread unmaps that memory (rte_eal_memory_detach()): SIGSEGV in
 * rte_intr_fd_get(), seen under load in kv_transfer's worker and ordk-perf's
 * server even after their clients had left. So the thread is parked first:
 * a callback of our own source (an eventfd) holds it until the process ends
 * (bounded), and it walks nothing while the memory goes. Not an EAL alarm:
 * rte_eal_alarm_cleanup() would wait for an alarm callback that never returns.
 */
struct intr_park {
	int efd;
	int parked;
};

static void
intr_park_cb(void *arg)
{
	struct intr_park *p = arg;
	uint64_t v;
	double until = app_wall_s() + APP_INTR_PARK_S;

	if (read(p->efd, &v, sizeof(v)) < 0)
		return; /* not ours after all: no event */
	__atomic_store_n(&p->parked, 1, __ATOMIC_RELEASE);
	while (app_wall_s() < until)
		usleep(10000);
}

int
app_intr_fire(void (*fn)(void *arg), void *arg, int *efd)
{
	struct rte_intr_handle *h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	uint64_t one = 1;

	*efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h != NULL && *efd >= 0 && rte_intr_fd_set(h, *efd) == 0 &&
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) == 0 &&
	    rte_intr_callback_register(h, fn, arg) == 0 &&
	    write(*efd, &one, sizeof(one)) == sizeof(one))
		return 0;
	return -1;
}

int
app_eal_cleanup(void)
{
	static struct intr_park p = { .efd = -1 };
	double until = app_wall_s() + 2.0;

	if (app_intr_fire(intr_park_cb, &p, &p.efd) == 0)
		while (!__atomic_load_n(&p.parked, __ATOMIC_ACQUIRE) && app_wall_s() < until)
			usleep(1000);
	if (!__atomic_load_n(&p.parked, __ATOMIC_ACQUIRE))
		fprintf(stderr, "EAL's interrupt thread was not parked: cleaning up regardless\n");
	/* the source and its eventfd stay: the parked callback holds them until the process ends */
	return rte_eal_cleanup();
}

void
app_close_ports(void)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
	}
}
