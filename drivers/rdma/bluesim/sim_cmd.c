/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command unit (doc/guides/drivers/blue_hw_interface.md section 3.1): UpdateMrTable, UpdatePGT,
 * ManageQp, SetNetworkParam, SetRawPacketReceiveMeta. Each request gets one
 * response on CmdResp: the request's 32 bytes with valid = 1, has_next = 0 and
 * is_success. A request that cannot be decoded is echoed with is_success = 0,
 * so the host always gets exactly one response per command.
 * A command is fetched only when CmdResp has room for its response.
 *
 * rtl=1 (the open-rdma RTL, doc/guides/drivers/blue_hw_interface.md section 10): UpdateMrTable,
 * UpdatePGT and ManageQp always answer success with their indices truncated;
 * SetRawPacketReceiveMeta fills a one-entry queue nobody reads (the RX base
 * stays 0) and a second one blocks the command unit for good; an unknown
 * opcode gets no answer.
 */
#include <string.h>

#include "sim_internal.h"

void
sim_qpc_reset_bitmap(struct sim_qpc *q)
{
	/* reset state: L all ones, bitmap all ones, so PSN 0 slides in cleanly */
	q->L = SIM_STRIDE_MASK;
	q->bitmap.lo = q->bitmap.hi = ~0ull;
	q->loss_msn = 0;
	q->dirty = 0;
}

enum cmd_result { CMD_FAILED = 0, CMD_OK, CMD_BLOCKED, CMD_NO_ANSWER };

static bool
cmd_update_mr(struct bluesim *sim, const struct blue_cmd_update_mr_table *c)
{
	uint32_t idx = blue_mr_key_index(c->mr_key);
	struct sim_mr *mr;
	uint64_t pages;

	if (sim->cfg.rtl) {
		/* the RTL writes the truncated index and answers success */
		sim->mrs[idx % BLUE_MAX_MR] = (struct sim_mr){
			.valid = c->mr_length != 0, .key_part = (uint8_t)c->mr_key,
			.acc_flags = c->acc_flags, .pgt_offset = c->pgt_offset % BLUE_PGT_ENTRIES,
			.base_va = c->mr_base_va, .length = c->mr_length };
		return true;
	}
	if (idx >= BLUE_MAX_MR)
		return false; /* MrIdxOverflow */
	mr = &sim->mrs[idx];
	if (c->mr_length == 0) {
		memset(mr, 0, sizeof(*mr)); /* length 0 invalidates the slot */
		return true;
	}
	pages = ((c->mr_base_va + c->mr_length - 1) >> BLUE_PAGE_SHIFT) -
		(c->mr_base_va >> BLUE_PAGE_SHIFT) + 1;
	if (c->mr_base_va + c->mr_length < c->mr_base_va ||
	    (uint64_t)c->pgt_offset + pages > BLUE_PGT_ENTRIES)
		return false;
	*mr = (struct sim_mr){ .valid = 1, .key_part = (uint8_t)c->mr_key,
			       .acc_flags = c->acc_flags, .pgt_offset = c->pgt_offset,
			       .base_va = c->mr_base_va, .length = c->mr_length };
	return true;
}

/*
 * UpdatePGT constraints (section 3.1): dma_addr 512-byte aligned, the entries
 * fit one 512-byte burst (64) and do not cross a 4 KiB boundary, and land
 * inside the PGT. Each entry's page number is entry >> 21.
 */
