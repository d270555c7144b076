/* SPDX-License-Identifier: BSD-3-Clause */
/* The test switch's queue model on a virtual clock: shaping, marking, drops, counters. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "sw_queue.h"

static struct sw_queue_cfg C;

static void
setup(void)
{
	sw_queue_cfg_default(&C);
}

TestSuite(sw_queue, .init = setup);

/*
 * Offer more than the rate for one virtual second, polling every 10 us: what
 * leaves is rate x 1 s, give or take one bucket (the burst sent at t = 0) and
 * one packet (the last one waiting for its tokens).
 */
static uint64_t
saturate(struct sw_queue *q, uint32_t len, uint64_t until_ns, uint64_t step_ns)
{
	uint64_t sent = 0;

	for (uint64_t t = 0; t <= until_ns; t += step_ns) {
		while (q->depth < 64 * len)
			cr_assert_eq(sw_queue_admit(q, len, 2), SW_ENQUEUE);
		while (sw_queue_dequeue(q, len, t))
			sent += len;
	}
	return sent;
}

Test(sw_queue, token_bucket_rate_on_a_virtual_clock)
{
	struct sw_queue q;
	uint64_t sent;

	C.rate_Bps = 1000000; /* 1 MB/s */
	C.burst = 4096;
	C.aqm = SW_AQM_NONE;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	sent = saturate(&q, 1000, 1000000000ull, 10000);
	cr_assert_geq(sent, 1000000 - 1000, "sent %lu", (unsigned long)sent);
	cr_assert_leq(sent, 1000000 + 4096, "sent %lu", (unsigned long)sent);
	cr_assert_eq(q.st.sent_bytes, sent);

	/* 3 MB/s over 0.5 s with a coarse 1 ms step */
	C.rate_Bps = 3000000;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	sent = saturate(&q, 1000, 500000000ull, 1000000);
	cr_assert_geq(sent, 1500000 - 1000);
	cr_assert_leq(sent, 1500000 + 4096);

	/* packets larger than the burst still get the rate, not zero or twice it */
	C.rate_Bps = 1000000;
	C.burst = 1000;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	sent = saturate(&q, 1500, 1000000000ull, 10000);
	cr_assert_geq(sent, 1000000 - 1500, "sent %lu", (unsigned long)sent);
	cr_assert_leq(sent, 1000000 + 1500, "sent %lu", (unsigned long)sent);
}

Test(sw_queue, token_bucket_exact_steps)
{
	struct sw_queue q;

	C.rate_Bps = 1000000; /* one byte per us */
	C.burst = 2000;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	for (int i = 0; i < 3; i++)
		sw_queue_admit(&q, 1000, 0);
	cr_assert(sw_queue_dequeue(&q, 1000, 0));
	cr_assert(sw_queue_dequeue(&q, 1000, 0), "the burst: two packets at t=0");
	cr_assert_not(sw_queue_dequeue(&q, 1000, 999000), "999 tokens after 999 us");
	cr_assert(sw_queue_dequeue(&q, 1000, 1000000), "1000 tokens after 1000 us");
	cr_assert_eq(q.depth, 0);
	/* a long idle fills the bucket to the burst, not beyond */
	for (int i = 0; i < 3; i++)
		sw_queue_admit(&q, 1000, 0);
	cr_assert(sw_queue_dequeue(&q, 1000, 60000000000ull));
	cr_assert(sw_queue_dequeue(&q, 1000, 60000000000ull));
	cr_assert_not(sw_queue_dequeue(&q, 1000, 60000000000ull));
	/* a refused transmit gives the cost back */
	cr_assert(sw_queue_dequeue(&q, 1000, 60001000000ull));
	sw_queue_unsend(&q, 1000);
	cr_assert_eq(q.depth, 1000);
	cr_assert(sw_queue_dequeue(&q, 1000, 60001000000ull));
	/* unshaped: always */
	C.rate_Bps = 0;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	sw_queue_admit(&q, 1000, 0);
	cr_assert(sw_queue_dequeue(&q, 1000, 0));
}

