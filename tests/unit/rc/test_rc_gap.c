/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Polling gaps, end to end through the engine (drivers/rdma/blue/rc): the
 * engine's time (rc_engine.c poll_clock()), the wheel, the retransmission
 * timer (rc_comp.c), and the hole and probe holds (rc_ack.c), under a
 * stubbed clock. A slow but regular poller (an idle ibverbs progress thread
 * polls every 200-250 us) must see every timer and hold run in real time; a
 * process that stopped for 50 ms must not take the gap for the peer's
 * silence. The test includes the four .c files and stubs their neighbours:
 * the card's rings, the requester, control frames, the command queue.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_engine.c"
#include "../../../drivers/rdma/blue/rc/rc_comp.c"
#include "../../../drivers/rdma/blue/rc/rc_ack.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

static uint64_t clock_now;
static unsigned int probes, naks, acks, fails;

static uint64_t
fake_clock(void)
{
	return clock_now;
}

bool
rc_probe(struct ordk_qp *qp)
{
	(void)qp;
	probes++;
	return true;
}

bool
blue_snic_tx_room(struct blue_dev *dev)
{
	(void)dev;
	return true;
}

int
blue_snic_tx(struct blue_dev *dev, const void *frame, uint32_t len)
{
	struct ordk_wire_rdma p;

	(void)dev;
	cr_assert_eq(ordk_wire_rdma_parse(frame, len, 0, &p), 0, "an ACK frame");
	if (p.aeth.is_packet_lost)
		naks++;
	else
		acks++;
	return 0;
}

void
rc_qp_fail(struct ordk_qp *qp, enum ordk_wc_status status)
{
	(void)qp;
	(void)status;
	fails++;
}

void
rc_qp_error(struct ordk_qp *qp)
{
	(void)qp;
	fails++;
}

enum rc_step
rc_qp_error_reap(struct ordk_qp *qp)
{
	(void)qp;
	return RC_DONE;
}

void
rc_qp_err_cmd_start(struct ordk_qp *qp)
{
	(void)qp;
}

bool
rc_qp_err_cmd_reaped(struct ordk_qp *qp, bool *ok)
{
	(void)qp;
	*ok = true;
	return true;
}

int
verbs_manage_qp(struct ordk_qp *qp, bool valid, bool error)
{
	(void)qp;
	(void)valid;
	(void)error;
	return 0;
}

void
verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc)
{
	(void)cq;
	(void)wc;
}

const char *
ordk_wc_status_str(enum ordk_wc_status status)
{
	(void)status;
	return "status";
}

uint32_t
rc_retransmit_card(struct ordk_qp *qp, uint32_t from, uint32_t to)
{
	(void)qp;
	(void)from;
	(void)to;
	return 0;
}

void
rc_retransmit(struct ordk_qp *qp, uint32_t from, uint32_t to)
{
	(void)qp;
	(void)from;
	(void)to;
}

bool
rc_rtx_unfetched(struct ordk_qp *qp)
{
	(void)qp;
	return false;
}

bool
rc_atomic_send(struct ordk_qp *qp, struct rc_wqe *w)
{
	(void)qp;
	(void)w;
	return true;
}

void
blue_cc_cnp(struct ordk_qp *qp)
{
	(void)qp;
}

struct ordk_qp *
verbs_qp_lookup(struct ordk_dev *dev, uint32_t qpn)
{
	(void)dev;
	(void)qpn;
	return NULL;
}

void
rc_resp_rx_report(struct ordk_qp *qp, const struct blue_meta_report *r)
{
	(void)qp;
	(void)r;
}

void
rc_rx_read(struct ordk_qp *qp, const struct blue_meta_report *r)
{
	(void)qp;
	(void)r;
}

void
rc_resp_complete(struct ordk_qp *qp)
{
	(void)qp;
}

void
rc_ctrl_rx(struct ordk_dev *dev, const uint8_t *f, uint32_t len)
{
	(void)dev;
	(void)f;
	(void)len;
}

int
blue_meta_next(struct blue_dev *dev, struct blue_meta_report *rep)
{
	(void)dev;
	(void)rep;
	return 0;
}

