/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bluesim rtl=1: where the open-rdma RTL departs from
 * doc/guides/drivers/blue_hw_interface.md section 10, item by item, each
 * against the strict model (rtl=0).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "sim_peer.h"

#define QPN2 0x000402u

static struct sim_host h;
static struct rte_ring *wire_rx, *wire_tx;
static struct rte_mempool *mp;
static uint8_t *dst;
static bool started;

static void
start_cnp(bool rtl, bool cnp)
{
	struct bluesim_config cfg;
	static unsigned int n;
	char name[32];

	test_eal_init(NULL);
	if (mp == NULL)
		mp = test_pool("rtl_pool", 8191);
	snprintf(name, sizeof(name), "rtlw%u", n++);
	bluesim_config_defaults(&cfg);
	cfg.rtl = rtl;
	cfg.cnp = cnp;
	sim_host_init_wire(&h, &cfg, name, mp, &wire_rx, &wire_tx);
	/* the RTL DMAs SimpleNic frames to 0 + slot * 2048: the host maps its buffer there */
	if (rtl)
		cr_assert_eq(bluesim_dma_map(h.sim, 0, h.raw_rx, BLUE_SIMPLE_NIC_RX_BUF_SIZE), 0);
	sim_host_start(&h, MAC_B, IP_B);
	dst = aligned_alloc(4096, MR_LEN);
	memset(dst, 0, MR_LEN);
	cr_assert(sim_host_reg_mr(&h, RKEY, dst, MR_LEN, BLUE_ACC_ALL, 0));
	cr_assert(sim_host_qp(&h, QPN, PEER_QPN, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
	cr_assert(sim_host_qp(&h, QPN2, PEER_QPN + 1, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
	started = true;
}

static void
teardown(void)
{
	struct rte_mbuf *m;

	if (!started)
		return;
	while (rte_ring_dequeue(wire_rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(wire_tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	sim_host_fini(&h);
	free(dst);
	started = false;
}

TestSuite(sim_rtl, .fini = teardown, .timeout = 60);

static void
start(bool rtl)
{
	start_cnp(rtl, false);
}

static struct blue_wire_rdma
pkt(uint8_t op, uint32_t qpn, uint32_t psn, uint32_t off, uint32_t dlen)
{
	return sim_peer_pkt(op, qpn, psn, (uint64_t)(uintptr_t)dst + off, dlen);
}

/* Put a frame (payload @p plen bytes of 0x5A) on the wire; @p edit may change it. */
static void
inject(const struct blue_wire_rdma *p, uint32_t plen, void (*edit)(uint8_t *, uint32_t *))
{
	static uint8_t buf[BLUE_WIRE_MAX_FRAME], pay[4096];
	uint32_t n;
	int rc;

	memset(pay, 0x5A, sizeof(pay));
	rc = blue_wire_rdma_build(buf, sizeof(buf), p, pay, plen);
	cr_assert_gt(rc, 0, "%s", blue_wire_strerror(rc));
	n = (uint32_t)rc;
	if (edit != NULL)
		edit(buf, &n);
	cr_assert_eq(rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, buf, n, true)), 0);
}

static uint64_t
xs(const char *name)
{
	uint64_t v = bluesim_xstat(h.sim, name);

	cr_assert_neq(v, UINT64_MAX, "no xstat %s", name);
	return v;
}

/* Frames the model sent, each parsed into @p out (FCS checked). */
static unsigned int
sent(struct blue_wire_rdma *out, unsigned int max)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(wire_tx, (void **)&m) == 0) {
		if (n < max)
			cr_assert_eq(blue_wire_rdma_parse(rte_pktmbuf_mtod(m, void *),
							  rte_pktmbuf_data_len(m), BLUE_WIRE_F_FCS,
							  &out[n]), 0);
		n++;
		rte_pktmbuf_free(m);
	}
	return n;
}

/* ------------------------------------------------ item 1: SimpleNic RX base */

static uint32_t
cmd_resp_head(void)
{
	return sim_host_reg(&h, BLUE_RING_REG(blue_ring_csr_base(BLUE_RING_CMD_RESP),
					      BLUE_CSR_REG_HEAD));
}

static void
push_cmd(const struct blue_cmd *c)
{
	uint8_t d[32];

	cr_assert_eq(blue_cmd_encode(c, d), 0);
	sim_host_push_raw(&h, BLUE_RING_CMD_REQ, d, 1);
}

Test(sim_rtl, raw_meta_ignored_and_second_blocks)
{
	struct blue_cmd raw = { .hdr = { .opcode = BLUE_CMD_SET_RAW_PACKET_RECEIVE_META,
					 .valid = 1 } };
	struct blue_cmd net = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 } };
	uint8_t arp[60] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0, 0, 0, 0, 1, 0x08, 0x06 };
	uint8_t got[2048];
	uint32_t head;

	start(true); /* sim_host_start sent SetRawPacketReceiveMeta(h.raw_rx): answered */
	/* a non-IP frame whose bytes 30-33 hold the local IP passes the RTL's filter */
	arp[30] = IP_B >> 24, arp[31] = (IP_B >> 16) & 0xFF, arp[32] = (IP_B >> 8) & 0xFF,
	arp[33] = IP_B & 0xFF;
	for (int i = 0; i < 2; i++)
		cr_assert_eq(rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, arp, 60, true)), 0);
	sim_host_poll(&h, 4);
	/* the frames went to IOVA 0 + slot * 2048 (mapped to h.raw_rx), not to the base sent */
	cr_assert_eq(sim_host_snic_rx(&h, got), 60);
	cr_assert_eq(memcmp(got, arp, 60), 0);
	cr_assert_eq(sim_host_snic_rx(&h, got), 60);
	cr_assert_eq(memcmp(h.raw_rx + 2048, arp, 60), 0, "slot 1 at 0 + 2048");
	cr_assert_eq(xs("dma_refused"), 0);

	/* a second SetRawPacketReceiveMeta is never answered, nor anything after it */
	head = cmd_resp_head();
	raw.raw.write_base_addr = 0x100000;
	push_cmd(&raw);
	net.net = (struct blue_cmd_set_network_param){ .local_mac = MAC_B, .local_ip = IP_B };
	push_cmd(&net);
	sim_host_poll(&h, 100);
	cr_assert_eq(cmd_resp_head(), head, "the command unit answered after the block");
	cr_assert_eq(xs("rtl_cmd_blocked"), 1);
}