Test(sw_queue, tail_drop_at_capacity)
{
	struct sw_queue q;

	C.cap = 10000;
	C.aqm = SW_AQM_NONE;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(sw_queue_admit(&q, 1000, 2), SW_ENQUEUE, "packet %d", i);
	cr_assert_eq(sw_queue_admit(&q, 1000, 2), SW_DROP_FULL);
	cr_assert_eq(sw_queue_admit(&q, 1, 2), SW_DROP_FULL, "not one byte more");
	cr_assert(sw_queue_dequeue(&q, 1000, 0));
	cr_assert_eq(sw_queue_admit(&q, 1000, 2), SW_ENQUEUE);
	cr_assert_eq(q.st.enqueued, 11);
	cr_assert_eq(q.st.dropped_full, 2);
	cr_assert_eq(q.st.max_depth, 10000);
	cr_assert_eq(q.st.enqueued_bytes, 11000);
}

Test(sw_queue, step_marks_exactly_above_k)
{
	struct sw_queue q;

	C.aqm = SW_AQM_STEP;
	C.k = 3000;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	/* arrivals see depths 0, 1000, 2000, 3000, 4000, 5000 */
	const enum sw_verdict want[6] = {SW_ENQUEUE, SW_ENQUEUE,      SW_ENQUEUE,
					 SW_ENQUEUE, SW_ENQUEUE_MARK, SW_ENQUEUE_MARK};
	for (int i = 0; i < 6; i++)
		cr_assert_eq(sw_queue_admit(&q, 1000, 2), want[i], "arrival %d", i);
	cr_assert_eq(q.st.marked, 2);
}

/* Hold the depth at @p d and offer @p n 100-byte packets: the verdicts as a bit string. */
static void
red_bits(struct sw_queue *q, uint64_t d, int n, uint8_t ecn, char *out)
{
	if (d)
		sw_queue_admit(q, (uint32_t)d, ecn); /* from depth 0: never picked */
	for (int i = 0; i < n; i++) {
		enum sw_verdict v = sw_queue_admit(q, 100, ecn);

		out[i] = v == SW_ENQUEUE_MARK || v == SW_DROP_AQM ? '1' : '0';
		if (v == SW_ENQUEUE || v == SW_ENQUEUE_MARK)
			cr_assert(sw_queue_dequeue(q, 100, 0));
	}
	out[n] = '\0';
}

/*
 * RED with kmin 1000, kmax 11000, pmax 0.5 at depth 6000: p = 0.25 per packet.
 * The expected strings come from an independent model of xorshift64* (Vigna)
 * seeded 1 and 2 (u = (x * 0x2545F4914F6CDD1D >> 11) / 2^53, mark when u < p).
 */
Test(sw_queue, red_decisions_exact_for_a_seed)
{
	struct sw_queue q;
	char bits[65];

	C.aqm = SW_AQM_RED;
	C.kmin = 1000;
	C.kmax = 11000;
	C.pmax = 0.5;
	C.seed = 1;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	red_bits(&q, 6000, 64, 2, bits);
	cr_assert_str_eq(bits, "0000100000011000110000011000000000011000010000000000000110001000");
	cr_assert_eq(q.st.marked, 13);
	C.seed = 2;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	red_bits(&q, 6000, 64, 2, bits);
	cr_assert_str_eq(bits, "0000100100110000100000011100101010000010001110000100000010000000");

	/* at or below kmin never, above kmax always (and no draw is spent on either) */
	C.seed = 1;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	red_bits(&q, 1000, 64, 1, bits);
	cr_assert_eq(strchr(bits, '1'), NULL);
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	red_bits(&q, 11001, 64, 3, bits);
	cr_assert_eq(strchr(bits, '0'), NULL);
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	red_bits(&q, 6000, 64, 2, bits);
	cr_assert_str_eq(bits, "0000100000011000110000011000000000011000010000000000000110001000",
			 "the same seed, the same decisions");
}

