/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction point: the per-flow rate state and its arithmetic.
 *
 * Source: Y. Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015, section 3.1 (the RP algorithm, equations (1)-(4), the state
 * machine of its figure 6) and its parameter table. Pure C: no DPDK, no
 * transport. The caller owns the clock (nanoseconds, any origin) and feeds
 * events; nothing here reads time or allocates.
 *
 * Equations, with R_C the current rate, R_T the target rate:
 *   CNP (eq. 1):          R_T = R_C; R_C = R_C (1 - alpha/2); alpha = (1 - g) alpha + g
 *   alpha timer (eq. 2):  no CNP for K: alpha = (1 - g) alpha
 *   fast recovery (eq. 3): R_C = (R_T + R_C) / 2
 *   additive (eq. 4):     R_T = R_T + R_AI;      R_C = (R_T + R_C) / 2
 *   hyper:                R_T = R_T + i R_HAI;   R_C = (R_T + R_C) / 2
 * A rate-increase event comes from the timer (every T) or the byte counter
 * (every B bytes sent); each counts its own events since the last CNP (t, bc).
 * The stage of an event, after counting it:
 *   max(t, bc) <= F            fast recovery (the paper's "F successive iterations")
 *   min(t, bc) >  F            hyper increase, i = min(t, bc) - F
 *   otherwise                  additive increase
 * Clamps: a cut never goes below min_rate; R_T and R_C never exceed max_rate.
 */
#ifndef CC_DCQCN_H
#define CC_DCQCN_H

#include <stddef.h>
#include <stdint.h>

/** Every reaction-point parameter; cc_dcqcn_params_default() gives the paper's. */
struct cc_dcqcn_params {
	double max_rate_bps;   /* line rate: the start rate and the increase clamp */
	double min_rate_bps;   /* floor of a cut */
	double rai_bps;	       /* R_AI: additive step of R_T */
	double rhai_bps;       /* R_HAI: hyper step of R_T (times i) */
	double g;	       /* alpha gain */
	double alpha_init;     /* alpha of a new flow */
	uint64_t alpha_ns;     /* K: alpha decays after this long without a CNP */
	uint64_t timer_ns;     /* T: rate-increase timer period */
	uint64_t byte_counter; /* B: bytes sent per byte-counter event */
	uint32_t fr_steps;     /* F: fast recovery iterations */
};

/** Rate-increase stage: the last increase applied (NONE before any). */
enum cc_dcqcn_stage {
	CC_DCQCN_NONE,
	CC_DCQCN_FAST_RECOVERY,
	CC_DCQCN_ADDITIVE,
	CC_DCQCN_HYPER,
	CC_DCQCN_STAGE_COUNT,
};

extern const char *const cc_dcqcn_stage_name[CC_DCQCN_STAGE_COUNT];

/** Per-flow state. Counters are totals since cc_dcqcn_init(). */
struct cc_dcqcn {
	const struct cc_dcqcn_params *p; /* not copied: the device's, shared */
	double rc_bps;			 /* R_C: current rate */
	double rt_bps;			 /* R_T: target rate */
	double alpha;
	uint32_t t_count;      /* timer events since the last CNP */
	uint32_t bc_count;     /* byte-counter events since the last CNP */
	uint64_t bytes;	       /* sent since the last byte-counter event or CNP */
	uint64_t alpha_due_ns; /* next alpha decay */
	uint64_t timer_due_ns; /* next rate-increase timer event */
	enum cc_dcqcn_stage stage;
	/* counters */
	uint64_t cnps;
	uint64_t alpha_decays;
	uint64_t increases[CC_DCQCN_STAGE_COUNT];
};

/** The paper's parameters (see cc_dcqcn.c for the source of each value). */
void cc_dcqcn_params_default(struct cc_dcqcn_params *p);

/**
 * Check @p p: rates positive with min <= max, 0 < g <= 1, 0 <= alpha_init <= 1,
 * K, T, B and F non-zero. @return 0 or -EINVAL (reason in @p err when non-NULL).
 */
int cc_dcqcn_params_check(const struct cc_dcqcn_params *p, char *err, size_t errlen);

/**
 * Parse "key=value[,key=value...]" over @p p (keys not given keep their value):
 * max_rate, min_rate, rai, rhai (bits/s, suffixes K M G: 40G, 100M),
 * g (decimal or "1/256"), alpha_init, alpha_us, timer_us, byte_counter (bytes,
 * suffixes K M G as powers of 1000), fr_steps. The result is checked.
 * @return 0, or -EINVAL on an unknown key, a bad value or a failed check; @p err
 * names the key. @p p is left unchanged on error.
 */
int cc_dcqcn_params_parse(struct cc_dcqcn_params *p, const char *args, char *err, size_t errlen);

/**
 * Set one key of cc_dcqcn_params_parse() (not checked against the others).
 * @return 0, or -EINVAL (an unknown key or a bad value, named in @p err).
 */
int cc_dcqcn_params_set(struct cc_dcqcn_params *p, const char *key, const char *val, char *err,
			size_t errlen);

/** A new flow at max_rate with alpha_init, its timers armed from @p now_ns. */
void cc_dcqcn_init(struct cc_dcqcn *f, const struct cc_dcqcn_params *p, uint64_t now_ns);

/** A CNP for this flow (eq. 1); both timers and the byte counter restart. */
void cc_dcqcn_on_cnp(struct cc_dcqcn *f, uint64_t now_ns);
/** @p bytes sent: byte-counter events for every B bytes. @return events fired. */
unsigned int cc_dcqcn_on_sent(struct cc_dcqcn *f, uint64_t bytes);
/** The alpha timer fired (eq. 2). */
void cc_dcqcn_alpha_timer(struct cc_dcqcn *f);
/** The rate-increase timer fired: one increase event. */
void cc_dcqcn_rate_timer(struct cc_dcqcn *f);
/**
 * Fire every alpha and rate-increase timer due at or before @p now_ns, in time
 * order (a flow polled late catches up). @return timer events fired.
 */
unsigned int cc_dcqcn_advance(struct cc_dcqcn *f, uint64_t now_ns);

#endif /* CC_DCQCN_H */
