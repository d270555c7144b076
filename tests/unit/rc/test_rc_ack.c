/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACK/NAK generation (rc/rc_ack.c) with the receive tracker: the hole and
 * probe state machines on a stubbed clock. The test includes both .c files
 * and stubs their neighbours: SimpleNic TX records the frames sent.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_ack.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

RC_STUB(verbs_trace_add);
RC_STUB(blue_snic_tx_room); /* MOCK_SET(blue_snic_tx_room, false): the TX ring is full */

#define MAX_FRAMES 16
static struct blue_wire_rdma sent[MAX_FRAMES];
static unsigned int nsent;

int
blue_snic_tx(struct blue_hw *dev, const void *frame, uint32_t len)
{
	(void)dev;
	cr_assert_lt(nsent, MAX_FRAMES);
	cr_assert_eq(blue_wire_rdma_parse(frame, len, 0, &sent[nsent]), 0, "an ACK frame");
	nsent++;
	return 0;
}

/* ------------------------------------------------------------ fixture */

#define HOLD 1000u /* TSC cycles */
static struct blue_dev dev;
static struct blue_qp qp;

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sent, 0, sizeof(sent));
	nsent = 0;
	MOCK_SET(blue_snic_tx_room, true);
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.comp.hold_tsc = HOLD;
	dev.rc.ptime = dev.rc.wall_tsc = 10000;
	rc_rx_reset(&qp.resp, BLUE_PSN_MASK - 1); /* the hole sits on the 2^24 wrap */
}

TestSuite(rc_ack, .init = setup);

static void
at(uint64_t t)
{
	dev.rc.ptime = t;
}

/* ------------------------------------------------------------ the hole */

Test(rc_ack, a_report_opens_the_hole_and_the_hold_delays_the_nak)
{
	struct rc_resp *rs = &qp.resp;
	uint32_t e = rs->epsn;

	rc_rx_mark(rs, blue_psn_add(e, 3));
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_NONE);
	rc_hole_check(&qp, false);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_NONE, "only a report opens a hole");
	rc_hole_check(&qp, true);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_SETTLED);
	cr_assert_eq(nsent, 0);
	at(10000 + HOLD - 1);
	rc_hole_check(&qp, true);
	cr_assert_eq(nsent, 0, "within the hold: it may be reordering");
	at(10000 + HOLD);
	rc_hole_check(&qp, true);
	cr_assert_eq(nsent, 1);
	cr_assert(sent[0].aeth.is_packet_lost && sent[0].aeth.is_send_by_driver);
	cr_assert_eq(sent[0].aeth.pre_psn, e, "NAK from epsn 0x%06x", sent[0].aeth.pre_psn);
	cr_assert_eq(sent[0].bth.psn, blue_psn_add(e, 3), "to the first PSN that arrived");
	cr_assert_eq(qp.vqp.st.naks_sent, 1);
}

Test(rc_ack, reported_hole_is_judged_on_time_while_reads_are_answered)
{
	struct rc_resp *rs = &qp.resp;

	/* h-read: a lost READ answer packet with no report to come is asked for on time */
	rc_rx_mark(rs, blue_psn_add(rs->epsn, 1));
	rc_hole_check(&qp, true);
	qp.req.rd_q.count = 1;
	at(10000 + 10 * HOLD);
	rc_hole_check(&qp, false);
	cr_assert_eq(nsent, 1, "a reported hole is NAKed on time during READs");
}

Test(rc_ack, naks_back_off_and_give_up)
{
	struct rc_resp *rs = &qp.resp;
	uint64_t t = 10000;

	rc_rx_mark(rs, blue_psn_add(rs->epsn, 2));
	rc_hole_check(&qp, true);
	t += HOLD;
	for (unsigned int k = 0; k < RC_NAK_MAX; k++) {
		at(t);
		rc_hole_check(&qp, false);
		cr_assert_eq(nsent, k + 1, "NAK %u", k);
		/* the next one waits hold << k */
		at(t + ((uint64_t)HOLD << k) - 1);
		rc_hole_check(&qp, false);
		cr_assert_eq(nsent, k + 1, "backoff after NAK %u", k);
		t += (uint64_t)HOLD << k;
	}
	cr_assert_eq(qp.vqp.st.naks_given_up, 1);
	at(t + 100 * HOLD);
	rc_hole_check(&qp, false);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_GIVEN_UP);
	cr_assert_eq(nsent, RC_NAK_MAX, "given up: no more NAKs");
	/* the engine no longer keeps the QP awake for it */
	cr_assert_eq(rc_ack_step(&qp, t + 100 * HOLD), RC_DONE);
	/* a report opens it again, but the count for this epsn stands */
	rc_hole_check(&qp, true);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_SETTLED);
	at(t + 200 * HOLD);
	rc_hole_check(&qp, false);
	cr_assert_eq(nsent, RC_NAK_MAX);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_GIVEN_UP);
}

Test(rc_ack, the_hole_closes_when_epsn_moves)
{
	struct rc_resp *rs = &qp.resp;
	uint32_t e = rs->epsn;

	rc_rx_mark(rs, blue_psn_add(e, 1));
	rc_hole_check(&qp, true);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_SETTLED);
	rc_rx_mark(rs, e);
	cr_assert_eq(rc_hole_state(rs), RC_HOLE_NONE, "filled");
	cr_assert_eq(rc_ack_step(&qp, 20000), RC_DONE);
	cr_assert_eq(nsent, 0);
}

