/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit (doc/guides/drivers/blue_hw_interface.md section 5.1): Send items
 * become packets split on
 * PMTU boundaries of the remote address, with per-packet PSN and opcode, a
 * RETH on every data packet, and the payload read through the MR table and
 * PGT. SimpleNic TX sends the host's raw frame. An item is emitted a packet
 * at a time, so a huge item never holds the poll loop beyond its budget.
 */
#include <errno.h>
#include <string.h>

#include "sim_internal.h"

/* Opcode of a packet from the WR opcode and its place in the WR. */
static uint8_t
pkt_opcode(uint8_t wr_op, bool first, bool last)
{
	static const uint8_t tab[3][4] = {
		/* FIRST, MIDDLE, LAST, ONLY */
		{ BLUE_OP_WRITE_FIRST, BLUE_OP_WRITE_MIDDLE, BLUE_OP_WRITE_LAST, BLUE_OP_WRITE_ONLY },
		{ BLUE_OP_SEND_FIRST, BLUE_OP_SEND_MIDDLE, BLUE_OP_SEND_LAST, BLUE_OP_SEND_ONLY },
		{ BLUE_OP_READ_RESPONSE_FIRST, BLUE_OP_READ_RESPONSE_MIDDLE,
		  BLUE_OP_READ_RESPONSE_LAST, BLUE_OP_READ_RESPONSE_ONLY },
	};
	unsigned int pos = first ? (last ? 3 : 0) : (last ? 2 : 1);
	unsigned int row;
	uint8_t op;

	switch (wr_op) {
	case BLUE_WR_SEND:
	case BLUE_WR_SEND_WITH_IMM:
		row = 1;
		break;
	case BLUE_WR_RDMA_READ_RESP:
		row = 2;
		break;
	default:
		row = 0;
		break;
	}
	op = tab[row][pos];
	/* *_WITH_IMM only on LAST and ONLY: the opcode after LAST / ONLY */
	if ((wr_op == BLUE_WR_RDMA_WRITE_WITH_IMM || wr_op == BLUE_WR_SEND_WITH_IMM) && last)
		op++;
	return op;
}

static void
data_l3(const struct bluesim *sim, const struct blue_send_item *it, struct blue_wire_l3 *l3)
{
	*l3 = (struct blue_wire_l3){
		.dst_mac = it->dst_mac, .src_mac = sim->local_mac, .src_ip = sim->local_ip,
		.dst_ip = it->dqp_ip, .src_port = (uint16_t)it->sqpn,
		.dst_port = BLUE_WIRE_ROCE_UDP_PORT, .ip_id = BLUE_WIRE_CARD_IP_ID,
		.ttl = BLUE_WIRE_CARD_TTL,
		/* ECT(0) on request; the RTL never copies enable_ecn: always 00 */
		.ecn = it->enable_ecn && !sim->cfg.rtl ? 2 : 0,
	};
}

/* Fetch and check the next item; false when none is ready. */
static bool
tx_start_item(struct bluesim *sim)
{
	struct sim_tx_state *tx = &sim->tx;
	uint32_t avail = sim_h2c_avail(sim, &sim->send);
	const uint8_t *d0, *d1;
	int rc;

	while (avail > 0) {
		d0 = sim_h2c_peek(sim, &sim->send, 0);
		if (!blue_desc_has_next(d0)) {
			/* a lone descriptor is never a valid Send item: skip it */
			sim_h2c_consume(sim, &sim->send, 1);
			sim->st.tx_bad_item++;
			avail--;
			continue;
		}
		if (avail < 2)
			return false; /* Seg1 not produced yet */
		d1 = sim_h2c_peek(sim, &sim->send, 1);
		rc = blue_send_item_decode(d0, d1, &tx->it);
		sim_h2c_consume(sim, &sim->send, 2);
		avail -= 2;
		if (rc != 0) {
			sim->st.tx_bad_item++;
			SIM_LOG(DEBUG, sim, "send item rejected: %s", blue_desc_strerror(rc));
			continue;
		}
		if (tx->it.opcode != BLUE_WR_RDMA_READ && tx->it.len > 0) {
			uint32_t idx = blue_mr_key_index(tx->it.lkey);

			/* the RTL asserts the lkey's entry is valid; the model counts and skips */
			if (idx >= BLUE_MAX_MR || !sim->mrs[idx].valid) {
				sim->st.tx_invalid_lkey++;
				continue;
			}
			tx->mr = sim->mrs[idx];
		}
		tx->active = true;
		tx->off = 0;
		tx->pkt = 0;
		sim->st.tx_items++;
		return true;
	}
	return false;
}

/* zcopy: payloads from this size on go out as MR memory; smaller ones are cheaper to copy
 * than a second mbuf is to attach and free */
#define SIM_ZCOPY_MIN 512u

/*
 * The payload, @p len bytes at MR address @p va, after @p hlen bytes of headers in @p m:
 * MR memory chained behind (zcopy) or a copy. @return 0 or the copy's error.
 */
static int
tx_payload(struct bluesim *sim, struct rte_mbuf *m, uint32_t hlen, uint64_t va, uint32_t len)
{
	const uint8_t *p = NULL;
	int rc = 0;

	m->data_len = (uint16_t)hlen;
	m->pkt_len = hlen;
	if (len >= SIM_ZCOPY_MIN && sim->zcopy)
		p = sim_mr_ptr(sim, &sim->tx.mr, va, len);
	if (p != NULL && sim_zcopy_attach(sim, m, p, len))
		return 0;
	if (len > 0)
		rc = sim_mr_read(sim, &sim->tx.mr, va, rte_pktmbuf_mtod_offset(m, uint8_t *, hlen),
				 len);
	m->data_len = (uint16_t)(hlen + len);
	m->pkt_len = m->data_len;
	return rc;
}

