/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A full SimpleNic RX ring, through the PMD (issue 14 item 4). On the RTL
 * (bluesim rtl=1, suite func-rtl) a full ring does not drop a frame: the
 * descriptor write waits and the receive classifier behind it, so RDMA
 * receive stops too; the spec (rtl=0, suite func) drops the frame. The
 * driver drains the ring on every poll. Here side 1's host stops polling
 * while its card runs on (ordk_dev_card_poll() steps only side 1's model), and side 0
 * posts RECVs whose adverts, control frames resent until side 1 acknowledges
 * them, fill side 1's ring. A WRITE sent then does not land (rtl=1). Side 1
 * polls again: the WRITE completes and side 1 SENDs into every RECV, every
 * byte checked. And a SimpleNic frame longer than a slot (the RTL checks no
 * length: it runs into the next slots) is dropped by the PMD and counted.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "func_common.h"
#include "sim_host.h"

#define RECVS 1024u		 /* adverts: 7 per frame, 147 frames a round */
#define RLEN 512u		 /* RECVs at side 0's buf[0, 512 KiB) */
#define WLEN 65536u		 /* the WRITE: side 0's buf + 768 KiB -> side 1's buf */
#define WSRC (768u << 10)
#define SSRC (512u << 10)	 /* side 1's SEND sources */

/* Side 0's host and card run; side 1's card runs, its host does not poll. */
static void
step_one_sided(struct func_pair *p)
{
	ordk_dev_poll(p->s[0].dev, 64);
	cr_assert_geq(ordk_dev_card_poll(p->s[1].dev, 64), 0, "side 1's model steps alone");
}

static void
post_recvs(struct func_pair *p)
{
	for (uint32_t i = 0; i < RECVS; i++) {
		struct ordk_recv_wr r = { .wr_id = i, .num_sge = 1 };

		r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p->s[0].buf + (uint64_t)i * RLEN,
					   RLEN, p->s[0].mr->lkey };
		cr_assert_eq(ordk_qp_post_recv(p->s[0].qp, &r, 1), 1, "RECV %u", i);
	}
}

static void
post_write(struct func_pair *p)
{
	struct ordk_send_wr w = { .wr_id = 77, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };

	for (uint32_t i = 0; i < WLEN; i++)
		p->s[0].buf[WSRC + i] = (uint8_t)(i * 7 + 3);
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p->s[0].buf + WSRC, WLEN,
				   p->s[0].mr->lkey };
	w.rdma.remote_addr = (uint64_t)(uintptr_t)p->s[1].buf;
	w.rdma.rkey = p->s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p->s[0].qp, &w, 1), 1);
}

/* Side 1 SENDs RLEN bytes into every RECV; each lands in its own, checked. */
static void
sends_into_every_recv(struct func_pair *p)
{
	struct ordk_wc *wc = calloc(RECVS, sizeof(*wc));

	cr_assert_not_null(wc);
	for (uint32_t i = 0; i < RECVS; i++) {
		struct ordk_send_wr w = { .wr_id = i, .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		uint8_t *src = p->s[1].buf + SSRC + (size_t)i * RLEN;

		for (uint32_t k = 0; k < RLEN; k++)
			src[k] = (uint8_t)(i * 31 + k * 5 + 1);
		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)src, RLEN, p->s[1].mr->lkey };
		cr_assert_eq(ordk_qp_post_send(p->s[1].qp, &w, 1), 1, "SEND %u", i);
	}
	func_wait(p, 1, wc, (int)RECVS, 30);
	for (uint32_t i = 0; i < RECVS; i++)
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS, "SEND %u: %s", i,
			     ordk_wc_status_str(wc[i].status));
	func_wait(p, 0, wc, (int)RECVS, 30);
	for (uint32_t i = 0; i < RECVS; i++) {
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS, "RECV %u", i);
		cr_assert_eq(wc[i].wr_id, i, "RECVs complete in order");
		cr_assert_eq(wc[i].byte_len, RLEN);
		cr_assert_eq(memcmp(p->s[0].buf + (size_t)i * RLEN,
				    p->s[1].buf + SSRC + (size_t)i * RLEN, RLEN), 0,
			     "RECV %u: the bytes of SEND %u", i, i);
	}
	free(wc);
}

