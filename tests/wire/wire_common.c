/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "sim_host.h"
#include "wire_common.h"

/* An ethdev whose TX ring is side @p to's RX ring (its own RX ring stays empty). */
static uint16_t
injector(struct wire_env *w, int to)
{
	static int n;
	struct rte_ring *rx;
	char name[48];
	int port;

	snprintf(name, sizeof(name), "winj%d_rx", n);
	rx = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	cr_assert_not_null(rx);
	snprintf(name, sizeof(name), "winj%d", n++);
	port = rte_eth_from_rings(name, &rx, 1, &w->p.rx_ring[to], 1, SOCKET_ID_ANY);
	cr_assert_geq(port, 0, "injector port");
	test_port_start((uint16_t)port, w->mp);
	return (uint16_t)port;
}

void
wire_open(struct wire_env *w, size_t len, const char *devargs, uint32_t wr)
{
	memset(w, 0, sizeof(*w));
	func_pair_open_guarded(&w->p, len, devargs, WIRE_GUARD);
	func_pair_qps(&w->p, ORDK_MTU_1024, wr);
	w->mp = test_pool("wpool", 1023);
	for (int i = 0; i < 2; i++)
		w->inj[i] = injector(w, i);
}

void
wire_close(struct wire_env *w)
{
	cr_assert(func_pair_canaries_ok(&w->p), "a write landed outside every MR");
	for (int i = 0; i < 2; i++) {
		rte_eth_dev_stop(w->inj[i]);
		rte_eth_dev_close(w->inj[i]);
	}
	func_pair_close(&w->p);
}

void
wire_l3_to(const struct wire_env *w, int to, uint16_t udp_port, struct ordk_wire_l3 *l3)
{
	const struct ordk_dev_attr *dst = &w->p.s[to].attr, *src = &w->p.s[1 - to].attr;

	*l3 = (struct ordk_wire_l3){ .dst_mac = dst->mac, .src_mac = src->mac,
				     .src_ip = src->ip, .dst_ip = dst->ip,
				     .src_port = udp_port, .dst_port = udp_port,
				     .ip_id = ORDK_WIRE_CARD_IP_ID, .ttl = ORDK_WIRE_CARD_TTL,
				     .df = 1 };
}

void
wire_inject(struct wire_env *w, int to, const void *frame, uint32_t len)
{
	/* the models append and check the Ethernet FCS (bluesim's fcs=1 default) */
	struct rte_mbuf *m = test_frame_mbuf(w->mp, frame, len, true);

	cr_assert_eq(rte_eth_tx_burst(w->inj[to], 0, &m, 1), 1, "injector: ring full");
	w->injected[to]++;
}

void
wire_inject_rdma(struct wire_env *w, int to, struct ordk_wire_rdma *pkt, const void *payload,
		 uint32_t payload_len)
{
	uint8_t frame[ORDK_WIRE_MAX_FRAME];
	int n;

	wire_l3_to(w, to, ORDK_WIRE_ROCE_UDP_PORT, &pkt->l3);
	if (pkt->bth.dqpn == 0)
		pkt->bth.dqpn = ordk_qp_num(w->p.s[to].qp);
	n = ordk_wire_rdma_build(frame, sizeof(frame), pkt, payload, payload_len);
	cr_assert_gt(n, 0, "rdma build: %s", ordk_wire_strerror(n));
	wire_inject(w, to, frame, (uint32_t)n);
}

void
wire_inject_ctrl(struct wire_env *w, int to, struct ordk_ctrl_msg *m)
{
	struct ordk_wire_l3 l3;
	uint8_t frame[2048];
	int n;

	wire_l3_to(w, to, ORDK_WIRE_CTRL_UDP_PORT, &l3);
	if (m->src_qpn == 0)
		m->src_qpn = ordk_qp_num(w->p.s[1 - to].qp);
	if (m->dst_qpn == 0)
		m->dst_qpn = ordk_qp_num(w->p.s[to].qp);
	n = ordk_wire_ctrl_build(frame, sizeof(frame), &l3, m);
	cr_assert_gt(n, 0, "ctrl build: %s", ordk_wire_strerror(n));
	wire_inject(w, to, frame, (uint32_t)n);
}

struct ordk_stats
wire_qp_stats(const struct wire_env *w, int side)
{
	struct ordk_stats st;

	cr_assert_eq(ordk_qp_stats(w->p.s[side].qp, &st), 0);
	return st;
}
