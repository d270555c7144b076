/* SPDX-License-Identifier: BSD-3-Clause */
/* The test switch's forwarding over ethdevs (sw_switch.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>

#include "ordk_devargs.h"
#include "sw_switch.h"

#define BURST 32
/* frames a queue can hold: its byte capacity in minimum-size frames, at most this */
#define FIFO_MAX (1u << 16)

static uint32_t
fifo_size(uint64_t cap)
{
	uint64_t frames = cap / RTE_ETHER_MIN_LEN + 1;
	uint32_t n = 64;

	while (n < frames && n < FIFO_MAX)
		n <<= 1;
	return n;
}

static int
port_queue(struct sw_port *p, const struct sw_queue_cfg *cfg, uint64_t now_ns)
{
	uint32_t n = fifo_size(cfg->cap);
	struct rte_mbuf **fifo;

	if (sw_queue_init(&p->q, cfg, now_ns) != 0)
		return -EINVAL;
	if (p->fifo != NULL && p->fifo_mask + 1 >= n)
		return 0;
	fifo = calloc(n, sizeof(*fifo));
	if (fifo == NULL)
		return -ENOMEM;
	/* carry queued frames over in order */
	uint32_t k = 0;

	while (p->fifo != NULL && p->head != p->tail)
		fifo[k++] = p->fifo[p->head++ & p->fifo_mask];
	p->head = 0;
	p->tail = k;
	free(p->fifo);
	p->fifo = fifo;
	p->fifo_mask = n - 1;
	return 0;
}

int
sw_switch_init(struct sw_switch *sw, const uint16_t *ethdev, unsigned int n,
	       const struct sw_queue_cfg *cfg, uint64_t now_ns)
{
	memset(sw, 0, sizeof(*sw));
	if (n == 0 || n > SW_MAX_PORTS || ethdev == NULL || cfg == NULL)
		return -EINVAL;
	sw->nports = n;
	for (unsigned int i = 0; i < n; i++) {
		struct sw_queue_cfg c = *cfg;
		int rc;

		if (!rte_eth_dev_is_valid_port(ethdev[i])) {
			sw_switch_fini(sw);
			return -EINVAL;
		}
		sw->port[i].ethdev = ethdev[i];
		c.seed = cfg->seed + i;
		rc = port_queue(&sw->port[i], &c, now_ns);
		if (rc != 0) {
			sw_switch_fini(sw);
			return rc;
		}
	}
	return 0;
}

void
sw_switch_fini(struct sw_switch *sw)
{
	for (unsigned int i = 0; i < sw->nports; i++) {
		struct sw_port *p = &sw->port[i];

		while (p->fifo != NULL && p->head != p->tail)
			rte_pktmbuf_free(p->fifo[p->head++ & p->fifo_mask]);
		free(p->fifo);
		p->fifo = NULL;
	}
	sw->nports = 0;
}

int
sw_switch_set_queue(struct sw_switch *sw, unsigned int port, const struct sw_queue_cfg *cfg,
		    uint64_t now_ns)
{
	struct sw_port *p;
	uint64_t depth;

	if (port >= sw->nports || cfg == NULL)
		return -EINVAL;
	p = &sw->port[port];
	depth = p->q.depth;
	if (sw_queue_cfg_check(cfg, NULL, 0) != 0)
		return -EINVAL;
	if (port_queue(p, cfg, now_ns) != 0)
		return -ENOMEM;
	p->q.depth = depth;
	return 0;
}

static int
fdb_find(const struct sw_switch *sw, uint64_t mac)
{
	uint32_t h = (uint32_t)((mac * 0x9E3779B97F4A7C15ull) >> 56);

	for (uint32_t i = 0; i < SW_MAC_SLOTS; i++) {
		uint32_t s = (h + i) % SW_MAC_SLOTS;

		if (sw->fdb[s].mac == mac || sw->fdb[s].mac == 0)
			return (int)s;
	}
	return -1;
}

