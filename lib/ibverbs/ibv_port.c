/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's ethdev port over the process's life: started at the first
 * open, its run with the peer ended at the last close (a memif client stops
 * its port, a memif server removes it), started (or probed) again at the
 * next open. See verbs_compat.md, "Opening and closing the device".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "ibv_internal.h"
#include "ordk_env.h"

static bool
port_is_memif(uint16_t port)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port, &info) == 0 && info.driver_name != NULL &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

/* The memif socket of @p port (its devargs' socket=) into @p out; @return false if none. */
static bool
memif_socket_of(uint16_t port, char *out, size_t len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	const char *p;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		return false;
	da = rte_dev_devargs(info.device);
	p = da != NULL && da->args != NULL ? strstr(da->args, "socket=") : NULL;
	if (p == NULL)
		return false;
	snprintf(out, len, "%.*s", (int)strcspn(p + 7, ","), p + 7);
	return true;
}

/*
 * A memif server's last close: its vdev is removed, which closes its listening
 * socket. A server process that ends (qperf's server forks one per test) would
 * otherwise still accept the connection its client makes for the next test,
 * then end under it; the client now finds no listener until the next server's.
 */
static void
memif_server_unplug(struct ov_dev *d)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get((uint16_t)d->port, &info) != 0 || info.device == NULL)
		return;
	rte_eth_dev_stop((uint16_t)d->port);
	if (rte_dev_remove((struct rte_device *)(uintptr_t)info.device) == 0)
		d->port_unplugged = true;
	else
		OV_LOG(WARNING, "port %d: cannot remove its vdev; a reopen keeps it\n", d->port);
}

/* A client's last close: the server it left closes its listener (above) before it connects again. */
static void
memif_client_wait_unplug(struct ov_dev *d)
{
	char path[256];
	double until = ordk_env_now_s() + 2.0;

	if (!memif_socket_of((uint16_t)d->port, path, sizeof(path)))
		return;
	while (ordk_env_unix_listening(path) && ordk_env_now_s() < until)
		usleep(1000);
}

/* The vdev a server's last close removed, probed again from ORDK_VDEV with its port id. */
static int
memif_server_replug(struct ov_dev *d)
{
	const char *vdev = getenv("ORDK_VDEV");
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t id;

	/*
	 * DPDK 22.11's memif never closes a removed server port's listener (it
	 * frees its socket, unlinks its file): the probe binds a new file, so
	 * ordk-run's memif sockets are files (socket-abstract=no), never
	 * abstract names, which stay bound (EADDRINUSE)
	 */
	if (vdev == NULL || ordk_env_memif_claim(vdev, ORDK_ENV_PEER_LEAVE_S) < 0 ||
	    rte_dev_probe(vdev) != 0) {
		OV_LOG(ERR, "cannot create the memif port again (ORDK_VDEV %s)\n", vdev ? vdev : "unset");
		return -ENODEV;
	}
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(vdev, ","), vdev);
	if (rte_eth_dev_get_port_by_name(name, &id) != 0 || id != d->port) {
		OV_LOG(ERR, "the memif port came back as another port than %d\n", d->port);
		return -ENODEV;
	}
	d->port_unplugged = false;
	return 0;
}

/*
 * A memif client whose link went down while its device stays open: its
 * server's process ended (qperf -cm1's server forks one per test, and an
 * rdma_cm program keeps the device open from test to test, as rdma-core's
 * librdmacm keeps its contexts). DPDK 22.11's net_memif client connects its
 * socket once, at start, so it starts again: every OV_REJOIN_RETRY_MS while
 * no server accepts the socket. One that does may still turn the handshake
 * down (the next server's vdev exists before its port is started: "ID not
 * found"), so a start that connected is given OV_REJOIN_RETRY_MS, then twice
 * as long after each one that did not bring the link up, up to
 * OV_REJOIN_HANDSHAKE_MS. The model leaves the port alone meanwhile
 * (link_ok()). The stop and start run in EAL's interrupt thread (an alarm),
 * where memif runs its own disconnect: the link is down as that begins, and
 * a stop from another thread would free the regions beside it.
 */
#define OV_REJOIN_RETRY_MS 20
#define OV_REJOIN_HANDSHAKE_MS 1000

enum { REJOIN_IDLE, REJOIN_RUNNING, REJOIN_CONNECTED, REJOIN_REFUSED };

static void
rejoin_cb(void *arg)
{
	struct ov_dev *d = arg;
	int memif_log = rte_log_register("pmd.net.memif");
	int level = memif_log >= 0 ? rte_log_get_level((uint32_t)memif_log) : -1;
	int rc;

	/* no "Failed to connect socket" 50 times a second */
	if (level >= 0)
		rte_log_set_level((uint32_t)memif_log, RTE_LOG_CRIT);
	rte_eth_dev_stop((uint16_t)d->port);
	rc = rte_eth_dev_start((uint16_t)d->port);
	if (level >= 0)
		rte_log_set_level((uint32_t)memif_log, (uint32_t)level);
	atomic_store(&d->rejoin, rc == 0 ? REJOIN_CONNECTED : REJOIN_REFUSED);
}

