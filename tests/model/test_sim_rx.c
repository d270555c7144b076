/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bluesim receive: checks and drop reasons, meta report rules, the PSN bitmap's
 * loss ACK and idle report, back-pressure on a full MetaReport ring, SimpleNic RX
 * (doc/guides/drivers/blue_hw_interface.md section 5.1).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "sim_peer.h"

static struct sim_host h;
static struct rte_ring *wire_rx, *wire_tx;
static struct rte_mempool *mp;
static uint8_t *dst;

static void
setup(void)
{
	struct bluesim_config cfg;

	test_eal_init(NULL);
	mp = test_pool("rx_pool", 8191);
	bluesim_config_defaults(&cfg);
	sim_host_init_wire(&h, &cfg, "rxw", mp, &wire_rx, &wire_tx);
	sim_host_start(&h, MAC_B, IP_B);
	dst = aligned_alloc(4096, MR_LEN);
	memset(dst, 0, MR_LEN);
	cr_assert(sim_host_reg_mr(&h, RKEY, dst, MR_LEN, BLUE_ACC_ALL, 0));
	cr_assert(sim_host_qp(&h, QPN, PEER_QPN, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
}

static void
teardown(void)
{
	sim_host_fini(&h);
	free(dst);
}

TestSuite(sim_rx, .init = setup, .fini = teardown);

static struct blue_wire_rdma
pkt(uint8_t op, uint32_t psn, uint32_t off, uint32_t dlen)
{
	return sim_peer_pkt(op, QPN, psn, (uint64_t)(uintptr_t)dst + off, dlen);
}

/* Build the frame, let @p edit change bytes, put it on the wire with an FCS. */
static void
inject_raw(const struct blue_wire_rdma *p, uint32_t plen, void (*edit)(uint8_t *, int))
{
	static uint8_t buf[BLUE_WIRE_MAX_FRAME], pay[4096];
	struct rte_mbuf *m;
	int n;

	for (uint32_t i = 0; i < plen; i++)
		pay[i] = (uint8_t)(p->bth.psn * 3 + i);
	n = blue_wire_rdma_build(buf, sizeof(buf), p, pay, plen);
	cr_assert_gt(n, 0, "%s", blue_wire_strerror(n));
	if (edit != NULL)
		edit(buf, n);
	m = test_frame_mbuf(mp, buf, (uint32_t)n, true);
	cr_assert_eq(rte_ring_enqueue(wire_rx, m), 0);
}

static void
inject(const struct blue_wire_rdma *p, uint32_t plen)
{
	inject_raw(p, plen, NULL);
	sim_host_poll(&h, 4);
}

/* ---------------------------------------------------------- drop reasons */

static void
expect_drop(const char *counter, enum blue_rq_counter reg)
{
	cr_assert_eq(bluesim_xstat(h.sim, counter), 1, "%s", counter);
	cr_assert_eq(sim_host_reg(&h, BLUE_REG_RQ_COUNTER(0, reg)), 1, "BAR0 mirror of %s",
		     counter);
	cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 0, "%s: a dropped packet is not reported",
		     counter);
	for (uint32_t i = 0; i < 4096; i++)
		cr_assert_eq(dst[i], 0, "%s: memory written", counter);
	bluesim_xstats_reset(h.sim);
}

static void
break_csum(uint8_t *f, int n)
{
	(void)n;
	f[24] ^= 0x55;
}

static void
opcode_0x12(uint8_t *f, int n)
{
	(void)n;
	f[42] = 0x12;
}

Test(sim_rx, every_drop_reason)
{
	struct blue_wire_rdma p;

	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.bth.dqpn = 0x000401; /* index 4: no QPC */
	inject(&p, 64);
	expect_drop("drop_invalid_qp_context", BLUE_RQ_CNT_INVALID_QP_CONTEXT);
}

#define DROP_TEST(name, counter, reg, body)                      \
	Test(sim_rx, drop_##name)                                \
	{                                                        \
		struct blue_wire_rdma p;                         \
		body;                                            \
		expect_drop(counter, reg);                       \
	}

DROP_TEST(qp_key_mismatch, "drop_invalid_qp_context", BLUE_RQ_CNT_INVALID_QP_CONTEXT, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.bth.dqpn = 0x000302; /* right index, wrong key */
	inject(&p, 64);
})

DROP_TEST(qp_index_overflow, "drop_invalid_qp_context", BLUE_RQ_CNT_INVALID_QP_CONTEXT, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.bth.dqpn = 0x040001; /* index 1024 */
	inject(&p, 64);
})

