/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * READs against a peer that is busy itself: the READ's timer answers only
 * to its own answer (issue 12 item 4), READ resources (item 5), and no
 * recovery on a clean wire when READ answers and WRITEs interleave (item 14).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "verbs_internal.h"
#include "wire_common.h"

#define LEN	 (8u << 20)
#define PEER_OFF (4u << 20) /* side 1 writes into side 0's upper half */
#define WR_LEN	 4096u

/*
 * Side 1 keeps up to 16 WRITEs in flight to side 0 while side 0 waits for
 * one completion; @return whether it came within @p seconds (in *wc).
 */
static bool
wait_while_peer_writes(struct wire_env *w, struct ordk_wc *wc, double seconds)
{
	uint64_t posted = 0, done = 0;
	struct ordk_wc c[16];

	for (double end = test_now_s() + seconds; test_now_s() < end;) {
		int k;

		while (posted - done < 16) {
			size_t off = PEER_OFF + (posted % 64) * WR_LEN;

			cr_assert_eq(wire_post(w, 1, ORDK_WR_RDMA_WRITE, off, off, WR_LEN, posted, 0), 1);
			posted++;
		}
		ordk_dev_poll(w->p.s[0].dev, 64);
		ordk_dev_poll(w->p.s[1].dev, 64);
		k = ordk_cq_poll(w->p.s[1].cq, c, 16);
		cr_assert_geq(k, 0);
		for (int i = 0; i < k; i++)
			cr_assert_eq(c[i].status, ORDK_WC_SUCCESS, "the peer's WRITE: %s",
				     ordk_wc_status_str(c[i].status));
		done += (uint64_t)k;
		if (ordk_cq_poll(w->p.s[0].cq, wc, 1) == 1)
			return true;
	}
	return false;
}

/* A READ with a bad rkey fails, also while the peer's WRITEs keep arriving. */
Test(read_timer, bad_rkey_during_peer_writes, .timeout = 60)
{
	struct wire_env w;
	struct ordk_wc wc;

	wire_open(&w, LEN, NULL, 256);
	cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_READ, 0, 0, 4096, 77,
			       w.p.s[1].mr->rkey ^ 0x5A),
		     1);
	cr_assert(wait_while_peer_writes(&w, &wc, 10), "the READ never completed");
	cr_assert_eq(wc.wr_id, 77);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS);
	wire_close(&w);
}

/* A lost READ request is asked for again, also while the peer's WRITEs keep arriving. */
Test(read_timer, lost_request_during_peer_writes, .timeout = 60)
{
	struct wire_env w;
	struct ordk_wc wc;
	struct ordk_stats st;

	wire_open(&w, LEN, NULL, 256);
	for (uint32_t i = 0; i < 4096; i++)
		w.p.s[1].buf[i] = (uint8_t)(i * 7 + 3);
	/* the READ request (and nothing else of side 0) is lost on the wire */
	cr_assert_eq(ordk_dev_set_faults(w.p.s[0].dev, "drop-tx:1"), 0);
	cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_READ, 0, 0, 4096, 78, 0), 1);
	for (int i = 0; i < 50; i++)
		ordk_dev_poll(w.p.s[0].dev, 64);
	cr_assert_eq(ordk_dev_set_faults(w.p.s[0].dev, "drop-tx:0"), 0);
	cr_assert(wait_while_peer_writes(&w, &wc, 10), "the READ never completed");
	cr_assert_eq(wc.wr_id, 78);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	for (uint32_t i = 0; i < 4096; i++)
		cr_assert_eq(w.p.s[0].buf[i], (uint8_t)(i * 7 + 3), "byte %u", i);
	st = wire_qp_stats(&w, 0);
	cr_assert_geq(st.timeouts, 1, "recovered without the timer?");
	wire_close(&w);
}
