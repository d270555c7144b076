/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD queue pairs in software. The card's transport is RC only, so a UD QP has
 * no context on the card: its datagrams are ORDK's UD frames (RoCE v2's BTH +
 * DETH, drivers/common/blue/wire_ud.c) that the driver builds and sends
 * through SimpleNic TX, and parses off SimpleNic RX, where the card hands
 * every frame that is not UDP 4791 (doc/guides/drivers/blue_hw_interface.md
 * section 5.1, receive). bluesim carries them the same way. A message is one
 * frame, so it is at most a SimpleNic RX slot less the headers.
 *
 * Send: a WR waits in the QP's queue until the SimpleNic ring has room, its
 * bytes are copied into the frame, and it completes (IBA: a UD send completes
 * once it left; nothing acknowledges it). Receive: the Q_Key checked (IBA
 * 10.2.5), the oldest RECV takes the 40-byte GRH (the sender's IPv4 header in
 * its last 20 bytes, as rxe writes it) and the payload; what cannot be placed
 * is dropped and counted.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "blue_verbs.h"
#include "blue_wire.h"

RTE_LOG_REGISTER(blue_ud_logtype, ordk.blue.ud, NOTICE);
#define UD_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, blue_ud_logtype, "blue: ud: " fmt "\n", ##__VA_ARGS__)

#define UD_QKEY_PRIVILEGED 0x80000000u /* IBA 10.2.5: the QP's own Q_Key is sent instead */
#define UD_MASK24	   0xFFFFFFu

uint32_t
blue_ud_frag_max(const struct blue_dev *dev)
{
	uint32_t slot = dev->hw.snic_slot < BLUE_SNIC_BIG_SLOT ? dev->hw.snic_slot : BLUE_SNIC_BIG_SLOT;

	return slot > BLUE_WIRE_UD_HLEN_MAX ? slot - BLUE_WIRE_UD_HLEN_MAX : 0;
}

uint32_t
blue_ud_max_msg(const struct blue_dev *dev)
{
	/* longer than a frame holds: in fragments (wire_ud.c), reassembled by the receiver */
	return blue_ud_frag_max(dev) > 0 ? BLUE_UD_MAX_MSG : 0;
}

int
blue_ud_qp_init(struct blue_qp *qp)
{
	struct blue_ud *u = &qp->ud;
	uint8_t *b;

	if (blue_snic_big_alloc(&blue_qp_dev(qp)->hw) != 0) /* its frames' TX slots */
		return -ENOMEM;
	rc_fifo_init(&u->sq_q, qp->vqp.init.max_send_wr);
	rc_fifo_init(&u->rq_q, qp->vqp.init.max_recv_wr);
	u->sq = rte_zmalloc("ordk_ud_sq", sizeof(*u->sq) * rc_fifo_slots(&u->sq_q), RTE_CACHE_LINE_SIZE);
	u->rq = rte_zmalloc("ordk_ud_rq", sizeof(*u->rq) * rc_fifo_slots(&u->rq_q), RTE_CACHE_LINE_SIZE);
	b = rte_malloc("ordk_ud_rasm", (size_t)BLUE_UD_RASM * BLUE_UD_MAX_MSG, 0);
	for (uint32_t i = 0; b != NULL && i < BLUE_UD_RASM; i++)
		u->rasm[i].buf = b + (size_t)i * BLUE_UD_MAX_MSG;
	return u->sq != NULL && u->rq != NULL && b != NULL ? 0 : -ENOMEM;
}

void
blue_ud_qp_fini(struct blue_qp *qp)
{
	rte_free(qp->ud.sq);
	rte_free(qp->ud.rq);
	rte_free(qp->ud.rasm[0].buf);
	qp->ud.sq = NULL;
	qp->ud.rq = NULL;
	for (uint32_t i = 0; i < BLUE_UD_RASM; i++)
		qp->ud.rasm[i].buf = NULL;
}

/* Messages under way (both ways) are forgotten: the QP left RTR/RTS, or will fail them. */
static void
frags_forget(struct blue_qp *qp)
{
	qp->ud.frag_off = 0;
	for (uint32_t i = 0; i < BLUE_UD_RASM; i++)
		qp->ud.rasm[i].busy = false;
}

