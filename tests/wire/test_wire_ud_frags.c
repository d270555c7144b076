/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD messages in fragments (architecture.md, "UD queue pairs"; wire_formats.md,
 * "UD frames") from a hostile or lossy peer: crafted FIRST, MIDDLE and LAST
 * frames put on the wire towards a UD QP. A whole message lands in one RECV;
 * one with a fragment missing, a LAST without its FIRST, a FIRST before the
 * previous LAST, one longer than max_ud_msg, a fragment with a wrong Q_Key
 * and more sources at once than the receiver reassembles each drop their
 * datagram, counted (ud_frag_dropped), and take no RECV; sources interleave.
 */
#include <criterion/criterion.h>
#include <rte_errno.h>
#include <string.h>

#include "wire_common.h"

#define QKEY  0x11111111u
#define FRAG  1982u	   /* a fragment's payload: a 2048-byte SimpleNic slot less 66 */
#define RBUF  (1u << 20)   /* side 1's RECV buffers, 8 KiB each */
#define RSLOT 8192u

static struct wire_env w;
static struct ordk_qp *ud;
static uint8_t msg[3 * FRAG + 64];

static void
ud_init(void)
{
	struct ordk_qp_init_attr ia = { .send_cq = NULL, .max_send_wr = 4, .max_recv_wr = 64,
					.qp_type = ORDK_QPT_UD };
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qkey = QKEY, .port_num = 1 };

	wire_open(&w, 2u << 20, NULL, 16);
	ia.send_cq = ia.recv_cq = w.p.s[1].cq;
	ud = ordk_qp_create(w.p.s[1].pd, &ia);
	cr_assert_not_null(ud, "%s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_qp_modify(ud, &a, ORDK_QP_STATE | ORDK_QP_QKEY | ORDK_QP_PKEY_INDEX |
						    ORDK_QP_PORT), 0);
	a.qp_state = ORDK_QPS_RTR;
	cr_assert_eq(ordk_qp_modify(ud, &a, ORDK_QP_STATE), 0);
	for (uint32_t i = 0; i < 16; i++) {
		struct ordk_recv_wr r = { .wr_id = i, .num_sge = 1 };

		r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)w.p.s[1].buf + RBUF + i * RSLOT, RSLOT,
					   w.p.s[1].mr->lkey };
		cr_assert_eq(ordk_qp_post_recv(ud, &r, 1), 1);
	}
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 29 + 3);
}

static void
ud_fini(void)
{
	cr_assert_eq(ordk_qp_destroy(ud), 0);
	wire_close(&w);
}

TestSuite(wire_ud_frags, .init = ud_init, .fini = ud_fini, .timeout = 30);

/* A UD frame from source QPN @p sqpn (side 0's address) to the UD QP: bytes [off, +len) of msg. */
static void
frag(uint32_t sqpn, uint8_t pos, uint32_t psn, uint32_t off, uint32_t len, uint32_t qkey)
{
	uint8_t f[BLUE_WIRE_MAX_FRAME];
	struct blue_wire_ud u = { .frag = pos, .dqpn = ordk_qp_num(ud), .psn = psn, .qkey = qkey,
				  .sqpn = sqpn, .imm = pos == BLUE_WIRE_UD_LAST, .imm_data = psn };
	int n;

	wire_l3_to(&w, 1, BLUE_WIRE_UD_UDP_PORT, &u.l3);
	n = blue_wire_ud_build(f, sizeof(f), &u, msg + off, len);
	cr_assert_gt(n, 0, "%s", blue_wire_strerror(n));
	wire_inject(&w, 1, f, (uint32_t)n);
}

/* A whole message of @p len bytes (FIRST, MIDDLE.., LAST) from @p sqpn, PSNs from @p psn. */
static void
whole(uint32_t sqpn, uint32_t psn, uint32_t len)
{
	uint32_t off = 0;

	for (; len - off > FRAG; off += FRAG, psn++)
		frag(sqpn, off == 0 ? BLUE_WIRE_UD_FIRST : BLUE_WIRE_UD_MIDDLE, psn, off, FRAG, QKEY);
	frag(sqpn, BLUE_WIRE_UD_LAST, psn, off, len - off, QKEY);
}

static uint64_t
qp_stat(const char *name)
{
	struct ordk_stats st;

	cr_assert_eq(ordk_qp_stats(ud, &st), 0);
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++)
		if (strcmp(ordk_stats_name(i), name) == 0)
			return ordk_stats_value(&st, i);
	cr_assert_fail("no counter %s", name);
	return 0;
}

/* The next completion on side 1: RECV @p wr_id with @p len bytes of msg from @p sqpn. */
static void
landed(uint64_t wr_id, uint32_t len, uint32_t sqpn)
{
	struct ordk_wc wc;

	func_wait(&w.p, 1, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, wr_id, "the RECVs in order: no dropped datagram took one");
	cr_assert_eq(wc.byte_len, ORDK_GRH_LEN + len);
	cr_assert_eq(wc.src_qp, sqpn);
	cr_assert(wc.wc_flags & ORDK_WC_WITH_IMM, "the LAST's immediate");
	cr_assert_eq(memcmp(w.p.s[1].buf + RBUF + wr_id * RSLOT + ORDK_GRH_LEN, msg, len), 0);
}

static void
nothing_lands(void)
{
	struct ordk_wc wc;

	func_idle(&w.p, 0.1);
	cr_assert_eq(ordk_cq_poll(w.p.s[1].cq, &wc, 1), 0);
}