/* The hold counts polling time (rc_ptime()), not the wall time of a polling gap. */
Test(rc_ack, the_hold_runs_in_polling_time)
{
	struct rc_resp *rs = &qp.resp;

	rc_rx_mark(rs, blue_psn_add(rs->epsn, 1));
	rc_hole_check(&qp, true);
	dev.rc.wall_tsc += 5 * HOLD; /* the process was not scheduled */
	at(10000 + HOLD - 1);
	rc_hole_check(&qp, false);
	cr_assert_eq(nsent, 0, "judged on what was seen while polling");
	at(10000 + HOLD);
	rc_hole_check(&qp, false);
	cr_assert_eq(nsent, 1);
}

/* ------------------------------------------------------------ the probe */

Test(rc_ack, probe_waits_for_a_report_or_the_hold)
{
	struct rc_resp *rs = &qp.resp;
	uint32_t e = rs->epsn;

	rc_rx_mark(rs, blue_psn_add(e, 4));
	rc_probe_asked(rs, blue_psn_add(e, 10), 10000);
	cr_assert_eq(rs->probe, RC_PROBE_ASKED);
	rc_probe_asked(rs, blue_psn_add(e, 8), 10500);
	cr_assert_eq(rs->probe_psn, blue_psn_add(e, 10), "the furthest question counts");
	cr_assert_eq(rs->probe_tsc, 10000, "asked at the first question");
	cr_assert_eq(rc_ack_step(&qp, 10000 + HOLD - 1), RC_MORE);
	cr_assert_eq(nsent, 0, "not before the hold");
	/* the poll that answers keeps the QP for one more look, as any probe does */
	cr_assert_eq(rc_ack_step(&qp, 10000 + HOLD), RC_MORE);
	cr_assert_eq(nsent, 2, "the answer goes twice");
	cr_assert_eq(sent[0].aeth.pre_psn, e);
	cr_assert_eq(sent[0].bth.psn, blue_psn_add(e, 4), "NAK exactly the hole");
	cr_assert_eq(rs->probe, RC_PROBE_NONE);
	cr_assert_eq(rc_ack_step(&qp, 10000 + HOLD), RC_DONE);
	cr_assert_eq(nsent, 2);
}

/*
 * Not even in the poll it arrived in: the card reports MIDDLE packets only
 * in its next bitmap report, so an answer then could NAK PSNs that arrived.
 */
Test(rc_ack, a_question_is_not_answered_before_the_tracker_is_up_to_date)
{
	struct rc_resp *rs = &qp.resp;
	uint32_t e = rs->epsn;

	rc_rx_mark(rs, blue_psn_add(e, 4));
	rc_probe_asked(rs, blue_psn_add(e, 10), 10000);
	cr_assert_eq(rc_ack_step(&qp, 10000), RC_MORE);
	cr_assert_eq(nsent, 0, "no report and no hold yet");
	cr_assert_eq(rs->probe, RC_PROBE_ASKED);
}

Test(rc_ack, a_report_answers_the_probe_at_once)
{
	struct rc_resp *rs = &qp.resp;

	rc_probe_asked(rs, rs->epsn, 10000);
	rs->probe = RC_PROBE_REPORTED; /* what rx_bitmap does for an ASKED probe */
	cr_assert_eq(rc_ack_step(&qp, 10001), RC_MORE);
	/* nothing missing: an ACK of epsn */
	cr_assert_eq(nsent, 1);
	cr_assert_not(sent[0].aeth.is_packet_lost);
	cr_assert_eq(sent[0].bth.psn, rs->epsn);
	cr_assert_eq(qp.vqp.st.acks_sent, 1);
}

Test(rc_ack, an_ack_that_cannot_go_keeps_the_qp_active)
{
	qp.resp.ack_due = true;
	MOCK_SET(blue_snic_tx_room, false);
	cr_assert_eq(rc_ack_step(&qp, 10000), RC_MORE);
	cr_assert(qp.resp.ack_due);
	MOCK_SET(blue_snic_tx_room, true);
	cr_assert_eq(rc_ack_step(&qp, 10000), RC_DONE);
	cr_assert_not(qp.resp.ack_due);
}

/* ------------------------------------------------------------ names */

Test(rc_ack, every_state_has_a_name)
{
	static const struct {
		enum rc_sm sm;
		unsigned int n;
	} m[] = { { RC_SM_REQ, RC_REQ_NSTATES }, { RC_SM_COMP, RC_COMP_NSTATES },
		  { RC_SM_HOLE, RC_HOLE_NSTATES }, { RC_SM_PROBE, RC_PROBE_NSTATES },
		  { RC_SM_KEY, RC_KEY_NSTATES } };

	for (unsigned int i = 0; i < RTE_DIM(m); i++) {
		for (unsigned int s = 0; s < m[i].n; s++) {
			const char *n = rc_state_name(m[i].sm, s);

			cr_assert(n != NULL && n[0] != '\0' && strcmp(n, "?") != 0,
				  "machine %u state %u", i, s);
		}
		cr_assert_str_eq(rc_state_name(m[i].sm, m[i].n), "?");
	}
	cr_assert_str_eq(rc_state_name(RC_SM_HOLE, RC_HOLE_GIVEN_UP), "given-up");
	cr_assert_str_eq(rc_state_name(RC_SM_REQ, RC_REQ_LEN_ERR), "len-err");
}