void
blue_ud_flush(struct blue_qp *qp)
{
	struct blue_ud *u = &qp->ud;

	for (; u->sq_q.count > 0; rc_fifo_pop(&u->sq_q)) {
		const struct ordk_send_wr *w = &u->sq[rc_fifo_at(&u->sq_q, 0)];

		rc_flush_cqe(qp->vqp.scq, w->wr_id, ORDK_WC_SEND, qp->vqp.qpn);
	}
	for (; u->rq_q.count > 0; rc_fifo_pop(&u->rq_q))
		rc_flush_cqe(qp->vqp.rcq, u->rq[rc_fifo_at(&u->rq_q, 0)].wr_id, ORDK_WC_RECV,
			     qp->vqp.qpn);
	frags_forget(qp);
}

void
blue_ud_modify(struct blue_qp *qp, enum ordk_qp_state cur, enum ordk_qp_state next)
{
	qp->vqp.attr.qp_state = next;
	if (next == ORDK_QPS_RTS && cur == ORDK_QPS_RTR)
		qp->ud.psn = qp->vqp.attr.sq_psn & UD_MASK24;
	else if (next == ORDK_QPS_ERR)
		blue_ud_flush(qp);
	else if (next == ORDK_QPS_RESET) { /* IBA: the queues are emptied, nothing completes */
		rc_fifo_clear(&qp->ud.sq_q);
		rc_fifo_clear(&qp->ud.rq_q);
		frags_forget(qp);
	}
}

void
blue_ud_info(const struct blue_qp *qp, struct ordk_qp_info *info)
{
	info->next_psn = qp->ud.psn;
	info->send_outstanding = qp->ud.sq_q.count;
	info->recv_posted = qp->ud.rq_q.count;
	info->req_state = info->comp_state = info->hole_state = info->probe_state = "ud";
	info->active = qp->sched.on_active;
}

/* ------------------------------------------------------------------ send */

/* What only a UD send can get wrong. @return 0 or -EINVAL (logged). */
static int
send_check(struct blue_qp *qp, const struct ordk_send_wr *wr, uint32_t len)
{
	const char *why = NULL;
	uint32_t max = blue_ud_max_msg(blue_qp_dev(qp));

	if (wr->opcode != ORDK_WR_SEND && wr->opcode != ORDK_WR_SEND_WITH_IMM)
		why = "a UD QP sends SEND and SEND_WITH_IMM only";
	else if (wr->num_sge < 0 ||
		 (wr->send_flags & ~(unsigned int)(ORDK_SEND_FENCE | ORDK_SEND_SIGNALED |
						   ORDK_SEND_SOLICITED | ORDK_SEND_INLINE)))
		why = "num_sge or send_flags";
	else if (!verbs_ah_ok(wr->ud.ah, qp->vqp.dev))
		why = "wr.ud.ah is no address handle of this device";
	else if (wr->ud.remote_qpn > UD_MASK24)
		why = "wr.ud.remote_qpn is above 24 bits";
	if (why == NULL && len > max) {
		UD_LOG(ERR, "qp 0x%06x: post_send: a UD message of %u bytes: at most %u (the port's "
			    "MTU)", qp->vqp.qpn, len, max);
		return -EINVAL;
	}
	if (why != NULL) {
		UD_LOG(ERR, "qp 0x%06x: post_send: %s", qp->vqp.qpn, why);
		return -EINVAL;
	}
	return 0;
}

