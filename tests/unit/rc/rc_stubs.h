/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbours the rc suites stub, each written once, by the file that
 * defines the real one. A suite includes the .c files under test, then this
 * header, and names the stubs it needs, one line each:
 *
 *	RC_STUB(rc_recv_retire);
 *
 * Most are DEFINE_STUB lines (tests/common/ut_stub.h): each returns ut_<fn>
 * (MOCK_SET changes it) and counts its calls in ut_<fn>_calls. The few with a
 * body keep what the code under test reads back (a deadline, the active
 * flag), record what it sent, or stand for a group (blue_cmd_manage_qp: the
 * command queue). A stub that checks or records what only one suite asserts
 * stays in that suite.
 */
#ifndef ORDK_TEST_RC_STUBS_H
#define ORDK_TEST_RC_STUBS_H

#include "ut_stub.h"

#define RC_STUB(fn) RC_STUB_##fn

/* ------------------------------------------------------------ lib/ */

#define RC_STUB_ordk_wc_status_str \
	DEFINE_STUB(ordk_wc_status_str, const char *, (enum ordk_wc_status status), "status")
#define RC_STUB_verbs_qp_lookup \
	DEFINE_STUB(verbs_qp_lookup, struct ordk_qp *, (struct ordk_dev *dev, uint32_t qpn), NULL)
#define RC_STUB_verbs_handle_alloc \
	DEFINE_STUB(verbs_handle_alloc, void *, (size_t size, size_t align), NULL)
#define RC_STUB_verbs_handle_free DEFINE_STUB_V(verbs_handle_free, (void *obj, size_t size))
#define RC_STUB_verbs_stats_add \
	DEFINE_STUB_V(verbs_stats_add, (struct ordk_stats *to, const struct ordk_stats *from))
/* a QP's inline area (verbs_qp.c): registered as an MR */
#define RC_STUB_ordk_mr_reg                                                               \
	DEFINE_STUB(ordk_mr_reg, struct ordk_mr *,                                        \
		    (struct ordk_pd *pd, void *addr, size_t length, unsigned int access), NULL)
#define RC_STUB_ordk_mr_dereg DEFINE_STUB(ordk_mr_dereg, int, (struct ordk_mr *mr), 0)
#define RC_STUB_mem_keys_alloc DEFINE_STUB(mem_keys_alloc, int64_t, (struct mem_keys *k), 0x100)
/* QP timelines (verbs_trace.c): none kept, so verbs_trace() records nothing */
#define RC_STUB_verbs_trace_qp_init \
	DEFINE_STUB(verbs_trace_qp_init, int, (struct verbs_qp *qp, uint32_t depth), 0)
#define RC_STUB_verbs_trace_qp_fini DEFINE_STUB_V(verbs_trace_qp_fini, (struct verbs_qp *qp))
#define RC_STUB_verbs_trace_add                                                       \
	DEFINE_STUB_V(verbs_trace_add, (struct verbs_qp *qp, enum verbs_trace_ev ev, uint32_t a, \
					uint64_t b))

/* only the fatal event is expected: counted in ut_verbs_event_raise_calls */
#define RC_STUB_verbs_event_raise                                                     \
	static unsigned int ut_verbs_event_raise_calls;                               \
	UT_STUB_BODY_BEGIN                                                            \
	void verbs_event_raise(struct ordk_dev *dev, enum ordk_event_type type,       \
			       struct ordk_qp *qp, struct ordk_cq *cq)                \
	{                                                                             \
		cr_assert_eq(type, ORDK_EVENT_QP_FATAL);                              \
		ut_verbs_event_raise_calls++;                                         \
	}                                                                             \
	UT_STUB_BODY_END                                                              \
	UT_STUB_END_

/* shared receive queues (verbs_srq.c) */
#define RC_STUB_verbs_srq_take \
	DEFINE_STUB(verbs_srq_take, bool, (struct ordk_srq *srq, struct ordk_recv_wr *wr), false)
#define RC_STUB_verbs_srq_give_back \
	DEFINE_STUB_V(verbs_srq_give_back, (struct ordk_srq *srq, const struct ordk_recv_wr *wr))
#define RC_STUB_verbs_srq_consumed DEFINE_STUB_V(verbs_srq_consumed, (struct ordk_srq *srq))