Test(sim_rtl, raw_meta_strict_moves_the_base)
{
	struct blue_cmd raw = { .hdr = { .opcode = BLUE_CMD_SET_RAW_PACKET_RECEIVE_META,
					 .valid = 1 } };

	start(false);
	raw.raw.write_base_addr = (uint64_t)(uintptr_t)h.raw_rx;
	cr_assert_eq(sim_host_cmd(&h, &raw).is_success, 1, "rtl=0 answers every time");
	cr_assert_eq(xs("rtl_cmd_blocked"), 0);
}

/* --------------------------------------- item 6: commands always succeed */

Test(sim_rtl, commands_always_succeed_unknown_unanswered)
{
	struct blue_cmd qp = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };
	struct blue_cmd mr = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };
	struct blue_cmd pgt = { .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 } };
	uint8_t d[32] = { 0 };
	uint32_t head;

	for (int rtl = 0; rtl <= 1; rtl++) {
		start(rtl);
		qp.qp = (struct blue_cmd_manage_qp){ .is_valid = 1, .qpn = 0xFFFF01, .pmtu = 7,
						     .qp_type = BLUE_QPT_RC };
		mr.mr = (struct blue_cmd_update_mr_table){ .mr_base_va = 0x1000, .mr_length = 4096,
							   .mr_key = 0xFFFF01,
							   .pgt_offset = BLUE_PGT_ENTRIES - 1 };
		pgt.pgt = (struct blue_cmd_update_pgt){ .dma_addr = 8, .start_index = 0,
							.zero_based_entry_count = 0 };
		cr_assert_eq(sim_host_cmd(&h, &qp).is_success, rtl, "ManageQp, rtl=%d", rtl);
		cr_assert_eq(sim_host_cmd(&h, &mr).is_success, rtl, "UpdateMrTable, rtl=%d", rtl);
		cr_assert_eq(sim_host_cmd(&h, &pgt).is_success, rtl, "UpdatePGT, rtl=%d", rtl);
		/* an unknown opcode: rtl=0 echoes a failure, rtl=1 says nothing */
		head = cmd_resp_head();
		d[0] = 0x3F;
		d[31] = 0x80;
		sim_host_push_raw(&h, BLUE_RING_CMD_REQ, d, 1);
		sim_host_poll(&h, 20);
		cr_assert_eq(cmd_resp_head() != head, !rtl, "unknown opcode, rtl=%d", rtl);
		cr_assert_eq(xs("rtl_cmd_no_answer"), (uint64_t)rtl);
		teardown();
	}
}

