/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: one per device, driven by ordk_dev_poll(). Each poll reads the
 * clock once (struct rc_engine: wall_tsc, and ptime, the polling time every
 * deadline is in), drains the card's meta reports and dispatches each to the
 * QP's responder (rc_resp.c) or completer (rc_comp.c), drains the SimpleNic
 * RX ring (control frames, rc_ctrl.c), runs the timer wheel, and then steps
 * every QP on the active list: adverts, the requester
 * (rc_req.c), the responder's ACKs, NAKs and probe answers (rc_ack.c). A QP
 * with nothing to do leaves the list; one waiting only for an ACK sleeps on
 * the wheel until its deadline.
 */
#include <rte_cycles.h>

#include "blue_verbs.h"

/* ------------------------------------------------------------ the wheel */

static uint64_t
tsc_clock(void)
{
	return rte_get_tsc_cycles();
}

void
rc_wheel_init(struct blue_dev *dev)
{
	uint64_t tick = dev->rc.tsc_hz / 65536; /* about 15 us */

	for (unsigned int i = 0; i < RC_WHEEL_SLOTS; i++)
		TAILQ_INIT(&dev->rc.wheel[i]);
	dev->rc.wheel_shift = 0;
	while ((1ull << dev->rc.wheel_shift) < tick)
		dev->rc.wheel_shift++;
	if (dev->rc.clock == NULL)
		dev->rc.clock = tsc_clock;
	dev->rc.wall_tsc = dev->rc.clock();
	dev->rc.ptime = dev->rc.wall_tsc; /* never 0, which deadlines take for none */
	dev->rc.wheel_tick = dev->rc.ptime >> dev->rc.wheel_shift;
	dev->rc.wheel_count = 0;
	dev->rc.stall_tsc = dev->rc.tsc_hz / 5000; /* 200 us */
	dev->rc.idle_tsc = 0;
	rc_fifo_init(&dev->rc.revoke_q, BLUE_MAX_MR); /* revoke_keys[]: BLUE_MAX_MR slots */
}

static void
wheel_remove(struct blue_qp *qp)
{
	struct blue_dev *dev = blue_qp_dev(qp);

	if (!qp->sched.on_wheel)
		return;
	TAILQ_REMOVE(&dev->rc.wheel[(qp->comp.rtx_deadline >> dev->rc.wheel_shift) & (RC_WHEEL_SLOTS - 1)],
		     qp, sched.tlink);
	qp->sched.on_wheel = false;
	dev->rc.wheel_count--;
}

/* Set (or with 0 clear) the QP's retransmission deadline, on the wheel. */
void
rc_timer_set(struct blue_qp *qp, uint64_t deadline)
{
	struct blue_dev *dev = blue_qp_dev(qp);

	wheel_remove(qp);
	if (qp->comp.state != RC_COMP_ERROR && qp->comp.state != RC_COMP_FLUSH &&
	    qp->comp.state != RC_COMP_SETTLE)
		rc_comp_to(qp, deadline == 0		  ? RC_COMP_IDLE
			       : qp->comp.rtx_retries > 0 ? RC_COMP_RETRY
							  : RC_COMP_WAIT_ACK);
	qp->comp.rtx_deadline = deadline;
	qp->comp.rtx_set_tsc = dev->rc.ptime; /* the poll it was set in (no clock read) */
	if (deadline == 0)
		return;
	TAILQ_INSERT_TAIL(&dev->rc.wheel[(deadline >> dev->rc.wheel_shift) & (RC_WHEEL_SLOTS - 1)], qp,
			  sched.tlink);
	qp->sched.on_wheel = true;
	dev->rc.wheel_count++;
}

/*
 * Visit the slots of the ticks since the last run (at most one turn; the
 * last run's slot again, as deadlines later in that tick may sit in it). A
 * QP whose deadline is due leaves the wheel and goes back on the active
 * list, where rc_timer_check() acts; a deadline a turn or more away stays
 * for a later turn. @return QPs woken.
 */
