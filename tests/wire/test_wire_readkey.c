/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile responder against our READs (issue 32): the card places a READ
 * answer by the address and key the answer names, with no PSN check. Side 1
 * is never polled: the test plays its part. It takes side 0's READ request
 * off the wire (what a responder learns: address, key, MSN) and answers
 * with crafted frames: longer than the READ, shorter, before the buffer,
 * 4 KiB past it, after the READ completed, for no READ at all. No byte
 * outside the READ's buffer may change, nothing may land once the READ
 * completed, and the READ's completion must say what happened. Each case
 * runs on both models of the card (spec, rtl=1).
 */
#include <criterion/criterion.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "wire_common.h"

#define LEN	(1u << 20)
#define RD_LEN	256u
#define FILL	0x11 /* side 0's buffer before the READ */
#define SPEC	NULL
#define RTL	"rtl=1,snic_slot=128"

/* What side 0's READ request told its responder. */
struct req {
	uint64_t va;
	uint32_t key;
	uint16_t msn;
};

struct rig {
	struct wire_env w;
	uint8_t *before; /* side 0's buffer as it was when the READ was posted */
};

static void
rig_open(struct rig *r, const char *devargs)
{
	func_qp_timeout = 18; /* about 1 s: no READ times out while the test answers it */
	wire_open(&r->w, LEN, devargs, 64);
	memset(r->w.p.s[0].buf, FILL, LEN);
	r->before = malloc(LEN);
	cr_assert_not_null(r->before);
}

static void
rig_close(struct rig *r)
{
	free(r->before);
	wire_close(&r->w);
	func_qp_timeout = 10;
}

/* Poll side 0 once; what it sent towards side 1 is taken off the wire (into *q if a READ request). */
static bool
poll0(struct rig *r, struct req *q)
{
	struct rte_mbuf *m;
	bool got = false;

	ordk_dev_poll(r->w.p.s[0].dev, 64);
	while (rte_ring_dequeue(r->w.p.rx_ring[1], (void **)&m) == 0) {
		struct blue_wire_rdma p;

		if (q != NULL &&
		    blue_wire_rdma_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
					 BLUE_WIRE_F_FCS, &p) == 0 &&
		    p.bth.opcode == BLUE_OP_READ_REQUEST) {
			*q = (struct req){ .va = p.rreth.va, .key = p.rreth.lkey, .msn = p.bth.msn };
			got = true;
		}
		rte_pktmbuf_free(m);
	}
	return got;
}

/* Post a READ of RD_LEN into side 0's buffer at @p loff; @return its request, off the wire. */
static struct req
read_posted(struct rig *r, size_t loff, uint64_t wr_id)
{
	struct req q;

	memcpy(r->before, r->w.p.s[0].buf, LEN);
	cr_assert_eq(wire_post(&r->w, 0, ORDK_WR_RDMA_READ, loff, 0, RD_LEN, wr_id, 0), 1);
	for (double end = test_now_s() + 5; !poll0(r, &q);)
		cr_assert_lt(test_now_s(), end, "no READ request on the wire");
	cr_assert_eq(q.va, (uint64_t)(uintptr_t)r->w.p.s[0].buf + loff);
	return q;
}

/* A READ answer packet to side 0: @p op at @p va through @p key, PSN @p psn, RETH dlen @p dlen. */
static void
answer(struct rig *r, uint8_t op, const struct req *q, uint64_t va, uint32_t psn, uint32_t dlen,
       uint8_t byte, uint32_t plen)
{
	struct blue_wire_rdma pkt = { 0 };
	uint8_t data[1024];

	cr_assert_leq(plen, sizeof(data));
	memset(data, byte, plen);
	pkt.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = op, .psn = psn,
					  .msn = q->msn, .ack_req = 1 };
	pkt.reth = (struct blue_wire_reth){ .va = va, .rkey = q->key, .dlen = dlen };
	wire_inject_rdma(&r->w, 0, &pkt, data, plen);
}

/* Side 0's next expected PSN (the responder's packets'). */
static uint32_t
epsn(const struct rig *r)
{
	return FUNC_QP_INFO(r->w.p.s[0].qp, expected_psn);
}