/* ------------------------------------------ item 3: PSN behind the window */

/* First PSN 0x800000: 2^19 strides behind the reset window (-1): stale at once. */
Test(sim_rtl, stale_first_psn_locks_bitmap_unit)
{
	struct blue_wire_rdma p;

	for (int rtl = 0; rtl <= 1; rtl++) {
		start(rtl);
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 0x800000, 0, 64);
		inject(&p, 64, NULL);
		sim_host_poll(&h, 4);
		cr_assert_eq(xs("rtl_bitmap_locked"), (uint64_t)rtl, "rtl=%d", rtl);
		cr_assert_eq(xs("rx_psn_stale"), 1, "rtl=%d: behind the window either way", rtl);
		/* another QP's packets: tracked and reported only when the unit is free */
		p = pkt(BLUE_OP_WRITE_ONLY, QPN2, 0, 64, 64);
		inject(&p, 64, NULL);
		sim_host_poll(&h, 4);
		sim_host_meta_all(&h, NULL, 0);
		h.now_ns += 1000000; /* past the idle timeout */
		sim_host_poll(&h, 4);
		/* rtl=0 ignores the stale PSN and reports QPN2 once idle */
		cr_assert_eq(xs("idle_reports"), rtl ? 0 : 1, "rtl=%d", rtl);
		/* the unit's queues fill: a few tracked packets later receive stops */
		for (uint32_t i = 1; i <= 8; i++) {
			p = pkt(BLUE_OP_WRITE_ONLY, QPN2, i, 64 * i, 64);
			inject(&p, 64, NULL);
			sim_host_poll(&h, 2);
		}
		/* the model lets 4 tracked packets queue behind the lock (SIM_RTL_BITMAP_BACKLOG) */
		cr_assert_eq(xs("rx_frames"), rtl ? 1 + 4 : 10, "rtl=%d", rtl);
		cr_assert_eq(rte_ring_count(wire_rx), rtl ? 10 - 5 : 0, "frames left on the wire");
		teardown();
	}
}

/* First PSNs 0x7FFFF0..0xFFFF7F lock it; 0x7FFFEF, 0xFFFF80 and 0 do not. */
Test(sim_rtl, stale_range_edges)
{
	static const struct { uint32_t psn; bool locks; } c[] = {
		{ 0x7FFFEF, false }, { 0x7FFFF0, true }, { 0xFFFF7F, true }, { 0xFFFF80, false },
		{ 0, false }, { 0x123456, false }, { 0xABCDEF, true },
	};

	for (unsigned int i = 0; i < RTE_DIM(c); i++) {
		struct blue_wire_rdma p;

		start(true);
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, c[i].psn, 0, 64);
		inject(&p, 64, NULL);
		sim_host_poll(&h, 4);
		cr_assert_eq(xs("rtl_bitmap_locked"), c[i].locks ? 1u : 0u, "first PSN %06x",
			     c[i].psn);
		teardown();
	}
}

/* ------------------------------------------- item 4: SimpleNic ring full */

static void
fill_snic_ring(void)
{
	uint8_t f[64] = { 0 };

	/* a non-IP frame for the SimpleNic path: 4096 fill the ring, one more waits */
	f[0] = 0x02, f[5] = 0x02, f[6] = 0x02, f[11] = 0x01, f[12] = 0x08, f[13] = 0x06;
	f[30] = IP_B >> 24, f[31] = (IP_B >> 16) & 0xFF, f[32] = (IP_B >> 8) & 0xFF;
	f[33] = IP_B & 0xFF;
	for (uint32_t i = 0; i < BLUE_RING_DEPTH + 1; i++) {
		f[40] = (uint8_t)i;
		cr_assert_eq(rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, f, 64, true)), 0);
		if (i % 512 == 511)
			sim_host_poll(&h, 64);
	}
	sim_host_poll(&h, 64);
}

