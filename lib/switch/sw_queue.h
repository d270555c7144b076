/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One egress queue of the test switch as a pure model (no DPDK, no packets):
 * admission (tail drop at a byte capacity, ECN marking by RED or a step
 * threshold), a token-bucket shaper at a line rate, counters and a depth
 * histogram. Deterministic: the clock is the caller's (ns) and the only
 * randomness is a seeded xorshift64* drawn once per packet that RED has to
 * decide by probability.
 *
 * Marking, on the instantaneous depth d (bytes queued when the packet arrives),
 * as the DCQCN paper configures its switches (Zhu et al., SIGCOMM 2015, fig. 5:
 * Kmin 5 KB, Kmax 200 KB, Pmax 1%):
 *   red:   d <= kmin: never; kmin < d <= kmax: with p = pmax (d - kmin) / (kmax - kmin);
 *          d > kmax: always
 *   step:  d > k: always (DCTCP's single threshold K)
 *   none:  never
 * A Not-ECT packet the marker picks is passed (not_ect=pass, the default), dropped
 * (not_ect=drop, RFC 3168 section 7's "drop instead of mark") or marked anyway
 * (not_ect=mark: for senders that cannot set ECT).
 */
#ifndef SW_QUEUE_H
#define SW_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sw_aqm { SW_AQM_NONE, SW_AQM_RED, SW_AQM_STEP };
enum sw_not_ect { SW_NOT_ECT_PASS, SW_NOT_ECT_DROP, SW_NOT_ECT_MARK };

/** What admission decided for one packet. */
enum sw_verdict {
	SW_ENQUEUE,	 /* queued unchanged */
	SW_ENQUEUE_MARK, /* queued; the caller sets CE */
	SW_DROP_FULL,	 /* tail drop: no room */
	SW_DROP_AQM,	 /* Not-ECT packet picked by the marker with not_ect=drop */
	SW_VERDICT_COUNT,
};

extern const char *const sw_verdict_name[SW_VERDICT_COUNT];

struct sw_queue_cfg {
	uint64_t rate_Bps; /* shaper rate, bytes per second (0: unshaped) */
	uint64_t burst;	   /* bucket depth, bytes */
	uint64_t cap;	   /* queue capacity, bytes */
	enum sw_aqm aqm;
	uint64_t kmin, kmax; /* red thresholds, bytes */
	double pmax;	     /* red probability at kmax */
	uint64_t k;	     /* step threshold, bytes */
	enum sw_not_ect not_ect;
	uint64_t seed;
};

#define SW_HIST_BUCKETS 64
#define SW_NO_ECN 0xFF

struct sw_queue_stats {
	uint64_t enqueued, enqueued_bytes;
	uint64_t marked;
	uint64_t dropped_full, dropped_aqm;
	uint64_t sent, sent_bytes;
	uint64_t max_depth;
	/* depth seen by each arriving packet: bucket i holds [i w, (i + 1) w) with
	 * w = cap / SW_HIST_BUCKETS (the last bucket also holds d >= cap) */
	uint64_t hist[SW_HIST_BUCKETS];
};

struct sw_queue {
	struct sw_queue_cfg cfg;
	uint64_t depth;	     /* bytes queued */
	int64_t credit;	     /* shaper credit, in 1e-9 bytes */
	uint64_t credit_max; /* burst in 1e-9 bytes */
	uint64_t last_ns;    /* last refill */
	uint64_t rng;
	struct sw_queue_stats st;
};

/** Defaults: unshaped, 1 MiB capacity, red with the DCQCN paper's 5 KB / 200 KB / 1%. */
void sw_queue_cfg_default(struct sw_queue_cfg *c);
/**
 * Parse "key=value[,...]" over @p c: rate (bytes/s), burst, cap, kmin, kmax, k
 * (bytes; suffixes K M G as powers of 1024 for sizes, of 1000 for rate), pmax,
 * aqm (none|red|step), not_ect (pass|drop|mark), seed. Unknown keys are refused
 * and named in @p err. @return 0 or -EINVAL (@p c unchanged).
 */
int sw_queue_cfg_parse(struct sw_queue_cfg *c, const char *args, char *err, size_t errlen);
/** @return 0, or -EINVAL when @p c is inconsistent (reason in @p err). */
int sw_queue_cfg_check(const struct sw_queue_cfg *c, char *err, size_t errlen);

/** A queue from @p c (checked), empty, bucket full at @p now_ns. @return 0 or -EINVAL. */
int sw_queue_init(struct sw_queue *q, const struct sw_queue_cfg *c, uint64_t now_ns);

/**
 * Admission of a packet of @p len bytes whose IP ECN field is @p ecn (0..3, or
 * SW_NO_ECN for a frame without one: never marked nor dropped by the marker);
 * counts it and, when queued, adds it to the depth.
 */
enum sw_verdict sw_queue_admit(struct sw_queue *q, uint32_t len, uint8_t ecn);

/**
 * May the head packet of @p len bytes leave at @p now_ns? Refills the bucket
 * first. When yes, its cost is taken and it leaves the depth and is counted
 * sent: the caller must then transmit it (or give it back: sw_queue_unsend()).
 * A packet larger than the burst leaves when the bucket is full, driving the
 * credit negative, so the long-run rate holds for any size.
 */
bool sw_queue_dequeue(struct sw_queue *q, uint32_t len, uint64_t now_ns);
/** Undo one sw_queue_dequeue() of @p len bytes (the port could not take it). */
void sw_queue_unsend(struct sw_queue *q, uint32_t len);

/** The depth below which a fraction @p f of arrivals found the queue (histogram bucket top). */
uint64_t sw_queue_depth_quantile(const struct sw_queue *q, double f);

#endif /* SW_QUEUE_H */