DROP_TEST(invalid_opcode, "drop_invalid_opcode", BLUE_RQ_CNT_INVALID_OPCODE, {
	p = pkt(BLUE_OP_ACKNOWLEDGE, 0, 0, 0);
	inject_raw(&p, 0, opcode_0x12);
	sim_host_poll(&h, 4);
})

DROP_TEST(invalid_header, "drop_invalid_header", BLUE_RQ_CNT_INVALID_HEADER, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	inject_raw(&p, 64, break_csum);
	sim_host_poll(&h, 4);
})

DROP_TEST(length_parse, "drop_length_error", BLUE_RQ_CNT_PACKET_LENGTH_ERROR, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 65); /* RETH dlen != payload */
	inject(&p, 64);
})

DROP_TEST(length_middle_not_pmtu, "drop_length_error", BLUE_RQ_CNT_PACKET_LENGTH_ERROR, {
	p = pkt(BLUE_OP_WRITE_MIDDLE, 0, 0, 100); /* PMTU is 256 */
	inject(&p, 100);
})

DROP_TEST(length_first_unaligned, "drop_length_error", BLUE_RQ_CNT_PACKET_LENGTH_ERROR, {
	p = pkt(BLUE_OP_WRITE_FIRST, 0, 10, 4096); /* FIRST must be 256 - 10 bytes */
	inject(&p, 256);
})

DROP_TEST(qp_access, "drop_invalid_qp_access", BLUE_RQ_CNT_INVALID_QP_ACCESS, {
	cr_assert(sim_host_qp(&h, 0x000502, PEER_QPN, IP_A, MAC_A, BLUE_PMTU_256,
			      BLUE_ACC_LOCAL_WRITE));
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.bth.dqpn = 0x000502; /* WRITE needs REMOTE_WRITE in the QP */
	inject(&p, 64);
})

DROP_TEST(read_resp_needs_local_write, "drop_invalid_qp_access", BLUE_RQ_CNT_INVALID_QP_ACCESS, {
	cr_assert(sim_host_qp(&h, 0x000502, PEER_QPN, IP_A, MAC_A, BLUE_PMTU_256,
			      BLUE_ACC_REMOTE_WRITE));
	p = pkt(BLUE_OP_READ_RESPONSE_ONLY, 0, 0, 64);
	p.bth.dqpn = 0x000502;
	inject(&p, 64);
})

DROP_TEST(mr_key_index, "drop_invalid_mr_key", BLUE_RQ_CNT_INVALID_MR_KEY, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.reth.rkey = 0x001F0001; /* slot 7936: never registered */
	inject(&p, 64);
})

DROP_TEST(mr_key_part, "drop_invalid_mr_key", BLUE_RQ_CNT_INVALID_MR_KEY, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.reth.rkey = RKEY ^ 0x80; /* right slot, stale key */
	inject(&p, 64);
})

DROP_TEST(mr_key_beyond_table, "drop_invalid_mr_key", BLUE_RQ_CNT_INVALID_MR_KEY, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.reth.rkey = 0x00200000; /* index 8192 */
	inject(&p, 64);
})

