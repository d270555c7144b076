/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress thread keeps its hands off the device while the application
 * calls in: ibv_post_send() and ibv_post_recv() stamp the call as
 * ibv_poll_cq() does (a client that only posts, like ib_write_bw's between
 * its polls, would otherwise have the thread take the device lock from under
 * its posts). White-box: it reads the thread's poll counter behind the
 * context (lib/ibverbs/ibv_internal.h), one process on a loopback bluesim,
 * with the hands-off stretched to 1 s (ORDK_IBV_HANDS_OFF_US) so that no
 * scheduling delay can pass for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "ibv_internal.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t
polls(struct ov_dev *d)
{
	return atomic_load(&d->thread_polls);
}

/* Until the thread polls again (the last stamp's hands-off is over), bounded. */
static void
thread_polling(struct ov_dev *d)
{
	uint64_t p0 = polls(d);

	for (double end = now_s() + 10; polls(d) == p0 && now_s() < end;)
		usleep(1000);
	cr_assert_gt(polls(d), p0, "the progress thread never polled");
}

/*
 * After @p what's call the thread must keep off for the hands-off (1 s):
 * over 300 ms it may finish at most the one poll it was inside of.
 */
static void
keeps_off(struct ov_dev *d, const char *what)
{
	uint64_t p0 = polls(d), p1;

	usleep(300 * 1000);
	p1 = polls(d);
	cr_assert_leq(p1 - p0, 1, "after %s the progress thread polled %lu times in 300 ms", what,
		      (unsigned long)(p1 - p0));
}

Test(ibverbs_progress, posts_keep_the_thread_off)
{
	struct ibv_device **l;
	struct ibv_context *c;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ov_dev *d;
	static char buf[4096];
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_sge sge = { (uintptr_t)buf, 64, 0 };
	struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND },
			   *bsw;
	struct ibv_wc wc;

	setenv("ORDK_IBV_HANDS_OFF_US", "1000000", 1);
	l = ibv_get_device_list(NULL);
	cr_assert_not_null(l);
	c = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	cr_assert_not_null(c);
	d = ov_dev_of(c);
	pd = ibv_alloc_pd(c);
	cq = ibv_create_cq(c, 8, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	cr_assert(pd != NULL && cq != NULL && mr != NULL);
	sge.lkey = mr->lkey;
	ia.send_cq = ia.recv_cq = cq;
	qp = ibv_create_qp(pd, &ia);
	cr_assert_not_null(qp);
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_ACCESS_FLAGS), 0);

	/* the reference: a poll keeps it off */
	thread_polling(d);
	cr_assert_eq(ibv_poll_cq(cq, 1, &wc), 0);
	keeps_off(d, "ibv_poll_cq");
	thread_polling(d);
	cr_assert_eq(ibv_post_recv(qp, &rw, &brw), 0);
	keeps_off(d, "ibv_post_recv");
	thread_polling(d);
	/* refused in INIT (a send needs RTS), but the application did call in */
	cr_assert_neq(ibv_post_send(qp, &sw, &bsw), 0);
	keeps_off(d, "ibv_post_send");

	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
	cr_assert_eq(ibv_close_device(c), 0);
}

/* Until the thread polls again, at most @p seconds. @return whether it did. */
static bool
polls_within(struct ov_dev *d, double seconds)
{
	uint64_t p0 = polls(d);

	for (double end = now_s() + seconds; polls(d) == p0 && now_s() < end;)
		usleep(1000);
	return polls(d) > p0;
}

/*
 * An application that arms a CQ, or waits in ibv_get_cq_event(), no longer
 * drives the device: the thread must poll at once, not after the hands-off
 * of its last verb (here 10 s; the waits allow 3 s). It did not: in
 * ib_send_lat -e each SEND waited the hands-off (20 us) before anything
 * polled for it.
 */
Test(ibverbs_progress, waiting_for_an_event_hands_the_device_back)
{
	struct ibv_device **l;
	struct ibv_context *c;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ecq;
	struct ov_dev *d;
	struct ibv_wc wc;
	void *ctx;

	setenv("ORDK_IBV_HANDS_OFF_US", "10000000", 1);
	l = ibv_get_device_list(NULL);
	cr_assert_not_null(l);
	c = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	cr_assert_not_null(c);
	d = ov_dev_of(c);
	ch = ibv_create_comp_channel(c);
	cr_assert_not_null(ch);
	cq = ibv_create_cq(c, 8, NULL, ch, 0);
	cr_assert_not_null(cq);

	thread_polling(d);
	cr_assert_eq(ibv_poll_cq(cq, 1, &wc), 0);
	keeps_off(d, "ibv_poll_cq");
	cr_assert_eq(ibv_req_notify_cq(cq, 0), 0);
	cr_assert(polls_within(d, 3), "the thread kept off after ibv_req_notify_cq");

	cr_assert_eq(ibv_poll_cq(cq, 1, &wc), 0);
	keeps_off(d, "ibv_poll_cq");
	/* a non-blocking channel: ibv_get_cq_event() returns at once, and hands back */
	cr_assert_eq(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	cr_assert_eq(ibv_get_cq_event(ch, &ecq, &ctx), -1);
	cr_assert_eq(errno, EAGAIN);
	cr_assert(polls_within(d, 3), "the thread kept off after ibv_get_cq_event");

	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_destroy_comp_channel(ch), 0);
	cr_assert_eq(ibv_close_device(c), 0);
}
