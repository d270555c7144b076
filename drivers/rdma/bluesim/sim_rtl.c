/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rtl=1: the receive behaviour of the open-rdma RTL where it departs from
 * doc/guides/drivers/blue_hw_interface.md section 10, which names the RTL's
 * files and lines). The card reads headers at fixed offsets and validates
 * little: MAC and IP address, protocol and port, QP, MR and a payload length
 * rounded to 32-byte beats. A CE-marked packet makes it send a CNP, at most one
 * per pause per QP index. A PSN behind the bitmap window sticks the bitmap
 * unit's busy flag (one unit for the whole card).
 */
#include <string.h>

#include "sim_internal.h"

#define OFF_ETHERTYPE 12u
#define OFF_IP_TOS    15u
#define OFF_IP_PROTO  23u
#define OFF_DST_IP    30u
#define OFF_DST_PORT  36u
#define OFF_BTH	      42u
#define OFF_EXT	      54u
#define OFF_PAYLOAD   96u /* three 256-bit beats of headers */

static uint32_t
be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | be24(p + 1);
}

static uint64_t
be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static uint64_t
be48(const uint8_t *p)
{
	return (uint64_t)be16(p) << 32 | be32(p + 2);
}

bool
sim_rtl_filter_pass(const struct bluesim *sim, const uint8_t *f, uint32_t len)
{
	uint64_t dst_mac;

	/* a frame of one beat is an error; the IP compare reads bytes 30-33 of any frame */
	if (len <= 32)
		return false;
	dst_mac = be48(f);
	return (dst_mac == sim->local_mac || dst_mac == BLUE_WIRE_BROADCAST_MAC) &&
	       be32(f + OFF_DST_IP) == sim->local_ip;
}

bool
sim_rtl_is_rdma(const uint8_t *f, uint32_t len)
{
	return len >= OFF_DST_PORT + 2 && be16(f + OFF_ETHERTYPE) == BLUE_WIRE_ETHERTYPE_IPV4 &&
	       f[OFF_IP_PROTO] == BLUE_WIRE_IPPROTO_UDP &&
	       be16(f + OFF_DST_PORT) == BLUE_WIRE_ROCE_UDP_PORT;
}

/* Known opcodes: RC 0x00-0x12 less the atomics' 0x13+; the CNP's 0. */
static bool
rtl_opcode_known(uint8_t trans, uint8_t op)
{
	if (trans == BLUE_TRANS_CNP)
		return true;
	return trans == BLUE_TRANS_RC && op <= BLUE_OP_MAX_RC;
}

int
sim_rtl_parse(const uint8_t *f, uint32_t len, struct blue_wire_rdma *p)
{
	uint8_t hdr[OFF_PAYLOAD];
	const uint8_t *bth, *ext;

	memset(p, 0, sizeof(*p));
	if (len <= 64)
		return -1; /* the third header beat never comes */
	if (len < OFF_PAYLOAD) { /* e.g. the reference driver's 90-byte ACK: zeros after it */
		memset(hdr, 0, sizeof(hdr));
		memcpy(hdr, f, len);
		f = hdr;
	}
	bth = f + OFF_BTH;
	ext = f + OFF_EXT;
	p->l3.dst_mac = be48(f);
	p->l3.src_mac = be48(f + 6);
	p->l3.ecn = f[OFF_IP_TOS] & 3;
	p->l3.src_ip = be32(f + 26);
	p->l3.dst_ip = be32(f + OFF_DST_IP);
	p->l3.src_port = (uint16_t)be16(f + 34);
	p->l3.dst_port = (uint16_t)be16(f + OFF_DST_PORT);
	p->bth.trans = BLUE_BTH_TRANS(bth[0]);
	p->bth.opcode = BLUE_BTH_OP(bth[0]);
	p->bth.solicited = bth[1] >> 7;
	p->bth.is_retry = (bth[1] >> 6) & 1;
	p->bth.msn = (uint16_t)be16(bth + 2);
	p->bth.dqpn = be24(bth + 5);
	p->bth.ack_req = bth[8] >> 7;
	p->bth.psn = be24(bth + 9);
	if (!rtl_opcode_known(p->bth.trans, p->bth.opcode))
		return -1;
	if (p->bth.trans == BLUE_TRANS_CNP)
		return 0;
	if (p->bth.opcode == BLUE_OP_ACKNOWLEDGE) {
		struct blue_wire_aeth *a = &p->aeth;

		a->pre_bitmap.hi = be64(ext);
		a->pre_bitmap.lo = be64(ext + 8);
		a->now_bitmap.hi = be64(ext + 16);
		a->now_bitmap.lo = be64(ext + 24);
		a->is_packet_lost = ext[32] >> 7;
		a->is_window_slided = (ext[32] >> 6) & 1;
		a->is_send_by_driver = (ext[32] >> 5) & 1;
		a->pre_psn = be24(ext + 33);
		return 0;
	}
	p->reth.va = be64(ext);
	p->reth.rkey = be32(ext + 8);
	p->reth.dlen = be32(ext + 12);
	/* the immediate is read at RETH + 16 whatever the opcode (RdmaUtils.bsv):
	 * a READ request's report carries the RRETH's first four bytes there */
	p->imm = be32(ext + 16);
	if (p->bth.opcode == BLUE_OP_READ_REQUEST) {
		p->rreth.va = be64(ext + 16);
		p->rreth.lkey = be32(ext + 24);
		return 0;
	}
	if (blue_op_is_data(p->bth.opcode)) {
		p->pad = (uint8_t)(p->reth.va & 3);
		p->payload_off = OFF_PAYLOAD + p->pad;
		p->payload_len = len > p->payload_off ? len - p->payload_off : 0;
	}
	return 0;
}

