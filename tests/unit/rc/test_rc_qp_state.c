/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP transition table (IBA 11.2.4 / ibverbs' RC attribute masks) and
 * what each transition tells the card and the transport: lib/verbs/verbs_qp.c
 * (the table, the checks) and the Blue driver's blue_qp.c (ManageQp,
 * the transport's transitions) included, the card command, the handle arena
 * and the transport stubbed (its calls are recorded).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../lib/verbs/verbs_qp.c"
#include "../../../drivers/rdma/blue/blue_qp.c"

int ordk_verbs_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

RC_STUB(blue_cc_qp_init);
RC_STUB(rc_read_keys_revoke_all);
RC_STUB(rc_ack_last_word);

static unsigned int manage_calls, manage_valid, manage_error;
static int manage_rc;
static char calls[512];

static void
called(const char *what)
{
	strncat(calls, what, sizeof(calls) - strlen(calls) - 1);
	strncat(calls, " ", sizeof(calls) - strlen(calls) - 1);
}

int
blue_cmd_exec(struct blue_hw *dev, const struct blue_cmd *cmd)
{
	(void)dev;
	manage_calls++;
	manage_valid = cmd->qp.is_valid;
	manage_error = cmd->qp.is_error;
	return manage_rc;
}

bool
verbs_handle_live(const void *h, size_t magic_off, uint32_t magic)
{
	(void)magic_off;
	(void)magic;
	return h != NULL;
}

RC_STUB(verbs_handle_alloc);
RC_STUB(verbs_handle_free);
RC_STUB(verbs_trace_qp_init);
RC_STUB(verbs_trace_qp_fini);
RC_STUB(verbs_trace_add);
RC_STUB(rc_qp_init);

/* the rc calls whose order the tests check */
#define CALLED_STUB(name)                  \
	void name(struct blue_qp *qp)      \
	{                                  \
		(void)qp;                  \
		called(#name);             \
	}
CALLED_STUB(rc_qp_fini)
CALLED_STUB(rc_qp_set_timeout)
CALLED_STUB(rc_qp_reset)
CALLED_STUB(rc_qp_flush)
CALLED_STUB(rc_qp_to_rtr)
CALLED_STUB(rc_qp_to_rts)
CALLED_STUB(rc_activate)

RC_STUB(rc_timer_set);
RC_STUB(rc_post_send);
RC_STUB(rc_post_recv);
RC_STUB(blue_ud_qp_init);
RC_STUB(blue_ud_qp_fini);
RC_STUB(blue_ud_modify);
RC_STUB(blue_ud_flush);
RC_STUB(blue_ud_info);
RC_STUB(blue_ud_post_send);
RC_STUB(blue_ud_post_recv);
RC_STUB(rc_state_name);
RC_STUB(verbs_stats_add);
RC_STUB(ordk_mr_reg); /* the inline area (no QP here asks for one) */
RC_STUB(ordk_mr_dereg);
RC_STUB(rc_mr_check_pd);

/* the driver's QP calls, as the Blue driver's ops table gives them */
static const struct ordk_dev_ops ops = {
	.qp_check = blue_qp_check, .qp_modify = blue_qp_modify, .qp_flush = blue_qp_flush,
	.qp_info = blue_qp_info, .post_send = blue_post_send, .post_recv = blue_post_recv,
	.post_done = blue_post_done, .qp_create = blue_qp_create, .qp_destroy = blue_qp_destroy,
};

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	dev.vdev.ops = &ops;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RESET;
	manage_calls = 0;
	manage_rc = 0;
	calls[0] = '\0';
}

TestSuite(rc_qp_state, .init = setup);

#define RTR_MASK (ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU | ORDK_QP_DEST_QPN | \
		  ORDK_QP_RQ_PSN | ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER)
#define RTS_MASK (ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT | ORDK_QP_RETRY_CNT | \
		  ORDK_QP_RNR_RETRY | ORDK_QP_MAX_QP_RD_ATOMIC)

static const struct ordk_qp_attr good = {
	.qp_access_flags = ORDK_ACCESS_REMOTE_WRITE, .path_mtu = ORDK_MTU_1024,
	.dest_qp_num = 0x123, .rq_psn = 100, .sq_psn = 200, .dest_ip = 0x0a000002,
	.dest_mac = 0x020000000002ull, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
	.min_rnr_timer = 12, .max_rd_atomic = 4, .max_dest_rd_atomic = 4 };

static int
to(enum ordk_qp_state s, unsigned int mask)
{
	struct ordk_qp_attr a = good;

	a.qp_state = s;
	return ordk_qp_modify(blue_qp_handle(&qp), &a, mask);
}