const uint8_t *
blue_snic_rx_next(struct blue_dev *dev, uint32_t *len)
{
	(void)dev;
	(void)len;
	return NULL;
}

void
blue_snic_rx_done(struct blue_dev *dev)
{
	(void)dev;
}

void
rc_advert_rewind(struct ordk_qp *qp, uint64_t now)
{
	(void)qp;
	(void)now;
}

enum rc_step
rc_send_advert_ack(struct ordk_qp *qp)
{
	(void)qp;
	return RC_DONE;
}

enum rc_step
rc_send_adverts(struct ordk_qp *qp)
{
	(void)qp;
	return RC_DONE;
}

enum rc_step
rc_recv_retire(struct ordk_qp *qp, bool force)
{
	(void)qp;
	(void)force;
	return RC_DONE;
}

void
rc_recv_revoke_run(struct ordk_dev *d)
{
	(void)d;
}

enum rc_step
rc_advert_pending(const struct ordk_qp *qp)
{
	(void)qp;
	return RC_DONE;
}

unsigned int
rc_push(struct ordk_qp *qp)
{
	(void)qp;
	return 0;
}

/* ------------------------------------------------------------ fixture */

#define US 1000ull		/* the clock: 1 GHz */
#define MS (1000ull * US)
#define TIMEOUT (1 * MS)	/* the QP's ACK timeout */
#define HOLD (500 * US)		/* its reordering hold */
static struct ordk_dev dev;
static struct ordk_qp qp;
static struct rc_wqe sq[4];
static volatile uint32_t send_tail_reg;

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	probes = naks = acks = fails = 0;
	clock_now = 1000 * MS;
	dev.rc.tsc_hz = 1000 * MS;
	dev.rc.clock = fake_clock;
	dev.hw.ring[BLUE_RING_SEND0].tail_reg = &send_tail_reg;
	TAILQ_INIT(&dev.rc.active);
	rc_wheel_init(&dev);
	qp.dev = &dev;
	qp.attr.qp_state = ORDK_QPS_RTS;
	qp.attr.retry_cnt = 7;
	qp.comp.timeout_tsc = TIMEOUT;
	qp.comp.hold_tsc = HOLD;
	qp.req.sq = sq;
	qp.req.sq_size = 4;
	rc_rx_reset(&qp.resp, 0x100);
}

TestSuite(rc_gap, .init = setup);

/* Polls every @p every for @p len, stopping when @p what changes. @return the clock then. */
static uint64_t
poll_for(uint64_t every, uint64_t len, const unsigned int *what)
{
	uint64_t end = clock_now + len;
	unsigned int was = what != NULL ? *what : 0;

	while (clock_now + every <= end) {
		clock_now += every;
		rc_poll(&dev, 64);
		if (what != NULL && *what != was)
			break;
	}
	return clock_now;
}

/* A WRITE sent, its ACK awaited from a silent peer: the timer is armed in this poll. */
static uint64_t
send_one(void)
{
	qp.req.sq_next = qp.req.sq_tail = 1;
	sq[0] = (struct rc_wqe){ .opcode = BLUE_WR_RDMA_WRITE, .psn = 0x200, .npkts = 1, .len = 8 };
	qp.req.next_psn = qp.req.pushed_psn = 0x201;
	qp.comp.acked_psn = 0x200;
	rc_timer_arm(&qp);
	cr_assert_neq(qp.comp.rtx_deadline, 0);
	return clock_now;
}

/* ------------------------------------------------------------ the timer */

Test(rc_gap, a_slow_regular_poller_fires_the_timer_on_time)
{
	uint64_t armed, fired;

	poll_for(250 * US, 5 * MS, NULL); /* an idle progress thread */
	armed = send_one();
	fired = poll_for(250 * US, 10 * MS, &probes);
	cr_assert_gt(probes, 0, "the timer fired");
	cr_assert_geq(fired - armed, TIMEOUT, "not early");
	cr_assert_leq(fired - armed, TIMEOUT + 250 * US, "within one poll of its deadline");
	cr_assert_eq(qp.comp.rtx_retries, 1);
	/* and again, backed off, on time */
	armed = fired;
	fired = poll_for(250 * US, 10 * MS, &probes);
	cr_assert_geq(fired - armed, 2 * TIMEOUT);
	cr_assert_leq(fired - armed, 2 * TIMEOUT + 250 * US);
}