int
sw_switch_add_mac(struct sw_switch *sw, uint64_t mac, unsigned int port)
{
	int s;

	/* only unicast destinations are looked up: a group address's entry would never forward */
	if (port >= sw->nports || ordk_devargs_check_mac("mac", mac, NULL, 0) != 0)
		return -EINVAL;
	s = fdb_find(sw, mac);
	if (s < 0)
		return -ENOSPC;
	sw->fdb[s].mac = mac;
	sw->fdb[s].port = (uint8_t)port;
	return 0;
}

static uint64_t
mac_u64(const struct rte_ether_addr *a)
{
	uint64_t v = 0;

	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		v = v << 8 | a->addr_bytes[i];
	return v;
}

/* The IPv4 header of @p m, or NULL (not IPv4, or truncated). */
static struct rte_ipv4_hdr *
ipv4_of(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip;

	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*ip))
		return NULL;
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	if ((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xF) < 5 ||
	    rte_pktmbuf_data_len(m) < sizeof(*eh) + (ip->version_ihl & 0xFu) * 4)
		return NULL;
	return ip;
}

/*
 * CE into the ECN bits (RFC 3168 section 5), header checksum (and with @p fcs
 * the trailer: Ethernet's CRC-32 over the frame before it, least significant
 * byte first) recomputed.
 */
static void
set_ce(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, bool fcs)
{
	uint32_t len = rte_pktmbuf_data_len(m);

	ip->type_of_service |= 3;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (fcs && len >= 4 && m->nb_segs == 1) {
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
		uint32_t crc = rte_net_crc_calc(f, len - 4, RTE_NET_CRC32_ETH);

		for (int i = 0; i < 4; i++)
			f[len - 4 + i] = (uint8_t)(crc >> (8 * i));
	}
}

/* Queue @p m on @p out (the caller keeps no reference). */
static void
enqueue(const struct sw_switch *sw, struct sw_port *out, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = ipv4_of(m);
	uint8_t ecn = ip ? ip->type_of_service & 3 : SW_NO_ECN;
	enum sw_verdict v;

	if (out->tail - out->head > out->fifo_mask) {
		/* more frames than the FIFO holds: tail drop, counted as full */
		out->q.st.dropped_full++;
		rte_pktmbuf_free(m);
		return;
	}
	v = sw_queue_admit(&out->q, rte_pktmbuf_pkt_len(m), ecn);
	if (v == SW_DROP_FULL || v == SW_DROP_AQM) {
		rte_pktmbuf_free(m);
		return;
	}
	if (ip == NULL)
		out->st.not_ip++;
	else if (v == SW_ENQUEUE_MARK)
		set_ce(m, ip, sw->fcs);
	out->fifo[out->tail++ & out->fifo_mask] = m;
}

static void
forward(struct sw_switch *sw, unsigned int in, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint64_t src = mac_u64(&eh->src_addr), dst = mac_u64(&eh->dst_addr);
	int s;

	if (!rte_is_multicast_ether_addr(&eh->src_addr) && src != 0) {
		s = fdb_find(sw, src);
		if (s >= 0 && sw->fdb[s].mac == 0) { /* learn; static entries stay */
			sw->fdb[s].mac = src;
			sw->fdb[s].port = (uint8_t)in;
		}
	}
	s = rte_is_multicast_ether_addr(&eh->dst_addr) ? -1 : fdb_find(sw, dst);
	if (s >= 0 && sw->fdb[s].mac == dst) {
		if (sw->fdb[s].port == in)
			rte_pktmbuf_free(m); /* already on its segment */
		else
			enqueue(sw, &sw->port[sw->fdb[s].port], m);
		return;
	}
	sw->port[in].st.flooded++;
	for (unsigned int o = 0; o < sw->nports; o++) {
		struct rte_mbuf *c;

		if (o == in)
			continue;
		c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (c != NULL)
			enqueue(sw, &sw->port[o], c);
	}
	rte_pktmbuf_free(m);
}