int
blue_ud_post_send(struct blue_qp *qp, const struct ordk_send_wr *wr)
{
	uint64_t total = verbs_wr_len(wr);
	uint32_t len = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
	bool inl = (wr->send_flags & ORDK_SEND_INLINE) != 0;
	struct blue_ud *u = &qp->ud;
	struct ordk_send_wr *w;

	if (qp->vqp.attr.qp_state != ORDK_QPS_RTS && qp->vqp.attr.qp_state != ORDK_QPS_ERR)
		return -EINVAL;
	if (send_check(qp, wr, len) != 0 || (inl && rc_inline_check(qp, wr, len) != 0))
		return -EINVAL;
	if (len > 0 && !inl && rc_sgl_check(qp, wr, 0) != 0)
		return -EPERM;
	qp->vqp.st.wr_posted++;
	if (qp->vqp.attr.qp_state == ORDK_QPS_ERR) {
		rc_flush_cqe(qp->vqp.scq, wr->wr_id, ORDK_WC_SEND, qp->vqp.qpn);
		return 0;
	}
	if (u->sq_q.count >= u->sq_q.size) {
		qp->vqp.st.wr_posted--;
		return -ENOMEM;
	}
	w = &u->sq[rc_fifo_push(&u->sq_q)];
	*w = *wr;
	w->sg_list = NULL;
	if (wr->num_sge == 1)
		w->sge = verbs_wr_sgl(wr)[0];
	if (inl) {
		/* the copy waits in this WR's slot until the frame is built */
		w->num_sge = len > 0 ? 1 : 0;
		if (len > 0)
			verbs_qp_inline(&qp->vqp, u->sq_pos, wr, &w->sge);
		qp->vqp.st.inline_posted++;
	} else if (wr->num_sge > 1) { /* its SGEs wait in its slot, read as the frame is built */
		w->num_sge = (int)verbs_qp_sgl_save(&qp->vqp, u->sq_pos, wr);
		w->sg_list = verbs_qp_sgl(&qp->vqp, u->sq_pos);
	}
	u->sq_pos++;
	return 0;
}

/* A datagram to this device itself: delivered as the wire would, without it. */
static bool
to_self(const struct blue_dev *dev, const struct ordk_ah *ah)
{
	return ah->attr.dest_ip == dev->hw.ip && ah->attr.dest_mac == dev->hw.mac;
}

/*
 * Bytes [off, off + n) of @p w's message: copied into @p dst when @p dst,
 * else only checked to be still inside their MRs (the MR may have gone since
 * the post; an inline copy is the QP's own). @return false: an SGE's MR went.
 */
static bool
gather(struct blue_qp *qp, const struct ordk_send_wr *w, uint32_t off, uint32_t n, uint8_t *dst)
{
	const struct ordk_sge *g = verbs_wr_sgl(w);

	for (int i = 0; i < w->num_sge && n > 0; i++) {
		uint32_t from, k;

		if (off >= g[i].length) {
			off -= g[i].length;
			continue;
		}
		from = off;
		k = RTE_MIN(g[i].length - from, n);
		if (dst == NULL && !(w->send_flags & ORDK_SEND_INLINE) &&
		    rc_mr_check(qp, g[i].lkey, g[i].addr + from, k, 0) != 0)
			return false;
		if (dst != NULL) {
			memcpy(dst, (const void *)(uintptr_t)(g[i].addr + from), k);
			dst += k;
		}
		off = 0;
		n -= k;
	}
	return true;
}

/*
 * The next frame of @p w, carrying bytes [u->frag_off, + @p n) of its @p len:
 * the whole message (ONLY), or a fragment of it (FIRST, MIDDLE, LAST; the
 * caller checked the room).
 */
static enum ordk_wc_status
send_frame(struct blue_qp *qp, const struct ordk_send_wr *w, uint32_t len, uint32_t n)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	uint32_t off = qp->ud.frag_off;
	bool last = off + n == len;
	uint8_t frame[BLUE_SNIC_BIG_SLOT], payload[BLUE_SNIC_BIG_SLOT];
	struct blue_wire_ud h = {
		.l3 = { .dst_mac = w->ud.ah->attr.dest_mac, .src_mac = dev->hw.mac,
			.src_ip = dev->hw.ip, .dst_ip = w->ud.ah->attr.dest_ip,
			.ttl = BLUE_WIRE_CARD_TTL, .df = 1 },
		.frag = off == 0 ? (last ? BLUE_WIRE_UD_ONLY : BLUE_WIRE_UD_FIRST)
				 : (last ? BLUE_WIRE_UD_LAST : BLUE_WIRE_UD_MIDDLE),
		.imm = last && w->opcode == ORDK_WR_SEND_WITH_IMM,
		.solicited = last && (w->send_flags & ORDK_SEND_SOLICITED) != 0,
		.dqpn = w->ud.remote_qpn, .psn = qp->ud.psn, .sqpn = qp->vqp.qpn,
		.qkey = (w->ud.remote_qkey & UD_QKEY_PRIVILEGED) ? qp->vqp.attr.qkey
								 : w->ud.remote_qkey,
		.imm_data = w->imm_data };
	int k;

	if (!gather(qp, w, off, n, NULL)) {
		qp->vqp.st.loc_prot_errors++;
		return ORDK_WC_LOC_PROT_ERR;
	}
	gather(qp, w, off, n, payload);
	k = blue_wire_ud_build(frame, sizeof(frame), &h, payload, n);
	if (k < 0)
		return ORDK_WC_LOC_QP_OP_ERR; /* send_check() leaves nothing the builder refuses */
	qp->ud.psn = (qp->ud.psn + 1) & UD_MASK24;
	if (to_self(dev, w->ud.ah))
		blue_ud_rx(dev, frame, (uint32_t)k);
	else if (blue_snic_tx(&dev->hw, frame, (uint32_t)k) != 0)
		return ORDK_WC_LOC_QP_OP_ERR; /* not after blue_snic_tx_room() */
	qp->ud.frag_off += n;
	return ORDK_WC_SUCCESS;
}