/* the completions, in cqe[0..ncqe) */
#define RC_STUB_verbs_cq_push                                                         \
	static struct ordk_wc cqe[16];                                                \
	static unsigned int ncqe;                                                     \
	UT_STUB_BODY_BEGIN                                                            \
	void verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc)              \
	{                                                                             \
		cr_assert_lt(ncqe, 16);                                               \
		cqe[ncqe++] = *wc;                                                    \
	}                                                                             \
	UT_STUB_BODY_END                                                              \
	UT_STUB_END_

/* ------------------------------------------------ drivers/rdma/blue */

#define RC_STUB_blue_cc_cnp DEFINE_STUB_V(blue_cc_cnp, (struct blue_qp *qp))
#define RC_STUB_blue_cc_qp_init DEFINE_STUB_V(blue_cc_qp_init, (struct blue_qp *qp, bool on))
#define RC_STUB_blue_mr_lookup \
	DEFINE_STUB(blue_mr_lookup, struct blue_mr *, (struct blue_dev *dev, uint32_t key), NULL)
#define RC_STUB_blue_manage_qp \
	DEFINE_STUB(blue_manage_qp, int, (struct blue_qp *qp, bool valid, bool error), 0)
#define RC_STUB_blue_meta_next \
	DEFINE_STUB(blue_meta_next, int, (struct blue_hw *dev, struct blue_meta_report *rep), 0)
#define RC_STUB_blue_snic_rx_next \
	DEFINE_STUB(blue_snic_rx_next, const uint8_t *, (struct blue_hw *dev, uint32_t *len), NULL)
#define RC_STUB_blue_snic_rx_done DEFINE_STUB_V(blue_snic_rx_done, (struct blue_hw *dev))
#define RC_STUB_blue_snic_tx_room DEFINE_STUB(blue_snic_tx_room, bool, (struct blue_hw *dev), true)
/* blue_ud.c: the UD transport beside RC (blue_qp.c and rc_engine.c branch to it) */
#define RC_STUB_blue_ud_rx \
	DEFINE_STUB_V(blue_ud_rx, (struct blue_dev *dev, const uint8_t *f, uint32_t len))
#define RC_STUB_blue_ud_step DEFINE_STUB(blue_ud_step, enum rc_step, (struct blue_qp *qp), RC_DONE)
#define RC_STUB_blue_ud_qp_init DEFINE_STUB(blue_ud_qp_init, int, (struct blue_qp *qp), 0)
#define RC_STUB_blue_ud_qp_fini DEFINE_STUB_V(blue_ud_qp_fini, (struct blue_qp *qp))
#define RC_STUB_blue_ud_modify                                                                \
	DEFINE_STUB_V(blue_ud_modify,                                                         \
		      (struct blue_qp *qp, enum ordk_qp_state cur, enum ordk_qp_state next))
#define RC_STUB_blue_ud_flush DEFINE_STUB_V(blue_ud_flush, (struct blue_qp *qp))
#define RC_STUB_blue_ud_info \
	DEFINE_STUB_V(blue_ud_info, (const struct blue_qp *qp, struct ordk_qp_info *info))
#define RC_STUB_blue_ud_post_send \
	DEFINE_STUB(blue_ud_post_send, int, (struct blue_qp *qp, const struct ordk_send_wr *wr), 0)
#define RC_STUB_blue_ud_post_recv \
	DEFINE_STUB(blue_ud_post_recv, int, (struct blue_qp *qp, const struct ordk_recv_wr *wr), 0)

/*
 * The command queue as the QP's error transition (rc_qp.c) sees it:
 * blue_cmd_submit() accepts only ManageQp (error) and returns submit_rc (the
 * command's sequence 42, or an error); blue_cmd_done() reaps sequence 42 once
 * cmd_done is set, with cmd_ok as the card's answer.
 */