static bool
cmd_update_pgt(struct bluesim *sim, const struct blue_cmd_update_pgt *c)
{
	uint64_t entries[BLUE_PGT_MAX_PER_CMD];
	uint32_t n = c->zero_based_entry_count + 1;

	if (sim->cfg.rtl) {
		/* no constraint checked; what can be read is written, the answer is success */
		n = RTE_MIN(n, BLUE_PGT_MAX_PER_CMD);
		if (sim_dma_read(sim, c->dma_addr, entries, (uint64_t)n * 8) == 0)
			for (uint32_t i = 0; i < n; i++)
				sim->pgt[(c->start_index + i) % BLUE_PGT_ENTRIES] =
					(uint32_t)(rte_le_to_cpu_64(entries[i]) >> BLUE_PAGE_SHIFT);
		return true;
	}
	if (c->zero_based_entry_count >= BLUE_PGT_MAX_PER_CMD || c->dma_addr % 512 != 0 ||
	    (c->dma_addr & 4095) + (uint64_t)n * 8 > 4096 ||
	    (uint64_t)c->start_index + n > BLUE_PGT_ENTRIES)
		return false;
	if (sim_dma_read(sim, c->dma_addr, entries, (uint64_t)n * 8) != 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		sim->pgt[c->start_index + i] = (uint32_t)(rte_le_to_cpu_64(entries[i]) >> BLUE_PAGE_SHIFT);
	return true;
}

static bool
cmd_manage_qp(struct bluesim *sim, const struct blue_cmd_manage_qp *c)
{
	uint32_t idx = blue_qpn_index(c->qpn);
	struct sim_qpc *q;

	if (sim->cfg.rtl)
		idx %= BLUE_MAX_QP; /* truncated, and any PMTU code accepted */
	else if (idx >= BLUE_MAX_QP)
		return false; /* QpIdxOverflow */
	q = &sim->qpcs[idx];
	if (!c->is_valid) {
		bool listed = q->on_dirty_list;

		memset(q, 0, sizeof(*q));
		q->on_dirty_list = listed;
		sim_qpc_reset_bitmap(q);
		return true;
	}
	if (!blue_pmtu_valid(c->pmtu) && !sim->cfg.rtl)
		return false;
	q->valid = 1;
	q->is_error = c->is_error;
	q->pmtu = c->pmtu;
	q->rq_access_flags = c->rq_access_flags;
	q->qp_type = c->qp_type;
	q->local_udp_port = c->local_udp_port;
	q->qpn = c->qpn;
	q->peer_qpn = c->peer_qpn;
	q->peer_ip = c->peer_ip;
	q->peer_mac = c->peer_mac;
	/* side effect of every ManageQp: the PSN bitmap and ACK-MSN state reset */
	sim_qpc_reset_bitmap(q);
	return true;
}

/* rtl=1: the parser enqueues into a one-entry FIFO that nothing dequeues. */
static enum cmd_result
cmd_raw_meta_rtl(struct bluesim *sim)
{
	if (!sim->raw_meta_queued) {
		sim->raw_meta_queued = true; /* answered; the RX base register stays 0 */
		return CMD_OK;
	}
	sim->cmd_blocked = true;
	sim->st.rtl_cmd_blocked++;
	SIM_LOG(WARNING, sim, "rtl: a second SetRawPacketReceiveMeta: the command unit is blocked");
	return CMD_BLOCKED;
}

static enum cmd_result
cmd_execute(struct bluesim *sim, const struct blue_cmd *c)
{
	if (sim->cfg.rtl && c->hdr.opcode == BLUE_CMD_SET_RAW_PACKET_RECEIVE_META)
		return cmd_raw_meta_rtl(sim);
	switch (c->hdr.opcode) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		return cmd_update_mr(sim, &c->mr) ? CMD_OK : CMD_FAILED;
	case BLUE_CMD_UPDATE_PGT:
		return cmd_update_pgt(sim, &c->pgt) ? CMD_OK : CMD_FAILED;
	case BLUE_CMD_MANAGE_QP:
		return cmd_manage_qp(sim, &c->qp) ? CMD_OK : CMD_FAILED;
	case BLUE_CMD_SET_NETWORK_PARAM:
		sim->gateway = c->net.gateway;
		sim->netmask = c->net.netmask;
		sim->local_ip = c->net.local_ip;
		sim->local_mac = c->net.local_mac;
		sim->net_ready = true;
		return CMD_OK;
	case BLUE_CMD_SET_RAW_PACKET_RECEIVE_META:
		sim->raw_base = c->raw.write_base_addr;
		sim->raw_slot = 0;
		sim->raw_ready = true;
		return CMD_OK;
	default:
		return sim->cfg.rtl ? CMD_NO_ANSWER : CMD_FAILED;
	}
}

unsigned int
sim_cmd_poll(struct bluesim *sim, unsigned int budget)
{
	uint32_t avail = sim->cmd_blocked ? 0 : sim_h2c_avail(sim, &sim->cmd_req);
	uint32_t room, done = 0, answered = 0;

	if (avail == 0)
		return 0;
	room = sim_c2h_free(sim, &sim->cmd_resp);
	while (done < avail && done < budget && answered < room) {
		const uint8_t *req = sim_h2c_peek(sim, &sim->cmd_req, done);
		uint8_t resp[1][BLUE_DESC_SIZE];
		enum cmd_result res = CMD_FAILED;
		struct blue_cmd c;
		int rc;

		memcpy(resp[0], req, BLUE_DESC_SIZE);
		rc = blue_cmd_decode(resp[0], &c);
		if (rc == 0) {
			res = cmd_execute(sim, &c);
		} else {
			sim->st.cmd_bad_descriptor++;
			SIM_LOG(DEBUG, sim, "command descriptor rejected: %s",
				blue_desc_strerror(rc));
			if (sim->cfg.rtl)
				res = CMD_NO_ANSWER;
		}
		if (res == CMD_BLOCKED)
			break; /* not consumed: the unit never gets past it */
		if (res == CMD_NO_ANSWER) { /* the RTL's parser has no case for it */
			sim->st.rtl_cmd_no_answer++;
			done++;
			continue;
		}
		if (res == CMD_OK)
			sim->st.cmd_ok++;
		else
			sim->st.cmd_failed++;
		/* echo: valid = 1, has_next = 0, is_success (B29 bit 0) */
		resp[0][29] = (uint8_t)((resp[0][29] & ~1u) | (res == CMD_OK ? 1 : 0));
		resp[0][31] = (uint8_t)((resp[0][31] & ~0x40u) | 0x80);
		sim_c2h_write(sim, &sim->cmd_resp, (const uint8_t(*)[BLUE_DESC_SIZE])resp, 1);
		answered++;
		done++;
	}
	if (done > 0)
		sim_h2c_consume(sim, &sim->cmd_req, done);
	if (answered > 0)
		sim_c2h_publish(sim, &sim->cmd_resp);
	return done;
}