/* Zero-based count of 32-byte beats from the RTL's dword arithmetic (RQ.bsv). */
static uint32_t
beats0(uint64_t va, uint32_t len)
{
	uint16_t first = (uint16_t)(va >> 2), last = (uint16_t)((va + len - 1) >> 2);

	return (uint16_t)(last - first) >> 3;
}

int
sim_rtl_check_payload(struct bluesim *sim, const struct sim_qpc *q,
		      const struct blue_wire_rdma *p, const struct sim_mr **mrp)
{
	uint8_t op = p->bth.opcode;
	bool read_resp = blue_op_is_read_resp(op);
	uint32_t idx = blue_mr_key_index(p->reth.rkey), pmtu = blue_pmtu_bytes(q->pmtu);
	uint32_t plen, got;
	const struct sim_mr *mr;
	uint64_t span;

	if (!(q->rq_access_flags & (read_resp ? BLUE_ACC_LOCAL_WRITE : BLUE_ACC_REMOTE_WRITE)))
		return BLUE_RQ_CNT_INVALID_QP_ACCESS;
	if (idx >= BLUE_MAX_MR)
		return BLUE_RQ_CNT_UNKNOWN_ERROR; /* MrIdxOverflow: dropped, no counter moves */
	mr = &sim->mrs[idx];
	if (!mr->valid || mr->key_part != (uint8_t)p->reth.rkey)
		return BLUE_RQ_CNT_INVALID_MR_KEY;
	if (!(mr->acc_flags & (blue_op_is_send(op) ? BLUE_ACC_LOCAL_WRITE : BLUE_ACC_REMOTE_WRITE)))
		return BLUE_RQ_CNT_INVALID_MR_ACCESS;
	/* the length the card expects: FIRST to the PMTU boundary, else the RETH's */
	plen = blue_op_pos(op) == BLUE_POS_FIRST ? pmtu - (uint32_t)(p->reth.va % pmtu)
						  : p->reth.dlen;
	span = ((p->reth.va - mr->base_va) & 0x1FFFFFFFFull) + plen; /* 33-bit arithmetic */
	if (p->reth.va < mr->base_va || span > mr->length)
		return BLUE_RQ_CNT_MEM_OUT_OF_BOUND;
	got = p->pad + p->payload_len;
	if (plen == 0 || got == 0 || (got - 1) / 32 != beats0(p->reth.va, plen))
		return BLUE_RQ_CNT_PACKET_LENGTH_ERROR;
	*mrp = mr;
	return -1;
}

void
sim_cnp_send(struct bluesim *sim, const struct sim_qpc *q, const struct blue_wire_rdma *p)
{
	/* the pause is kept per index of the *peer's* QPN, as CnpPacketGen.bsv does */
	uint64_t *last = &sim->cnp_last_ns[blue_qpn_index(q->peer_qpn) % BLUE_MAX_QP];
	struct blue_wire_rdma c = { 0 };
	struct rte_mbuf *m;
	int n;

	if (*last != 0 && sim->rx_now_ns - (*last - 1) <= SIM_RTL_CNP_PAUSE_NS) {
		sim->st.cnp_suppressed++;
		return;
	}
	m = sim_mbuf_alloc(sim);
	if (m == NULL) {
		sim->st.tx_no_mbuf++;
		return;
	}
	c.l3 = (struct blue_wire_l3){ .dst_mac = p->l3.src_mac, .src_mac = sim->local_mac,
				      .src_ip = sim->local_ip, .dst_ip = p->l3.src_ip,
				      .src_port = q->local_udp_port,
				      .dst_port = BLUE_WIRE_ROCE_UDP_PORT,
				      .ip_id = BLUE_WIRE_CARD_IP_ID, .ttl = BLUE_WIRE_CARD_TTL,
				      .ecn = 1 /* IpHeaderEcnFlagEnabled */ };
	c.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_CNP, .opcode = 0,
					.msn = p->bth.msn, .dqpn = q->peer_qpn };
	n = blue_wire_rdma_build_hdr(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_tailroom(m), &c, 0);
	if (n <= 0) {
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = (uint16_t)n;
	m->pkt_len = (uint32_t)n;
	*last = sim->rx_now_ns + 1;
	sim->st.cnp_sent++;
	sim_port_send(sim, m);
}

void
sim_rtl_bitmap_lock(struct bluesim *sim, struct sim_qpc *q, uint32_t psn)
{
	if (sim->bitmap_locked)
		return;
	sim->bitmap_locked = true;
	sim->st.rtl_bitmap_locked++;
	SIM_LOG(WARNING, sim,
		"rtl: PSN %06x on QP %06x is behind the bitmap window (stride %05x): the bitmap "
		"unit is locked for every QP", psn, q->qpn, q->L);
}