#define RC_STUB_blue_cmd_manage_qp                                                    \
	static int64_t submit_rc;     /* what blue_cmd_submit returns */              \
	static unsigned int submits;  /* ManageQp (error) submitted */                \
	static bool cmd_done, cmd_ok; /* the card answered; its answer */             \
	UT_STUB_BODY_BEGIN                                                            \
	int64_t blue_cmd_submit(struct blue_hw *dev, const struct blue_cmd *cmd)      \
	{                                                                             \
		cr_assert_eq(cmd->hdr.opcode, BLUE_CMD_MANAGE_QP);                    \
		cr_assert(cmd->qp.is_error && !cmd->qp.is_valid, "ManageQp (error)"); \
		submits++;                                                            \
		return submit_rc;                                                     \
	}                                                                             \
	bool blue_cmd_done(const struct blue_hw *dev, uint32_t seq, bool *ok)         \
	{                                                                             \
		cr_assert_eq(seq, 42u, "reaps the command it submitted");             \
		if (ok != NULL)                                                       \
			*ok = cmd_ok;                                                 \
		return cmd_done;                                                      \
	}                                                                             \
	UT_STUB_BODY_END                                                              \
	struct blue_cmd blue_manage_qp_cmd(const struct blue_qp *qp, bool valid, bool error) \
	{                                                                             \
		struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } }; \
                                                                                      \
		c.qp.qpn = qp->vqp.qpn;                                               \
		c.qp.is_valid = valid;                                                \
		c.qp.is_error = error;                                                \
		return c;                                                             \
	}                                                                             \
	UT_STUB_END_

/* the Send ring takes everything: the items put, in items[0..nitems) */
#define RC_STUB_ITEMS 64
#define RC_STUB_blue_send_item_put                                                    \
	static struct blue_send_item items[RC_STUB_ITEMS];                            \
	static unsigned int nitems;                                                   \
	UT_STUB_BODY_BEGIN                                                            \
	int blue_send_item_put(struct blue_hw *dev, const struct blue_send_item *it)  \
	{                                                                             \
		cr_assert_lt(nitems, RC_STUB_ITEMS);                                  \
		items[nitems++] = *it;                                                \
		return 0;                                                             \
	}                                                                             \
	UT_STUB_BODY_END                                                              \
	UT_STUB_END_

/* ------------------------------------------------------------ rc/ */

/* rc_ack.c */
#define RC_STUB_rc_ack_frame \
	DEFINE_STUB(rc_ack_frame, bool, (struct blue_qp *qp, bool nak, uint32_t psn), true)
#define RC_STUB_rc_ack_step \
	DEFINE_STUB(rc_ack_step, enum rc_step, (struct blue_qp *qp, uint64_t now), RC_DONE)
#define RC_STUB_rc_state_name \
	DEFINE_STUB(rc_state_name, const char *, (enum rc_sm sm, unsigned int s), "state")
/* the hole as rc_ack.c opens it; counted in ut_rc_hole_open_calls */
#define RC_STUB_rc_hole_open                                                          \
	static unsigned int ut_rc_hole_open_calls;                                    \
	void rc_hole_open(struct rc_resp *rs, enum rc_hole_state s, uint64_t now)     \
	{                                                                             \
		rs->hole = s;                                                         \
		rs->hole_psn = rs->epsn;                                              \
		rs->hole_tsc = now;                                                   \
		ut_rc_hole_open_calls++;                                              \
	}                                                                             \
	UT_STUB_END_

/* rc_atomic.c */
#define RC_STUB_rc_atomic_send \
	DEFINE_STUB(rc_atomic_send, bool, (struct blue_qp *qp, struct rc_wqe *w), true)
#define RC_STUB_rc_atomic_resend DEFINE_STUB_V(rc_atomic_resend, (struct blue_qp *qp))
#define RC_STUB_rc_atomic_progress DEFINE_STUB_V(rc_atomic_progress, (struct blue_qp *qp))

/* rc_comp.c; the state writers without their tables (test_rc_comp.c checks those) */
#define RC_STUB_rc_comp_to                                                            \
	bool rc_comp_to(struct blue_qp *qp, enum rc_comp_state next)                  \
	{                                                                             \
		qp->comp.state = next;                                                \
		return true;                                                          \
	}                                                                             \
	UT_STUB_END_
#define RC_STUB_rc_wqe_to                                                             \
	bool rc_wqe_to(struct blue_qp *qp, struct rc_wqe *w, enum rc_wqe_state next)  \
	{                                                                             \
		(void)qp;                                                             \
		w->state = (uint8_t)next;                                             \
		return true;                                                          \
	}                                                                             \
	UT_STUB_END_
