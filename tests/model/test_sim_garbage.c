/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad input never crashes the model or makes it write outside registered
 * memory: seeded garbage descriptors on every host-to-card ring and mutated
 * frames on the wire (FCS recomputed so they reach the parser and the checks),
 * with canaries around the MR in memory the host did map for DMA. Afterwards
 * the model still does a clean WRITE.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "sim_host.h"
#include "wire_test_util.h"

#define MAC_A 0x020000000001ull
#define MAC_B 0x020000000002ull
#define IP_A 0x0A000001u
#define IP_B 0x0A000002u
#define QPN 0x000301u
#define RKEY 0x00004201u
#define GUARD (1u << 20)
#define MR_LEN (1u << 20)

static uint64_t rng = 0x1234567887654321ull;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}


Test(sim_garbage, survives_and_stays_inside_its_memory, .timeout = 120)
{
	struct sim_host h;
	struct bluesim_config cfg;
	struct rte_ring *wrx, *wtx;
	struct rte_mempool *mp;
	uint8_t *region, *mr, frame[BLUE_WIRE_MAX_FRAME], pay[4096];

	test_eal_init(NULL);
	mp = test_pool("garbage_pool", 8191);
	bluesim_config_defaults(&cfg);
	sim_host_init_wire(&h, &cfg, "gw", mp, &wrx, &wtx);
	sim_host_start(&h, MAC_B, IP_B);
	/* [guard | MR | guard], all mapped for DMA, only the middle registered */
	region = test_aligned(1 << 21, 2 * GUARD + MR_LEN);
	memset(region, 0xA5, 2 * GUARD + MR_LEN);
	mr = region + GUARD;
	cr_assert_eq(bluesim_dma_map(h.sim, (uint64_t)(uintptr_t)region, region,
				     2 * GUARD + MR_LEN), 0);
	cr_assert(sim_host_reg_mr(&h, RKEY, mr, MR_LEN, BLUE_ACC_ALL, 0));
	cr_assert(sim_host_qp(&h, QPN, 0xA1B2, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
	memset(pay, 0x5A, sizeof(pay));

	for (int round = 0; round < 400; round++) {
		uint8_t d[32 * 8];
		struct blue_meta_report r;
		uint8_t snic[2048];

		/* garbage on every host-to-card ring (valid bit set, has_next random) */
		for (unsigned int i = 0; i < sizeof(d); i += 8) {
			uint64_t x = rnd();

			memcpy(d + i, &x, 8);
		}
		sim_host_push_raw(&h, BLUE_RING_SEND0, d, 8);
		sim_host_push_raw(&h, BLUE_RING_SIMPLE_NIC_TX, d, 2);
		if (round % 4 == 0)
			sim_host_push_raw(&h, BLUE_RING_CMD_REQ, d + 64, 1);

		/* frames: valid ones aimed near the MR's edges, then mutated */
		for (int k = 0; k < 16; k++) {
			struct blue_wire_rdma p = { 0 };
			uint32_t plen = (uint32_t)(rnd() % 300), n, flips = (uint32_t)(rnd() % 4);
			int64_t off = (int64_t)(rnd() % (MR_LEN + 8192)) - 4096;
			struct rte_mbuf *m;
			int len;

			p.l3 = (struct blue_wire_l3){ .dst_mac = MAC_B, .src_mac = MAC_A,
						      .src_ip = IP_A, .dst_ip = IP_B,
						      .dst_port = BLUE_WIRE_ROCE_UDP_PORT, .ttl = 64 };
			p.bth = (struct blue_wire_bth){ .opcode = (uint8_t)(rnd() % 0x12),
							.dqpn = rnd() % 8 ? QPN : (uint32_t)rnd() & 0xFFFFFF,
							.psn = (uint32_t)rnd() & 0xFFFFFF };
			if (!blue_op_is_data(p.bth.opcode))
				plen = 0;
			p.reth = (struct blue_wire_reth){ .va = (uint64_t)(uintptr_t)mr + (uint64_t)off,
							  .rkey = rnd() % 8 ? RKEY : (uint32_t)rnd(),
							  .dlen = plen + (blue_op_pos(p.bth.opcode) == BLUE_POS_FIRST) };
			len = blue_wire_rdma_build(frame, sizeof(frame), &p, pay, plen);
			if (len < 0)
				continue;
			for (uint32_t f = 0; f < flips; f++)
				frame[rnd() % (uint32_t)len] ^= (uint8_t)(rnd() | 1);
			if (rnd() % 2)
				test_fix_ipv4_csum(frame, (uint32_t)len);
			n = (uint32_t)len;
			if (rnd() % 16 == 0)
				n = (uint32_t)(rnd() % (uint64_t)(len + 1)); /* truncated */
			m = test_frame_mbuf(mp, frame, n, true);
			rte_ring_enqueue(wrx, m);
		}
		sim_host_poll(&h, 8);
		h.now_ns += 50000;
		while (sim_host_meta(&h, &r) > 0)
			;
		while (sim_host_snic_rx(&h, snic) > 0)
			;
		{
			/* drain the CmdResp ring without the helper (it expects one answer) */
			uint8_t *slot;

			while ((slot = h.ring[BLUE_RING_CMD_RESP] +
				       blue_ring_idx(h.tail[BLUE_RING_CMD_RESP]) * 32)[31] & 0x80) {
				memset(slot, 0, 32);
				h.tail[BLUE_RING_CMD_RESP] = blue_ring_advance(h.tail[BLUE_RING_CMD_RESP], 1);
			}
			sim_host_reg_write(&h, BLUE_RING_REG(BLUE_CMD_RESP_RING_BASE, BLUE_CSR_REG_TAIL),
					   h.tail[BLUE_RING_CMD_RESP]);
		}
		struct rte_mbuf *out[64];
		unsigned int k;

		while ((k = rte_ring_dequeue_burst(wtx, (void **)out, 64, NULL)) > 0)
			rte_pktmbuf_free_bulk(out, k);
	}
	for (uint32_t i = 0; i < GUARD; i++) {
		cr_assert_eq(region[i], 0xA5, "guard below the MR written at -%u", GUARD - i);
		cr_assert_eq(region[GUARD + MR_LEN + i], 0xA5, "guard above the MR written at +%u", i);
	}
	cr_assert_gt(bluesim_xstat(h.sim, "tx_bad_item"), 0);
	cr_assert_gt(bluesim_xstat(h.sim, "drop_invalid_header"), 0);
	cr_assert_gt(bluesim_xstat(h.sim, "drop_mem_out_of_bound"), 0);
	cr_assert_gt(bluesim_xstat(h.sim, "rx_rdma"), 1000);

	/* still a working card: a clean WRITE in loopback of its own frames is not
	 * possible on this port, so check a command round trip and a clean frame */
	{
		struct blue_wire_rdma p = { 0 };
		struct blue_meta_report r;
		int len, seen = 0;

		cr_assert(sim_host_qp(&h, QPN, 0xA1B2, IP_A, MAC_A, BLUE_PMTU_256, BLUE_ACC_ALL));
		p.l3 = (struct blue_wire_l3){ .dst_mac = MAC_B, .src_mac = MAC_A, .src_ip = IP_A,
					      .dst_ip = IP_B, .dst_port = BLUE_WIRE_ROCE_UDP_PORT,
					      .ttl = 64 };
		p.bth = (struct blue_wire_bth){ .opcode = BLUE_OP_WRITE_ONLY, .dqpn = QPN };
		p.reth = (struct blue_wire_reth){ .va = (uint64_t)(uintptr_t)mr, .rkey = RKEY,
						  .dlen = 200 };
		memset(pay, 0x77, 200);
		len = blue_wire_rdma_build(frame, sizeof(frame), &p, pay, 200);
		rte_ring_enqueue(wrx, test_frame_mbuf(mp, frame, (uint32_t)len, true));
		sim_host_poll(&h, 8);
		while (sim_host_meta(&h, &r) > 0)
			seen += r.kind == BLUE_META_HEADER_WRITE && r.basic.psn == 0 &&
				r.opcode == BLUE_OP_WRITE_ONLY;
		cr_assert_eq(seen, 1);
		cr_assert_eq(mr[0], 0x77);
		cr_assert_eq(mr[199], 0x77);
	}
	sim_host_fini(&h);
	free(region);
}
