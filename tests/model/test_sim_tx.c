/* SPDX-License-Identifier: BSD-3-Clause */
/* bluesim transmit: the exact frames a Send item becomes
 * (doc/guides/drivers/blue_hw_interface.md sections 5.1, 6). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "sim_host.h"

#define MAC_A 0x020000000001ull
#define MAC_B 0x020000000002ull
#define IP_A 0x0A000001u
#define IP_B 0x0A000002u
#define LKEY 0x00012345u
#define SQPN 0x00A1B2u

static struct sim_host h;
static struct rte_ring *wire_rx, *wire_tx;
static uint8_t *src; /* 4 MiB source buffer, registered */

static void
setup(void)
{
	struct bluesim_config cfg;
	struct rte_mempool *mp;

	test_eal_init(NULL);
	mp = test_pool("tx_pool", 2048);
	bluesim_config_defaults(&cfg);
	sim_host_init_wire(&h, &cfg, "txw", mp, &wire_rx, &wire_tx);
	sim_host_start(&h, MAC_A, IP_A);
	src = test_aligned(1 << 21, 4 << 20);
	for (uint32_t i = 0; i < (4u << 20); i++)
		src[i] = (uint8_t)(i * 131 + 7);
	cr_assert(sim_host_reg_mr(&h, LKEY, src, 4 << 20, BLUE_ACC_ALL, 0));
}

static void
teardown(void)
{
	sim_host_fini(&h);
	free(src);
}

TestSuite(sim_tx, .init = setup, .fini = teardown);

/* Frames the model put on the wire, FCS checked and parsed. */
static unsigned int
drain(struct blue_wire_rdma *out, uint8_t **payload, unsigned int max)
{
	struct rte_mbuf *m[64];
	unsigned int n = 0, k;

	for (int i = 0; i < 200; i++) {
		bluesim_poll(h.sim, 64);
		while ((k = rte_ring_dequeue_burst(wire_tx, (void **)m, 64, NULL)) > 0) {
			for (unsigned int j = 0; j < k; j++) {
				const uint8_t *f = rte_pktmbuf_mtod(m[j], const uint8_t *);
				uint32_t len = rte_pktmbuf_data_len(m[j]);
				int rc;

				cr_assert_lt(n, max, "more frames than expected");
				rc = blue_wire_rdma_parse(f, len, BLUE_WIRE_F_FCS, &out[n]);
				cr_assert_eq(rc, 0, "frame %u: %s", n, blue_wire_strerror(rc));
				if (payload != NULL) {
					payload[n] = malloc(out[n].payload_len + 1);
					memcpy(payload[n], f + out[n].payload_off, out[n].payload_len);
				}
				n++;
				rte_pktmbuf_free(m[j]);
			}
		}
	}
	return n;
}

static struct blue_send_item
item(uint8_t op, uint64_t roff, uint32_t len, uint8_t pmtu)
{
	return (struct blue_send_item){
		.opcode = op, .valid = 1, .msn = 0x1234, .total_len = len, .rkey = 0x00777701,
		.dqp_ip = IP_B, .raddr = 0x7F0000000000ull + roff, .psn = 0xFFFFFE,
		.qp_type = BLUE_QPT_RC, .dqpn = 0x000301, .flags = BLUE_SEND_SIGNALED,
		.pmtu = pmtu, .is_first = 1, .is_last = 1, .sqpn = SQPN, .imm = 0xC0FFEE,
		.dst_mac = MAC_B, .lkey = LKEY, .len = len, .laddr = (uint64_t)(uintptr_t)src,
	};
}