#define RC_STUB_rc_comp_rx_report \
	DEFINE_STUB_V(rc_comp_rx_report, (struct blue_qp *qp, const struct blue_meta_report *r))
#define RC_STUB_rc_complete_sends DEFINE_STUB_V(rc_complete_sends, (struct blue_qp *qp))
#define RC_STUB_rc_len_err_reap \
	DEFINE_STUB(rc_len_err_reap, enum rc_step, (struct blue_qp *qp), RC_MORE)
#define RC_STUB_rc_qp_set_timeout DEFINE_STUB_V(rc_qp_set_timeout, (struct blue_qp *qp))
#define RC_STUB_rc_timer_arm DEFINE_STUB_V(rc_timer_arm, (struct blue_qp *qp))
#define RC_STUB_rc_timer_check DEFINE_STUB_V(rc_timer_check, (struct blue_qp *qp, uint64_t now))

/* rc_ctrl.c */
/* a control message as the real one starts it: its type and our QPN */
#define RC_STUB_rc_ctrl_msg                                                           \
	struct blue_ctrl_msg rc_ctrl_msg(const struct blue_qp *qp, enum blue_ctrl_type type) \
	{                                                                             \
		return (struct blue_ctrl_msg){ .type = type, .src_qpn = qp->vqp.qpn }; \
	}                                                                             \
	UT_STUB_END_
#define RC_STUB_rc_advert_pending \
	DEFINE_STUB(rc_advert_pending, enum rc_step, (const struct blue_qp *qp), RC_DONE)
#define RC_STUB_rc_advert_rewind DEFINE_STUB_V(rc_advert_rewind, (struct blue_qp *qp))
#define RC_STUB_rc_ctrl_rx \
	DEFINE_STUB_V(rc_ctrl_rx, (struct blue_dev *dev, const uint8_t *f, uint32_t len))
#define RC_STUB_rc_probe DEFINE_STUB(rc_probe, bool, (struct blue_qp *qp), true)
#define RC_STUB_rc_send_advert_ack \
	DEFINE_STUB(rc_send_advert_ack, enum rc_step, (struct blue_qp *qp), RC_DONE)
#define RC_STUB_rc_send_adverts \
	DEFINE_STUB(rc_send_adverts, enum rc_step, (struct blue_qp *qp), RC_DONE)
#define RC_STUB_rc_want_due \
	DEFINE_STUB(rc_want_due, bool, (const struct blue_qp *qp, uint64_t now), false)
#define RC_STUB_rc_send_recv_state \
	DEFINE_STUB(rc_send_recv_state, enum rc_step, (struct blue_qp *qp), RC_DONE)
/* the RNR question, as the real one leaves it: asked now */
#define RC_STUB_rc_rnr_ask                                                            \
	static unsigned int ut_rc_rnr_ask_calls;                                      \
	UT_STUB_BODY_BEGIN                                                            \
	bool rc_rnr_ask(struct blue_qp *qp)                                           \
	{                                                                             \
		qp->req.rnr_answer = false;                                           \
		qp->req.rnr_ask_tsc = rc_ptime(&blue_qp_dev(qp)->rc);                 \
		ut_rc_rnr_ask_calls++;                                                \
		return true;                                                          \
	}                                                                             \
	UT_STUB_BODY_END                                                              \
	UT_STUB_END_

/* rc_engine.c: the deadline kept where the completer reads it; the QP marked active */
#define RC_STUB_rc_timer_set                                                          \
	void rc_timer_set(struct blue_qp *qp, uint64_t deadline)                      \
	{                                                                             \
		qp->comp.rtx_deadline = deadline;                                     \
	}                                                                             \
	UT_STUB_END_
#define RC_STUB_rc_activate                                                           \
	void rc_activate(struct blue_qp *qp)                                          \
	{                                                                             \
		qp->sched.on_active = true;                                           \
	}                                                                             \
	UT_STUB_END_

/* rc_qp.c */
#define RC_STUB_rc_rwqe_make                                                              \
	DEFINE_STUB(rc_rwqe_make, int, (struct blue_qp *qp, const struct ordk_pd *pd,      \
					const struct ordk_recv_wr *wr, struct rc_rwqe *r), 0)
