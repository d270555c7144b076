/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command queue as the QP's error transition sees it, for unit tests
 * that include rc_qp.c: blue_cmd_submit() accepts only ManageQp (error) and
 * returns submit_rc (the command's sequence 42, or an error); blue_cmd_done()
 * reaps sequence 42 once cmd_done is set, with cmd_ok as the card's answer.
 * Include it once, after the .c files under test.
 */
#ifndef ORDK_TEST_RC_STUB_CMD_H
#define ORDK_TEST_RC_STUB_CMD_H

static int64_t submit_rc;     /* what blue_cmd_submit returns */
static unsigned int submits;  /* ManageQp (error) submitted */
static bool cmd_done, cmd_ok; /* the card answered; its answer */

int64_t
blue_cmd_submit(struct blue_hw *dev, const struct blue_cmd *cmd)
{
	(void)dev;
	cr_assert_eq(cmd->hdr.opcode, BLUE_CMD_MANAGE_QP);
	cr_assert(cmd->qp.is_error && !cmd->qp.is_valid, "ManageQp (error)");
	submits++;
	return submit_rc;
}

bool
blue_cmd_done(const struct blue_hw *dev, uint32_t seq, bool *ok)
{
	(void)dev;
	cr_assert_eq(seq, 42u, "reaps the command it submitted");
	if (ok != NULL)
		*ok = cmd_ok;
	return cmd_done;
}

struct blue_cmd
blue_manage_qp_cmd(const struct blue_qp *qp, bool valid, bool error)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };

	c.qp.qpn = qp->vqp.qpn;
	c.qp.is_valid = valid;
	c.qp.is_error = error;
	return c;
}

#endif
