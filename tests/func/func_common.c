/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <rte_errno.h>

#include <rte_ethdev.h>

#include "func_common.h"
#include "sim_host.h"

void
func_pair_open(struct func_pair *p, size_t len, const char *extra)
{
	func_pair_open_guarded(p, len, extra, 0);
}

void
func_pair_open_guarded(struct func_pair *p, size_t len, const char *extra, size_t guard)
{
	static int n;
	static struct rte_mempool *mp; /* one per process: a test may open many pairs */
	uint16_t p0, p1;
	char name[32], args[256];

	memset(p, 0, sizeof(*p));
	p->guard = guard;
	test_eal_init(NULL);
	if (mp == NULL)
		mp = test_pool("fpool", 8191);
	snprintf(name, sizeof(name), "fr%d_", n++);
	test_ring_pair(name, true, &p0, &p1, p->rx_ring); /* others may inject */
	test_port_start(p0, mp);
	test_port_start(p1, mp);
	p->port[0] = p0;
	p->port[1] = p1;
	for (int i = 0; i < 2; i++) {
		struct func_side *s = &p->s[i];
		char mine[160] = "";
		const char *bar = extra ? strchr(extra, '|') : NULL;

		/* "a|b": devargs a for side 0 and b for side 1; no '|': both */
		if (extra != NULL && bar == NULL)
			snprintf(mine, sizeof(mine), ",%s", extra);
		else if (bar != NULL && i == 0 && bar > extra)
			snprintf(mine, sizeof(mine), ",%.*s", (int)(bar - extra), extra);
		else if (bar != NULL && i == 1 && bar[1] != '\0')
			snprintf(mine, sizeof(mine), ",%s", bar + 1);
		snprintf(args, sizeof(args), "bluesim,port=%u,mac=02:00:00:00:00:%02x,ip=10.0.0.%d%s%s",
			 i ? p1 : p0, i + 1, i + 1, mine, test_sim_devargs());
		s->base = test_aligned(1 << 21, len + 2 * guard);
		memset(s->base, FUNC_CANARY, len + 2 * guard);
		memset(s->base + guard, 0, len);
		/* a failed step leaves the later objects NULL: the checks name the first */
		ordk_env_ep_open(&s->ep, args, 65536, s->base + guard, len,
				 ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE |
					 ORDK_ACCESS_REMOTE_READ | ORDK_ACCESS_REMOTE_ATOMIC);
		cr_assert_not_null(s->dev, "ordk_dev_open(%s): %s", args, rte_strerror(rte_errno));
		cr_assert(s->pd && s->cq);
		cr_assert_not_null(s->mr, "mr_reg: %s", rte_strerror(rte_errno));
	}
}

unsigned int func_qp_timeout = 10;
unsigned int func_max_dest_rd_atomic = 16;

bool
func_pair_canaries_ok(const struct func_pair *p)
{
	for (int i = 0; i < 2; i++) {
		const struct func_side *s = &p->s[i];

		for (size_t k = 0; k < p->guard; k++) {
			size_t after = p->guard + s->len + k;

			if (s->base[k] != FUNC_CANARY || s->base[after] != FUNC_CANARY) {
				cr_log_error("side %d: canary byte %zu %s the buffer overwritten", i, k,
					     s->base[k] != FUNC_CANARY ? "before" : "after");
				return false;
			}
		}
	}
	return true;
}

long func_psn = -1;

uint32_t
func_first_psn(void)
{
	const char *e = getenv("ORDK_TEST_FIRST_PSN");
	char *end;
	unsigned long v;

	if (func_psn >= 0)
		return (uint32_t)func_psn;
	if (e == NULL || *e == '\0')
		return 0;
	v = strtoul(e, &end, 0);
	cr_assert(*end == '\0' && v <= 0xFFFFFFul, "ORDK_TEST_FIRST_PSN=%s: a 24-bit PSN", e);
	return (uint32_t)v;
}

void
func_connect(struct func_side *a, struct ordk_qp *qa, struct func_side *b, struct ordk_qp *qb,
	     enum ordk_mtu mtu)
{
	struct func_side *sides[2] = { a, b };
	struct ordk_qp *qps[2] = { qa, qb };
	uint32_t psn = func_first_psn();

