/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather lists (rc/rc_sgl.c) alone: a gather WR's items, cut as the
 * requester cuts them, cover its message exactly, end on its packet
 * boundaries (so the card makes the packets a one-buffer WR would) and are
 * each a run inside one SGE or one packet that spans SGEs; every item's and
 * every packet's source (a resend) holds the message's bytes; the per-SGE
 * checks name the SGE. Random lists of 2..8 SGEs, every PMTU, remote
 * addresses at every alignment. The test includes the .c; rc_mr_check() is
 * stubbed with a refused key.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_sgl.c"

int ordk_rc_logtype;

#define BAD_LKEY 0xBAD00u /* the key rc_mr_check() refuses */

int
rc_mr_check(const struct blue_qp *qp, uint32_t key, uint64_t addr, uint64_t len,
	    unsigned int access)
{
	(void)qp;
	(void)addr;
	(void)len;
	(void)access;
	return key == BAD_LKEY ? -EPERM : 0;
}

/* ------------------------------------------------------------ fixture */

#define MAX_SGE 8u
#define SLOTS	4u

static struct blue_qp qp;
static struct ordk_mr area_mr = { .lkey = 0x777 };
static struct ordk_sge sgl[SLOTS * MAX_SGE];
static uint8_t area[SLOTS * (MAX_SGE - 1) * VERBS_GATHER_PKT];
static uint8_t src[64 << 10], msg[64 << 10];

static void
setup(void)
{
	qp.vqp.init.max_send_sge = MAX_SGE;
	qp.vqp.inl_slots = SLOTS;
	qp.vqp.inl_stride = 0;
	qp.vqp.gat_stride = (MAX_SGE - 1) * VERBS_GATHER_PKT;
	qp.vqp.inl = area;
	qp.vqp.inl_mr = &area_mr;
	qp.vqp.sgl = sgl;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + i / 251);
}

TestSuite(rc_sgl, .init = setup);

/*
 * A gather WQE (WR number @p wr_n) of @p n SGEs of lengths @p lens, taken
 * from src at gaps of 64 bytes, to @p raddr; msg holds its message.
 */
static struct rc_wqe
gather_wqe(uint32_t wr_n, const uint32_t *lens, uint32_t n, uint64_t raddr)
{
	struct ordk_sge in[MAX_SGE];
	struct ordk_send_wr wr = { .num_sge = (int)n, .sg_list = in };
	struct rc_wqe w = { .wr_n = wr_n, .raddr = raddr };
	uint64_t at = 64;

	for (uint32_t i = 0; i < n; i++) {
		in[i] = (struct ordk_sge){ (uint64_t)(uintptr_t)(src + at), lens[i], 0x100 + i };
		memcpy(msg + w.len, src + at, lens[i]);
		w.len += lens[i];
		at += lens[i] + 64;
	}
	w.nsge = (uint8_t)verbs_qp_sgl_save(&qp.vqp, wr_n, &wr);
	cr_assert_eq(w.nsge, n);
	return w;
}

/* The bytes the card reads for [off, off + len) of @p w are the message's. */
static void
source_holds(const struct rc_wqe *w, uint32_t off, uint32_t len)
{
	uint64_t laddr;
	uint32_t lkey;

	rc_sgl_source(&qp, w, off, len, &laddr, &lkey);
	cr_assert_eq(memcmp((const void *)(uintptr_t)laddr, msg + off, len), 0,
		     "bytes [%u, +%u)", off, len);
	if (laddr >= (uint64_t)(uintptr_t)area && laddr < (uint64_t)(uintptr_t)(area + sizeof(area)))
		cr_assert_eq(lkey, area_mr.lkey, "assembled: read through the slot's MR");
	else
		cr_assert_geq(lkey, 0x100u, "read from an SGE, with its lkey");
}

/* Cut @p w as push_items() does (items of at most @p cap) and check every item and packet. */
static void
check_items(const struct rc_wqe *w, uint32_t pmtu, uint32_t cap)
{
	uint32_t off = 0, pkts = 0;

	while (off < w->len) {
		uint32_t n = off == 0 ? RTE_MIN(w->len, cap - (uint32_t)(w->raddr % pmtu))
				      : RTE_MIN(w->len - off, cap);
		uint32_t start, i = sge_at(verbs_qp_sgl(&qp.vqp, w->wr_n), w->nsge, off, &start);
		const struct ordk_sge *g = verbs_qp_sgl(&qp.vqp, w->wr_n);

		n = rc_sgl_item_len(&qp, w, off, n, pmtu);
		cr_assert_gt(n, 0, "an item at %u", off);
		/* inside SGE i, or exactly one packet (which spans SGEs) */
		if (off + n > start + g[i].length)
			cr_assert_eq(rc_pkts(w->raddr + off, n, pmtu), 1, "an item across SGEs at %u", off);
		/* it ends on a packet boundary of the remote address, or the message's end */
		cr_assert(off + n == w->len || (w->raddr + off + n) % pmtu == 0, "item [%u, +%u)", off, n);
		source_holds(w, off, n);
		pkts += rc_pkts(w->raddr + off, n, pmtu);
		off += n;
	}
	cr_assert_eq(pkts, rc_pkts(w->raddr, w->len, pmtu), "the packets of a one-buffer WR");
	for (uint32_t k = 0; k < pkts; k++) { /* each packet alone: a resend */
		uint32_t o, n;

		rc_pkt_span(w->raddr, w->len, pmtu, k, &o, &n);
		source_holds(w, o, n);
	}
}