/* A WRITE of N bytes at remote offset K with PMTU P: every frame, field and byte. */
Test(sim_tx, write_segmentation_golden, .timeout = 60)
{
	static struct blue_wire_rdma f[2048];
	static uint8_t *pay[2048];

	for (uint8_t code = BLUE_PMTU_256; code <= BLUE_PMTU_4096; code++) {
		uint32_t P = blue_pmtu_bytes(code);
		const uint32_t offs[] = { 0, 1, 3, 100, P - 1 };
		const uint32_t lens[] = { 1, P, 3 * P + 5, 70000 };

		for (unsigned int oi = 0; oi < 5; oi++) {
			for (unsigned int li = 0; li < 4; li++) {
				uint32_t K = offs[oi], N = lens[li];
				struct blue_send_item it = item(BLUE_WR_RDMA_WRITE, K, N, code);
				uint32_t first = P - K % P, expect, off = 0;
				unsigned int n;

				expect = N <= first ? 1 : 1 + (N - first + P - 1) / P;
				sim_host_send(&h, &it);
				n = drain(f, pay, 2048);
				cr_assert_eq(n, expect, "P %u K %u N %u: %u frames, want %u", P, K, N, n,
					     expect);
				for (unsigned int i = 0; i < n; i++) {
					uint32_t plen = i == 0 ? (N < first ? N : first)
							       : (N - off < P ? N - off : P);
					uint8_t op = n == 1 ? BLUE_OP_WRITE_ONLY
						     : i == 0 ? BLUE_OP_WRITE_FIRST
						     : i == n - 1 ? BLUE_OP_WRITE_LAST
								  : BLUE_OP_WRITE_MIDDLE;

					cr_assert_eq(f[i].bth.opcode, op, "P %u K %u N %u pkt %u", P, K, N, i);
					cr_assert_eq(f[i].bth.psn, (0xFFFFFEu + i) & 0xFFFFFF, "PSN wraps");
					cr_assert_eq(f[i].bth.msn, 0x1234);
					cr_assert_eq(f[i].bth.dqpn, 0x301);
					cr_assert_eq(f[i].bth.ack_req, 1);
					cr_assert_eq(f[i].bth.solicited, 0);
					cr_assert_eq(f[i].bth.is_retry, 0);
					cr_assert_eq(f[i].reth.va, it.raddr + off, "RETH on every packet");
					cr_assert_eq(f[i].reth.rkey, it.rkey);
					cr_assert_eq(f[i].reth.dlen, i == 0 ? N : plen);
					cr_assert_eq(f[i].payload_len, plen);
					cr_assert_eq(memcmp(pay[i], src + off, plen), 0, "payload bytes");
					cr_assert_eq(f[i].l3.src_mac, MAC_A);
					cr_assert_eq(f[i].l3.dst_mac, MAC_B);
					cr_assert_eq(f[i].l3.src_ip, IP_A);
					cr_assert_eq(f[i].l3.dst_ip, IP_B);
					cr_assert_eq(f[i].l3.src_port, SQPN & 0xFFFF);
					cr_assert_eq(f[i].l3.ip_id, 1);
					cr_assert_eq(f[i].l3.ttl, 64);
					off += plen;
					free(pay[i]);
				}
				cr_assert_eq(off, N);
			}
		}
	}
	cr_assert_eq(bluesim_xstat(h.sim, "tx_bad_item"), 0);
}

Test(sim_tx, imm_opcodes_and_split_items)
{
	struct blue_wire_rdma f[64];
	struct blue_send_item it = item(BLUE_WR_RDMA_WRITE_WITH_IMM, 0, 3 * 256, BLUE_PMTU_256);
	unsigned int n;

	n = drain(f, NULL, 64);
	cr_assert_eq(n, 0);
	sim_host_send(&h, &it);
	n = drain(f, NULL, 64);
	cr_assert_eq(n, 3);
	cr_assert_eq(f[0].bth.opcode, BLUE_OP_WRITE_FIRST);
	cr_assert_eq(f[1].bth.opcode, BLUE_OP_WRITE_MIDDLE);
	cr_assert_eq(f[2].bth.opcode, BLUE_OP_WRITE_LAST_WITH_IMM, "IMM only on LAST");
	cr_assert_eq(f[2].imm, 0xC0FFEE);

	/* one WR in two items: FIRST..MIDDLE then MIDDLE..LAST; dlen = total only on the first */
	it = item(BLUE_WR_SEND_WITH_IMM, 0, 512, BLUE_PMTU_256);
	it.total_len = 1024;
	it.is_last = 0;
	sim_host_send(&h, &it);
	it.is_first = 0;
	it.is_last = 1;
	it.raddr += 512;
	it.psn = 2;
	it.laddr += 512;
	sim_host_send(&h, &it);
	n = drain(f, NULL, 64);
	cr_assert_eq(n, 4);
	cr_assert_eq(f[0].bth.opcode, BLUE_OP_SEND_FIRST);
	cr_assert_eq(f[0].reth.dlen, 1024);
	cr_assert_eq(f[1].bth.opcode, BLUE_OP_SEND_MIDDLE);
	cr_assert_eq(f[2].bth.opcode, BLUE_OP_SEND_MIDDLE);
	cr_assert_eq(f[2].reth.dlen, 256);
	cr_assert_eq(f[3].bth.opcode, BLUE_OP_SEND_LAST_WITH_IMM);
	cr_assert_eq(f[3].bth.psn, 3);

	/* zero-length WRITE_WITH_IMM: one ONLY packet with no payload */
	it = item(BLUE_WR_RDMA_WRITE_WITH_IMM, 0, 0, BLUE_PMTU_4096);
	it.flags = BLUE_SEND_SOLICITED;
	it.is_retry = 1;
	sim_host_send(&h, &it);
	n = drain(f, NULL, 64);
	cr_assert_eq(n, 1);
	cr_assert_eq(f[0].bth.opcode, BLUE_OP_WRITE_ONLY_WITH_IMM);
	cr_assert_eq(f[0].payload_len, 0);
	cr_assert_eq(f[0].bth.ack_req, 0);
	cr_assert_eq(f[0].bth.solicited, 1);
	cr_assert_eq(f[0].bth.is_retry, 1);

	/* software READ response */
	it = item(BLUE_WR_RDMA_READ_RESP, 0, 300, BLUE_PMTU_256);
	sim_host_send(&h, &it);
	n = drain(f, NULL, 64);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].bth.opcode, BLUE_OP_READ_RESPONSE_FIRST);
	cr_assert_eq(f[1].bth.opcode, BLUE_OP_READ_RESPONSE_LAST);
}