/* Poll side 0 until a completion (@return true, in *wc) or the card's drop counter @p xstat moved. */
static bool
cqe_or_drop(struct rig *r, struct ordk_wc *wc, const char *xstat, uint64_t drops_before)
{
	for (double end = test_now_s() + 5;;) {
		poll0(r, NULL);
		if (ordk_cq_poll(r->w.p.s[0].cq, wc, 1) == 1)
			return true;
		if (func_xstat(r->w.p.s[0].dev, xstat) > drops_before)
			return false;
		cr_assert_lt(test_now_s(), end, "neither a completion nor a drop (%s)", xstat);
	}
}

/* Poll side 0 until the card's drop counter @p xstat moved; the READ's buffer must keep @p byte. */
static void
dropped_not_landed(struct rig *r, const char *xstat, uint64_t drops_before, size_t loff, uint8_t byte)
{
	struct ordk_wc wc;

	for (double end = test_now_s() + 5; func_xstat(r->w.p.s[0].dev, xstat) == drops_before;) {
		poll0(r, NULL);
		for (uint32_t i = 0; i < RD_LEN; i++)
			cr_assert_eq(r->w.p.s[0].buf[loff + i], byte, "the answer landed (byte %u)", i);
		cr_assert_eq(ordk_cq_poll(r->w.p.s[0].cq, &wc, 1), 0, "it completed something: %s",
			     ordk_wc_status_str(wc.status));
		cr_assert_lt(test_now_s(), end, "the card did not drop it (%s)", xstat);
	}
}

static struct ordk_wc
cqe(struct rig *r)
{
	struct ordk_wc wc;

	for (double end = test_now_s() + 5; ordk_cq_poll(r->w.p.s[0].cq, &wc, 1) != 1;) {
		cr_assert_lt(test_now_s(), end, "the READ never completed");
		poll0(r, NULL);
	}
	return wc;
}

/* No byte of side 0's buffer outside [loff, loff + RD_LEN) changed since the READ was posted. */
static void
outside_untouched(const struct rig *r, size_t loff)
{
	const uint8_t *b = r->w.p.s[0].buf;

	for (size_t i = 0; i < LEN; i++)
		if (i < loff || i >= loff + RD_LEN)
			cr_assert_eq(b[i], r->before[i], "byte %zd from the READ's buffer was written",
				     (ssize_t)i - (ssize_t)loff);
}

static void
bytes_are(const struct rig *r, size_t off, uint32_t n, uint8_t byte)
{
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(r->w.p.s[0].buf[off + i], byte, "byte %u of the READ's buffer", i);
}

/* The right answer: RD_LEN bytes of @p byte; the READ completes with success. */
static void
answer_right(struct rig *r, const struct req *q, size_t loff, uint64_t wr_id, uint8_t byte)
{
	struct ordk_wc wc;

	answer(r, BLUE_OP_READ_RESPONSE_ONLY, q, q->va, epsn(r), RD_LEN, byte, RD_LEN);
	wc = cqe(r);
	cr_assert_eq(wc.wr_id, wr_id);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	bytes_are(r, loff, RD_LEN, byte);
}

static void
qp0_in_err(struct rig *r)
{
	for (double end = test_now_s() + 5; FUNC_QP_INFO(r->w.p.s[0].qp, state) != ORDK_QPS_ERR;) {
		cr_assert_lt(test_now_s(), end, "the QP did not go to ERR");
		poll0(r, NULL);
	}
}

/*
 * Longer than the READ: one 1024 B packet for a READ of 256 B (the card
 * drops it: past the READ's key), then a FIRST of 256 B saying 1024 B in
 * all and a LAST of the 768 B more (the FIRST lands in the buffer, the LAST
 * is dropped, the READ fails: BAD_RESP_ERR, the QP to ERR).
 */
