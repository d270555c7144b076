/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: the frame pool, a port started with one queue pair, a net_ring pair,
 * the bounded waits of a memif client, and the end of a two-process run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <rte_alarm.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "env_internal.h"
#include "ordk_env.h"
#include "ordk_verbs.h"

struct rte_mempool *
ordk_env_frame_pool(const char *name, unsigned int n)
{
	return rte_pktmbuf_pool_create(name, n, 256, 0, RTE_PKTMBUF_HEADROOM + ORDK_ENV_FRAME_ROOM,
				       SOCKET_ID_ANY);
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
					      (uint16_t)(RTE_PKTMBUF_HEADROOM + frame),
					      SOCKET_ID_ANY);
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
ordk_env_port_start(uint16_t port, struct rte_mempool *mp)
{
	int rc = port_setup(port, mp);

	return rc == 0 ? rte_eth_dev_start(port) : rc;
}

int
ordk_env_ring_pair(const char *name, struct rte_mempool *mp, uint16_t ports[2])
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
		if (ordk_env_port_start(ports[i], mp) != 0)
			return -EIO;
	}
	return 0;
}

long
ordk_env_memif_prefault(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	long done = 0;
	int err = 0;

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		/* "lo-hi rw-s off dev inode /memfd:memif_region_N (deleted)" */
		if (strstr(line, "/memfd:memif_region_") == NULL ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= lo)
			continue;
		if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0) {
			err = -errno;
			continue;
		}
		done += (long)(hi - lo);
	}
	fclose(f);
	return done > 0 || err == 0 ? done : err;
}

int
ordk_env_link_wait(uint16_t port, double timeout_s, bool kick)
{
	struct rte_eth_link link;
	double now = ordk_env_now_s(), until = now + timeout_s, next_kick = now + 0.25;

	for (;;) {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status) {
			(void)ordk_env_memif_prefault(); /* before the first frame, not during */
			return 0;
		}
		now = ordk_env_now_s();
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

/*
 * Configure @p port and start it; a memif client retries its start (its
 * socket connect) until @p until.
 */
static int
start_until(uint16_t port, struct rte_mempool *mp, bool client, double until)
{
	int memif_log = rte_log_register("pmd.net.memif");
	int level = memif_log >= 0 ? rte_log_get_level((uint32_t)memif_log) : -1;
	int rc = -EIO;

	if (port_setup(port, mp) != 0)
		return -EIO;
	for (int tries = 0;; tries++) {
		double next = ordk_env_now_s() + ORDK_ENV_PEER_RETRY_S;

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
		/* its "Failed to connect socket" once, not 4 a second */
		if (tries == 0 && level >= 0)
			rte_log_set_level((uint32_t)memif_log, RTE_LOG_CRIT);
		while (ordk_env_now_s() < next)
			usleep(10000);
	}
	if (level >= 0)
		rte_log_set_level((uint32_t)memif_log, (uint32_t)level);
	return rc;
}

int
ordk_env_port_start_wait(uint16_t port, struct rte_mempool *mp, bool client, double timeout_s)
{
	double until = timeout_s < 0 ? -1 : ordk_env_now_s() + timeout_s;
	struct rte_eth_link link;
	int rc;

	if (!rte_eth_dev_is_valid_port(port))
		return -ENODEV;
	rc = start_until(port, mp, client, until);
	if (rc != 0)
		return rc;
	if (timeout_s >= 0) {
		double left = until - ordk_env_now_s();

		return ordk_env_link_wait(port, left > 1 ? left : 1, client);
	}
	while (rte_eth_link_get_nowait(port, &link) != 0 || !link.link_status)
		if (ordk_env_link_wait(port, 3600, client) == 0)
			break;
	return 0;
}

void
ordk_env_close_ports(void)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
	}
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
 * end: ordk_env_linger_server() waits until its client has left.
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

	while (ordk_env_now_s() < j->until)
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
	double give_up = ordk_env_now_s() + bound_s;

	if (rte_eal_alarm_set(1, fn, arg) != 0)
		return false;
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE) && ordk_env_now_s() < give_up)
		usleep(1000);
	if (!__atomic_load_n(done, __ATOMIC_ACQUIRE))
		rte_eal_alarm_cancel(fn, arg);
	return true;
}

void
ordk_env_linger(struct ordk_dev *dev, double quiet_s)
{
	struct linger_job j = { .dev = dev, .until = ordk_env_now_s() + 0.05 };

	if (dev != NULL && !on_intr_thread(linger_cb, &j, &j.done, 5.0))
		while (ordk_env_now_s() < j.until)
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
		if (up && ordk_env_now_s() >= until)
			return -ETIMEDOUT;
		if (up)
			usleep(1000);
	}
	return 1;
}

int
ordk_env_linger_server(struct ordk_dev *dev, double quiet_s)
{
	int left, done = 0;

	ordk_env_linger(dev, 0);
	left = memif_peers_left(ordk_env_now_s() + ORDK_ENV_PEER_LEAVE_S);
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
		ENV_LOG(ERR, "the net_memif peer is still connected after %.0f s: closing anyway",
			ORDK_ENV_PEER_LEAVE_S);
	return left;
}