Test(sim_tx, read_request_framing)
{
	struct blue_wire_rdma f[4];
	struct blue_send_item it = item(BLUE_WR_RDMA_READ, 5, 1u << 30, BLUE_PMTU_4096);

	it.laddr = 0x7F1234567000ull; /* requester buffer: not read by the card */
	it.lkey = 0xABCD00;
	sim_host_send(&h, &it);
	cr_assert_eq(drain(f, NULL, 4), 1);
	cr_assert_eq(f[0].bth.opcode, BLUE_OP_READ_REQUEST);
	cr_assert_eq(f[0].payload_len, 0);
	cr_assert_eq(f[0].reth.va, it.raddr);
	cr_assert_eq(f[0].reth.rkey, it.rkey);
	cr_assert_eq(f[0].reth.dlen, 1u << 30);
	cr_assert_eq(f[0].rreth.va, 0x7F1234567000ull);
	cr_assert_eq(f[0].rreth.lkey, 0xABCD00);
	cr_assert_eq(f[0].bth.psn, 0xFFFFFE);
	cr_assert_eq(bluesim_xstat(h.sim, "tx_read_requests"), 1);
}

Test(sim_tx, bad_items_are_counted_and_skipped)
{
	struct blue_wire_rdma f[8];
	struct blue_send_item it = item(BLUE_WR_RDMA_WRITE, 0, 100, BLUE_PMTU_1024);
	uint8_t d[64] = { 0 };

	it.lkey = 0x5500; /* an MR slot never written */
	sim_host_send(&h, &it);
	d[31] = 0x80; /* a lone descriptor without has_next */
	sim_host_push_raw(&h, BLUE_RING_SEND0, d, 1);
	it = item(BLUE_WR_RDMA_WRITE, 0, 100, BLUE_PMTU_1024);
	cr_assert_eq(blue_send_item_encode(&it, d), 0);
	d[32 + 30] = BLUE_WR_SEND; /* segments disagree */
	sim_host_push_raw(&h, BLUE_RING_SEND0, d, 2);
	it.laddr = 0x10000; /* inside the MR's PGT run? no: VA below the MR */
	it = item(BLUE_WR_RDMA_WRITE, 0, 100, BLUE_PMTU_1024); /* and a good one */
	sim_host_send(&h, &it);
	cr_assert_eq(drain(f, NULL, 8), 1);
	cr_assert_eq(bluesim_xstat(h.sim, "tx_invalid_lkey"), 1);
	cr_assert_eq(bluesim_xstat(h.sim, "tx_bad_item"), 2);
}

Test(sim_tx, simple_nic_tx_sends_the_raw_frame)
{
	uint8_t frame[60], got[64];
	struct rte_mbuf *m = NULL;

	for (int i = 0; i < 60; i++)
		frame[i] = (uint8_t)(0xA0 + i);
	sim_host_snic_tx(&h, frame, sizeof(frame));
	for (int i = 0; i < 10 && m == NULL; i++) {
		bluesim_poll(h.sim, 64);
		if (rte_ring_dequeue(wire_tx, (void **)&m) != 0)
			m = NULL;
	}
	cr_assert_not_null(m);
	cr_assert_eq(rte_pktmbuf_data_len(m), 64, "frame + FCS trailer");
	memcpy(got, rte_pktmbuf_mtod(m, void *), 64);
	cr_assert_eq(memcmp(got, frame, 60), 0);
	cr_assert_eq(blue_wire_crc32(got, 60), (uint32_t)got[60] | got[61] << 8 | got[62] << 16 |
						       (uint32_t)got[63] << 24);
	rte_pktmbuf_free(m);
}