/* @p w's frames, from the one the last poll stopped at, while the ring has room. */
static enum rc_step
send_one(struct blue_qp *qp, const struct ordk_send_wr *w, enum ordk_wc_status *st)
{
	uint32_t len = (uint32_t)verbs_wr_len(w), frag = blue_ud_frag_max(blue_qp_dev(qp));

	do {
		uint32_t n = RTE_MIN(len - qp->ud.frag_off, frag);

		if (!blue_snic_tx_room_len(&blue_qp_dev(qp)->hw, BLUE_WIRE_UD_HLEN_MAX + n))
			return RC_MORE; /* the card fetches frames: the next poll goes on */
		*st = send_frame(qp, w, len, n);
	} while (*st == ORDK_WC_SUCCESS && qp->ud.frag_off < len);
	if (*st == ORDK_WC_SUCCESS) {
		qp->vqp.st.ud_sent++;
		qp->vqp.st.ud_fragments += len > frag ? (len + frag - 1) / frag : 0;
	}
	qp->ud.frag_off = 0;
	return RC_DONE;
}

enum rc_step
blue_ud_step(struct blue_qp *qp)
{
	struct blue_ud *u = &qp->ud;

	if (qp->vqp.attr.qp_state != ORDK_QPS_RTS)
		return RC_DONE;
	while (u->sq_q.count > 0) {
		const struct ordk_send_wr *w = &u->sq[rc_fifo_at(&u->sq_q, 0)];
		enum ordk_wc_status st = ORDK_WC_SUCCESS;

		if (send_one(qp, w, &st) == RC_MORE)
			return RC_MORE;
		if (st != ORDK_WC_SUCCESS || (w->send_flags & ORDK_SEND_SIGNALED)) {
			struct ordk_wc wc = { .wr_id = w->wr_id, .status = st, .opcode = ORDK_WC_SEND,
					      .qp_num = qp->vqp.qpn };

			verbs_cq_push(qp->vqp.scq, &wc);
		}
		qp->vqp.st.wr_completed++;
		rc_fifo_pop(&u->sq_q);
	}
	return RC_DONE;
}

/* --------------------------------------------------------------- receive */

int
blue_ud_post_recv(struct blue_qp *qp, const struct ordk_recv_wr *wr)
{
	struct blue_ud *u = &qp->ud;

	if (qp->vqp.attr.qp_state == ORDK_QPS_RESET || wr->num_sge < 0 || wr->num_sge > 1)
		return -EINVAL;
	if (wr->num_sge == 1 && wr->sge.length > 0 &&
	    rc_mr_check(qp, wr->sge.lkey, wr->sge.addr, wr->sge.length, ORDK_ACCESS_LOCAL_WRITE) != 0)
		return -EPERM;
	if (qp->vqp.attr.qp_state == ORDK_QPS_ERR) {
		rc_flush_cqe(qp->vqp.rcq, wr->wr_id, ORDK_WC_RECV, qp->vqp.qpn);
		return 0;
	}
	if (u->rq_q.count >= u->rq_q.size)
		return -ENOMEM;
	u->rq[rc_fifo_push(&u->rq_q)] = *wr;
	return 0;
}

