/* SPDX-License-Identifier: BSD-3-Clause */
/* Receiver not ready: a SEND waits for the peer's RECV, rnr_retry times min_rnr_timer. */
#include <criterion/criterion.h>
#include <string.h>

#include "func_common.h"
#include "sim_host.h"

/*
 * How long a test waits for an outcome its QP's timers decide before it calls
 * the QP hung. The transport's timers run on polling time (rc_ptime(): a
 * descheduled poller's gap counts at most 200 us), so on a loaded machine a
 * 1 s retry budget takes several seconds of wall time: this bound only has
 * to tell "ends" from "never ends".
 */
#define RNR_WAIT_S 30

static void
connect_rnr(struct func_pair *p, uint8_t rnr_retry, uint8_t min_rnr_timer)
{
	for (int i = 0; i < 2; i++) {
		struct ordk_qp_init_attr ia = { .send_cq = p->s[i].cq, .recv_cq = p->s[i].cq,
						.max_send_wr = 8, .max_recv_wr = 8 };
		struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 7 };

		p->s[i].qp = ordk_qp_create(p->s[i].pd, &ia);
		cr_assert_eq(ordk_qp_modify(p->s[i].qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
	}
	for (int i = 0; i < 2; i++) {
		struct func_side *peer = &p->s[1 - i];
		struct ordk_qp_attr a = { .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_1024,
					  .dest_qp_num = ordk_qp_num(peer->qp),
					  .dest_ip = peer->attr.ip, .dest_mac = peer->attr.mac,
					  .min_rnr_timer = min_rnr_timer };

		cr_assert_eq(ordk_qp_modify(p->s[i].qp, &a,
					    ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
						    ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
						    ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER),
			     0);
		a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .timeout = 10, .retry_cnt = 7,
					   .rnr_retry = rnr_retry };
		cr_assert_eq(ordk_qp_modify(p->s[i].qp, &a,
					    ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
						    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
						    ORDK_QP_MAX_QP_RD_ATOMIC),
			     0);
	}
}

static void
post_send(struct func_pair *p, uint64_t id)
{
	struct ordk_send_wr wr = { .wr_id = id, .opcode = ORDK_WR_SEND, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p->s[0].buf, 100, p->s[0].mr->lkey };
	cr_assert_eq(ordk_qp_post_send(p->s[0].qp, &wr, 1), 1);
}

Test(verbs_rnr, a_send_waits_for_the_recv, .timeout = 60)
{
	struct func_pair p;
	struct ordk_recv_wr r = { .wr_id = 9, .num_sge = 1 };
	struct ordk_wc wc;

	func_pair_open(&p, 1 << 20, NULL);
	connect_rnr(&p, 7, 1); /* infinite */
	post_send(&p, 1);
	func_idle(&p, 0.05); /* 50 ms: thousands of RNR periods */
	cr_assert_eq(ordk_cq_poll(p.s[0].cq, &wc, 1), 0, "nothing completes without a RECV");
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, rnr_waits), 1);
	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf, 4096, p.s[1].mr->lkey };
	cr_assert_eq(ordk_qp_post_recv(p.s[1].qp, &r, 1), 1);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	func_wait(&p, 1, &wc, 1, RNR_WAIT_S);
	cr_assert_eq(wc.byte_len, 100);
	func_pair_close(&p);
}

Test(verbs_rnr, retries_run_out, .timeout = 60)
{
	struct func_pair p;
	struct ordk_wc wc;
	double t0, t;

	func_pair_open(&p, 1 << 20, NULL);
	connect_rnr(&p, 2, 14); /* 3 periods of 1.28 ms */
	t0 = test_now_s();
	post_send(&p, 1);
	post_send(&p, 2);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S);
	t = test_now_s() - t0;
	cr_assert_eq(wc.status, ORDK_WC_RNR_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, 1);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S);
	cr_assert_eq(wc.status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_geq(t, 0.0038, "gave up after %.4f s, before 3 x 1.28 ms", t);
	cr_assert_lt(t, 1.0);
	func_pair_close(&p);
}

/*
 * A SEND waiting for an advert from a peer that is not there (every frame of
 * the requester lost, rnr_retry 7): before, it waited for good; now it asks
 * the peer with the transport's backoff and, after retry_cnt + 1 unanswered
 * questions (255 ACK timeouts of 4.2 ms here, about 1.07 s), ends with
 * RETRY_EXC_ERR.
 */