Test(rc_sgl, a_header_and_a_payload)
{
	/* UCX's zcopy AM: a small header, then the data, into a RECV at 0x10000 */
	uint32_t lens[] = { 12, 9000 };
	struct rc_wqe w = gather_wqe(1, lens, 2, 0x10000);

	/* the first packet (12 + 1012 bytes) is assembled, the rest read from the payload */
	cr_assert_eq(rc_sgl_item_len(&qp, &w, 0, 9012, 1024), 1024);
	cr_assert_eq(rc_sgl_item_len(&qp, &w, 1024, 7988, 1024), 7988);
	check_items(&w, 1024, 65536);
}

Test(rc_sgl, sges_on_packet_boundaries_need_no_copy)
{
	uint32_t lens[] = { 1024, 2048, 100 };
	struct rc_wqe w = gather_wqe(0, lens, 3, 0x4000);
	uint64_t laddr;
	uint32_t lkey;

	cr_assert_eq(rc_sgl_item_len(&qp, &w, 0, 3172, 1024), 1024);
	cr_assert_eq(rc_sgl_item_len(&qp, &w, 1024, 2148, 1024), 2048);
	cr_assert_eq(rc_sgl_item_len(&qp, &w, 3072, 100, 1024), 100);
	for (uint32_t off = 0; off < 3172; off += 1024) {
		rc_sgl_source(&qp, &w, off, RTE_MIN(1024u, 3172 - off), &laddr, &lkey);
		cr_assert(laddr < (uint64_t)(uintptr_t)area ||
			  laddr >= (uint64_t)(uintptr_t)(area + sizeof(area)), "no packet assembled");
	}
	check_items(&w, 1024, 65536);
}

Test(rc_sgl, many_sges_in_one_packet)
{
	/* eight SGEs inside the first packet: one packet, assembled in SGE 0's place */
	uint32_t lens[] = { 3, 1, 7, 100, 2, 50, 9, 4000 };
	struct rc_wqe w = gather_wqe(2, lens, 8, 0x20000 + 4096 - 200);

	cr_assert_eq(rc_sgl_item_len(&qp, &w, 0, 4172, 4096), 200);
	check_items(&w, 4096, 65536);
}

Test(rc_sgl, random_lists_every_pmtu_and_alignment)
{
	static const uint32_t pmtus[] = { 256, 512, 1024, 2048, 4096 };

	srand(7);
	for (int t = 0; t < 3000; t++) {
		uint32_t n = 2 + (uint32_t)rand() % (MAX_SGE - 1), lens[MAX_SGE], total = 0;
		uint32_t pmtu = pmtus[rand() % 5];
		struct rc_wqe w;

		for (uint32_t i = 0; i < n; i++) {
			lens[i] = 1 + (uint32_t)rand() % (rand() % 4 ? 300 : 6000);
			total += lens[i];
		}
		if (total > sizeof(msg) - 64 * (MAX_SGE + 1) || total > sizeof(src) / 2)
			continue;
		w = gather_wqe((uint32_t)t, lens, n, 0x100000 + (uint64_t)(rand() % 8192));
		check_items(&w, pmtu, rand() % 2 ? 65536 : 4 * pmtu);
	}
}

Test(rc_sgl, checks_name_each_sge)
{
	struct ordk_sge g[4] = { { 0x1000, 8, 1 }, { 0x2000, 0, BAD_LKEY }, { 0x3000, 8, 2 },
				 { 0x4000, 8, 3 } };
	struct ordk_send_wr wr = { .num_sge = 4, .sg_list = g };
	uint32_t lens[] = { 100, 100, 100 };
	struct rc_wqe w = gather_wqe(3, lens, 3, 0);

	cr_assert_eq(rc_sgl_check(&qp, &wr, 0), 0, "an SGE of length 0 is not looked at");
	for (int k = 0; k < 4; k++) {
		g[1].lkey = 1;
		g[k].lkey = BAD_LKEY;
		g[k].length = 8;
		cr_assert_eq(rc_sgl_check(&qp, &wr, 0), -EPERM, "SGE %d's lkey", k);
		g[k].lkey = (uint32_t)k + 1;
	}
	/* at a resend, only the SGEs under the bytes sent count */
	verbs_qp_sgl(&qp.vqp, 3)[1].lkey = BAD_LKEY;
	cr_assert(rc_sgl_ok(&qp, &w, 0, 100));
	cr_assert_not(rc_sgl_ok(&qp, &w, 50, 100), "across SGE 1");
	cr_assert_not(rc_sgl_ok(&qp, &w, 150, 10));
	cr_assert(rc_sgl_ok(&qp, &w, 200, 100));
}