/* Emit the next packet of the active item; false if it could not (no mbuf). */
static bool
tx_emit(struct bluesim *sim)
{
	struct sim_tx_state *tx = &sim->tx;
	const struct blue_send_item *it = &tx->it;
	struct blue_wire_rdma p = { 0 };
	uint32_t plen = 0, pmtu = blue_pmtu_bytes(it->pmtu);
	bool first_of_item, last_of_item;
	struct rte_mbuf *m;
	uint8_t *data;
	int hlen, rc;

	m = sim_mbuf_alloc(sim);
	if (m == NULL) {
		sim->st.tx_no_mbuf++;
		return false;
	}
	data = rte_pktmbuf_mtod(m, uint8_t *);
	data_l3(sim, it, &p.l3);
	p.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .msn = it->msn,
					.dqpn = it->dqpn, .is_retry = it->is_retry,
					.solicited = (it->flags & BLUE_SEND_SOLICITED) != 0,
					.ack_req = (it->flags & BLUE_SEND_SIGNALED) != 0,
					.psn = blue_psn_add(it->psn, tx->pkt) };

	if (it->opcode == BLUE_WR_RDMA_READ) {
		p.bth.opcode = BLUE_OP_READ_REQUEST;
		p.reth = (struct blue_wire_reth){ .va = it->raddr, .rkey = it->rkey,
						  .dlen = it->total_len };
		p.rreth = (struct blue_wire_rreth){ .va = it->laddr, .lkey = it->lkey };
		first_of_item = last_of_item = true;
		sim->st.tx_read_requests++;
	} else {
		/* split on PMTU boundaries of the remote address */
		if (it->len > 0) {
			uint32_t room = tx->off == 0 ? pmtu - (uint32_t)(it->raddr % pmtu) : pmtu;

			plen = RTE_MIN(room, it->len - tx->off);
		}
		first_of_item = tx->off == 0;
		last_of_item = tx->off + plen >= it->len;
		p.bth.opcode = pkt_opcode(it->opcode, it->is_first && first_of_item,
					  it->is_last && last_of_item);
		p.reth = (struct blue_wire_reth){
			.va = it->raddr + tx->off, .rkey = it->rkey,
			.dlen = (it->is_first && first_of_item) ? it->total_len : plen };
		p.imm = it->imm;
	}

	hlen = blue_wire_rdma_build_hdr(data, rte_pktmbuf_tailroom(m), &p, plen);
	rc = hlen < 0 ? hlen : tx_payload(sim, m, (uint32_t)hlen, it->laddr + tx->off, plen);
	if (rc != 0) {
		/* a field the frame cannot hold, a PGT index past the table, or an
		 * address the host did not map: the rest of the item is dropped */
		if (hlen < 0)
			sim->st.tx_bad_item++;
		else if (rc == -ERANGE)
			sim->st.tx_pgt_error++;
		else
			sim->st.tx_dma_error++;
		rte_pktmbuf_free(m);
		tx->active = false;
		return true;
	}
	sim->st.tx_packets++;
	sim->st.tx_bytes += m->pkt_len;
	sim_port_send(sim, m);

	tx->off += plen;
	tx->pkt++;
	if (last_of_item)
		tx->active = false;
	return true;
}

unsigned int
sim_send_poll(struct bluesim *sim, unsigned int budget)
{
	unsigned int done = 0;

	while (done < budget && sim->txq_len < SIM_TX_QUEUE - 4) {
		if (!sim->tx.active && !tx_start_item(sim))
			break;
		if (!tx_emit(sim))
			break;
		done++;
	}
	return done;
}

unsigned int
sim_snic_tx_poll(struct bluesim *sim, unsigned int budget)
{
	uint32_t avail = sim_h2c_avail(sim, &sim->snic_tx);
	unsigned int done = 0;

	while (done < avail && done < budget && sim->txq_len < SIM_TX_QUEUE - 4) {
		struct blue_simple_nic_tx d;
		struct rte_mbuf *m;

		if (blue_simple_nic_tx_decode(sim_h2c_peek(sim, &sim->snic_tx, done), &d) != 0 ||
		    d.len > BLUESIM_MBUF_DATA_ROOM - 4 ||
		    /* RTL: the frame must not cross a page boundary */
		    (d.addr & 4095) + d.len > 4096) {
			sim->st.tx_simple_nic_bad++;
			done++;
			continue;
		}
		m = sim_mbuf_alloc(sim);
		if (m == NULL) {
			sim->st.tx_no_mbuf++;
			break;
		}
		if (sim_dma_read(sim, d.addr, rte_pktmbuf_mtod(m, void *), d.len) != 0) {
			sim->st.tx_dma_error++;
			rte_pktmbuf_free(m);
			done++;
			continue;
		}
		m->data_len = (uint16_t)d.len;
		m->pkt_len = d.len;
		sim->st.tx_simple_nic++;
		sim_port_send(sim, m);
		done++;
	}
	if (done > 0)
		sim_h2c_consume(sim, &sim->snic_tx, done);
	return done;
}