unsigned int
rc_wheel_run(struct blue_dev *dev, uint64_t now)
{
	uint64_t t = now >> dev->rc.wheel_shift, from = dev->rc.wheel_tick;
	unsigned int woken = 0;

	if (dev->rc.wheel_count == 0) {
		dev->rc.wheel_tick = t;
		return 0;
	}
	if (t - from >= RC_WHEEL_SLOTS)
		from = t - RC_WHEEL_SLOTS + 1;
	for (uint64_t k = from; k <= t; k++) {
		struct rc_wheel_slot *slot = &dev->rc.wheel[k & (RC_WHEEL_SLOTS - 1)];
		struct blue_qp *qp, *next;

		for (qp = TAILQ_FIRST(slot); qp != NULL; qp = next) {
			next = TAILQ_NEXT(qp, sched.tlink);
			if (qp->comp.rtx_deadline > now)
				continue;
			TAILQ_REMOVE(slot, qp, sched.tlink);
			qp->sched.on_wheel = false;
			dev->rc.wheel_count--;
			rc_activate(qp);
			woken++;
		}
	}
	dev->rc.wheel_tick = t;
	return woken;
}

void
rc_activate(struct blue_qp *qp)
{
	if (!qp->sched.on_active) {
		TAILQ_INSERT_TAIL(&blue_qp_dev(qp)->rc.active, qp, sched.link);
		qp->sched.on_active = true;
	}
}

/* --------------------------------------------------------- the engine */

/* The QP a meta report is about, if it may take reports (RTR or RTS). */
static struct blue_qp *
report_qp(struct blue_dev *dev, const struct blue_meta_report *r)
{
	uint32_t qpn = r->kind <= BLUE_META_HEADER_READ ? r->basic.dqpn : r->ack.qpn;
	struct ordk_qp *h = verbs_qp_lookup(blue_dev_handle(dev), qpn);
	/* a UD QP has no context on the card: a report naming it is a stale or forged QPN */
	struct blue_qp *qp = h != NULL && !verbs_qp_is_ud(vqp(h)) ? to_bqp(h) : NULL;

	if (qp == NULL || (qp->vqp.attr.qp_state != ORDK_QPS_RTR && qp->vqp.attr.qp_state != ORDK_QPS_RTS)) {
		RC_LOG(DEBUG, "%s report for an unknown QPN or one not in RTR/RTS 0x%06x",
		       blue_meta_kind_name(r->kind), qpn);
		dev->vdev.st.reports_unexpected++; /* a stale QPN, a QP not connected or in ERR */
		return NULL;
	}
	RC_LOG(DEBUG, "qp 0x%06x: %s psn 0x%06x op 0x%x msn %u", qpn, blue_meta_kind_name(r->kind),
	       r->kind <= BLUE_META_HEADER_READ ? r->basic.psn : r->ack.psn_now,
	       r->kind <= BLUE_META_HEADER_READ ? BLUE_BTH_OP(r->opcode) : 0,
	       r->kind <= BLUE_META_HEADER_READ ? r->basic.msn : 0);
	return qp;
}

/*
 * Does a report show the peer is there (liveness: an RNR wait's questions,
 * rc_req.c peer_silent())? Only a packet of the connection does: a header
 * (the peer's request or answer, its PSN in our tracker's space) or an ACK
 * the peer sent. The card reports no source for any of them (section 3.3),
 * but these name the connection's PSNs. The local card's own bitmap reports
 * are not the peer's frames, and a CNP names no PSN at all and can come from
 * anyone on the network: a stranger's CNP every 2 ms kept a SEND waiting for
 * a vanished peer's RECV alive for good (issue 32).
 */
static bool
report_from_peer(enum blue_meta_kind kind)
{
	switch (kind) {
	case BLUE_META_HEADER_WRITE:
	case BLUE_META_HEADER_READ:
	case BLUE_META_ACK_REMOTE_DRIVER:
	case BLUE_META_NAK_REMOTE_HW:
	case BLUE_META_NAK_REMOTE_DRIVER:
		return true;
	default:
		return false;
	}
}