DROP_TEST(mr_access_write, "drop_invalid_mr_access", BLUE_RQ_CNT_INVALID_MR_ACCESS, {
	cr_assert(sim_host_reg_mr(&h, 0x00004302, dst, MR_LEN, BLUE_ACC_LOCAL_WRITE, 100));
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.reth.rkey = 0x00004302;
	inject(&p, 64);
})

DROP_TEST(mr_access_send, "drop_invalid_mr_access", BLUE_RQ_CNT_INVALID_MR_ACCESS, {
	cr_assert(sim_host_reg_mr(&h, 0x00004403, dst, MR_LEN, BLUE_ACC_REMOTE_WRITE, 100));
	p = pkt(BLUE_OP_SEND_ONLY, 0, 0, 64);
	p.reth.rkey = 0x00004403; /* SEND places into an MR that needs LOCAL_WRITE */
	inject(&p, 64);
})

DROP_TEST(out_of_bound_end, "drop_mem_out_of_bound", BLUE_RQ_CNT_MEM_OUT_OF_BOUND, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, MR_LEN - 32, 64);
	inject(&p, 64);
})

DROP_TEST(out_of_bound_below, "drop_mem_out_of_bound", BLUE_RQ_CNT_MEM_OUT_OF_BOUND, {
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.reth.va -= 64;
	inject(&p, 64);
})

Test(sim_rx, filtered_fcs_and_not_ready)
{
	struct blue_wire_rdma p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	struct bluesim_config cfg;
	struct sim_host h2;

	p.l3.dst_mac = 0x020000000099ull;
	inject(&p, 64);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_filtered"), 1, "wrong MAC");
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.l3.dst_ip = IP_B + 1;
	inject(&p, 64);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_filtered"), 2, "wrong IP");
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 64);
	p.l3.dst_mac = BLUE_WIRE_BROADCAST_MAC;
	inject(&p, 64);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_rdma"), 1, "broadcast MAC passes the filter");
	cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 1);
	cr_assert_eq(sim_host_reg(&h, BLUE_REG_RX_CLASS_COUNTER(0, BLUE_RX_CLASS_DISCARDED)), 2);

	p = pkt(BLUE_OP_WRITE_ONLY, 1, 0, 64);
	{
		uint8_t buf[256];
		int n = blue_wire_rdma_build(buf, sizeof(buf), &p, dst, 64);
		struct rte_mbuf *m = test_frame_mbuf(mp, buf, (uint32_t)n, true);

		rte_pktmbuf_mtod(m, uint8_t *)[60] ^= 1; /* corrupted on the wire */
		rte_ring_enqueue(wire_rx, m);
		sim_host_poll(&h, 4);
	}
	cr_assert_eq(bluesim_xstat(h.sim, "rx_fcs_error"), 1);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_rdma"), 1, "a corrupted frame never reaches the checks");

	/* a model that has not had SetNetworkParam drops everything */
	bluesim_config_defaults(&cfg);
	sim_host_init(&h2, &cfg);
	sim_host_snic_tx(&h2, "\xff\xff\xff\xff\xff\xff\x02\x00\x00\x00\x00\x01\x08\x06xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 60);
	sim_host_poll(&h2, 8);
	cr_assert_eq(bluesim_xstat(h2.sim, "tx_simple_nic"), 1);
	cr_assert_eq(bluesim_xstat(h2.sim, "rx_not_ready"), 1, "loopback frame dropped before SetNetworkParam");
	sim_host_fini(&h2);
}

/* ------------------------------------------------------------ meta rules */

