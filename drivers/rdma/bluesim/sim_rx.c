/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive (doc/guides/drivers/blue_hw_interface.md section 5.1): address filter, RDMA / SimpleNic
 * classification, QPC and MR checks with a silent drop and a per-reason
 * counter (mirrored into the RTL's counter registers in BAR0), payload placed
 * through the PGT with no PSN-order check, meta reports, and the per-QP PSN
 * bitmap with its loss ACKs and idle reports.
 */
#include <string.h>

#include "sim_internal.h"

/* Count a drop and mirror it into BAR0's RQ channel-0 counter (section 1). */
static void
rx_drop(struct bluesim *sim, enum blue_rq_counter k)
{
	uint64_t *c;

	switch (k) {
	case BLUE_RQ_CNT_INVALID_QP_ACCESS: c = &sim->st.drop_invalid_qp_access; break;
	case BLUE_RQ_CNT_INVALID_OPCODE: c = &sim->st.drop_invalid_opcode; break;
	case BLUE_RQ_CNT_INVALID_MR_KEY: c = &sim->st.drop_invalid_mr_key; break;
	case BLUE_RQ_CNT_MEM_OUT_OF_BOUND: c = &sim->st.drop_mem_out_of_bound; break;
	case BLUE_RQ_CNT_INVALID_MR_ACCESS: c = &sim->st.drop_invalid_mr_access; break;
	case BLUE_RQ_CNT_INVALID_HEADER: c = &sim->st.drop_invalid_header; break;
	case BLUE_RQ_CNT_INVALID_QP_CONTEXT: c = &sim->st.drop_invalid_qp_context; break;
	case BLUE_RQ_CNT_PACKET_LENGTH_ERROR: c = &sim->st.drop_length_error; break;
	default: c = &sim->st.drop_unknown; k = BLUE_RQ_CNT_UNKNOWN_ERROR; break;
	}
	(*c)++;
	sim_reg_write(sim, BLUE_REG_RQ_COUNTER(0, k), (uint32_t)*c);
}

static void
rx_class_count(struct bluesim *sim, enum blue_rx_class_counter k, uint64_t v)
{
	sim_reg_write(sim, BLUE_REG_RX_CLASS_COUNTER(0, k), (uint32_t)v);
}

/* ------------------------------------------------------------- reports */

static void
post(struct bluesim *sim, const struct blue_meta_report *r)
{
	uint8_t d[2][BLUE_DESC_SIZE];
	int n = blue_meta_encode(r, d[0], d[1]);

	if (n < 0) {
		SIM_LOG(ERR, sim, "meta report encode: %s", blue_desc_strerror(n));
		sim->st.drop_unknown++;
		return;
	}
	sim_meta_post(sim, (const uint8_t(*)[BLUE_DESC_SIZE])d, (uint8_t)n);
}

static void
report_header(struct bluesim *sim, const struct blue_wire_rdma *p)
{
	struct blue_meta_report r = { .opcode = BLUE_BTH_OPCODE(BLUE_TRANS_RC, p->bth.opcode) };

	r.basic = (struct blue_meta_basic){
		.msn = p->bth.msn, .psn = p->bth.psn, .ecn_marked = 0, /* RTL: don't care; 0 */
		.solicited = p->bth.solicited, .ack_req = p->bth.ack_req,
		.is_retry = p->bth.is_retry, .dqpn = p->bth.dqpn, .total_len = p->reth.dlen,
		.raddr = p->reth.va, .rkey = p->reth.rkey, .imm_data = p->imm /* rtl=1: RETH + 16 */ };
	if (p->bth.opcode == BLUE_OP_READ_REQUEST) {
		r.kind = BLUE_META_HEADER_READ;
		r.read_ext = (struct blue_meta_read_ext){ .total_len = p->reth.dlen,
							  .laddr = p->rreth.va,
							  .lkey = p->rreth.lkey };
	} else {
		r.kind = BLUE_META_HEADER_WRITE;
	}
	post(sim, &r);
}

/*
 * cnp=1: a received CNP, reported as the spec's Cnp kind (PacketBasicInfo with
 * ecn_marked = 1) for the QP it names, MSN copied. The RTL decodes no report
 * for a CNP (RQ.bsv genMetaReportQueueDesc: trans CNP falls to the default).
 */
static void
report_cnp(struct bluesim *sim, const struct blue_wire_rdma *p)
{
	struct blue_meta_report r = { .kind = BLUE_META_CNP,
				      .opcode = BLUE_BTH_OPCODE(BLUE_TRANS_RC, 0) };

	r.basic = (struct blue_meta_basic){ .msn = p->bth.msn, .psn = p->bth.psn,
					    .ecn_marked = 1, .dqpn = p->bth.dqpn };
	sim->st.rx_cnp_reported++;
	post(sim, &r);
}

/* A received ACK packet, reported with its own flags and raw PSNs. */
static void
report_ack(struct bluesim *sim, const struct blue_wire_rdma *p)
{
	const struct blue_wire_aeth *a = &p->aeth;
	struct blue_meta_report r = { .opcode = BLUE_OP_ACKNOWLEDGE };
	uint8_t d[2][BLUE_DESC_SIZE];
	int n;

	r.kind = a->is_window_slided ? BLUE_META_NAK_REMOTE_HW : BLUE_META_ACK_REMOTE_DRIVER;
	r.ack = (struct blue_meta_ack){ .psn_before_slide = a->pre_psn, .psn_now = p->bth.psn,
					.qpn = p->bth.dqpn, .msn = p->bth.msn,
					.now_bitmap = a->now_bitmap, .pre_bitmap = a->pre_bitmap };
	n = blue_meta_encode(&r, d[0], d[1]);
	if (n < 0)
		return;
	/* B29: the packet's flags as they came (the card copies them) */
	d[0][29] = (uint8_t)((a->is_send_by_driver ? 4 : 0) | (a->is_window_slided ? 2 : 0) |
			     (a->is_packet_lost ? 1 : 0));
	sim->st.acks_received++;
	sim_meta_post(sim, (const uint8_t(*)[BLUE_DESC_SIZE])d, (uint8_t)n);
}

/* ------------------------------------------------------- the PSN bitmap */

static void
bm_shift_right(struct blue_bitmap128 *b, unsigned int n)
{
	if (n >= 128) {
		b->lo = b->hi = 0;
	} else if (n >= 64) {
		b->lo = b->hi >> (n - 64);
		b->hi = 0;
	} else if (n > 0) {
		b->lo = (b->lo >> n) | (b->hi << (64 - n));
		b->hi >>= n;
	}
}

/* Bits [0, n) all set? */
static bool
bm_low_ones(const struct blue_bitmap128 *b, unsigned int n)
{
	if (n >= 128)
		return b->lo == ~0ull && b->hi == ~0ull;
	if (n >= 64)
		return b->lo == ~0ull && (n == 64 || (b->hi | ~((1ull << (n - 64)) - 1)) == ~0ull);
	return (b->lo | ~((1ull << n) - 1)) == ~0ull;
}

static void
bm_set(struct blue_bitmap128 *b, unsigned int i)
{
	if (i < 64)
		b->lo |= 1ull << i;
	else
		b->hi |= 1ull << (i - 64);
}

static void
mark_dirty(struct bluesim *sim, struct sim_qpc *q)
{
	q->dirty = 1;
	q->last_rx_ns = sim->rx_now_ns; /* one clock read per burst, not per frame */
	if (!q->on_dirty_list) {
		q->on_dirty_list = 1;
		sim->dirty[sim->ndirty++] = (uint16_t)(q - sim->qpcs);
	}
}

/* Loss: an ACK packet to the peer and the same locally (Ack + AckExtra). */
static void
report_loss(struct bluesim *sim, struct sim_qpc *q, uint32_t old_L,
	    const struct blue_bitmap128 *pre)
{
	uint32_t psn_now = (q->L << 4) & BLUE_PSN_MASK, psn_pre = (old_L << 4) & BLUE_PSN_MASK;
	uint16_t msn = q->loss_msn++;
	struct blue_meta_report r = { .kind = BLUE_META_NAK_LOCAL_HW,
				      .opcode = BLUE_OP_ACKNOWLEDGE };
	struct blue_wire_rdma p = { 0 };
	struct rte_mbuf *m;

	sim->st.loss_detected++;
	p.l3 = (struct blue_wire_l3){ .dst_mac = q->peer_mac, .src_mac = sim->local_mac,
				      .src_ip = sim->local_ip, .dst_ip = q->peer_ip,
				      .src_port = q->local_udp_port,
				      .dst_port = BLUE_WIRE_ROCE_UDP_PORT,
				      .ip_id = BLUE_WIRE_CARD_IP_ID, .ttl = BLUE_WIRE_CARD_TTL };
	p.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_ACKNOWLEDGE,
					.msn = msn, .dqpn = q->peer_qpn, .psn = psn_now };
	p.aeth = (struct blue_wire_aeth){ .pre_bitmap = *pre, .now_bitmap = q->bitmap,
					  .is_packet_lost = 1, .is_window_slided = 1,
					  .is_send_by_driver = 0, .pre_psn = psn_pre };
	m = sim_mbuf_alloc(sim);
	if (m != NULL) {
		int n = blue_wire_rdma_build_hdr(rte_pktmbuf_mtod(m, void *),
						 rte_pktmbuf_tailroom(m), &p, 0);

		if (n > 0) {
			m->data_len = (uint16_t)n;
			m->pkt_len = (uint32_t)n;
			sim->st.loss_acks_sent++;
			sim_port_send(sim, m);
		} else {
			rte_pktmbuf_free(m);
		}
	} else {
		sim->st.tx_no_mbuf++;
	}

	r.ack = (struct blue_meta_ack){ .is_packet_lost = 1, .psn_before_slide = psn_pre,
					.psn_now = psn_now, .qpn = q->qpn, .msn = msn,
					.now_bitmap = q->bitmap, .pre_bitmap = *pre };
	post(sim, &r);
	q->dirty = 0;
}

