/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forged atomic requests (issue 12 item 6): right QPNs, a request id far
 * from the responder's expected one. Ignored and counted, never executed,
 * never adopted: the legitimate requester's atomics still go through.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "wire_common.h"

#define LEN (1u << 20)

static void
forge(struct wire_env *w, uint32_t req_id, uint64_t add)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_ATOMIC_REQ };
	uint64_t before = wire_qp_stats(w, 1).atomics_ignored;

	m.atomic_req.req_id = req_id;
	m.atomic_req.op = BLUE_CTRL_ATOMIC_FETCH_AND_ADD;
	m.atomic_req.raddr = (uint64_t)(uintptr_t)w->p.s[1].buf;
	m.atomic_req.rkey = w->p.s[1].mr->rkey;
	m.atomic_req.compare_add = add;
	wire_inject_ctrl(w, 1, &m);
	/* handled: counted as ignored (before the fix: executed, nothing counted) */
	for (double end = test_now_s() + 5;
	     test_now_s() < end && wire_qp_stats(w, 1).atomics_ignored == before &&
	     wire_qp_stats(w, 1).atomics_executed == 0;)
		func_idle(&w->p, 0.001);
}

static void
fetch_add(struct wire_env *w, uint64_t id, uint64_t expect_orig)
{
	struct ordk_wc wc;
	uint64_t orig;

	cr_assert_eq(wire_post(w, 0, ORDK_WR_ATOMIC_FETCH_AND_ADD, 64, 0, 8, id, 0), 1);
	func_wait(&w->p, 0, &wc, 1, 30);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "FETCH_AND_ADD %lu: %s", (unsigned long)id,
		     ordk_wc_status_str(wc.status));
	memcpy(&orig, w->p.s[0].buf + 64, 8);
	cr_assert_eq(orig, expect_orig);
}

Test(atomic_forged, id_near_the_top)
{
	struct wire_env w;
	uint64_t v;

	wire_open(&w, LEN, NULL, 64);
	fetch_add(&w, 1, 0); /* the responder now expects id 1 */
	forge(&w, 0xFFFFF0u, 1000);
	forge(&w, 0xFFFFFFFFu, 1000);
	forge(&w, 1u << 23, 1000);
	for (uint64_t i = 0; i < 4; i++)
		fetch_add(&w, 2 + i, 1 + i);
	memcpy(&v, w.p.s[1].buf, 8);
	cr_assert_eq(v, 5, "a forged request executed (%lu)", (unsigned long)v);
	cr_assert_eq(wire_qp_stats(&w, 1).atomics_ignored, 3);
	cr_assert_eq(wire_qp_stats(&w, 1).atomics_executed, 5);
	wire_close(&w);
}

/* A forged request carrying an id the responder already answered gets the saved answer. */
Test(atomic_forged, replayed_id_never_executes)
{
	struct wire_env w;
	uint64_t v;

	wire_open(&w, LEN, NULL, 64);
	fetch_add(&w, 1, 0);
	fetch_add(&w, 2, 1);
	forge(&w, 0, 1000);
	for (double end = test_now_s() + 5;
	     test_now_s() < end && wire_qp_stats(&w, 1).atomics_replayed == 0;)
		func_idle(&w.p, 0.001);
	cr_assert_eq(wire_qp_stats(&w, 1).atomics_replayed, 1);
	fetch_add(&w, 3, 2);
	memcpy(&v, w.p.s[1].buf, 8);
	cr_assert_eq(v, 3);
	wire_close(&w);
}