Test(sim_rx, reports_first_last_only_and_retried_middle)
{
	struct blue_meta_report r[16];
	struct blue_wire_rdma p;
	int n;

	/* a 5-packet WRITE: FIRST, 3 x MIDDLE, LAST */
	for (uint32_t i = 0; i < 5; i++) {
		uint8_t op = i == 0 ? BLUE_OP_WRITE_FIRST : i == 4 ? BLUE_OP_WRITE_LAST
								 : BLUE_OP_WRITE_MIDDLE;

		p = pkt(op, i, 256 * i, i == 0 ? 1280 : 256);
		inject(&p, 256);
	}
	n = sim_host_meta_all(&h, r, 16);
	cr_assert_eq(n, 2, "MIDDLE packets are not reported");
	cr_assert_eq(r[0].kind, BLUE_META_HEADER_WRITE);
	cr_assert_eq(r[0].opcode, BLUE_OP_WRITE_FIRST);
	cr_assert_eq(r[0].basic.psn, 0);
	cr_assert_eq(r[0].basic.total_len, 1280);
	cr_assert_eq(r[0].basic.dqpn, QPN);
	cr_assert_eq(r[0].basic.msn, 7);
	cr_assert_eq(r[0].basic.ack_req, 1);
	cr_assert_eq(r[0].basic.ecn_marked, 0);
	cr_assert_eq(r[0].basic.rkey, RKEY);
	cr_assert_eq(r[1].opcode, BLUE_OP_WRITE_LAST);
	cr_assert_eq(r[1].basic.psn, 4);
	cr_assert_eq(r[1].basic.raddr, (uint64_t)(uintptr_t)dst + 1024);
	for (uint32_t i = 0; i < 1280; i++)
		cr_assert_eq(dst[i], (uint8_t)((i / 256) * 3 + i % 256), "byte %u placed", i);

	/* idle: after the timeout, one local report with the bitmap */
	h.now_ns += 10000;
	sim_host_poll(&h, 2);
	cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 0, "not before the idle timeout");
	h.now_ns += 20000;
	sim_host_poll(&h, 2);
	n = sim_host_meta_all(&h, r, 16);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0].kind, BLUE_META_ACK_LOCAL_HW);
	cr_assert_eq(r[0].ack.qpn, QPN);
	cr_assert_eq(r[0].ack.psn_now, 0, "psn_now = 16 * L with L = stride 0");
	cr_assert_eq(r[0].ack.now_bitmap.hi >> 48, 0x1F, "PSNs 0-4 are bits 112-116");
	h.now_ns += 100000;
	sim_host_poll(&h, 2);
	cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 0, "one idle report per quiet period");

	/* a retried MIDDLE is reported */
	p = pkt(BLUE_OP_WRITE_MIDDLE, 2, 512, 256);
	p.bth.is_retry = 1;
	inject(&p, 256);
	n = sim_host_meta_all(&h, r, 16);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0].opcode, BLUE_OP_WRITE_MIDDLE);
	cr_assert_eq(r[0].basic.is_retry, 1);
}