Test(sw_queue, not_ect_pass_drop_mark)
{
	struct sw_queue q;
	char bits[9];

	C.aqm = SW_AQM_STEP;
	C.k = 0;
	C.not_ect = SW_NOT_ECT_PASS;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	red_bits(&q, 500, 8, 0, bits);
	cr_assert_str_eq(bits, "00000000");
	cr_assert_eq(q.st.marked, 0);
	C.not_ect = SW_NOT_ECT_DROP;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	cr_assert_eq(sw_queue_admit(&q, 500, 0), SW_ENQUEUE, "depth 0 is not above k = 0");
	cr_assert_eq(sw_queue_admit(&q, 100, 0), SW_DROP_AQM);
	cr_assert_eq(sw_queue_admit(&q, 100, 2), SW_ENQUEUE_MARK, "ECT is marked, not dropped");
	cr_assert_eq(q.st.dropped_aqm, 1);
	cr_assert_eq(q.depth, 600);
	C.not_ect = SW_NOT_ECT_MARK;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	sw_queue_admit(&q, 500, 0);
	cr_assert_eq(sw_queue_admit(&q, 100, 0), SW_ENQUEUE_MARK);
	cr_assert_eq(sw_queue_admit(&q, 100, SW_NO_ECN), SW_ENQUEUE, "no ECN field: never marked");
	cr_assert_eq(q.st.marked, 1);
}

Test(sw_queue, depth_histogram_and_quantiles)
{
	struct sw_queue q;

	C.cap = 64000; /* 1000-byte buckets */
	C.aqm = SW_AQM_NONE;
	cr_assert_eq(sw_queue_init(&q, &C, 0), 0);
	/* 100 arrivals at depths 0, 500, ..., 49500 */
	for (int i = 0; i < 100; i++)
		sw_queue_admit(&q, 500, 2);
	for (int b = 0; b < 50; b++)
		cr_assert_eq(q.st.hist[b], 2, "bucket %d", b);
	cr_assert_eq(q.st.hist[50], 0);
	cr_assert_eq(sw_queue_depth_quantile(&q, 0.5), 25000);
	cr_assert_eq(sw_queue_depth_quantile(&q, 0.99), 50000);
	sw_queue_admit(&q, 100000, 2); /* dropped, but its arrival depth (50000) counts */
	cr_assert_eq(q.st.hist[50], 1);
}

Test(sw_queue, parse_and_refuse)
{
	struct sw_queue_cfg c = C, before;
	char err[128] = "";

	cr_assert_eq(sw_queue_cfg_parse(&c,
					"rate=125M,burst=32K,cap=1M,aqm=step,k=20K,kmin=4K,"
					"kmax=100K,pmax=0.2,not_ect=mark,seed=9",
					err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(c.rate_Bps, 125000000);
	cr_assert_eq(c.burst, 32768);
	cr_assert_eq(c.cap, 1048576);
	cr_assert_eq(c.aqm, SW_AQM_STEP);
	cr_assert_eq(c.k, 20480);
	cr_assert_eq(c.kmin, 4096);
	cr_assert_eq(c.kmax, 102400);
	cr_assert_eq(c.not_ect, SW_NOT_ECT_MARK);
	cr_assert_eq(c.seed, 9);
	before = c;
	const char *bad[][2] = {
		{"rate=1G,wat=2", "wat"},
		{"aqm=codel", "aqm"},
		{"pmax=2", "pmax"},
		{"cap=0", "cap"},
		{"aqm=red,kmin=9K,kmax=1K", "kmin"},
		{"burst=-1", "burst"},
		{"not_ect=maybe", "not_ect"},
		{"cap", "cap"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(sw_queue_cfg_parse(&c, bad[i][0], err, sizeof(err)), -EINVAL, "%s",
			     bad[i][0]);
		cr_assert_not_null(strstr(err, bad[i][1]), "'%s' -> '%s'", bad[i][0], err);
		cr_assert_eq(memcmp(&c, &before, sizeof(c)), 0);
	}
}