Test(rc_qp_state, the_legal_transitions_of_rc)
{
	/* [cur][next]: legal with the required mask (RESET and ERR from anywhere) */
	static const bool legal[ORDK_QPS_COUNT][ORDK_QPS_COUNT] = {
		[ORDK_QPS_RESET] = { [ORDK_QPS_RESET] = 1, [ORDK_QPS_INIT] = 1, [ORDK_QPS_ERR] = 1 },
		[ORDK_QPS_INIT] = { [ORDK_QPS_RESET] = 1, [ORDK_QPS_INIT] = 1, [ORDK_QPS_RTR] = 1,
				    [ORDK_QPS_ERR] = 1 },
		[ORDK_QPS_RTR] = { [ORDK_QPS_RESET] = 1, [ORDK_QPS_RTS] = 1, [ORDK_QPS_ERR] = 1 },
		[ORDK_QPS_RTS] = { [ORDK_QPS_RESET] = 1, [ORDK_QPS_RTS] = 1, [ORDK_QPS_ERR] = 1 },
		[ORDK_QPS_ERR] = { [ORDK_QPS_RESET] = 1, [ORDK_QPS_ERR] = 1 },
	};

	for (int c = 0; c < ORDK_QPS_COUNT; c++)
		for (int n = 0; n < ORDK_QPS_COUNT; n++)
			cr_assert_eq(transition(false, (enum ordk_qp_state)c, (enum ordk_qp_state)n).legal,
				     legal[c][n], "%s -> %s", ordk_qp_state_str((enum ordk_qp_state)c),
				     ordk_qp_state_str((enum ordk_qp_state)n));
	cr_assert_eq(transition(false, ORDK_QPS_INIT, ORDK_QPS_RTR).required, RTR_MASK);
	cr_assert_eq(transition(false, ORDK_QPS_RTR, ORDK_QPS_RTS).required, RTS_MASK);
}

/* UD (IBA's UD column): the same legal pairs, with no peer, PSN received or timer in any mask */
Test(rc_qp_state, the_transitions_of_ud)
{
	static const unsigned int init = ORDK_QP_STATE | ORDK_QP_PKEY_INDEX | ORDK_QP_PORT |
					 ORDK_QP_QKEY;

	for (int c = 0; c < ORDK_QPS_COUNT; c++)
		for (int n = 0; n < ORDK_QPS_COUNT; n++) {
			struct qp_transition u = transition(true, (enum ordk_qp_state)c,
							    (enum ordk_qp_state)n);

			cr_assert_eq(u.legal, transition(false, (enum ordk_qp_state)c,
							 (enum ordk_qp_state)n).legal);
			cr_assert_eq((u.required | u.optional) &
					     (ORDK_QP_AV | ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
					      ORDK_QP_TIMEOUT | ORDK_QP_ACCESS_FLAGS),
				     0u, "%d -> %d", c, n);
		}
	cr_assert_eq(transition(true, ORDK_QPS_RESET, ORDK_QPS_INIT).required, init);
	cr_assert_eq(transition(true, ORDK_QPS_INIT, ORDK_QPS_RTR).required, ORDK_QP_STATE);
	cr_assert_eq(transition(true, ORDK_QPS_RTR, ORDK_QPS_RTS).required,
		     ORDK_QP_STATE | ORDK_QP_SQ_PSN);
	cr_assert(transition(true, ORDK_QPS_RTS, ORDK_QPS_RTS).optional & ORDK_QP_QKEY);
}

Test(rc_qp_state, each_transition_tells_the_card_and_the_transport)
{
	cr_assert_eq(to(ORDK_QPS_INIT, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
	cr_assert_eq(manage_calls, 1);
	cr_assert_eq(manage_valid, 0, "the card's context is valid only in RTR and RTS");
	cr_assert_eq(to(ORDK_QPS_RTR, RTR_MASK), 0);
	cr_assert_eq(manage_valid, 1);
	cr_assert(strstr(calls, "rc_qp_to_rtr") != NULL, "%s", calls);
	cr_assert_eq(to(ORDK_QPS_RTS, RTS_MASK), 0);
	cr_assert(strstr(calls, "rc_qp_to_rts") != NULL, "%s", calls);
	cr_assert_eq(qp.vqp.attr.qp_state, ORDK_QPS_RTS);
	cr_assert_eq(to(ORDK_QPS_ERR, ORDK_QP_STATE), 0);
	cr_assert_eq(manage_error, 1);
	cr_assert(strstr(calls, "rc_qp_flush") != NULL, "%s", calls);
	cr_assert_eq(to(ORDK_QPS_RESET, ORDK_QP_STATE), 0);
	cr_assert(strstr(calls, "rc_qp_reset") != NULL, "%s", calls);
	cr_assert_eq(manage_calls, 5);
}

Test(rc_qp_state, refused_transitions_change_nothing)
{
	cr_assert_eq(to(ORDK_QPS_RTS, ORDK_QP_STATE), -EINVAL, "RESET -> RTS");
	cr_assert_eq(to(ORDK_QPS_INIT, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
	cr_assert_eq(to(ORDK_QPS_RTR, RTR_MASK & ~ORDK_QP_AV), -EINVAL, "a required bit missing");
	cr_assert_eq(to(ORDK_QPS_RTR, RTR_MASK | ORDK_QP_SQ_PSN), -EINVAL, "a bit RTR does not take");
	cr_assert_eq(qp.vqp.attr.qp_state, ORDK_QPS_INIT);
	cr_assert_eq(manage_calls, 1, "the card heard of none of them");
	manage_rc = -ETIMEDOUT;
	cr_assert_eq(to(ORDK_QPS_RTR, RTR_MASK), -ETIMEDOUT, "the card did not confirm");
	cr_assert_eq(qp.vqp.attr.qp_state, ORDK_QPS_INIT);
	cr_assert_eq(qp.vqp.attr.dest_qp_num, 0, "the attributes are as before");
}