Test(sim_rx, read_request_and_acks)
{
	struct blue_meta_report r[4];
	struct blue_wire_rdma p = pkt(BLUE_OP_READ_REQUEST, 9, 0, 1u << 20);

	p.reth.rkey = 0x00FFFF00; /* READ requests skip the MR checks */
	p.rreth = (struct blue_wire_rreth){ .va = 0x7F0011223344ull, .lkey = 0x5566 };
	inject(&p, 0);
	cr_assert_eq(sim_host_meta_all(&h, r, 4), 1);
	cr_assert_eq(r[0].kind, BLUE_META_HEADER_READ);
	cr_assert_eq(r[0].ndesc, 2);
	cr_assert_eq(r[0].basic.psn, 9);
	cr_assert_eq(r[0].basic.rkey, 0x00FFFF00);
	cr_assert_eq(r[0].read_ext.laddr, 0x7F0011223344ull);
	cr_assert_eq(r[0].read_ext.lkey, 0x5566);
	cr_assert_eq(r[0].read_ext.total_len, 1u << 20);

	/* the peer driver's ACK */
	p = pkt(BLUE_OP_ACKNOWLEDGE, 0x100, 0, 0);
	p.aeth = (struct blue_wire_aeth){ .now_bitmap = { ~0ull, ~0ull }, .is_send_by_driver = 1,
					  .pre_psn = 0x80 };
	inject(&p, 0);
	cr_assert_eq(sim_host_meta_all(&h, r, 4), 1);
	cr_assert_eq(r[0].kind, BLUE_META_ACK_REMOTE_DRIVER);
	cr_assert_eq(r[0].ack.psn_now, 0x100);
	cr_assert_eq(r[0].ack.qpn, QPN);
	cr_assert_eq(r[0].ack.msn, 7);

	/* the peer card's loss ACK */
	p = pkt(BLUE_OP_ACKNOWLEDGE, 0x90, 0, 0);
	p.aeth = (struct blue_wire_aeth){ .pre_bitmap = { 0xFFFF0000FFFFFFFFull, ~0ull },
					  .now_bitmap = { 0x1234, 0 }, .is_packet_lost = 1,
					  .is_window_slided = 1, .pre_psn = 0x80 };
	inject(&p, 0);
	cr_assert_eq(sim_host_meta_all(&h, r, 4), 1);
	cr_assert_eq(r[0].kind, BLUE_META_NAK_REMOTE_HW);
	cr_assert_eq(r[0].ndesc, 2, "Ack + AckExtra, contiguous");
	cr_assert_eq(r[0].ack.pre_bitmap.lo, 0xFFFF0000FFFFFFFFull);
	cr_assert_eq(r[0].ack.now_bitmap.lo, 0x1234);
	cr_assert_eq(r[0].ack.psn_before_slide, 0x80);
	cr_assert_eq(bluesim_xstat(h.sim, "acks_received"), 2);
}

/* ---------------------------------------------------------------- bitmap */

Test(sim_rx, lost_packet_makes_a_loss_ack_and_a_local_report)
{
	struct blue_meta_report r[300];
	struct blue_wire_rdma p, ack;
	struct rte_mbuf *m;
	int n, naks = 0;

	for (uint32_t psn = 0; psn <= 128; psn++) {
		if (psn == 5)
			continue; /* lost */
		p = pkt(BLUE_OP_WRITE_ONLY, psn, psn * 8, 8);
		inject_raw(&p, 8, NULL);
		if (psn % 16 == 0)
			sim_host_poll(&h, 8);
	}
	sim_host_poll(&h, 16);
	cr_assert_eq(bluesim_xstat(h.sim, "loss_detected"), 1);

	/* the ACK frame to the peer */
	cr_assert_eq(rte_ring_dequeue(wire_tx, (void **)&m), 0, "loss ACK on the wire");
	cr_assert_eq(blue_wire_rdma_parse(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m),
					  BLUE_WIRE_F_FCS, &ack), 0);
	rte_pktmbuf_free(m);
	cr_assert_eq(rte_ring_count(wire_tx), 0, "exactly one");
	cr_assert_eq(ack.bth.opcode, BLUE_OP_ACKNOWLEDGE);
	cr_assert_eq(ack.bth.dqpn, PEER_QPN);
	cr_assert_eq(ack.l3.dst_mac, MAC_A);
	cr_assert_eq(ack.l3.dst_ip, IP_A);
	cr_assert_eq(ack.l3.src_mac, MAC_B);
	cr_assert_eq(ack.l3.src_port, 0x100, "local_udp_port");
	cr_assert_eq(ack.bth.psn, 128, "16 * L_new");
	cr_assert_eq(ack.bth.msn, 0, "first loss ACK of the QP");
	cr_assert_eq(ack.aeth.pre_psn, 112, "16 * L_old");
	cr_assert(ack.aeth.is_packet_lost && ack.aeth.is_window_slided && !ack.aeth.is_send_by_driver);
	/* pre window: PSNs 0..127, all but PSN 5 */
	cr_assert_eq(ack.aeth.pre_bitmap.lo, ~(1ull << 5));
	cr_assert_eq(ack.aeth.pre_bitmap.hi, ~0ull);
	/* now window: PSNs 16..143; 16..128 received = bits 0..112 */
	cr_assert_eq(ack.aeth.now_bitmap.lo, ~0ull);
	cr_assert_eq(ack.aeth.now_bitmap.hi, (1ull << 49) - 1);

	n = sim_host_meta_all(&h, r, 300);
	for (int i = 0; i < n; i++) {
		if (r[i].kind != BLUE_META_NAK_LOCAL_HW)
			continue;
		naks++;
		cr_assert_eq(r[i].ack.qpn, QPN);
		cr_assert_eq(r[i].ack.psn_now, 128);
		cr_assert_eq(r[i].ack.psn_before_slide, 112);
		cr_assert_eq(r[i].ack.pre_bitmap.lo, ~(1ull << 5));
		cr_assert_eq(r[i].ack.now_bitmap.hi, (1ull << 49) - 1);
	}
	cr_assert_eq(naks, 1);
	cr_assert_eq(n, 128 + 1, "128 ONLY packets reported + the local loss report");
}