Test(sim_rtl, snic_ring_full_stalls_rdma_too)
{
	uint8_t got[2048];

	for (int rtl = 0; rtl <= 1; rtl++) {
		struct blue_wire_rdma p;

		start(rtl);
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 0, 0, 64);
		fill_snic_ring();
		inject(&p, 64, NULL);
		sim_host_poll(&h, 8);
		/* rtl=0 drops the 4097th frame and places the WRITE; rtl=1 holds both */
		cr_assert_eq(dst[0], rtl ? 0 : 0x5A, "rtl=%d", rtl);
		cr_assert_eq(xs("rtl_rx_stalls"), (uint64_t)rtl);
		cr_assert_eq(rte_ring_count(wire_rx), rtl ? 1u : 0u, "the port is not read");
		/* the host drains one frame: the held frame goes in, receive resumes */
		cr_assert_eq(sim_host_snic_rx(&h, got), 64);
		sim_host_poll(&h, 8);
		cr_assert_eq(dst[0], 0x5A, "rtl=%d: RDMA receive recovered", rtl);
		cr_assert_eq(xs("rx_simple_nic"), BLUE_RING_DEPTH + (uint64_t)rtl);
		teardown();
	}
}

/* ------------------------------------------------------ item 5: ECN, CNP */

static void
mark_ce(uint8_t *f, uint32_t *n)
{
	uint32_t sum = 0;

	(void)n;
	f[15] |= 3;
	f[24] = f[25] = 0; /* IPv4 header checksum again */
	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)f[i] << 8 | f[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	f[24] = (uint8_t)(~sum >> 8);
	f[25] = (uint8_t)~sum;
}

Test(sim_rtl, ce_mark_sends_rate_limited_cnp)
{
	struct blue_wire_rdma out[8];

	for (int rtl = 0; rtl <= 1; rtl++) {
		struct blue_wire_rdma p;

		start(rtl);
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 0, 0, 64);
		p.bth.msn = 0x4321;
		inject(&p, 64, mark_ce);
		sim_host_poll(&h, 4);
		cr_assert_eq(dst[0], 0x5A, "a CE-marked packet is placed");
		cr_assert_eq(sent(out, 8), (unsigned int)rtl, "rtl=%d", rtl);
		if (rtl) {
			cr_assert_eq(out[0].bth.trans, BLUE_TRANS_CNP);
			cr_assert_eq(out[0].bth.opcode, 0);
			cr_assert_eq(out[0].bth.dqpn, PEER_QPN);
			cr_assert_eq(out[0].bth.msn, 0x4321);
			cr_assert_eq(out[0].bth.psn, 0);
			cr_assert_eq(out[0].l3.dst_mac, MAC_A);
			cr_assert_eq(out[0].l3.dst_ip, IP_A);
			cr_assert_eq(out[0].l3.src_port, 0x100, "the QP's local UDP port");
			cr_assert_eq(out[0].l3.ecn, 1, "IpHeaderEcnFlagEnabled");
			cr_assert_eq(out[0].payload_len, 0);
		}
		/* within the pause (8192 cycles = 32.768 us): none; after it: one */
		h.now_ns += 30000;
		p.bth.psn = 1;
		inject(&p, 64, mark_ce);
		sim_host_poll(&h, 4);
		cr_assert_eq(sent(out, 8), 0u);
		cr_assert_eq(xs("cnp_suppressed"), (uint64_t)rtl);
		h.now_ns += 3000;
		p.bth.psn = 2;
		inject(&p, 64, mark_ce);
		sim_host_poll(&h, 4);
		cr_assert_eq(sent(out, 8), (unsigned int)rtl);
		/* an unmarked packet sends none */
		p.bth.psn = 3;
		inject(&p, 64, NULL);
		h.now_ns += 100000;
		sim_host_poll(&h, 4);
		cr_assert_eq(sent(out, 8), 0u);
		/* every CE-marked packet counted, whether a CNP went or not (np_ecn_marked_roce_packets) */
		cr_assert_eq(xs("rx_ecn_marked"), 3u, "rtl=%d", rtl);
		teardown();
	}
}