	for (int i = 0; i < 2; i++) {
		struct ordk_qp_attr at = { .qp_state = ORDK_QPS_INIT,
					   .qp_access_flags = ORDK_ACCESS_LOCAL_WRITE |
							      ORDK_ACCESS_REMOTE_WRITE |
							      ORDK_ACCESS_REMOTE_READ |
							      ORDK_ACCESS_REMOTE_ATOMIC };
		const struct func_side *peer = sides[1 - i];

		cr_assert_eq(ordk_qp_modify(qps[i], &at, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
		at = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = mtu,
					    .dest_qp_num = ordk_qp_num(qps[1 - i]), .rq_psn = psn,
					    .dest_ip = peer->attr.ip, .dest_mac = peer->attr.mac,
					    .max_dest_rd_atomic = (uint8_t)func_max_dest_rd_atomic,
					    .min_rnr_timer = 12 };
		cr_assert_eq(ordk_qp_modify(qps[i], &at,
					    ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
						    ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
						    ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER),
			     0);
		/* timeout 10 (about 4 ms): a realistic RTO for one core carrying two models
		 * and their wire; the default (0: about 1 ms) is for real links */
		at = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .sq_psn = psn,
					    .timeout = (uint8_t)func_qp_timeout,
					    .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 16 };
		cr_assert_eq(ordk_qp_modify(qps[i], &at,
					    ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
						    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
						    ORDK_QP_MAX_QP_RD_ATOMIC),
			     0);
	}
}

void
func_pair_qps(struct func_pair *p, enum ordk_mtu mtu, uint32_t wr)
{
	for (int i = 0; i < 2; i++) {
		struct ordk_qp_init_attr ia = { .send_cq = p->s[i].cq, .recv_cq = p->s[i].cq,
						.max_send_wr = wr, .max_recv_wr = wr };

		p->s[i].qp = ordk_qp_create(p->s[i].pd, &ia);
		cr_assert_not_null(p->s[i].qp, "qp_create: %s", rte_strerror(rte_errno));
	}
	func_connect(&p->s[0], p->s[0].qp, &p->s[1], p->s[1].qp, mtu);
}

void
func_pair_close(struct func_pair *p)
{
	for (int i = 0; i < 2; i++) {
		struct func_side *s = &p->s[i];

		if (s->qp)
			cr_assert_eq(ordk_qp_destroy(s->qp), 0);
		/* MR, CQ, PD and device: each one's return checked */
		cr_assert_eq(ordk_env_ep_close(&s->ep), 0);
		free(s->base);
	}
	/* the build has 32 ethdev ports: a test opening many pairs needs them back */
	for (int i = 0; i < 2; i++) {
		rte_eth_dev_stop(p->port[i]);
		rte_eth_dev_close(p->port[i]);
	}
}

void
func_wait(struct func_pair *p, int side, struct ordk_wc *wc, int n, double seconds)
{
	double end = test_now_s() + seconds;
	int got = 0;

	while (got < n) {
		int k;

		ordk_dev_poll(p->s[1 - side].dev, 64);
		k = ordk_cq_poll(p->s[side].cq, wc + got, n - got);
		cr_assert_geq(k, 0);
		got += k;
		if (test_now_s() > end)
			cr_assert_fail("side %d: %d of %d completions after %.1f s", side, got, n,
				       seconds);
	}
}

uint64_t
func_xstat(struct ordk_dev *dev, const char *name)
{
	const char *names[256];
	uint64_t vals[256];
	int n = ordk_dev_xstats(dev, names, vals, 256);

	cr_assert_leq(n, 256, "%d xstats: more than the test's arrays", n);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return vals[i];
	cr_assert_fail("no xstat %s", name);
	return 0;
}

void
func_idle(struct func_pair *p, double seconds)
{
	double end = test_now_s() + seconds;

	while (test_now_s() < end) {
		ordk_dev_poll(p->s[0].dev, 64);
		ordk_dev_poll(p->s[1].dev, 64);
	}
}

unsigned int
func_fault_mixes(void)
{
	return test_sim_rtl() ? 2u : 1u;
}

const char *
func_fault_mix(char *buf, size_t n, const char *kinds, const char *rate, unsigned int mix)
{
	const char *left_out = func_fault_mixes() == 1 ? NULL : mix % 2 ? "dup" : "delay";
	size_t at = 0;

	buf[0] = '\0';
	for (const char *k = kinds; *k != '\0';) {
		size_t len = strcspn(k, ",");
		bool out = left_out != NULL && strlen(left_out) == len && strncmp(k, left_out, len) == 0;

		at += (size_t)snprintf(buf + at, at < n ? n - at : 0, "%s%.*s:%s", at ? "," : "",
				       (int)len, k, out ? "0" : rate);
		k += len + (k[len] == ',');
	}
	cr_assert_lt(at, n, "fault list too long for its buffer");
	return buf;
}