/* The UD QP a datagram is for, if it takes datagrams (RTR, RTS); else counted. */
static struct blue_qp *
rx_qp(struct blue_dev *dev, const struct blue_wire_ud *h)
{
	struct ordk_qp *q = verbs_qp_lookup(blue_dev_handle(dev), h->dqpn);
	struct blue_qp *qp = q != NULL && verbs_qp_is_ud(vqp(q)) ? to_bqp(q) : NULL;

	if (h->l3.dst_mac != dev->hw.mac || h->l3.dst_ip != dev->hw.ip) {
		UD_LOG(DEBUG, "a UD frame not to this device's MAC and IP (multicast: none)");
		qp = NULL;
	} else if (qp == NULL || (qp->vqp.attr.qp_state != ORDK_QPS_RTR &&
				  qp->vqp.attr.qp_state != ORDK_QPS_RTS)) {
		UD_LOG(DEBUG, "a UD frame for QPN 0x%06x: no UD QP in RTR or RTS", h->dqpn);
		qp = NULL;
	}
	if (qp == NULL)
		dev->vdev.st.ud_bad++;
	return qp;
}

/* Place a datagram in @p r: the GRH (IPv4: the header in its last 20 bytes), the payload. */
static enum ordk_wc_status
place(struct blue_qp *qp, const struct ordk_recv_wr *r, const uint8_t *f, const uint8_t *payload,
      uint32_t len)
{
	uint8_t *dst = (uint8_t *)(uintptr_t)r->sge.addr;
	uint32_t need = ORDK_GRH_LEN + len;

	if (r->num_sge == 0 || r->sge.length < need) {
		qp->vqp.st.ud_len_errors++;
		return ORDK_WC_LOC_LEN_ERR;
	}
	/* the MR may have gone since the post */
	if (rc_mr_check(qp, r->sge.lkey, r->sge.addr, need, ORDK_ACCESS_LOCAL_WRITE) != 0) {
		qp->vqp.st.loc_prot_errors++;
		return ORDK_WC_LOC_PROT_ERR;
	}
	memset(dst, 0, ORDK_GRH_LEN - BLUE_WIRE_IPV4_HLEN);
	memcpy(dst + ORDK_GRH_LEN - BLUE_WIRE_IPV4_HLEN, f + BLUE_WIRE_ETH_HLEN, BLUE_WIRE_IPV4_HLEN);
	memcpy(dst + ORDK_GRH_LEN, payload, len);
	return ORDK_WC_SUCCESS;
}

/* A whole message (one frame, or reassembled) for @p qp: the oldest RECV takes it. */
static void
deliver(struct blue_qp *qp, const struct blue_wire_ud *h, const uint8_t *f,
	const uint8_t *payload, uint32_t len)
{
	struct ordk_recv_wr r;
	struct ordk_wc wc;

	if (qp->ud.rq_q.count == 0) { /* IBA: a UD message without a RECV is dropped */
		qp->vqp.st.ud_no_recv_dropped++;
		return;
	}
	r = qp->ud.rq[rc_fifo_at(&qp->ud.rq_q, 0)];
	rc_fifo_pop(&qp->ud.rq_q);
	wc = (struct ordk_wc){ .wr_id = r.wr_id, .opcode = ORDK_WC_RECV, .qp_num = qp->vqp.qpn,
			       .byte_len = ORDK_GRH_LEN + len, .src_qp = h->sqpn,
			       .src_mac = h->l3.src_mac,
			       .wc_flags = ORDK_WC_GRH | (h->imm ? ORDK_WC_WITH_IMM : 0),
			       .imm_data = h->imm_data };
	wc.status = place(qp, &r, f, payload, len);
	if (wc.status == ORDK_WC_SUCCESS)
		qp->vqp.st.ud_received++;
	qp->vqp.st.recv_completed++;
	verbs_cq_push(qp->vqp.rcq, &wc);
}

/* ------------------------------------------------------------ reassembly */

/* The message being reassembled from @p h's source, or NULL. */
static struct blue_ud_rasm *
rasm_find(struct blue_qp *qp, const struct blue_wire_ud *h)
{
	for (uint32_t i = 0; i < BLUE_UD_RASM; i++) {
		struct blue_ud_rasm *m = &qp->ud.rasm[i];

		if (m->busy && m->src_ip == h->l3.src_ip && m->sqpn == h->sqpn)
			return m;
	}
	return NULL;
}

