/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_errno.h>
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
	wire_open_qps(w, len, devargs, wr, wr);
}

void
wire_open_qps(struct wire_env *w, size_t len, const char *devargs, uint32_t wr0, uint32_t wr1)
{
	memset(w, 0, sizeof(*w));
	func_pair_open_guarded(&w->p, len, devargs, WIRE_GUARD);
	for (int i = 0; i < 2; i++) {
		struct ordk_qp_init_attr ia = { .send_cq = w->p.s[i].cq, .recv_cq = w->p.s[i].cq,
						.max_send_wr = i ? wr1 : wr0,
						.max_recv_wr = i ? wr1 : wr0 };

		w->p.s[i].qp = ordk_qp_create(w->p.s[i].pd, &ia);
		cr_assert_not_null(w->p.s[i].qp, "qp_create: %s", rte_strerror(rte_errno));
	}
	func_connect(&w->p.s[0], w->p.s[0].qp, &w->p.s[1], w->p.s[1].qp, ORDK_MTU_1024);
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
wire_l3_to(const struct wire_env *w, int to, uint16_t udp_port, struct blue_wire_l3 *l3)
{
	const struct ordk_dev_attr *dst = &w->p.s[to].attr, *src = &w->p.s[1 - to].attr;

	*l3 = (struct blue_wire_l3){ .dst_mac = dst->mac, .src_mac = src->mac,
				     .src_ip = src->ip, .dst_ip = dst->ip,
				     .src_port = udp_port, .dst_port = udp_port,
				     .ip_id = BLUE_WIRE_CARD_IP_ID, .ttl = BLUE_WIRE_CARD_TTL,
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
wire_inject_rdma(struct wire_env *w, int to, struct blue_wire_rdma *pkt, const void *payload,
		 uint32_t payload_len)
{
	uint8_t frame[BLUE_WIRE_MAX_FRAME];
	int n;

	wire_l3_to(w, to, BLUE_WIRE_ROCE_UDP_PORT, &pkt->l3);
	if (pkt->bth.dqpn == 0)
		pkt->bth.dqpn = ordk_qp_num(w->p.s[to].qp);
	n = blue_wire_rdma_build(frame, sizeof(frame), pkt, payload, payload_len);
	cr_assert_gt(n, 0, "rdma build: %s", blue_wire_strerror(n));
	wire_inject(w, to, frame, (uint32_t)n);
}

void
wire_inject_ctrl(struct wire_env *w, int to, struct blue_ctrl_msg *m)
{
	struct blue_wire_l3 l3;
	uint8_t frame[2048];
	int n;

	wire_l3_to(w, to, BLUE_WIRE_CTRL_UDP_PORT, &l3);
	if (m->src_qpn == 0)
		m->src_qpn = ordk_qp_num(w->p.s[1 - to].qp);
	if (m->dst_qpn == 0)
		m->dst_qpn = ordk_qp_num(w->p.s[to].qp);
	n = blue_wire_ctrl_build(frame, sizeof(frame), &l3, m);
	cr_assert_gt(n, 0, "ctrl build: %s", blue_wire_strerror(n));
	wire_inject(w, to, frame, (uint32_t)n);
}

int
wire_post(struct wire_env *w, int side, enum ordk_wr_opcode op, size_t loff, size_t roff,
	  uint32_t len, uint64_t wr_id, uint32_t rkey)
{
	struct func_side *me = &w->p.s[side], *peer = &w->p.s[1 - side];
	struct ordk_send_wr wr = { .wr_id = wr_id, .opcode = op, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = 1 };
	bool atomic = op == ORDK_WR_ATOMIC_CMP_AND_SWP || op == ORDK_WR_ATOMIC_FETCH_AND_ADD;

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)me->buf + loff, len, me->mr->lkey };
	if (atomic) {
		wr.atomic.remote_addr = (uint64_t)(uintptr_t)peer->buf + roff;
		wr.atomic.rkey = rkey ? rkey : peer->mr->rkey;
		wr.atomic.compare_add = 1;
	} else {
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)peer->buf + roff;
		wr.rdma.rkey = rkey ? rkey : peer->mr->rkey;
	}
	return ordk_qp_post_send(me->qp, &wr, 1);
}

struct ordk_stats
wire_qp_stats(const struct wire_env *w, int side)
{
	struct ordk_stats st;

	cr_assert_eq(ordk_qp_stats(w->p.s[side].qp, &st), 0);
	return st;
}
