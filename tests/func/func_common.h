/* SPDX-License-Identifier: BSD-3-Clause */
/* Functional-test helpers: two bluesim devices on a net_ring pair, connected RC QPs. */
#ifndef FUNC_COMMON_H
#define FUNC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ring.h>

#include "ordk_env.h"
#include "ordk_verbs.h"

struct func_side {
	ORDK_ENV_EP_MEMBER; /* dev, attr, pd, cq, mr, buf, len */
	struct ordk_qp *qp;
	uint8_t *base; /* the allocation: guard bytes, buf, guard bytes */
};

struct func_pair {
	struct func_side s[2];
	uint16_t port[2]; /* the net_ring ports, closed with the pair */
	struct rte_ring *rx_ring[2]; /* side i's RX ring (multi-producer: others may inject) */
	size_t guard; /* canary bytes before and after each side's buffer */
};

/** The canary pattern func_pair_open_guarded() writes around each buffer. */
#define FUNC_CANARY 0xA5

/**
 * EAL, ring pair, devices, PDs, CQs, buffers of @p len registered with every access.
 * @p extra_devargs: for both devices, or "side0|side1" for each.
 */
void func_pair_open(struct func_pair *p, size_t len, const char *extra_devargs);
/**
 * func_pair_open() with @p guard canary bytes (FUNC_CANARY) before and after
 * each side's buffer, outside its MR; func_pair_canaries_ok() checks them.
 */
void func_pair_open_guarded(struct func_pair *p, size_t len, const char *extra_devargs,
			    size_t guard);
/** Whether every canary byte around both buffers is intact (reports the first bad one). */
bool func_pair_canaries_ok(const struct func_pair *p);
/** The ACK timeout func_connect() gives QPs (IBA encoding; default 10, about 4 ms). */
extern unsigned int func_qp_timeout;
/** max_dest_rd_atomic both QPs get at RTR (default 16). */
extern unsigned int func_max_dest_rd_atomic;

/** One of the device's counters (ordk_dev_stats()). */
#define FUNC_DEV_STAT(dev, field)                                    \
	({                                                           \
		struct ordk_stats st_;                               \
		cr_assert_eq(ordk_dev_stats((dev), &st_), 0);        \
		st_.field;                                           \
	})

/** The device's xstat @p name (ordk_dev_xstats()); the test fails if there is none. */
uint64_t func_xstat(struct ordk_dev *dev, const char *name);

/**
 * A Criterion suite whose every test finds `p` open: a pair with buffers of
 * @p len (no devargs, no QPs), opened before each test and closed after it.
 */
#define FUNC_PAIR_SUITE(suite, len, seconds)                                      \
	static struct func_pair p;                                                \
	static void suite##_init(void)                                            \
	{                                                                         \
		func_pair_open(&p, (len), NULL);                                  \
	}                                                                         \
	static void suite##_fini(void)                                            \
	{                                                                         \
		func_pair_close(&p);                                              \
	}                                                                         \
	TestSuite(suite, .init = suite##_init, .fini = suite##_fini, .timeout = (seconds))

/** A QP's progress (ordk_qp_info()). */
#define FUNC_QP_INFO(qp, field)                                      \
	({                                                           \
		struct ordk_qp_info i_;                              \
		cr_assert_eq(ordk_qp_info((qp), &i_), 0);            \
		i_.field;                                            \
	})
/** QPs on both sides connected RESET -> RTS with path MTU @p mtu. */
void func_pair_qps(struct func_pair *p, enum ordk_mtu mtu, uint32_t wr);
void func_pair_close(struct func_pair *p);
/** Poll both devices until @p n completions arrive on side @p side's CQ (or fail the test). */
void func_wait(struct func_pair *p, int side, struct ordk_wc *wc, int n, double seconds);
/**
 * Fault mixes a test runs for "every fault at once": 1, or 2 on rtl=1, where
 * a duplicate one copy of which is delayed locks the RTL's bitmap unit and no
 * requester can prevent it (fault_loss::late_duplicate): there one mix goes
 * without delay, the other without duplication.
 */
unsigned int func_fault_mixes(void);
/**
 * A bluesim fault list into @p buf: each of the comma-separated @p kinds at
 * @p rate, on rtl=1 with "delay" (even @p mix) or "dup" (odd) at 0.
 * @return buf.
 */
const char *func_fault_mix(char *buf, size_t n, const char *kinds, const char *rate,
			   unsigned int mix);
/** Poll both devices for @p seconds (checks that nothing more arrives). */
void func_idle(struct func_pair *p, double seconds);
/** The first PSN func_connect() gives both QPs both ways; -1 (default): func_first_psn(). */
extern long func_psn;
/**
 * The first PSN func_connect() gives: func_psn when set, else
 * ORDK_TEST_FIRST_PSN (decimal or 0x hex), else 0.
 */
uint32_t func_first_psn(void);
/** Connect one QP on each side (used for many-QP tests). */
void func_connect(struct func_side *a, struct ordk_qp *qa, struct func_side *b, struct ordk_qp *qb,
		  enum ordk_mtu mtu);

#endif