/*
 * Window of 128 bits in strides of 16 PSNs; L = stride index of the newest
 * stride; bit i stands for PSN 16 * L - 112 + i (section 5.1).
 */
void
sim_bitmap_track(struct bluesim *sim, struct sim_qpc *q, uint32_t psn)
{
	uint32_t s = (psn >> 4) & SIM_STRIDE_MASK;
	int32_t delta = (int32_t)((s - q->L) << 12) >> 12; /* signed 20-bit */

	if (sim->bitmap_locked) {
		/* rtl=1: nothing reaches the stuck unit; its input queues fill, then receive stops */
		sim->st.rtl_bitmap_updates_lost++;
		if (++sim->bitmap_backlog >= SIM_RTL_BITMAP_BACKLOG && !sim->rx_blocked) {
			sim->rx_blocked = true;
			SIM_LOG(WARNING, sim, "rtl: the bitmap unit's queues are full: receive stops");
		}
		return;
	}
	if (delta > 0) {
		struct blue_bitmap128 pre = q->bitmap;
		uint32_t old_L = q->L;
		bool lost;

		if (delta >= 8) {
			lost = true; /* the whole window and more slid by: counted as loss */
			q->bitmap.lo = q->bitmap.hi = 0;
		} else {
			lost = !bm_low_ones(&q->bitmap, 16u * (uint32_t)delta);
			bm_shift_right(&q->bitmap, 16u * (uint32_t)delta);
		}
		q->L = s;
		bm_set(&q->bitmap, 112 + (psn & 15));
		mark_dirty(sim, q);
		if (lost)
			report_loss(sim, q, old_L, &pre);
	} else if (delta >= -7) {
		bm_set(&q->bitmap, (unsigned int)(112 + 16 * delta + (int32_t)(psn & 15)));
		mark_dirty(sim, q);
	} else {
		/* older than the window: ignored (the spec); the RTL's busy flag is never cleared */
		sim->st.rx_psn_stale++;
		if (sim->cfg.rtl)
			sim_rtl_bitmap_lock(sim, q, psn);
	}
}