Test(sim_rx, far_jump_counts_as_loss_and_old_packets_are_ignored)
{
	struct blue_wire_rdma p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 8);

	inject(&p, 8);
	p = pkt(BLUE_OP_WRITE_ONLY, 16 * 9, 0, 8); /* 9 strides ahead: window cleared */
	inject(&p, 8);
	cr_assert_eq(bluesim_xstat(h.sim, "loss_detected"), 1);
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 8); /* now older than the window: ignored */
	inject(&p, 8);
	cr_assert_eq(bluesim_xstat(h.sim, "loss_detected"), 1);
	/* ManageQp resets the window: PSN 0 slides in cleanly again */
	cr_assert(sim_host_qp(&h, QPN, PEER_QPN, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
	inject(&p, 8);
	cr_assert_eq(bluesim_xstat(h.sim, "loss_detected"), 1);
	/* a first PSN far from 0 is a loss on the card (documented quirk) */
	cr_assert(sim_host_qp(&h, QPN, PEER_QPN, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
	p = pkt(BLUE_OP_WRITE_ONLY, 0x3341FD, 0, 8);
	inject(&p, 8);
	cr_assert_eq(bluesim_xstat(h.sim, "loss_detected"), 2);
}

/*
 * The card limit behind ordk_qp_modify's first-PSN check (blue_proto.h): the
 * reset window is stride 0xFFFFF with every bit set, so a first PSN in it
 * finds PSNs it never got reported as arrived, and a loss there is never
 * reported. First PSN 0xfffff0: only it arrives, then PSN 0 after the wrap;
 * the idle report still says 0xfffff1..0xffffff arrived, and no loss report.
 */
Test(sim_rx, reset_window_claims_psns_of_its_own_stride)
{
	struct blue_meta_report r[8];
	struct blue_wire_rdma p = pkt(BLUE_OP_WRITE_FIRST, 0xFFFFF0, 0, 4096);
	int n;

	inject(&p, 256);
	p = pkt(BLUE_OP_WRITE_MIDDLE, 0x000000, 4096, 256); /* 0xfffff1..0xffffff lost */
	inject(&p, 256);
	cr_assert_eq(sim_host_meta_all(&h, r, 8), 1, "the FIRST");
	h.now_ns += 30000;
	sim_host_poll(&h, 2);
	n = sim_host_meta_all(&h, r, 8);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0].kind, BLUE_META_ACK_LOCAL_HW, "an idle report, no loss report");
	cr_assert_eq(r[0].ack.psn_now, 0x000000);
	/* bit i is PSN 0xffff90 + i: 0xfffff0..0xffffff are bits 96..111, all set */
	cr_assert_eq((r[0].ack.now_bitmap.hi >> 32) & 0xFFFF, 0xFFFF,
		     "the card says 0xfffff1..0xffffff arrived");
	cr_assert_eq(bluesim_xstat(h.sim, "loss_detected"), 0);
}

/* -------------------------------------------------------- back-pressure */

Test(sim_rx, full_meta_ring_holds_reports_in_order, .timeout = 120)
{
	const uint32_t N = 6000;
	struct blue_meta_report r;
	uint32_t next = 0;

	for (uint32_t psn = 0; psn < N; psn++) {
		struct blue_wire_rdma p = pkt(BLUE_OP_WRITE_ONLY, psn, 0, 4);

		inject_raw(&p, 4, NULL);
		if (psn % 256 == 255)
			sim_host_poll(&h, 16); /* the host consumes nothing */
	}
	sim_host_poll(&h, 400);
	/* exactly a ring's worth is posted, the rest held */
	cr_assert_eq(blue_ring_count(sim_host_reg(&h, BLUE_RING_REG(BLUE_META_RING_BASE(0),
								    BLUE_CSR_REG_HEAD)),
				     0),
		     4096);
	cr_assert_gt(bluesim_xstat(h.sim, "meta_backpressure"), 0);
	for (int round = 0; round < 200 && next < N; round++) {
		while (sim_host_meta(&h, &r) > 0) {
			cr_assert_eq(r.kind, BLUE_META_HEADER_WRITE);
			cr_assert_eq(r.basic.psn, next, "in order, none lost");
			next++;
		}
		sim_host_poll(&h, 4);
	}
	cr_assert_eq(next, N);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_rdma"), N);
}

/* ------------------------------------------------------------ SimpleNic */

Test(sim_rx, simple_nic_rx_and_full_ring)
{
	uint8_t arp[60] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0, 0, 0, 0, 1, 0x08, 0x06 };
	uint8_t got[2048];
	struct blue_ctrl_msg msg = { .type = BLUE_CTRL_RECV_ADVERT_ACK };
	struct blue_wire_l3 l3 = { .dst_mac = MAC_B, .src_mac = MAC_A, .src_ip = IP_A,
				   .dst_ip = IP_B, .ttl = 64 };
	uint8_t ctrl[128];
	int n;

	arp[20] = 0x42;
	rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, arp, 60, true));
	n = blue_wire_ctrl_build(ctrl, sizeof(ctrl), &l3, &msg);
	rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, ctrl, (uint32_t)n, true));
	sim_host_poll(&h, 4);
	cr_assert_eq(sim_host_snic_rx(&h, got), 60);
	cr_assert_eq(memcmp(got, arp, 60), 0);
	cr_assert_eq(sim_host_snic_rx(&h, got), (uint32_t)n, "control frames take the SimpleNic path");
	cr_assert_eq(memcmp(got, ctrl, (size_t)n), 0);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_simple_nic"), 2);

	/* fill the RX ring without consuming; the next frame is dropped, RDMA goes on */
	for (int i = 0; i < 4098; i++) {
		rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, arp, 60, true));
		if (i % 512 == 511)
			sim_host_poll(&h, 32);
	}
	sim_host_poll(&h, 64);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_simple_nic_ring_full"), 2);
	{
		struct blue_wire_rdma p = pkt(BLUE_OP_WRITE_ONLY, 0, 0, 16);

		inject(&p, 16);
		cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 1,
			     "RDMA not stalled by a full SimpleNic ring");
	}
}