static void
longer(const char *devargs)
{
	const size_t loff = 65536 + 768; /* 256 B before a PMTU boundary: one packet */
	uint64_t oob = 0;
	struct ordk_wc wc;
	struct rig r;
	struct req q;

	rig_open(&r, devargs);
	oob = func_xstat(r.w.p.s[0].dev, "drop_mem_out_of_bound");
	q = read_posted(&r, loff, 1);
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &q, q.va, epsn(&r), 1024, 0xEE, 1024);
	cr_assert_not(cqe_or_drop(&r, &wc, "drop_mem_out_of_bound", oob),
		      "a 1024 B answer completed a 256 B READ: %s", ordk_wc_status_str(wc.status));
	outside_untouched(&r, loff);
	bytes_are(&r, loff, RD_LEN, FILL);
	answer(&r, BLUE_OP_READ_RESPONSE_FIRST, &q, q.va, epsn(&r), 1024, 0xEF, RD_LEN);
	answer(&r, BLUE_OP_READ_RESPONSE_LAST, &q, q.va + RD_LEN, blue_psn_add(epsn(&r), 1), 768, 0xEF,
	       768);
	wc = cqe(&r);
	cr_assert_eq(wc.wr_id, 1);
	cr_assert_eq(wc.status, ORDK_WC_BAD_RESP_ERR, "%s", ordk_wc_status_str(wc.status));
	outside_untouched(&r, loff);
	qp0_in_err(&r);
	cr_assert_eq(wire_qp_stats(&r.w, 0).read_resp_len_errors, 1);
	rig_close(&r);
}

Test(read_key, longer_answer, .timeout = 60) { longer(SPEC); }
Test(read_key, longer_answer_rtl, .timeout = 60) { longer(RTL); }

/* Shorter than the READ: 128 B for a READ of 256 B lands in the buffer, and the READ fails. */
static void
shorter(const char *devargs)
{
	const size_t loff = 65536;
	struct ordk_wc wc;
	struct rig r;
	struct req q;

	rig_open(&r, devargs);
	q = read_posted(&r, loff, 2);
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &q, q.va, epsn(&r), 128, 0xEE, 128);
	wc = cqe(&r);
	cr_assert_eq(wc.wr_id, 2);
	cr_assert_eq(wc.status, ORDK_WC_BAD_RESP_ERR, "a 128 B answer completed a 256 B READ: %s",
		     ordk_wc_status_str(wc.status));
	outside_untouched(&r, loff);
	qp0_in_err(&r);
	rig_close(&r);
}

Test(read_key, shorter_answer, .timeout = 60) { shorter(SPEC); }
Test(read_key, shorter_answer_rtl, .timeout = 60) { shorter(RTL); }

/*
 * An answer placed @p delta bytes from the READ's buffer (2 KiB before it,
 * 4 KiB past its end): the card drops it, and the READ waits for its own
 * answer, which completes it.
 */
static void
elsewhere(const char *devargs, int64_t delta)
{
	const size_t loff = 65536;
	uint64_t oob;
	struct ordk_wc wc;
	struct rig r;
	struct req q;

	rig_open(&r, devargs);
	oob = func_xstat(r.w.p.s[0].dev, "drop_mem_out_of_bound");
	q = read_posted(&r, loff, 3);
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &q, q.va + (uint64_t)delta, epsn(&r), RD_LEN, 0xEE,
	       RD_LEN);
	cr_assert_not(cqe_or_drop(&r, &wc, "drop_mem_out_of_bound", oob),
		      "an answer elsewhere completed the READ: %s", ordk_wc_status_str(wc.status));
	outside_untouched(&r, loff);
	answer_right(&r, &q, loff, 3, 0x5A);
	outside_untouched(&r, loff);
	rig_close(&r);
}

Test(read_key, answer_before_the_buffer, .timeout = 60) { elsewhere(SPEC, -2048); }
Test(read_key, answer_before_the_buffer_rtl, .timeout = 60) { elsewhere(RTL, -2048); }
Test(read_key, answer_4k_past_the_buffer, .timeout = 60) { elsewhere(SPEC, RD_LEN + 4096); }
Test(read_key, answer_4k_past_the_buffer_rtl, .timeout = 60) { elsewhere(RTL, RD_LEN + 4096); }

/* The READ completed; a second answer with its MSN and key comes: the card drops it. */
static void
late(const char *devargs)
{
	const size_t loff = 65536;
	uint64_t bad_key;
	struct rig r;
	struct req q;

	rig_open(&r, devargs);
	q = read_posted(&r, loff, 4);
	answer_right(&r, &q, loff, 4, 0x5A);
	bad_key = func_xstat(r.w.p.s[0].dev, "drop_invalid_mr_key");
	memcpy(r.before, r.w.p.s[0].buf, LEN);
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &q, q.va, epsn(&r), RD_LEN, 0xEE, RD_LEN);
	dropped_not_landed(&r, "drop_invalid_mr_key", bad_key, loff, 0x5A);
	outside_untouched(&r, loff);
	rig_close(&r);
}