/* cnp=1 (strict mode): the notification point as the RTL's, and a received CNP reported */
Test(sim_rtl, strict_cnp_option_sends_and_reports)
{
	struct blue_meta_report r[4];
	struct blue_wire_rdma out[4], p, c = { 0 };
	struct bluesim_config cfg;
	char keep[64], err[128];

	bluesim_config_defaults(&cfg);
	cr_assert_eq(bluesim_parse_devargs("rtl=1,cnp=1", &cfg, keep, sizeof(keep), err,
					   sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "cnp=1") != NULL, "%s", err);
	for (int cnp = 0; cnp <= 1; cnp++) {
		start_cnp(false, cnp);
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 0, 0, 64);
		inject(&p, 64, mark_ce);
		sim_host_poll(&h, 4);
		cr_assert_eq(sent(out, 4), (unsigned int)cnp, "cnp=%d", cnp);
		if (cnp) {
			cr_assert_eq(out[0].bth.trans, BLUE_TRANS_CNP);
			cr_assert_eq(out[0].bth.dqpn, PEER_QPN);
		}
		cr_assert_eq(sim_host_meta_all(&h, NULL, 0), 1, "the WRITE's own report");
		/* a CNP from the peer, for QPN */
		c.l3 = p.l3;
		c.l3.ecn = 1;
		c.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_CNP, .dqpn = QPN, .msn = 0x77 };
		inject(&c, 0, NULL);
		sim_host_poll(&h, 4);
		cr_assert_eq(xs("rx_cnp"), 1u);
		cr_assert_eq(sim_host_meta_all(&h, r, 4), cnp, "cnp=%d", cnp);
		if (cnp) {
			cr_assert_eq(r[0].kind, BLUE_META_CNP);
			cr_assert_eq(r[0].basic.dqpn, QPN);
			cr_assert_eq(r[0].basic.msn, 0x77);
		}
		teardown();
	}
}

Test(sim_rtl, data_packets_ecn_00_whatever_enable_ecn)
{
	struct blue_wire_rdma out[4];

	for (int rtl = 0; rtl <= 1; rtl++) {
		struct blue_send_item it = {
			.opcode = BLUE_WR_RDMA_WRITE, .valid = 1, .total_len = 64, .rkey = RKEY,
			.dqp_ip = IP_A, .raddr = 0x1000, .qp_type = BLUE_QPT_RC, .dqpn = PEER_QPN,
			.pmtu = BLUE_PMTU_256, .is_first = 1, .is_last = 1, .sqpn = QPN,
			.dst_mac = MAC_A, .lkey = RKEY, .len = 64, .enable_ecn = 1 };

		start(rtl);
		it.laddr = (uint64_t)(uintptr_t)dst;
		sim_host_send(&h, &it);
		sim_host_poll(&h, 8);
		cr_assert_eq(sent(out, 4), 1u);
		cr_assert_eq(out[0].l3.ecn, rtl ? 0 : 2, "rtl=%d: ECN follows enable_ecn only in rtl=0",
			     rtl);
		teardown();
	}
}

/* ------------------------------------------- item 6: filter and checks */

static void
break_ip_csum(uint8_t *f, uint32_t *n)
{
	(void)n;
	f[24] ^= 0x55;
}

static void
opcode_unknown(uint8_t *f, uint32_t *n)
{
	(void)n;
	f[42] = 0x1F; /* RC, opcode 0x1F */
}

static void
short_by_6(uint8_t *f, uint32_t *n)
{
	(void)f;
	*n -= 6; /* still in the same 32-byte beat */
}

Test(sim_rtl, arp_never_reaches_host)
{
	uint8_t arp[60] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0, 0, 0, 0, 1, 0x08, 0x06 };
	uint8_t got[2048];

	/* a who-has for IP_B: the target IP is at bytes 38-41, not 30-33 */
	arp[38] = IP_B >> 24, arp[39] = (IP_B >> 16) & 0xFF, arp[40] = (IP_B >> 8) & 0xFF,
	arp[41] = IP_B & 0xFF;
	for (int rtl = 0; rtl <= 1; rtl++) {
		start(rtl);
		cr_assert_eq(rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, arp, 60, true)), 0);
		sim_host_poll(&h, 4);
		cr_assert_eq(sim_host_snic_rx(&h, got), rtl ? 0u : 60u, "rtl=%d", rtl);
		cr_assert_eq(xs("rx_filtered"), (uint64_t)rtl);
		teardown();
	}
}