unsigned int
sim_idle_scan(struct bluesim *sim)
{
	uint64_t now;
	unsigned int done = 0;

	if (sim->ndirty == 0)
		return 0;
	now = sim_now_ns(sim);
	for (uint32_t i = 0; i < sim->ndirty;) {
		struct sim_qpc *q = &sim->qpcs[sim->dirty[i]];

		if (q->valid && q->dirty) {
			struct blue_meta_report r = { .kind = BLUE_META_ACK_LOCAL_HW,
						      .opcode = BLUE_OP_ACKNOWLEDGE };

			if (now - q->last_rx_ns < sim->cfg.idle_timeout_ns || !sim_meta_room(sim, 1)) {
				i++;
				continue;
			}
			r.ack = (struct blue_meta_ack){ .psn_now = (q->L << 4) & BLUE_PSN_MASK,
							.qpn = q->qpn, .msn = 0,
							.now_bitmap = q->bitmap };
			post(sim, &r);
			sim->st.idle_reports++;
			q->dirty = 0;
			done++;
		}
		q->on_dirty_list = 0;
		sim->dirty[i] = sim->dirty[--sim->ndirty];
	}
	return done;
}

/* ------------------------------------------------------------ RDMA path */

static int
parse_drop_reason(int rc)
{
	switch (rc) {
	case BLUE_WIRE_E_OPCODE:
		return BLUE_RQ_CNT_INVALID_OPCODE;
	case BLUE_WIRE_E_LENGTH:
		return BLUE_RQ_CNT_PACKET_LENGTH_ERROR;
	default:
		return BLUE_RQ_CNT_INVALID_HEADER;
	}
}