/* One burst of what the shaper allows; @return frames sent, -1 when the port refused some. */
static int
transmit_burst(struct sw_port *p, uint64_t now_ns)
{
	struct rte_mbuf *burst[BURST];
	uint16_t n = 0, sent;

	while (n < BURST && p->head + n != p->tail) {
		struct rte_mbuf *m = p->fifo[(p->head + n) & p->fifo_mask];

		if (!sw_queue_dequeue(&p->q, rte_pktmbuf_pkt_len(m), now_ns))
			break;
		burst[n++] = m;
	}
	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(p->ethdev, 0, burst, n);
	p->head += sent;
	/* the port is full: the rest stay queued, their cost given back, newest first */
	for (uint16_t i = n; i > sent; i--) {
		sw_queue_unsend(&p->q, rte_pktmbuf_pkt_len(burst[i - 1]));
		p->st.tx_retry++;
	}
	return sent < n ? -1 : sent;
}

/*
 * Everything the shaper allows, burst after burst, until the queue is empty,
 * the bucket is, or the port refuses: an unshaped port is then as fast as
 * the port, not one burst per poll.
 */
static unsigned int
transmit(struct sw_port *p, uint64_t now_ns)
{
	unsigned int total = 0;
	int n;

	do {
		n = transmit_burst(p, now_ns);
		total += n > 0 ? (unsigned int)n : 0;
	} while (n == BURST);
	return total;
}

static void
trace_rows(struct sw_switch *sw, uint64_t now_ns)
{
	if (sw->trace == NULL || now_ns < sw->trace_next_ns)
		return;
	for (unsigned int i = 0; i < sw->nports; i++)
		fprintf(sw->trace, "%" PRIu64 ",port%u,queue_bytes,%" PRIu64 "\n", now_ns, i,
			sw->port[i].q.depth);
	sw->trace_next_ns = now_ns + sw->trace_every_ns;
}

unsigned int
sw_switch_poll(struct sw_switch *sw, uint64_t now_ns)
{
	unsigned int moved = 0;

	for (unsigned int i = 0; i < sw->nports; i++) {
		struct rte_mbuf *rx[BURST];
		uint16_t n = rte_eth_rx_burst(sw->port[i].ethdev, 0, rx, BURST);

		for (uint16_t k = 0; k < n; k++) {
			sw->port[i].st.rx++;
			if (rte_pktmbuf_data_len(rx[k]) < sizeof(struct rte_ether_hdr)) {
				sw->port[i].st.rx_bad++;
				rte_pktmbuf_free(rx[k]);
				continue;
			}
			forward(sw, i, rx[k]);
		}
		moved += n;
	}
	for (unsigned int i = 0; i < sw->nports; i++)
		moved += transmit(&sw->port[i], now_ns);
	trace_rows(sw, now_ns);
	return moved;
}

void
sw_switch_trace(struct sw_switch *sw, FILE *f, uint64_t every_ns, uint64_t now_ns)
{
	sw->trace = f;
	sw->trace_every_ns = every_ns;
	sw->trace_next_ns = now_ns;
}

void
sw_switch_print_stats(const struct sw_switch *sw, FILE *f)
{
	fprintf(f, "%-5s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "port", "rx", "enqueued",
		"marked", "drop_full", "drop_aqm", "sent", "depth", "max_depth", "p99_depth");
	for (unsigned int i = 0; i < sw->nports; i++) {
		const struct sw_port *p = &sw->port[i];

		fprintf(f,
			"%-5u %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
			i, p->st.rx, p->q.st.enqueued, p->q.st.marked, p->q.st.dropped_full,
			p->q.st.dropped_aqm, p->q.st.sent, p->q.depth, p->q.st.max_depth,
			sw_queue_depth_quantile(&p->q, 0.99));
	}
}
