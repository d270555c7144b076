/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A source buffer the application took back at completion must never be
 * read again. The card reads a WRITE's payload when it emits the packet, so
 * a WR may complete only once every item of it on the Send ring was fetched,
 * resent packets included. Before, a NAK that named packets which had
 * arrived (MIDDLE packets not reported yet) queued resends; the ACK that
 * followed completed the WR while most of them still waited on the ring;
 * the application refilled its buffer, and the resends carried the new bytes
 * over data the responder had already acknowledged (kv_transfer's blocks read
 * back as zeros on the cluster rig, where af_packet slows the sender's port).
 */
#include <criterion/criterion.h>
#include <string.h>

#include <rte_ring.h>

#include "wire_common.h"

#define LEN   (1u << 20)
#define WLEN  (200u << 10) /* 200 packets at PMTU 1024: more than one poll's budget */

static void
inject_ack(struct wire_env *w, bool nak, uint32_t epsn, uint32_t psn)
{
	struct blue_wire_rdma pkt = { 0 };

	pkt.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_ACKNOWLEDGE,
					  .psn = psn };
	pkt.aeth = (struct blue_wire_aeth){ .now_bitmap = { ~0ull, ~0ull }, .is_send_by_driver = 1,
					    .is_packet_lost = nak, .is_window_slided = nak,
					    .pre_psn = epsn };
	wire_inject_rdma(w, 0, &pkt, NULL, 0);
}

Test(wire_reuse, write_source_not_read_after_completion)
{
	struct wire_env w;
	struct func_side *a, *b;
	struct ordk_wc wc;
	unsigned int waiting;
	int n = 0;

	wire_open(&w, LEN, NULL, 64);
	a = &w.p.s[0];
	b = &w.p.s[1];
	for (uint32_t i = 0; i < WLEN; i++)
		a->buf[i] = (uint8_t)(i * 7 + i / 1021);
	waiting = rte_ring_count(w.p.rx_ring[1]);
	cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_WRITE, 0, 0, WLEN, 1, 0), 1);
	/* only the sender runs: every packet goes out and waits in the responder's RX ring */
	for (int i = 0; i < 2000 && rte_ring_count(w.p.rx_ring[1]) - waiting < 200; i++)
		ordk_dev_poll(a->dev, 64);
	cr_assert_geq(rte_ring_count(w.p.rx_ring[1]) - waiting, 200u,
		      "the WRITE's 200 packets left the sender");
	/* the responder's NAK names every PSN but the last (MIDDLE packets it has not
	 * seen reported), then its ACK says all arrived */
	inject_ack(&w, true, 0, 199);
	ordk_dev_poll(a->dev, 64); /* the NAK: 199 resends queued on the Send ring */
	inject_ack(&w, false, 200, 200);
	/* the application takes its buffer back the moment the WRITE completes */
	for (int i = 0; i < 100000 && n == 0; i++) {
		ordk_dev_poll(a->dev, 64);
		n = ordk_cq_poll(a->cq, &wc, 1);
	}
	cr_assert_eq(n, 1, "the WRITE never completed");
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	memset(a->buf, 0x5A, WLEN);
	func_idle(&w.p, 0.05);
	for (uint32_t i = 0; i < WLEN; i++)
		cr_assert_eq(b->buf[i], (uint8_t)(i * 7 + i / 1021),
			     "byte %u at the responder is %02x: the source was read after the "
			     "WRITE completed (%lu resends)", i, b->buf[i],
			     (unsigned long)wire_qp_stats(&w, 0).retransmits);
	wire_close(&w);
}