/* One meta report to its QP's responder (the peer's packets) or completer (its ACKs). */
static void
dispatch(struct blue_dev *dev, const struct blue_meta_report *r)
{
	struct blue_qp *qp = report_qp(dev, r);

	if (qp == NULL)
		return;
	if (report_from_peer(r->kind))
		qp->comp.heard_tsc = dev->rc.ptime;
	switch (r->kind) {
	case BLUE_META_HEADER_WRITE:
	case BLUE_META_ACK_LOCAL_HW:
	case BLUE_META_NAK_LOCAL_HW:
		rc_resp_rx_report(qp, r);
		break;
	case BLUE_META_HEADER_READ:
		rc_rx_read(qp, r);
		/*
		 * A READ request that filled the hole at epsn moves it past
		 * messages already in: they complete now. Before, they waited for
		 * the next report, and with both sides idle (everything else
		 * acknowledged) a READ answer that had arrived never completed
		 * (RETRY_EXC_ERR at 1% loss).
		 */
		if (qp->vqp.attr.qp_state == ORDK_QPS_RTR || qp->vqp.attr.qp_state == ORDK_QPS_RTS)
			rc_resp_complete(qp);
		break;
	case BLUE_META_ACK_REMOTE_DRIVER:
	case BLUE_META_NAK_REMOTE_HW:
	case BLUE_META_NAK_REMOTE_DRIVER:
		rc_comp_rx_report(qp, r);
		break;
	case BLUE_META_CNP:
		/* congestion: DCQCN cuts the QP's rate, if the CNP can be about our packets */
		if (rc_cnp_plausible(qp, r->basic.msn)) {
			blue_cc_cnp(qp);
		} else {
			RC_LOG(DEBUG, "qp 0x%06x: CNP msn %u names no message of ours (next msn %u): ignored",
			       qp->vqp.qpn, r->basic.msn, qp->req.next_msn);
			qp->vqp.st.cnp_ignored++;
		}
		break;
	default:
		dev->vdev.st.reports_unexpected++;
		break;
	}
	rc_activate(qp);
}

/*
 * Start of a poll: the one clock read, and polling time (struct rc_engine:
 * ptime). The interval since the last poll counts up to stall_tsc plus the
 * sleep declared for it; the rest is a polling gap. An idle progress thread
 * that declares its sleeps keeps wall time; a poller that stopped unplanned
 * (descheduled, busy elsewhere, or sleeping longer than it said) has the
 * excess left out of every deadline and hold.
 */
static uint64_t
poll_clock(struct rc_engine *e)
{
	uint64_t wall = e->clock(), d = wall > e->wall_tsc ? wall - e->wall_tsc : 0;
	uint64_t most = e->stall_tsc + __atomic_exchange_n(&e->idle_tsc, 0, __ATOMIC_RELAXED);

	e->wall_tsc = wall;
	e->ptime += d < most ? d : most;
	return e->ptime;
}

void
rc_idle(struct rc_engine *e, uint64_t ns)
{
	uint64_t t = (uint64_t)((unsigned __int128)ns * e->tsc_hz / 1000000000u);

	__atomic_store_n(&e->idle_tsc, t, __ATOMIC_RELAXED);
}

/* Meta reports, then SimpleNic frames, at most @p budget each. @return how many. */
static unsigned int
poll_input(struct blue_dev *dev, unsigned int budget)
{
	struct blue_meta_report rep;
	unsigned int work = 0;
	const uint8_t *f;
	uint32_t len;

	for (unsigned int i = 0; i < budget; i++) {
		int rc = blue_meta_next(&dev->hw, &rep);

		if (rc == 0)
			break;
		work++;
		if (rc < 0) {
			dev->vdev.st.reports_unexpected++;
			continue;
		}
		dispatch(dev, &rep);
	}
	blue_meta_commit(&dev->hw);
	for (unsigned int i = 0; i < budget && (f = blue_snic_rx_next(&dev->hw, &len)) != NULL; i++) {
		if (blue_wire_is_ud(f, len))
			blue_ud_rx(dev, f, len); /* UD frames are the UD transport's (blue_ud.c) */
		else
			rc_ctrl_rx(dev, f, len);
		blue_snic_rx_done(&dev->hw);
		work++;
	}
	blue_snic_rx_commit(&dev->hw);
	return work;
}

/* Is the card still fetching our Send items? (timers wait for it, rc_timer_check()) */
static void
watch_send_ring(struct blue_dev *dev, uint64_t now)
{
	struct blue_hring *sr = &dev->hw.ring[BLUE_RING_SEND0];
	uint32_t t = *sr->tail_reg;

	if (t != dev->rc.send_tail_seen || blue_ring_ptr(sr->head) != blue_ring_ptr(t)) {
		/* what the card fetched since (resends wait for it: rc_rtx_unfetched) */
		if (blue_ring_ptrs_sane(sr->head, t))
			dev->rc.send_fetched += blue_ring_count(t, dev->rc.send_tail_seen);
		dev->rc.send_tail_seen = t;
		dev->rc.send_busy_tsc = now;
	}
}