Test(wire_ud_frags, a_whole_message_lands_in_one_recv)
{
	whole(0x123, 10, 4096); /* 1982 + 1982 + 132 */
	landed(0, 4096, 0x123);
	whole(0x123, 20, FRAG + 1);
	landed(1, FRAG + 1, 0x123);
	cr_assert_eq(qp_stat("ud_frag_dropped"), 0);
	cr_assert_eq(qp_stat("ud_received"), 2);
}

Test(wire_ud_frags, broken_messages_are_dropped_and_counted)
{
	/* a MIDDLE missing */
	frag(0x123, BLUE_WIRE_UD_FIRST, 20, 0, FRAG, QKEY);
	frag(0x123, BLUE_WIRE_UD_LAST, 22, 2 * FRAG, 10, QKEY);
	nothing_lands();
	cr_assert_eq(qp_stat("ud_frag_dropped"), 1);
	/* a LAST, a MIDDLE without a FIRST */
	frag(0x123, BLUE_WIRE_UD_LAST, 30, 0, 10, QKEY);
	frag(0x123, BLUE_WIRE_UD_MIDDLE, 31, 0, 10, QKEY);
	nothing_lands();
	cr_assert_eq(qp_stat("ud_frag_dropped"), 3);
	/* a FIRST before the LAST of the one under way: that one is lost, this one lands */
	frag(0x123, BLUE_WIRE_UD_FIRST, 40, 0, FRAG, QKEY);
	frag(0x123, BLUE_WIRE_UD_FIRST, 50, 0, FRAG, QKEY);
	frag(0x123, BLUE_WIRE_UD_LAST, 51, FRAG, 500, QKEY);
	landed(0, FRAG + 500, 0x123);
	cr_assert_eq(qp_stat("ud_frag_dropped"), 4);
	/* longer than max_ud_msg (4096): dropped at the fragment that overflows */
	frag(0x123, BLUE_WIRE_UD_FIRST, 60, 0, FRAG, QKEY);
	frag(0x123, BLUE_WIRE_UD_MIDDLE, 61, FRAG, FRAG, QKEY);
	frag(0x123, BLUE_WIRE_UD_LAST, 62, 2 * FRAG, FRAG, QKEY);
	nothing_lands();
	cr_assert_eq(qp_stat("ud_frag_dropped"), 5);
	/* a fragment with another Q_Key: dropped as any (IBA 10.2.5), its message with it */
	frag(0x123, BLUE_WIRE_UD_FIRST, 70, 0, FRAG, QKEY);
	frag(0x123, BLUE_WIRE_UD_MIDDLE, 71, FRAG, FRAG, QKEY + 1);
	frag(0x123, BLUE_WIRE_UD_LAST, 72, 2 * FRAG, 10, QKEY);
	nothing_lands();
	cr_assert_eq(qp_stat("ud_qkey_dropped"), 1);
	cr_assert_eq(qp_stat("ud_frag_dropped"), 6);
	/* and the QP goes on: the next RECV takes the next whole message */
	whole(0x123, 80, 3000);
	landed(1, 3000, 0x123);
	cr_assert_eq(FUNC_QP_INFO(ud, recv_posted), 14, "only the two whole ones took a RECV");
}

Test(wire_ud_frags, sources_interleave)
{
	frag(0x111, BLUE_WIRE_UD_FIRST, 5, 0, FRAG, QKEY);
	frag(0x222, BLUE_WIRE_UD_FIRST, 900, 0, FRAG, QKEY);
	frag(0x111, BLUE_WIRE_UD_LAST, 6, FRAG, 7, QKEY);
	frag(0x222, BLUE_WIRE_UD_LAST, 901, FRAG, 9, QKEY);
	landed(0, FRAG + 7, 0x111);
	landed(1, FRAG + 9, 0x222);
	cr_assert_eq(qp_stat("ud_frag_dropped"), 0);
}

Test(wire_ud_frags, more_sources_than_places_drop_the_oldest)
{
	/* nine messages under way at once: the receiver reassembles eight */
	for (uint32_t s = 0; s < 9; s++)
		frag(0x300 + s, BLUE_WIRE_UD_FIRST, 100, 0, FRAG, QKEY);
	for (uint32_t s = 0; s < 9; s++)
		frag(0x300 + s, BLUE_WIRE_UD_LAST, 101, FRAG, 3, QKEY);
	for (uint32_t s = 1; s < 9; s++)
		landed(s - 1, FRAG + 3, 0x300 + s);
	nothing_lands();
	cr_assert_eq(qp_stat("ud_frag_dropped"), 2, "the oldest, evicted, then its LAST");
}

Test(wire_ud_frags, malformed_fragments_are_refused)
{
	uint8_t f[BLUE_WIRE_MAX_FRAME];
	struct blue_wire_ud u = { .frag = BLUE_WIRE_UD_MIDDLE, .dqpn = ordk_qp_num(ud), .psn = 1,
				  .qkey = QKEY, .sqpn = 0x444 };
	struct ordk_stats st;
	int n;

	wire_l3_to(&w, 1, BLUE_WIRE_UD_UDP_PORT, &u.l3);
	n = blue_wire_ud_build(f, sizeof(f), &u, msg, 100);
	cr_assert_gt(n, 0);
	f[43] |= 0x80; /* SE on a MIDDLE */
	wire_inject(&w, 1, f, (uint32_t)n);
	f[43] &= 0x7F;
	f[42] = 0x66; /* no such UD opcode */
	wire_inject(&w, 1, f, (uint32_t)n);
	nothing_lands();
	cr_assert_eq(ordk_dev_stats(w.p.s[1].dev, &st), 0);
	cr_assert_eq(st.ud_bad, 2);
}