#define RC_STUB_rc_mr_check_pd                                                            \
	DEFINE_STUB(rc_mr_check_pd, int, (struct blue_dev *dev, const struct ordk_pd *pd,  \
					  uint32_t key, uint64_t addr, uint64_t len,       \
					  unsigned int access), 0)
/* the QP's failures, counted in fails (rc_qp_fail() and rc_qp_error() alike) */
#define RC_STUB_rc_qp_fails                                                           \
	static unsigned int fails;                                                    \
	void rc_qp_fail(struct blue_qp *qp, enum ordk_wc_status status)               \
	{                                                                             \
		(void)qp;                                                             \
		(void)status;                                                         \
		fails++;                                                              \
	}                                                                             \
	void rc_qp_error(struct blue_qp *qp)                                          \
	{                                                                             \
		(void)qp;                                                             \
		fails++;                                                              \
	}                                                                             \
	UT_STUB_END_
#define RC_STUB_rc_post_recv \
	DEFINE_STUB(rc_post_recv, int, (struct blue_qp *qp, const struct ordk_recv_wr *wr), 0)
#define RC_STUB_rc_post_send \
	DEFINE_STUB(rc_post_send, int, (struct blue_qp *qp, const struct ordk_send_wr *wr), 0)
#define RC_STUB_rc_qp_err_cmd_start DEFINE_STUB_V(rc_qp_err_cmd_start, (struct blue_qp *qp))
#define RC_STUB_rc_qp_error_reap \
	DEFINE_STUB(rc_qp_error_reap, enum rc_step, (struct blue_qp *qp), RC_DONE)
#define RC_STUB_rc_qp_init DEFINE_STUB(rc_qp_init, int, (struct blue_qp *qp), 0)
#define RC_STUB_rc_mr_check                                                           \
	DEFINE_STUB(rc_mr_check, int, (const struct blue_qp *qp, uint32_t key, uint64_t addr, \
				       uint64_t len, unsigned int access), 0)

/* rc_req.c */
#define RC_STUB_rc_source_ok                                                          \
	DEFINE_STUB(rc_source_ok, bool, (struct blue_qp *qp, struct rc_wqe *w, uint32_t off, \
					 uint32_t len), true)

/* rc_sgl.c: no WR of these suites gathers (nsge <= 1), so only the post's check runs */
#define RC_STUB_rc_sgl_check                                                          \
	DEFINE_STUB(rc_sgl_check, int, (struct blue_qp *qp, const struct ordk_send_wr *wr, \
					unsigned int need), 0)
#define RC_STUB_rc_sgl_item_len                                                       \
	DEFINE_STUB(rc_sgl_item_len, uint32_t, (const struct blue_qp *qp, const struct rc_wqe *w, \
						uint32_t off, uint32_t n, uint32_t pmtu), 0)
#define RC_STUB_rc_sgl_source                                                         \
	DEFINE_STUB_V(rc_sgl_source, (struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, \
				      uint32_t len, uint64_t *laddr, uint32_t *lkey))
#define RC_STUB_rc_sgl_ok                                                             \
	DEFINE_STUB(rc_sgl_ok, bool, (struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, \
				      uint32_t len), true)

/* rc_read.c */
#define RC_STUB_rc_read_answer_seen                                                   \
	DEFINE_STUB_V(rc_read_answer_seen,                                            \
		      (struct blue_qp *qp, uint16_t msn, uint32_t psn, uint32_t total_len, \
		       uint64_t now))
#define RC_STUB_rc_read_done DEFINE_STUB_V(rc_read_done, (struct blue_qp *qp, const struct rc_msg *m))
/* the READs' keys: always there, gone at once */
#define RC_STUB_rc_read_key_ready \
	DEFINE_STUB(rc_read_key_ready, bool, (struct blue_qp *qp, struct rc_wqe *w), true)
#define RC_STUB_rc_read_keys_ahead DEFINE_STUB_V(rc_read_keys_ahead, (struct blue_qp *qp))
#define RC_STUB_rc_read_keys_revoke_all DEFINE_STUB_V(rc_read_keys_revoke_all, (struct blue_qp *qp))
#define RC_STUB_rc_ack_last_word DEFINE_STUB_V(rc_ack_last_word, (struct blue_qp *qp))
#define RC_STUB_rc_read_keys_wait DEFINE_STUB(rc_read_keys_wait, enum rc_step, (struct blue_qp *qp), RC_DONE)
#define RC_STUB_rc_read_keys_release DEFINE_STUB_V(rc_read_keys_release, (struct blue_qp *qp))
#define RC_STUB_rc_read_keys_retire \
	DEFINE_STUB(rc_read_keys_retire, enum rc_step, (struct blue_qp *qp), RC_DONE)