void
ov_port_rejoin(struct ov_dev *d)
{
	uint64_t now = rte_get_tsc_cycles(), ms = rte_get_tsc_hz() / 1000;
	int st = atomic_load(&d->rejoin);

	if (!d->client || !d->memif || st == REJOIN_RUNNING)
		return;
	if (st != REJOIN_IDLE) { /* the last start is done: when the next one may go */
		uint32_t wait = OV_REJOIN_RETRY_MS;

		if (st == REJOIN_CONNECTED) {
			wait = RTE_MAX(d->rejoin_wait_ms, (uint32_t)OV_REJOIN_RETRY_MS);
			d->rejoin_wait_ms = RTE_MIN(2 * wait, (uint32_t)OV_REJOIN_HANDSHAKE_MS);
		}
		d->rejoin_tsc = now + wait * ms;
		d->rejoins++;
		d->link_seen = false; /* the next server's regions: populated again once up */
		atomic_store(&d->rejoin, REJOIN_IDLE);
	}
	if (now < d->rejoin_tsc)
		return;
	atomic_store(&d->rejoin, REJOIN_RUNNING);
	if (rte_eal_alarm_set(1, rejoin_cb, d) != 0) {
		atomic_store(&d->rejoin, REJOIN_IDLE);
		d->rejoin_tsc = now + OV_REJOIN_RETRY_MS * ms;
	}
}

int
ov_port_up(struct ov_dev *d)
{
	int rc;

	if (d->port < 0)
		return 0;
	if (d->port_unplugged && (rc = memif_server_replug(d)) != 0)
		return rc;
	/* a reopen finds its pool (a second create of the name would fail) */
	if (d->mp == NULL)
		d->mp = ordk_env_frame_pool("ordk_ibv_pool", 8191);
	if (d->mp == NULL) {
		OV_LOG(ERR, "no memory for the port's mbufs (more -m in ORDK_EAL)\n");
		return -ENOMEM;
	}
	if (!rte_eth_dev_is_valid_port((uint16_t)d->port)) {
		OV_LOG(ERR, "no ethdev port %d (give one with --vdev in ORDK_EAL)\n", d->port);
		return -ENODEV;
	}
	d->memif = port_is_memif((uint16_t)d->port);
	if (!d->client) /* a server does not wait: its peer comes when it comes */
		return ordk_env_port_start((uint16_t)d->port, d->mp) == 0 ? 0 : -EIO;
	/* a client waits for the link, restarting a memif client while it is down */
	rc = ordk_env_port_start_wait((uint16_t)d->port, d->mp, true, ORDK_ENV_PEER_WAIT_S);
	if (rc == -EIO)
		OV_LOG(ERR, "cannot start ethdev port %d\n", d->port);
	else if (rc != 0)
		OV_LOG(ERR, "port %d: link down after %.0f s (is the peer running?)\n", d->port,
		       ORDK_ENV_PEER_WAIT_S);
	return rc;
}

void
ov_port_end(struct ov_dev *d)
{
	struct rte_eth_link link;

	/*
	 * net_memif faults when polled after its peer left: the client polls a
	 * little (its last ACKs), then stops its port, which disconnects it; the
	 * server waits for that (see ordk_env_linger_server()), then removes a
	 * memif port (memif_server_unplug()). Nothing polls the device until the
	 * next open, which starts the port again (or probes it).
	 * EAL, the port and the device stay for the process: EAL cannot come up
	 * twice, and a program that reopens (qperf: once per test) gets the same
	 * device, as a kernel provider's would be.
	 */
	if (d->port >= 0 && rte_eth_link_get_nowait((uint16_t)d->port, &link) == 0 &&
	    link.link_status) {
		pthread_mutex_lock(&d->lock);
		if (d->client)
			ordk_env_linger(d->dev, 0.3);
		else
			ordk_env_linger_server(d->dev, 0.6);
		pthread_mutex_unlock(&d->lock);
	}
	if (d->port >= 0 && d->client) {
		rte_eal_alarm_cancel(rejoin_cb, d); /* waits for one that runs */
		atomic_store(&d->rejoin, REJOIN_IDLE);
		rte_eth_dev_stop((uint16_t)d->port);
		d->port_stopped = true;
		if (port_is_memif((uint16_t)d->port))
			memif_client_wait_unplug(d);
	} else if (d->port >= 0 && port_is_memif((uint16_t)d->port)) {
		memif_server_unplug(d);
	}
}