/* Payload checks of section 5.1; returns a counter to drop with, or -1. */
static int
check_payload(struct bluesim *sim, const struct sim_qpc *q, const struct blue_wire_rdma *p,
	      const struct sim_mr **mrp)
{
	uint8_t op = p->bth.opcode;
	bool read_resp = blue_op_is_read_resp(op);
	uint32_t idx = blue_mr_key_index(p->reth.rkey), pmtu = blue_pmtu_bytes(q->pmtu);
	const struct sim_mr *mr;
	uint32_t len = p->payload_len;

	/* QP access: SEND/WRITE need REMOTE_WRITE, READ responses LOCAL_WRITE */
	if (!(q->rq_access_flags & (read_resp ? BLUE_ACC_LOCAL_WRITE : BLUE_ACC_REMOTE_WRITE)))
		return BLUE_RQ_CNT_INVALID_QP_ACCESS;
	if (idx >= BLUE_MAX_MR)
		return BLUE_RQ_CNT_INVALID_MR_KEY;
	mr = &sim->mrs[idx];
	if (!mr->valid || mr->key_part != (uint8_t)p->reth.rkey)
		return BLUE_RQ_CNT_INVALID_MR_KEY;
	/* MR access: SEND needs LOCAL_WRITE; WRITE and READ responses REMOTE_WRITE */
	if (!(mr->acc_flags & (blue_op_is_send(op) ? BLUE_ACC_LOCAL_WRITE : BLUE_ACC_REMOTE_WRITE)))
		return BLUE_RQ_CNT_INVALID_MR_ACCESS;
	if (p->reth.va < mr->base_va || p->reth.va - mr->base_va > mr->length ||
	    len > mr->length - (p->reth.va - mr->base_va))
		return BLUE_RQ_CNT_MEM_OUT_OF_BOUND;
	/* payload length: FIRST = PMTU - (va mod PMTU), MIDDLE = PMTU, LAST/ONLY <= PMTU */
	switch (blue_op_pos(op)) {
	case BLUE_POS_FIRST:
		if (len != pmtu - (uint32_t)(p->reth.va % pmtu))
			return BLUE_RQ_CNT_PACKET_LENGTH_ERROR;
		break;
	case BLUE_POS_MIDDLE:
		if (len != pmtu)
			return BLUE_RQ_CNT_PACKET_LENGTH_ERROR;
		break;
	default:
		if (len > pmtu)
			return BLUE_RQ_CNT_PACKET_LENGTH_ERROR;
		break;
	}
	*mrp = mr;
	return -1;
}

/* The QP a packet names, or NULL (dropped and counted). */
static struct sim_qpc *
rx_qp(struct bluesim *sim, const struct blue_wire_rdma *p)
{
	uint32_t idx = blue_qpn_index(p->bth.dqpn);
	struct sim_qpc *q = idx < BLUE_MAX_QP ? &sim->qpcs[idx] : NULL;

	if (q == NULL && sim->cfg.rtl) {
		sim->st.drop_unknown++; /* QpIdxOverflow: dropped, no RTL counter moves */
		return NULL;
	}
	if (q == NULL || !q->valid || q->qpn != p->bth.dqpn) {
		rx_drop(sim, BLUE_RQ_CNT_INVALID_QP_CONTEXT);
		return NULL;
	}
	return q;
}