#define RC_STUB_rc_read_progress DEFINE_STUB_V(rc_read_progress, (struct blue_qp *qp))
#define RC_STUB_rc_rx_read \
	DEFINE_STUB_V(rc_rx_read, (struct blue_qp *qp, const struct blue_meta_report *r))

/* rc_recv.c */
#define RC_STUB_rc_recv_keys_release \
	DEFINE_STUB_V(rc_recv_keys_release, (struct blue_qp *qp, bool push))
#define RC_STUB_rc_recv_retire \
	DEFINE_STUB(rc_recv_retire, enum rc_step, (struct blue_qp *qp, bool force), RC_DONE)
#define RC_STUB_rc_srq_join DEFINE_STUB_V(rc_srq_join, (struct blue_qp *qp))
#define RC_STUB_rc_srq_refill DEFINE_STUB_V(rc_srq_refill, (struct blue_qp *qp))
#define RC_STUB_rc_srq_return DEFINE_STUB_V(rc_srq_return, (struct blue_qp *qp))
#define RC_STUB_rc_srq_last_wqe DEFINE_STUB_V(rc_srq_last_wqe, (struct blue_qp *qp))

/* rc_key.c */
#define RC_STUB_rc_key_revoke_run DEFINE_STUB_V(rc_key_revoke_run, (struct blue_dev *d))
#define RC_STUB_rc_key_pgt DEFINE_STUB(rc_key_pgt, uint32_t, (const struct blue_mr *m, uint64_t addr), 0)
#define RC_STUB_rc_key_revoke DEFINE_STUB_V(rc_key_revoke, (struct blue_dev *d, struct rc_key *k))
#define RC_STUB_rc_key_gone DEFINE_STUB(rc_key_gone, bool, (struct blue_dev *d, struct rc_key *k), true)
#define RC_STUB_rc_key_revoke_step \
	DEFINE_STUB(rc_key_revoke_step, bool, (struct blue_dev *d, struct rc_key *k), true)
#define RC_STUB_rc_key_orphan DEFINE_STUB_V(rc_key_orphan, (struct blue_dev *d, struct rc_key *k))
#define RC_STUB_rc_key_ready                                                          \
	DEFINE_STUB(rc_key_ready, bool, (struct blue_qp *qp, struct rc_key *k, uint64_t addr, \
					 uint32_t len, uint8_t acc, uint64_t *short_count), true)

/* rc_req.c */
#define RC_STUB_rc_late_copy_sent \
	DEFINE_STUB_V(rc_late_copy_sent, (struct blue_qp *qp, uint32_t psn))
#define RC_STUB_rc_push DEFINE_STUB(rc_push, unsigned int, (struct blue_qp *qp), 0)
#define RC_STUB_rc_push_owed_answers DEFINE_STUB_V(rc_push_owed_answers, (struct blue_qp *qp))

/* rc_resp.c */
#define RC_STUB_rc_resp_complete DEFINE_STUB_V(rc_resp_complete, (struct blue_qp *qp))
#define RC_STUB_rc_resp_rx_report \
	DEFINE_STUB_V(rc_resp_rx_report, (struct blue_qp *qp, const struct blue_meta_report *r))

/* rc_rtx.c */
#define RC_STUB_rc_push_retries DEFINE_STUB(rc_push_retries, unsigned int, (struct blue_qp *qp), 0)
#define RC_STUB_rc_retransmit \
	DEFINE_STUB_V(rc_retransmit, (struct blue_qp *qp, uint32_t from, uint32_t to))
#define RC_STUB_rc_retransmit_card                                                    \
	DEFINE_STUB(rc_retransmit_card, uint32_t,                                     \
		    (struct blue_qp *qp, uint32_t from, uint32_t to), 0)
#define RC_STUB_rc_rtx_unfetched DEFINE_STUB(rc_rtx_unfetched, bool, (struct blue_qp *qp), false)

#endif /* ORDK_TEST_RC_STUBS_H */