Test(rc_gap, a_silent_peer_fails_the_qp_under_a_slow_poller)
{
	poll_for(250 * US, 5 * MS, NULL);
	send_one();
	/* 1 + 2 + 4 + ... + 64 + 64 timeouts: about 0.2 s */
	poll_for(250 * US, 1000 * MS, &fails);
	cr_assert_eq(fails, 1, "RETRY_EXC_ERR after retry_cnt timeouts");
	cr_assert_eq(qp.st.retry_exceeded, 1);
}

Test(rc_gap, a_50_ms_polling_gap_is_no_timeout)
{
	uint64_t armed, fired;

	poll_for(10 * US, 1 * MS, NULL); /* a busy application */
	armed = send_one();
	poll_for(10 * US, 300 * US, NULL);
	clock_now += 50 * MS;		/* descheduled */
	rc_poll(&dev, 64);
	cr_assert_eq(probes, 0, "the gap is not the peer's silence");
	fired = poll_for(10 * US, 5 * MS, &probes);
	cr_assert_eq(probes, 2, "the timer still fires (twice the question)");
	/* it counted the time polled, and at most the stall of the gap */
	cr_assert_geq(fired - armed - 50 * MS, TIMEOUT - dev.rc.stall_tsc);
	cr_assert_leq(fired - armed - 50 * MS, TIMEOUT + 10 * US);
}

/* ------------------------------------------------------------ the hole */

/* PSNs after epsn arrived, and a bitmap report showed the hole: it opens now. */
static uint64_t
open_hole(void)
{
	rc_rx_mark(&qp.resp, blue_psn_add(qp.resp.epsn, 3));
	rc_hole_check(&qp, true);
	cr_assert_eq(rc_hole_state(&qp.resp), RC_HOLE_SETTLED);
	rc_activate(&qp);
	return clock_now;
}

Test(rc_gap, a_slow_regular_poller_naks_a_hole_after_the_hold)
{
	uint64_t opened, naked;

	poll_for(250 * US, 5 * MS, NULL);
	opened = open_hole();
	naked = poll_for(250 * US, 5 * MS, &naks);
	cr_assert_eq(naks, 1, "the hole was asked for");
	cr_assert_geq(naked - opened, HOLD);
	cr_assert_leq(naked - opened, HOLD + 250 * US);
}

Test(rc_gap, a_50_ms_polling_gap_does_not_nak_a_hole)
{
	uint64_t opened, naked;

	poll_for(10 * US, 1 * MS, NULL);
	opened = open_hole();
	poll_for(10 * US, 100 * US, NULL);
	clock_now += 50 * MS;
	rc_poll(&dev, 64);
	cr_assert_eq(naks, 0, "the hold counts polled time only");
	naked = poll_for(10 * US, 5 * MS, &naks);
	cr_assert_eq(naks, 1);
	cr_assert_geq(naked - opened - 50 * MS, HOLD - dev.rc.stall_tsc);
	cr_assert_leq(naked - opened - 50 * MS, HOLD + 10 * US);
}

/* ------------------------------------------------------------ the probe */

Test(rc_gap, a_slow_regular_poller_answers_a_probe_after_the_hold)
{
	uint64_t asked, answered;

	poll_for(250 * US, 5 * MS, NULL);
	rc_probe_asked(&qp.resp, qp.resp.epsn, rc_now(&dev.rc)); /* what rc_ctrl_rx does */
	rc_activate(&qp);
	asked = clock_now;
	answered = poll_for(250 * US, 5 * MS, &acks);
	cr_assert_eq(acks, 1, "answered: everything before epsn arrived");
	cr_assert_geq(answered - asked, HOLD);
	cr_assert_leq(answered - asked, HOLD + 250 * US);
}