/* Write @p len bytes at offset @p off of frame @p m (one or more segments) to the MR at @p va. */
static int
mr_write_frame(struct bluesim *sim, const struct sim_mr *mr, uint64_t va,
	       const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	for (; m != NULL && len > 0; m = m->next) {
		uint32_t n;
		int rc;

		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		n = RTE_MIN(len, (uint32_t)m->data_len - off);
		rc = sim_mr_write(sim, mr, va, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		if (rc != 0)
			return rc;
		va += n;
		len -= n;
		off = 0;
	}
	return len == 0 ? 0 : -EINVAL;
}

/* Payload checks and placement; false when the packet is dropped. */
static bool
rx_place(struct bluesim *sim, const struct sim_qpc *q, const struct blue_wire_rdma *p,
	 const struct rte_mbuf *m)
{
	const struct sim_mr *mr = NULL;
	uint32_t len = p->payload_len;
	int rc;

	if (sim->cfg.rtl) {
		if (p->reth.dlen == 0) { /* the RTL queries no MR: nothing is placed */
			sim->st.rtl_rx_unchecked++;
			return true;
		}
		rc = sim_rtl_check_payload(sim, q, p, &mr);
		if (rc == BLUE_RQ_CNT_UNKNOWN_ERROR) {
			sim->st.drop_unknown++;
			return false;
		}
		/* the card writes the length it expected from the header */
		if (blue_op_pos(p->bth.opcode) != BLUE_POS_FIRST)
			len = RTE_MIN(len, p->reth.dlen);
	} else {
		rc = check_payload(sim, q, p, &mr);
	}
	if (rc >= 0) {
		rx_drop(sim, (enum blue_rq_counter)rc);
		return false;
	}
	/* placed again if it is a duplicate: no PSN-order check */
	if (mr_write_frame(sim, mr, p->reth.va, m, p->payload_off, len) != 0) {
		sim->st.rx_dma_error++;
		return false;
	}
	return true;
}

/* An RDMA frame: headers at @p f in @p m's first segment, @p len bytes in all. */
static void
rdma_rx(struct bluesim *sim, const struct rte_mbuf *m, const uint8_t *f, uint32_t len)
{
	struct blue_wire_rdma p;
	struct sim_qpc *q;
	uint8_t op;
	int rc;

	if (sim->cfg.rtl) {
		if (sim_rtl_parse(f, len, &p) != 0) {
			sim->st.rtl_rx_unchecked++; /* no report, no counter (RQ.bsv) */
			return;
		}
	} else {
		rc = blue_wire_rdma_parse(f, len, 0, &p);
		if (rc != 0) {
			rx_drop(sim, (enum blue_rq_counter)parse_drop_reason(rc));
			return;
		}
	}
	if (p.bth.trans == BLUE_TRANS_CNP) {
		sim->st.rx_cnp++;
		if (sim->cfg.cnp)
			report_cnp(sim, &p); /* the spec's Cnp kind; the RTL reports none */
		return;
	}
	q = rx_qp(sim, &p);
	if (q == NULL)
		return;
	op = p.bth.opcode;
	if (op == BLUE_OP_ACKNOWLEDGE) {
		report_ack(sim, &p);
	} else if (op == BLUE_OP_READ_REQUEST) {
		report_header(sim, &p); /* no QP-access or MR checks (section 5.1) */
	} else {
		if (p.payload_len > 0 && !rx_place(sim, q, &p, m))
			return;
		/* FIRST, LAST, ONLY always; MIDDLE only when retried */
		if (blue_op_pos(op) != BLUE_POS_MIDDLE || p.bth.is_retry)
			report_header(sim, &p);
		if (p.payload_len > 0 || op == BLUE_OP_SEND_ONLY_WITH_IMM ||
		    op == BLUE_OP_WRITE_ONLY_WITH_IMM)
			sim_bitmap_track(sim, q, p.bth.psn);
	}
	if (p.l3.ecn == 3) {
		sim->st.rx_ecn_marked++;
		if (sim->cfg.rtl || sim->cfg.cnp)
			sim_cnp_send(sim, q, &p); /* any accepted packet but a CNP (RQ.bsv) */
	}
}

/* ------------------------------------------------------- SimpleNic path */

/* @return false when the frame must be held: rtl=1 and the ring is full. */
static bool
simple_nic_rx(struct bluesim *sim, const uint8_t *f, uint32_t len)
{
	struct blue_simple_nic_rx rx = { .len = len, .slot_idx = sim->raw_slot };
	uint32_t slot = sim->cfg.snic_slot;
	uint8_t d[1][BLUE_DESC_SIZE];

	if (!sim->raw_ready) {
		sim->st.rx_simple_nic_no_buffer++;
		return true;
	}
	/* the RTL checks no length: a frame longer than a slot runs into the next */
	if (len == 0 || (len > slot && !sim->cfg.rtl) || len > BLUE_SIMPLE_NIC_RX_SLOT_SIZE) {
		sim->st.rx_simple_nic_too_big++;
		return true;
	}
	if (sim_c2h_free(sim, &sim->snic_rx) == 0) {
		sim->st.rx_simple_nic_ring_full++;
		/* the spec drops; the RTL's descriptor write waits, and the shared
		 * classifier behind it with it (Ringbuf.bsv, Top.bsv) */
		return !sim->cfg.rtl;
	}
	if (sim_dma_write(sim, sim->raw_base + (uint64_t)sim->raw_slot * slot, f, len) != 0) {
		sim->st.rx_dma_error++;
		return true;
	}
	/* the slot index wraps at 1024 with no flow control on the buffer (card quirk) */
	sim->raw_slot = (sim->raw_slot + 1) % BLUE_SIMPLE_NIC_RX_SLOTS;
	blue_simple_nic_rx_encode(&rx, d[0]);
	sim_c2h_write(sim, &sim->snic_rx, (const uint8_t(*)[BLUE_DESC_SIZE])d, 1);
	sim_c2h_publish(sim, &sim->snic_rx);
	sim->st.rx_simple_nic++;
	rx_class_count(sim, BLUE_RX_CLASS_SIMPLE_NIC, sim->st.rx_simple_nic);
	return true;
}

/* The address filter; false: dropped and counted. */
static bool
rx_filter(struct bluesim *sim, const uint8_t *f, uint32_t len)
{
	uint64_t dst_mac;
	uint32_t dst_ip = 0;
	bool has_ip, pass;

	if (sim->cfg.rtl)
		pass = sim_rtl_filter_pass(sim, f, len);
	else
		pass = blue_wire_peek_dst(f, len, &dst_mac, &dst_ip, &has_ip) &&
		       (dst_mac == sim->local_mac || dst_mac == BLUE_WIRE_BROADCAST_MAC) &&
		       (!has_ip || dst_ip == sim->local_ip);
	if (!pass) {
		sim->st.rx_filtered++;
		rx_class_count(sim, BLUE_RX_CLASS_DISCARDED, sim->st.rx_filtered);
	}
	return pass;
}

bool
sim_rx_frame(struct bluesim *sim, struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	bool rdma;

	if (!sim->net_ready) {
		sim->st.rx_frames++;
		sim->st.rx_bytes += len;
		sim->st.rx_not_ready++; /* everything dropped until SetNetworkParam */
		return true;
	}
	if (!rx_filter(sim, f, len)) {
		sim->st.rx_frames++;
		sim->st.rx_bytes += len;
		return true;
	}
	rdma = sim->cfg.rtl ? sim_rtl_is_rdma(f, len)
			    : blue_wire_classify(f, len) == BLUE_WIRE_CLASS_RDMA;
	if (!rdma && m->nb_segs > 1) { /* SimpleNic takes whole frames (the ring's slots) */
		sim->st.rx_linearized++;
		if (rte_pktmbuf_linearize(m) != 0) {
			sim->st.rx_multiseg_dropped++;
			return true;
		}
		f = rte_pktmbuf_mtod(m, const uint8_t *);
	}
	if (!rdma && !simple_nic_rx(sim, f, len))
		return false; /* held: counted when it finally goes through */
	sim->st.rx_frames++;
	sim->st.rx_bytes += len;
	if (rdma) {
		sim->st.rx_rdma++;
		rx_class_count(sim, BLUE_RX_CLASS_RDMA, sim->st.rx_rdma);
		rdma_rx(sim, m, f, len);
	}
	return true;
}