Test(sim_rtl, checks_only_what_the_rtl_checks)
{
	struct blue_meta_report r[4];

	for (int rtl = 0; rtl <= 1; rtl++) {
		struct blue_wire_rdma p;

		start(rtl);
		/* a wrong IPv4 checksum: rtl=0 drops it as a bad header, rtl=1 places it */
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 0, 0, 64);
		inject(&p, 64, break_ip_csum);
		sim_host_poll(&h, 4);
		cr_assert_eq(dst[0], rtl ? 0x5A : 0, "bad checksum, rtl=%d", rtl);
		/* an unknown opcode: rtl=1 moves no counter */
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 1, 64, 64);
		inject(&p, 64, opcode_unknown);
		/* a payload 6 bytes short of its RETH length, same beat count: rtl=1 takes it */
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 2, 256, 64);
		inject(&p, 64, short_by_6);
		sim_host_poll(&h, 4);
		cr_assert_eq(dst[256], rtl ? 0x5A : 0, "short payload, rtl=%d", rtl);
		cr_assert_eq(sim_host_reg(&h, BLUE_REG_RQ_COUNTER(0, BLUE_RQ_CNT_INVALID_OPCODE)),
			     rtl ? 0u : 1u);
		/* rtl=0: the checksum and the IP length are header errors */
		cr_assert_eq(sim_host_reg(&h, BLUE_REG_RQ_COUNTER(0, BLUE_RQ_CNT_INVALID_HEADER)),
			     rtl ? 0u : 2u);
		/* a payload a beat short is a length error in both */
		p = pkt(BLUE_OP_WRITE_ONLY, QPN, 3, 512, 64);
		inject(&p, 32, NULL);
		sim_host_poll(&h, 4);
		cr_assert_eq(dst[512], 0, "a beat short, rtl=%d", rtl);
		cr_assert_eq(sim_host_reg(&h, BLUE_REG_RQ_COUNTER(0,
								  BLUE_RQ_CNT_PACKET_LENGTH_ERROR)),
			     1u);
		/* a READ request's report: imm_data is the 4 bytes after the RETH */
		sim_host_meta_all(&h, NULL, 0);
		p = pkt(BLUE_OP_READ_REQUEST, QPN, 4, 0, 128);
		p.rreth = (struct blue_wire_rreth){ .va = 0x1122334455667788ull, .lkey = 0x99 };
		inject(&p, 0, NULL);
		sim_host_poll(&h, 4);
		cr_assert_eq(sim_host_meta_all(&h, r, 4), 1);
		cr_assert_eq(r[0].kind, BLUE_META_HEADER_READ);
		cr_assert_eq(r[0].basic.imm_data, rtl ? 0x11223344u : 0u, "rtl=%d", rtl);
		teardown();
	}
}

/* ---------------------------- item 7: the reference driver's ACK frames */

/* Its ACK, byte for byte from its source (see tests/unit/wire: rd_ack); dqpn QPN. */
static const uint8_t rd_ack[90] = {
	0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x0A, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x0A, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x4C, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
	0x0A, 0x00, 0x00, 0x07, 0x0A, 0x00, 0x00, 0x05,
	0x12, 0xB7, 0x12, 0xB7, 0x00, 0x38, 0x00, 0x00,
	0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x01, 0x23,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0x20, 0x00, 0x00, 0x00,
};

Test(sim_rtl, reference_driver_ack_reported)
{
	struct blue_cmd net = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 } };
	struct blue_meta_report r[4];

	for (int rtl = 0; rtl <= 1; rtl++) {
		start(rtl);
		/* the reference driver's SetNetworkParam: its fixed MAC, the host's netmask, no gateway */
		net.net = (struct blue_cmd_set_network_param){ .local_mac = 0xAABBCCDDEE0Aull,
							       .local_ip = 0x0A000005,
							       .netmask = 0xFFFFFF00 };
		cr_assert_eq(sim_host_cmd(&h, &net).is_success, 1);
		sim_host_meta_all(&h, NULL, 0);
		cr_assert_eq(rte_ring_enqueue(wire_rx, test_frame_mbuf(mp, rd_ack, 90, true)), 0);
		sim_host_poll(&h, 4);
		cr_assert_eq(sim_host_meta_all(&h, r, 4), 1, "rtl=%d", rtl);
		cr_expect_eq(r[0].kind, BLUE_META_ACK_REMOTE_DRIVER);
		cr_expect_eq(r[0].ack.psn_now, 0x000123);
		cr_expect_eq(r[0].ack.qpn, QPN);
		teardown();
	}
}