/* A message of @p qp's that cannot complete: its datagram is dropped, counted. */
static void
rasm_drop(struct blue_qp *qp, struct blue_ud_rasm *m, const char *why)
{
	UD_LOG(DEBUG, "qp 0x%06x: a fragmented datagram from 0x%06x dropped: %s", qp->vqp.qpn,
	       m->sqpn, why);
	qp->vqp.st.ud_frag_dropped++;
	m->busy = false;
}

/* A FIRST fragment: a new message from its source, in a free place or the oldest one's. */
static void
rasm_first(struct blue_qp *qp, const struct blue_wire_ud *h, const uint8_t *payload)
{
	struct blue_ud_rasm *m = rasm_find(qp, h);

	if (m != NULL) {
		rasm_drop(qp, m, "a FIRST came before its LAST"); /* its tail was lost */
	} else {
		m = &qp->ud.rasm[0];
		for (uint32_t i = 0; i < BLUE_UD_RASM && m->busy; i++)
			if (!qp->ud.rasm[i].busy || qp->ud.rasm[i].stamp < m->stamp)
				m = &qp->ud.rasm[i];
		if (m->busy)
			rasm_drop(qp, m, "more sources at once than places to reassemble");
	}
	*m = (struct blue_ud_rasm){ .busy = true, .src_ip = h->l3.src_ip, .sqpn = h->sqpn,
				    .next_psn = (h->psn + 1) & UD_MASK24, .len = h->payload_len,
				    .stamp = ++qp->ud.rasm_stamp, .buf = m->buf };
	memcpy(m->buf, payload, h->payload_len);
}

/*
 * A MIDDLE or LAST fragment: it must come from the source of a message under
 * way with the next PSN, and fit max_ud_msg. @return the message once its
 * LAST is in, else NULL.
 */
static struct blue_ud_rasm *
rasm_next(struct blue_qp *qp, const struct blue_wire_ud *h, const uint8_t *payload)
{
	struct blue_ud_rasm *m = rasm_find(qp, h);

	if (m == NULL) {
		qp->vqp.st.ud_frag_dropped++; /* its FIRST was lost, or its message dropped */
		return NULL;
	}
	if (h->psn != m->next_psn) {
		rasm_drop(qp, m, "a fragment missing (PSN)");
		return NULL;
	}
	if (m->len + h->payload_len > blue_ud_max_msg(blue_qp_dev(qp))) {
		rasm_drop(qp, m, "longer than max_ud_msg");
		return NULL;
	}
	memcpy(m->buf + m->len, payload, h->payload_len);
	m->len += h->payload_len;
	m->next_psn = (m->next_psn + 1) & UD_MASK24;
	if (h->frag != BLUE_WIRE_UD_LAST)
		return NULL;
	m->busy = false;
	return m;
}

void
blue_ud_rx(struct blue_dev *dev, const uint8_t *f, uint32_t len)
{
	struct blue_ud_rasm *m;
	struct blue_wire_ud h;
	struct blue_qp *qp;
	uint32_t off;
	int rc = blue_wire_ud_parse(f, len, &h, &off);

	if (rc != 0) {
		UD_LOG(DEBUG, "a UD frame of %u B refused: %s", len, blue_wire_strerror(rc));
		dev->vdev.st.ud_bad++;
		return;
	}
	qp = rx_qp(dev, &h);
	if (qp == NULL)
		return;
	if (h.qkey != qp->vqp.attr.qkey) { /* IBA 10.2.5: silently dropped */
		qp->vqp.st.ud_qkey_dropped++;
		return;
	}
	switch (h.frag) {
	case BLUE_WIRE_UD_ONLY:
		deliver(qp, &h, f, f + off, h.payload_len);
		break;
	case BLUE_WIRE_UD_FIRST:
		rasm_first(qp, &h, f + off);
		break;
	default:
		m = rasm_next(qp, &h, f + off);
		if (m != NULL) /* (the GRH takes the LAST's IPv4 header) */
			deliver(qp, &h, f, m->buf, m->len);
		break;
	}
}