static bool
connected(const struct blue_qp *qp)
{
	return qp->vqp.attr.qp_state == ORDK_QPS_RTS || qp->vqp.attr.qp_state == ORDK_QPS_RTR;
}

/*
 * One QP's turn: adverts both ways, RECV and READ completions waiting for
 * their keys, the timer, the requester, the responder's answers. @return RC_MORE while
 * it has something left to do (it stays on the active list); *items: Send
 * items pushed.
 */
static enum rc_step
qp_step(struct blue_qp *qp, uint64_t now, unsigned int *items)
{
	enum rc_step more = RC_DONE;

	if (verbs_qp_is_ud(&qp->vqp))
		return blue_ud_step(qp); /* datagrams waiting for the SimpleNic ring */
	if (qp->comp.state == RC_COMP_FLUSH)
		return rc_qp_error_reap(qp);
	if (qp->comp.state == RC_COMP_SETTLE)
		return rc_len_err_reap(qp);
	if (connected(qp)) {
		/* unacknowledged adverts rewind after a timeout ... */
		rc_advert_rewind(qp);
		if (qp->req.adv_ack_due || rc_want_due(qp, now))
			more |= rc_send_advert_ack(qp);
	}
	if (qp->vqp.srq != NULL && connected(qp))
		rc_srq_refill(qp); /* RECVs lent from the SRQ's pool */
	if (qp->resp.rq_advertised < qp->resp.rq_q.count)
		more |= rc_send_adverts(qp);
	if (qp->resp.state_due && connected(qp))
		more |= rc_send_recv_state(qp); /* asked: after what this step lent and advertised */
	if (qp->resp.rdone_q.count > 0)
		more |= rc_recv_retire(qp, false);
	if (connected(qp)) {
		/* ... and keep the QP polled until the peer has them all */
		more |= rc_advert_pending(qp);
		/* completions held while the card had resends to fetch */
		if (qp->req.rtx_fetch_until != 0) {
			more = RC_MORE;
			if (!rc_rtx_unfetched(qp))
				rc_complete_sends(qp);
			if (qp->comp.state == RC_COMP_FLUSH)
				return RC_MORE; /* it failed: the next poll reaps it */
		}
		/* a READ that ended, its key's revocation not confirmed yet */
		if (rc_read_keys_retire(qp) == RC_MORE) {
			more = RC_MORE;
			if (qp->comp.state == RC_COMP_FLUSH)
				return RC_MORE; /* it failed: the next poll reaps it */
		}
		rc_timer_check(qp, now);
		*items += rc_push(qp);
		/* a QP that only waits for an ACK sleeps on the wheel */
		if (qp->req.sq_next != qp->req.sq_tail || qp->resp.ans_next != qp->resp.ans_tail ||
		    qp->req.rtx_count != 0 || (qp->comp.rtx_deadline != 0 && !qp->sched.on_wheel))
			more = RC_MORE;
	}
	/* it failed, or its timer found the peer took our length error (SETTLE,
	 * with no deadline left), in this step: the next poll reaps it */
	if (qp->comp.state == RC_COMP_FLUSH || qp->comp.state == RC_COMP_SETTLE)
		return RC_MORE;
	more |= rc_ack_step(qp, now);
	return more;
}

unsigned int
rc_poll(struct blue_dev *dev, unsigned int budget)
{
	unsigned int work, items = 0;
	struct blue_qp *qp, *tmp;
	uint64_t now = poll_clock(&dev->rc);

	work = poll_input(dev, budget);
	watch_send_ring(dev, now);
	if (dev->rc.revoke_q.count > 0)
		rc_key_revoke_run(dev);
	rc_wheel_run(dev, now);
	for (qp = TAILQ_FIRST(&dev->rc.active); qp != NULL; qp = tmp) {
		tmp = TAILQ_NEXT(qp, sched.link);
		if (qp_step(qp, now, &items) == RC_DONE) {
			TAILQ_REMOVE(&dev->rc.active, qp, sched.link);
			qp->sched.on_active = false;
		}
	}
	/* every frame and item queued anywhere in this poll is published once */
	blue_send_doorbell(&dev->hw);
	blue_snic_tx_flush(&dev->hw);
	return work + items;
}