/* ------------------------------------------------------- chained frames */

/* @p f (@p n bytes with its FCS) in segments of @p cut[0], @p cut[1], ... bytes, the rest last. */
static struct rte_mbuf *
chained(const uint8_t *f, uint32_t n, const uint32_t *cut, unsigned int ncut)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	for (unsigned int i = 0; i <= ncut; i++) {
		uint32_t len = i < ncut ? cut[i] : n - off;
		struct rte_mbuf *s = rte_pktmbuf_alloc(mp);

		cr_assert_not_null(s);
		memcpy(rte_pktmbuf_append(s, (uint16_t)len), f + off, len);
		off += len;
		if (head == NULL)
			head = s;
		else
			cr_assert_eq(rte_pktmbuf_chain(head, s), 0);
	}
	return head;
}

/*
 * A port may deliver a frame in several mbufs (net_memif gives a chained mbuf
 * one descriptor per segment): with the headers in the first segment the
 * payload goes from each segment straight into the MR, the FCS checked over
 * all of them, even split; a first segment shorter than the headers, or a
 * broken FCS, is handled as before (one copy; a drop).
 */
Test(sim_rx, chained_frames_are_placed_in_place)
{
	static uint8_t buf[BLUE_WIRE_MAX_FRAME], pay[256];
	const uint32_t cuts[3][3] = { { BLUE_WIRE_RDMA_HLEN, 256, 0 },	  /* zcopy's shape */
				      { BLUE_WIRE_RDMA_HLEN + 10, 100, 148 }, /* FCS split */
				      { 40, 0, 0 } };			  /* headers split */
	const unsigned int ncut[3] = { 2, 3, 1 };
	struct blue_wire_rdma p;
	int n;

	for (uint32_t k = 0; k < 3; k++) {
		p = pkt(BLUE_OP_WRITE_ONLY, k, 256 * k, 256);
		for (uint32_t i = 0; i < 256; i++)
			pay[i] = (uint8_t)(k * 7 + i);
		n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 256);
		cr_assert_gt(n, 0);
		cr_assert_eq(n, BLUE_WIRE_RDMA_HLEN + 256, "headers fill the first cut");
		blue_wire_fcs_append(buf, (uint32_t)n, sizeof(buf));
		cr_assert_eq(rte_ring_enqueue(wire_rx, chained(buf, (uint32_t)n + 4, cuts[k],
							       ncut[k])), 0);
		sim_host_poll(&h, 4);
		for (uint32_t i = 0; i < 256; i++)
			cr_assert_eq(dst[256 * k + i], (uint8_t)(k * 7 + i), "frame %u byte %u", k, i);
	}
	cr_assert_eq(bluesim_xstat(h.sim, "rx_rdma"), 3);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_linearized"), 2,
		     "only the split trailer and the split headers copied");
	cr_assert_eq(bluesim_xstat(h.sim, "rx_fcs_error"), 0);

	/* a corrupted payload byte in the second segment fails the FCS */
	p = pkt(BLUE_OP_WRITE_ONLY, 3, 768, 256);
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 256);
	blue_wire_fcs_append(buf, (uint32_t)n, sizeof(buf));
	buf[BLUE_WIRE_RDMA_HLEN + 5] ^= 1;
	cr_assert_eq(rte_ring_enqueue(wire_rx, chained(buf, (uint32_t)n + 4, cuts[0], 2)), 0);
	sim_host_poll(&h, 4);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_fcs_error"), 1);
	for (uint32_t i = 0; i < 256; i++)
		cr_assert_eq(dst[768 + i], 0, "a bad frame places nothing");
}

/* A packet placed across two DMA mappings that abut (an IOMMU's pages): written whole. */
Test(sim_rx, a_packet_across_two_dma_mappings_is_placed)
{
	uint64_t a = (uint64_t)(uintptr_t)dst;
	struct blue_wire_rdma p;

	cr_assert_eq(bluesim_dma_unmap(h.sim, a, MR_LEN), 0);
	cr_assert_eq(bluesim_dma_map(h.sim, a, dst, 4096), 0);
	cr_assert_eq(bluesim_dma_map(h.sim, a + 4096, dst + 4096, MR_LEN - 4096), 0);
	p = pkt(BLUE_OP_WRITE_ONLY, 0, 4096 - 100, 256);
	inject(&p, 256);
	for (uint32_t i = 0; i < 256; i++)
		cr_assert_eq(dst[4096 - 100 + i], (uint8_t)i, "byte %u", i);
	cr_assert_eq(bluesim_xstat(h.sim, "rx_dma_error"), 0);
	cr_assert_eq(bluesim_xstat(h.sim, "dma_refused"), 0);
	cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 1, "reported");
}