Test(verbs_snic, a_full_simplenic_ring_and_rdma_recovers, .timeout = 180)
{
	struct func_pair p;
	struct ordk_wc wc;
	struct ordk_stats st;
	bool rtl = test_sim_rtl();
	uint64_t rdma_at_full, items;
	double end;

	/* timeout 14 (about 67 ms): the WRITE's retries outlast the stall and the drain */
	func_qp_timeout = 14;
	func_pair_open_guarded(&p, 1 << 20, NULL, 4096);
	func_pair_qps(&p, ORDK_MTU_1024, RECVS);
	func_qp_timeout = 10;

	post_recvs(&p);
	end = test_now_s() + 60;
	while (func_xstat(p.s[1].dev, "rx_simple_nic_ring_full") == 0) {
		cr_assert_lt(test_now_s(), end, "side 1's SimpleNic ring never filled (%" PRIu64
			     " frames taken)", func_xstat(p.s[1].dev, "rx_simple_nic"));
		step_one_sided(&p);
	}
	cr_assert_geq(func_xstat(p.s[1].dev, "rx_simple_nic"), BLUE_RING_DEPTH);
	cr_assert_eq(func_xstat(p.s[1].dev, "rtl_rx_stalls"), rtl ? 1u : 0u,
		     "rtl=1 stalls (the frame is held), rtl=0 drops");
	rdma_at_full = func_xstat(p.s[1].dev, "rx_rdma");

	/* a WRITE now: on rtl=1 it waits behind the held frame */
	items = func_xstat(p.s[0].dev, "tx_items");
	post_write(&p);
	end = test_now_s() + 30;
	while (func_xstat(p.s[0].dev, "tx_items") == items) {
		cr_assert_lt(test_now_s(), end, "side 0's card never took the WRITE");
		step_one_sided(&p);
	}
	for (int i = 0; i < 200; i++)
		step_one_sided(&p);
	if (rtl) {
		cr_assert_eq(func_xstat(p.s[1].dev, "rx_rdma"), rdma_at_full,
			     "stalled: no RDMA packet is received");
		for (uint32_t i = 0; i < WLEN; i++)
			cr_assert_eq(p.s[1].buf[i], 0, "byte %u landed during the stall", i);
	}

	/* side 1 polls again: the ring drains, the held frame goes in, RDMA recovers */
	func_wait(&p, 0, &wc, 1, 30);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "WRITE: %s", ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, 77);
	cr_assert_eq(memcmp(p.s[1].buf, p.s[0].buf + WSRC, WLEN), 0, "the WRITE's bytes");
	sends_into_every_recv(&p);
	cr_assert(func_pair_canaries_ok(&p));
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(ordk_dev_stats(p.s[i].dev, &st), 0);
		cr_assert_eq(st.retry_exceeded, 0, "side %d", i);
	}
	cr_log_info("rtl=%d: side 1 took %" PRIu64 " SimpleNic frames, %" PRIu64
		    " found the ring full; side 0 resent %" PRIu64 " adverts", rtl,
		    func_xstat(p.s[1].dev, "rx_simple_nic"),
		    func_xstat(p.s[1].dev, "rx_simple_nic_ring_full"),
		    (ordk_qp_stats(p.s[0].qp, &st), st.retransmits));
	func_pair_close(&p);
}

/* SimpleNic frames the PMD took from the ring, kept or dropped (its xstats). */
static uint64_t
snic_frames_taken(struct ordk_dev *dev)
{
	return func_xstat(dev, "pmd_snic_rx") + func_xstat(dev, "pmd_snic_rx_bad");
}

/* A frame longer than a 128-byte slot: the RTL writes it on (rtl=1), the PMD drops it. */
Test(verbs_snic, a_frame_longer_than_a_slot_is_dropped, .timeout = 60)
{
	struct rte_mempool *mp;
	struct func_pair p;
	struct ordk_wc wc;
	uint8_t f[600] = { 0 };
	uint64_t taken;
	double end;

	func_pair_open(&p, 1 << 20, "rtl=1,snic_slot=128");
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	mp = test_pool("snic_long", 63); /* after the pair: it starts EAL */
	/* to side 1's MAC, its IP at bytes 30-33 (the RTL's filter), EtherType 0x88b5 */
	f[0] = 0x02, f[5] = 0x02, f[6] = 0x02, f[11] = 0x09, f[12] = 0x88, f[13] = 0xb5;
	f[30] = 10, f[33] = 2;
	taken = snic_frames_taken(p.s[1].dev);
	cr_assert_eq(rte_ring_enqueue(p.rx_ring[1], test_frame_mbuf(mp, f, sizeof(f), true)), 0);
	end = test_now_s() + 10;
	while (snic_frames_taken(p.s[1].dev) == taken) {
		cr_assert_lt(test_now_s(), end, "the frame never reached side 1's PMD");
		ordk_dev_poll(p.s[1].dev, 64);
	}
	cr_assert_eq(func_xstat(p.s[1].dev, "pmd_snic_rx_bad"), 1,
		     "600 bytes in 128-byte slots: dropped");
	/* and the QPs still work: a SEND into a RECV */
	{
		struct ordk_recv_wr r = { .wr_id = 1, .num_sge = 1 };
		struct ordk_send_wr w = { .wr_id = 2, .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };

		memset(p.s[0].buf, 0x3C, 100);
		r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf, 100, p.s[1].mr->lkey };
		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 100, p.s[0].mr->lkey };
		cr_assert_eq(ordk_qp_post_recv(p.s[1].qp, &r, 1), 1);
		cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &w, 1), 1);
		func_wait(&p, 1, &wc, 1, 10);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
		cr_assert_eq(memcmp(p.s[1].buf, p.s[0].buf, 100), 0);
	}
	func_pair_close(&p);
	rte_mempool_free(mp);
}