Test(read_key, late_answer, .timeout = 60) { late(SPEC); }
Test(read_key, late_answer_rtl, .timeout = 60) { late(RTL); }

/*
 * Answers for no READ: after a READ completed, one for the next MSN
 * through the key that READ carried (dropped by the card: the key is
 * gone); while another READ is outstanding, one for an MSN no READ has,
 * through that READ's key (it may land in that READ's buffer: dropped by
 * the driver, counted, and the READ still takes its own answer).
 */
static void
unsolicited(const char *devargs)
{
	const size_t loff = 65536, loff2 = 131072;
	struct req q, q2, other;
	uint64_t bad_key;
	struct ordk_wc wc;
	struct rig r;

	rig_open(&r, devargs);
	q = read_posted(&r, loff, 5);
	answer_right(&r, &q, loff, 5, 0x5A);
	bad_key = func_xstat(r.w.p.s[0].dev, "drop_invalid_mr_key");
	memcpy(r.before, r.w.p.s[0].buf, LEN);
	other = q;
	other.msn++;
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &other, q.va, epsn(&r), RD_LEN, 0xEE, RD_LEN);
	dropped_not_landed(&r, "drop_invalid_mr_key", bad_key, loff, 0x5A);
	outside_untouched(&r, loff);

	q2 = read_posted(&r, loff2, 6);
	other = q2;
	other.msn += 7;
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &other, q2.va, epsn(&r), RD_LEN, 0xEE, RD_LEN);
	for (double end = test_now_s() + 5; wire_qp_stats(&r.w, 0).read_resp_unsolicited == 0;) {
		cr_assert_lt(test_now_s(), end, "the answer for no READ was not counted");
		poll0(&r, NULL);
	}
	cr_assert_eq(ordk_cq_poll(r.w.p.s[0].cq, &wc, 1), 0, "it completed something");
	outside_untouched(&r, loff2);
	answer_right(&r, &q2, loff2, 6, 0x6B);
	outside_untouched(&r, loff2);
	rig_close(&r);
}

Test(read_key, unsolicited_answer, .timeout = 60) { unsolicited(SPEC); }
Test(read_key, unsolicited_answer_rtl, .timeout = 60) { unsolicited(RTL); }

/*
 * What a READ's keys cost in polls of side 0 (the model's part runs in
 * them): the request leaves the card in the second poll after the post (the
 * first makes the key, has it confirmed and gives the request to the card,
 * the second's model step sends it), and the READ completes in the poll that
 * takes its answer (its key's revocation confirmed in that poll). Before,
 * each wait for the command unit's answer was one more poll (issue 32).
 */
static void
polls(const char *devargs)
{
	const size_t loff = 65536;
	unsigned int n = 1;
	struct ordk_wc wc;
	struct rig r;
	struct req q;

	rig_open(&r, devargs);
	cr_assert_eq(wire_post(&r.w, 0, ORDK_WR_RDMA_READ, loff, 0, RD_LEN, 7, 0), 1);
	for (; !poll0(&r, &q); n++)
		cr_assert_lt(n, 1000, "no READ request on the wire");
	cr_assert_leq(n, 2, "the READ request left in poll %u after its post", n);
	answer(&r, BLUE_OP_READ_RESPONSE_ONLY, &q, q.va, epsn(&r), RD_LEN, 0x5A, RD_LEN);
	poll0(&r, NULL);
	cr_assert_eq(wire_qp_stats(&r.w, 0).wr_completed, 1,
		     "the READ did not complete in the poll that took its answer");
	cr_assert_eq(ordk_cq_poll(r.w.p.s[0].cq, &wc, 1), 1);
	cr_assert_eq(wc.wr_id, 7);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	bytes_are(&r, loff, RD_LEN, 0x5A);
	rig_close(&r);
}

Test(read_key, costs_no_poll_of_its_own, .timeout = 60) { polls(SPEC); }
Test(read_key, costs_no_poll_of_its_own_rtl, .timeout = 60) { polls(RTL); }