/*
 * An IOMMU translates page by page: a packet whose payload spans two DMA
 * mappings that abut (the driver pins and maps an MR's pages that no other MR
 * covers, so MRs side by side in one malloc'd struct are mapped in pieces) is
 * read whole. The model refused it (one mapping had to cover the whole
 * access): fio's 8204-byte SEND lost the packet over the seam for good.
 */
Test(sim_tx, a_payload_across_two_dma_mappings)
{
	static struct blue_wire_rdma f[16];
	static uint8_t *pay[16];
	uint64_t a = (uint64_t)(uintptr_t)src;
	struct blue_send_item it = item(BLUE_WR_SEND, 0x25c, 8204, BLUE_PMTU_1024);
	uint32_t off = 0;
	unsigned int n;

	cr_assert_eq(bluesim_dma_unmap(h.sim, a, 4u << 20), 0);
	cr_assert_eq(bluesim_dma_map(h.sim, a, src, 4096), 0);
	cr_assert_eq(bluesim_dma_map(h.sim, a + 4096, src + 4096, (4u << 20) - 4096), 0);
	it.laddr = a + 4096 - 700; /* packets of 420, 1024, ... bytes: the second spans the seam */
	sim_host_send(&h, &it);
	n = drain(f, pay, 16);
	cr_assert_eq(n, 9, "%u frames", n);
	for (unsigned int i = 0; i < n; i++) {
		cr_assert_eq(memcmp(pay[i], src + 4096 - 700 + off, f[i].payload_len), 0,
			     "packet %u's payload", i);
		off += f[i].payload_len;
		free(pay[i]);
	}
	cr_assert_eq(off, 8204);
	cr_assert_eq(bluesim_xstat(h.sim, "tx_dma_error"), 0);
	cr_assert_eq(bluesim_xstat(h.sim, "dma_refused"), 0);
}

/*
 * A payload over two DMA mappings side by side: the host pins and maps a
 * page once, for the first MR over it, so an MR whose buffer crosses into
 * the next page has its bytes under two mappings (ucmatose's 100-byte
 * buffers, malloc'd next to each other). The IOMMU translates page by
 * page: the card reads across, each page from its own host memory. A page
 * nobody mapped is still refused.
 */
Test(sim_tx, a_payload_across_two_mappings)
{
	const uint32_t key = 0x00023456u, pg = 4096;
	uint8_t *buf = test_aligned(1 << 21, 3 * pg), *other = test_aligned(pg, pg);
	uint64_t base = (uint64_t)(uintptr_t)buf;
	uint8_t *pay[2], want[100];
	struct blue_wire_rdma f[2];
	struct blue_send_item it;

	for (uint32_t i = 0; i < 3 * pg; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	for (uint32_t i = 0; i < pg; i++)
		other[i] = (uint8_t)(0xC3 ^ i);
	/* IOVA = VA for the first page; the second IOVA page is backed by other memory */
	cr_assert_eq(bluesim_dma_map(h.sim, base, buf, pg), 0);
	cr_assert_eq(bluesim_dma_map(h.sim, base + pg, other, pg), 0);
	cr_assert(sim_host_reg_mr(&h, key, buf, 3 * pg, BLUE_ACC_ALL, 8));
	memcpy(want, buf + pg - 50, 50);
	memcpy(want + 50, other, 50);

	it = item(BLUE_WR_SEND, 0, 100, BLUE_PMTU_4096);
	it.lkey = key;
	it.laddr = base + pg - 50;
	sim_host_send(&h, &it);
	cr_assert_eq(drain(f, pay, 2), 1, "one frame");
	cr_assert_eq(f[0].payload_len, 100);
	cr_assert_eq(memcmp(pay[0], want, 100), 0, "50 bytes from each mapping");
	free(pay[0]);
	cr_assert_eq(bluesim_xstat(h.sim, "tx_dma_error"), 0);

	/* into the third page, which nobody mapped: refused, nothing sent */
	it.laddr = base + 2 * pg - 50;
	sim_host_send(&h, &it);
	cr_assert_eq(drain(f, NULL, 2), 0);
	cr_assert_eq(bluesim_xstat(h.sim, "tx_dma_error"), 1);
	cr_assert_geq(bluesim_xstat(h.sim, "dma_refused"), 1);
	cr_assert_eq(bluesim_dma_unmap(h.sim, base, 2 * pg), 0);
	free(buf);
	free(other);
}