Test(verbs_rnr, a_silent_peer_ends_the_wait, .timeout = 60)
{
	struct func_pair p;
	struct ordk_wc wc;
	double t0, t;

	func_pair_open(&p, 1 << 20, ",fault=drop-tx:1");
	connect_rnr(&p, 7, 1); /* RNR forever: only the silence can end it */
	t0 = test_now_s();
	post_send(&p, 1);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S);
	t = test_now_s() - t0;
	cr_assert_eq(wc.status, ORDK_WC_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_geq(t, 1.0, "gave up after %.4f s, before 255 ACK timeouts", t);
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, retry_exceeded), 1);
	func_pair_close(&p);
}

/*
 * A SEND waiting for an advert (rnr_retry 7) from a peer QP that went to
 * ERR: IBA's QP in ERR answers nothing, so the wait must end. Before, the
 * ERR QP kept answering the waiting side's questions (ACK_REQ) with ACKs,
 * each of which showed the peer "there": the SEND waited for good.
 */
Test(verbs_rnr, a_peer_in_err_ends_the_wait, .timeout = 60)
{
	struct ordk_qp_attr err = { .qp_state = ORDK_QPS_ERR };
	struct func_pair p;
	struct ordk_wc wc;

	func_pair_open(&p, 1 << 20, NULL);
	connect_rnr(&p, 7, 1); /* RNR forever: only the peer's silence can end it */
	cr_assert_eq(ordk_qp_modify(p.s[1].qp, &err, ORDK_QP_STATE), 0);
	post_send(&p, 1);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S); /* about 1.1 s: the retry budget at timeout 10 */
	cr_assert_eq(wc.status, ORDK_WC_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, retry_exceeded), 1);
	func_pair_close(&p);
}

/*
 * A lost advert is no RNR (fio's SENDs at 1% loss, rnr_retry 0). The
 * receiver's one advert is lost; the SEND's budget (one period of 10 us)
 * runs out long before the receiver's timeout (4 ms) sends it again. Before,
 * the SEND failed RNR_RETRY_EXC_ERR though the RECV was there; now the
 * sender asks, the receiver sends the advert again at once (and says it
 * posted one RECV), and the SEND completes.
 */
Test(verbs_rnr, a_lost_advert_is_no_rnr, .timeout = 60)
{
	struct func_pair p;
	struct ordk_recv_wr r = { .wr_id = 9, .num_sge = 1 };
	struct ordk_wc wc;
	double end;

	func_pair_open(&p, 1 << 20, NULL);
	connect_rnr(&p, 0, 1); /* no RNR retry, 10 us */
	cr_assert_eq(ordk_dev_set_faults(p.s[1].dev, "drop-tx:1"), 0);
	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf, 4096, p.s[1].mr->lkey };
	cr_assert_eq(ordk_qp_post_recv(p.s[1].qp, &r, 1), 1);
	end = test_now_s() + RNR_WAIT_S;
	while (func_xstat(p.s[1].dev, "fault_tx_drop") == 0 && test_now_s() < end)
		ordk_dev_poll(p.s[1].dev, 64);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, adverts_sent), 1);
	cr_assert_eq(func_xstat(p.s[1].dev, "fault_tx_drop"), 1, "the advert went, and was lost");
	cr_assert_eq(ordk_dev_set_faults(p.s[1].dev, "drop-tx:0"), 0);
	post_send(&p, 1);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	func_wait(&p, 1, &wc, 1, RNR_WAIT_S);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.byte_len, 100);
	cr_assert_geq(FUNC_DEV_STAT(p.s[0].dev, rnr_asks), 1, "the sender asked");
	cr_assert_geq(FUNC_DEV_STAT(p.s[1].dev, retransmits), 1, "the advert went again");
	func_pair_close(&p);
}

/* The receiver answers that it posted nothing: RNR_RETRY_EXC_ERR after the question. */
Test(verbs_rnr, an_rnr_is_confirmed_by_the_receiver, .timeout = 60)
{
	struct func_pair p;
	struct ordk_wc wc;

	func_pair_open(&p, 1 << 20, NULL);
	connect_rnr(&p, 0, 1);
	post_send(&p, 1);
	func_wait(&p, 0, &wc, 1, RNR_WAIT_S);
	cr_assert_eq(wc.status, ORDK_WC_RNR_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_geq(FUNC_DEV_STAT(p.s[0].dev, rnr_asks), 1);
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, rnr_averted), 0);
	func_pair_close(&p);
}
